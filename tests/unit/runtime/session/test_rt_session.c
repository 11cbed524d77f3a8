/* test_rt_session: drives rt_execute directly: persistence across
 * cells, results, compile errors, faults caught at the boundary, display. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_check.h"
#include "cm_log.h"
#include "rt_session.h"


static json_t *run(const char *code)
{
    return run_next(code);
}

/* The fixture (SESSION_TEST_MAIN_SETUP runs it first): the names the
 * tests below use (each defines again what it counts on). */
static void define_shared(void)
{
    EXPECT("int x = 42;\nstruct point { double x, y; };\n"
           "int keep = 123;\nint crash(int *p) { return *p; }", NULL);
}

static void test_persistence(void)
{
    EXPECT("int x = 40;", NULL);
    EXPECT("x += 2;", NULL);
    EXPECT("x", "42");
    EXPECT("int add(int a, int b) { return a + b; }", NULL);
    EXPECT("struct point { double x, y; };\ntypedef struct point point_t;", NULL);
    EXPECT("add(x, 1)", "43");
    EXPECT("point_t p = {1.5, 2};\nstruct point q;\nq.x = p.x * 2;", NULL);
    EXPECT("q.x + p.y", "5");
    /* floating-point operands that are both earlier cells' variables */
    EXPECT("double fa = 1, fb = 2; float ff = 0.25f; double big[1 << 20];", NULL);
    EXPECT("fa + fb", "3");
    EXPECT("fa * fb + fb / fa - ff", "3.75");
    EXPECT("big[7] = fb; big[7] * fb", "4");
    /* rebinding */
    EXPECT("int y = 1;", NULL);
    EXPECT("double y = 2.5;", NULL);
    EXPECT("y", "2.5");
    /* re-running a cell */
    EXPECT("int counter = 0;\nint next(void) { return ++counter; }", NULL);
    EXPECT("int counter = 0;\nint next(void) { return ++counter; }", NULL);
    EXPECT("next(); next()", "2");
    /* non-constant initialisers run in order */
    EXPECT("int n = atoi(\"42\");\ndouble *v = malloc(n * sizeof *v);\nv[0] = n;", NULL);
    EXPECT("n * 2", "84");
    EXPECT("v[0]", "42");
    /* macros and includes persist */
    EXPECT("#include <ctype.h>\n#define SQUARE(a) ((a) * (a))", NULL);
    EXPECT("SQUARE(toupper('a') - 'A' + 3)", "9");
    /* static is dropped so later cells can use it */
    EXPECT("static int hidden = 7;\nstatic int twice(int a) { return 2 * a; }", NULL);
    EXPECT("twice(hidden)", "14");
    /* enums and arrays */
    EXPECT("enum color { RED, GREEN = 5, BLUE };\nint arr[3] = {1, 2, 3};", NULL);
    EXPECT("BLUE + arr[2]", "9");
    /* a function may be replaced */
    EXPECT("int add(int a, int b) { return a * b; }", NULL);
    EXPECT("add(6, 7)", "42");
}

/* a statement-only cell run again reuses its code while nothing it
 * compiles against changed */
static void test_reruns(void)
{
    rt_compile_stats_t before, after;
    EXPECT("int rr = 1;", NULL);
    EXPECT("rr + 1", "2");
    rt_session_stats(S, &before);
    EXPECT("rr + 1", "2");
    rt_session_stats(S, &after);
    CHECK(after.reruns == before.reruns + 1);
    EXPECT("rr = 41;", NULL);        /* statements change values, not code */
    EXPECT("rr + 1", "42");
    EXPECT("double rr = 0.5;", NULL); /* a new rr: compiled again */
    rt_session_stats(S, &before);
    EXPECT("rr + 1", "1.5");
    rt_session_stats(S, &after);
    CHECK(after.reruns == before.reruns);
    /* a static local would be shared by re-runs: such cells compile again */
    EXPECT("{ static int calls; calls++; printf(\"%d\", calls); }", NULL);
    rt_session_stats(S, &before);
    EXPECT("{ static int calls; calls++; printf(\"%d\", calls); }", NULL);
    rt_session_stats(S, &after);
    CHECK(after.reruns == before.reruns);
    /* a fault in re-run code names the running cell */
    EXPECT("int *rnull = 0;", NULL);
    json_t *r = run("*rnull = 1;");
    json_decref(r);
    char want[64];
    snprintf(want, sizeof want, "top-level code of cell %d", cell_no + 1);
    EXPECT_ERROR("*rnull = 1;", "SegmentationFault", want);
}

/* top-level items that open with a user macro are expanded first */
static void test_macro_items(void)
{
    EXPECT("#define REAL double\n#define DECLARE_TWO int m1 = 1; int m2 = 2;", NULL);
    EXPECT("REAL r = 2.5;", NULL);
    EXPECT("r * 2", "5");
    EXPECT("DECLARE_TWO", NULL);
    EXPECT("m1 + m2", "3");
    EXPECT("#define GETTER(name, v) int get_##name(void) { return v; }\nGETTER(answer, 42)", NULL);
    EXPECT("get_answer() + 1", "43");
    /* line numbers after an expanded item are the cell's own */
    EXPECT_ERROR("DECLARE_TWO\n\nint bad = nosuch;", "CompileError", "line 3");
}

static void test_results(void)
{
    EXPECT("x = 42;", NULL);
    EXPECT("3.14159", "3.14159");
    EXPECT("0.1 + 0.2", "0.30000000000000004");
    EXPECT("1.0f / 3", "0.33333334");
    EXPECT("(char)'A'", "'A' (65)");
    EXPECT("'A'", "65"); /* a character constant is an int in C */
    EXPECT("\"hi\\n\\\"there\\\"\"", "\"hi\\n\\\"there\\\"\"");
    EXPECT("(void *)0", "NULL");
    EXPECT("7u", "7");
    EXPECT("-5L", "-5");
    EXPECT("(_Bool)1", "true");
    EXPECT("sqrt(16.0) + strlen(\"abc\")", "7");
    EXPECT("int *ip = (int *)16;", NULL);
    EXPECT("ip", "0x10");
    EXPECT("struct point pt = {1, 2};", NULL);
    EXPECT("pt", "struct point {.x = 1, .y = 2}"); /* a struct value: type and members */
    EXPECT("typedef struct { int id; const char *name; double *data; float f; } rec_t;\n"
           "rec_t rec = {7, \"seven\", NULL, 0.5f};", NULL);
    EXPECT("rec", "rec_t {.id = 7, .name = \"seven\", .data = NULL, .f = 0.5}");
    /* arrays, char arrays as strings, nested structs; a fault half-way through
     * showing one leaves the next result intact */
    EXPECT("struct named { char name[8]; int v[3]; struct point at; } nm = {\"abc\", {1, 2, 3}, {4, 5}};",
           NULL);
    EXPECT("nm", "struct named {.name = \"abc\", .v = {1, 2, 3}, .at = {.x = 4, .y = 5}}");
    EXPECT("struct named *none = 0;", NULL);
    EXPECT_ERROR("*none", "SegmentationFault", "invalid memory access");
    EXPECT("nm.at", "struct {.x = 4, .y = 5}");
    EXPECT("rec_t make(void) { return rec; }", NULL);
    EXPECT("make()", "struct (32 bytes)"); /* the type of a call is not known: size only */
    EXPECT("printf(\"\")", "0");
    EXPECT("void hello(void) { }", NULL);
    EXPECT("hello()", NULL);
    EXPECT("int z = 3;\nz;", NULL);
    EXPECT("int main(void) { return 3; }", "3");
    EXPECT("int main(int argc, char **argv) { return argc - 1; }", NULL);
    EXPECT("for (int i = 0; i < 3; i++) { x++; }\nif (x > 0) x--; else x++;\nx", "44");
}

static void test_compile_errors(void)
{
    EXPECT("int intact = 44;", NULL);
    json_t *r = run("int a = 1;\nint b = a + yy;\n");
    CHECK_STR(status(r), "error");
    CHECK_STR(ename(r), "CompileError");
    char want[64];
    snprintf(want, sizeof want, "cell %d, line 2: 'yy' undeclared", cell_no);
    CHECK_STR(evalue(r), want);
    json_t *tb = json_object_get(error_of(r), "traceback");
    CHECK(json_array_size(tb) >= 3);
    snprintf(want, sizeof want, "cell %d, line 2, column 13: error: 'yy' undeclared", cell_no);
    CHECK_STR(json_string_value(json_array_get(tb, 0)), want);
    CHECK_STR(json_string_value(json_array_get(tb, 1)), "    int b = a + yy;");
    CHECK_STR(json_string_value(json_array_get(tb, 2)), "                ^");
    if (check_failures)
        dump(r);
    json_decref(r);
    EXPECT_ERROR("int f1(void) {\n  return 1\n}", "CompileError", "line 3");
    EXPECT_ERROR("int g2(void);\ng2()", "CompileError", "g2");
    /* the session is intact after errors */
    EXPECT("intact", "44");
}

static void test_faults(void)
{
    EXPECT("int keep = 123;\nint crash(int *p) { return *p; }", NULL);
    for (int i = 0; i < 2; i++)
        EXPECT_ERROR("crash(0);", "SegmentationFault", "in function crash()");
    EXPECT_ERROR("int *np = 0;\n*np = 1;", "SegmentationFault", "invalid memory access at");
    EXPECT("keep", "123");
    for (int i = 0; i < 2; i++)
        EXPECT_ERROR("volatile int zero = 0;\nint q = 1 / zero;", "FloatingPointError",
                     "division by zero");
    for (int i = 0; i < 2; i++)
        EXPECT_ERROR("abort();", "Abort", "SIGABRT");
    EXPECT("int deep(int n) { volatile char pad[256]; pad[0] = (char)n; return deep(n + 1) + pad[0]; }",
           NULL);
    for (int i = 0; i < 2; i++)
        EXPECT_ERROR("deep(0);", "SegmentationFault", "stack overflow");
    EXPECT_ERROR("strlen((char *)8);", "SegmentationFault", "top-level code");
    EXPECT("keep + 1", "124");
}

static void test_display(void)
{
    json_array_clear(emitted);
    EXPECT("display_html(\"<b>hi</b>\");\nclear_output(1);", NULL);
    CHECK(json_array_size(emitted) == 2);
    json_t *d = json_array_get(emitted, 0);
    CHECK_STR(json_string_value(json_object_get(d, "op")), "display");
    CHECK_STR(json_string_value(json_object_get(json_object_get(d, "data"), "text/html")),
              "<b>hi</b>");
    CHECK(json_object_get(json_object_get(d, "data"), "text/plain") != NULL);
    json_t *c = json_array_get(emitted, 1);
    CHECK_STR(json_string_value(json_object_get(c, "op")), "clear_output");
    CHECK(json_is_true(json_object_get(c, "wait")));
    json_array_clear(emitted);
    EXPECT("unsigned char png[3] = {1, 2, 3};\ndisplay_png(png, 3);\ndisplay_json(\"[1,2]\")",
           NULL);
    CHECK(json_array_size(emitted) == 2);
    CHECK_STR(json_string_value(json_object_get(
                  json_object_get(json_array_get(emitted, 0), "data"), "image/png")),
              "AQID");
}

static void test_complete_inspect(void)
{
    json_t *r = rt_complete(S, "int k = ke", 10);
    json_t *m = json_object_get(r, "matches");
    int found = 0;
    for (size_t i = 0; i < json_array_size(m); i++)
        if (strcmp(json_string_value(json_array_get(m, i)), "keep") == 0)
            found = 1;
    CHECK(found);
    CHECK(json_integer_value(json_object_get(r, "cursor_start")) == 8);
    CHECK(json_integer_value(json_object_get(r, "cursor_end")) == 10);
    json_decref(r);
    r = rt_inspect(S, "crash(", 2, 0);
    CHECK(json_is_true(json_object_get(r, "found")));
    const char *t = json_string_value(
        json_object_get(json_object_get(r, "data"), "text/plain"));
    CHECK(t && strstr(t, "int crash(int *p);") && strstr(t, "defined in cell"));
    json_decref(r);
    r = rt_inspect(S, "nosuchname", 3, 0);
    CHECK(json_is_false(json_object_get(r, "found")));
    json_decref(r);
    r = rt_is_complete(S, "int f() {");
    CHECK_STR(json_string_value(json_object_get(r, "status")), "incomplete");
    CHECK_STR(json_string_value(json_object_get(r, "indent")), "    ");
    json_decref(r);
    r = rt_is_complete(S, "x)");
    CHECK_STR(json_string_value(json_object_get(r, "status")), "invalid");
    json_decref(r);
    r = rt_is_complete(S, "x = 1;");
    CHECK_STR(json_string_value(json_object_get(r, "status")), "complete");
    json_decref(r);
}

/* How the compiles went (informational: which way the headers came). */
static void report_stats(void)
{
    rt_compile_stats_t st;
    rt_session_stats(S, &st);
    printf("compiles: %lu with shaken headers, %lu fell back, %lu full, %lu preprocessings\n",
           st.shaken, st.fallbacks, st.full, st.preprocess);
}

SESSION_TEST_MAIN_SETUP("test_rt_session", define_shared, test_persistence, test_macro_items,
                        test_reruns, test_results, test_compile_errors, test_faults, test_display,
                        test_complete_inspect, report_stats)
