/* test_rt_complete: completion and inspection (rt_complete) after a few
 * cells: keywords, session names, header names, struct members after "."
 * and "->", magics after '%', cursor positions in code points, and the
 * declarations and docs inspect shows. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_check.h"
#include "cm_log.h"
#include "rt_session.h"

static void run(const char *code)
{
    json_t *r = run_next(code);
    const char *status = json_string_value(json_object_get(r, "status"));
    CHECK(status && strcmp(status, "ok") == 0);
    if (!status || strcmp(status, "ok") != 0) {
        char *d = json_dumps(r, JSON_INDENT(1));
        fprintf(stderr, "cell %d failed: %s\n", cell_no, d);
        free(d);
    }
    json_decref(r);
}

/* Completes code with the cursor at its end (in code points). */
static json_t *complete(const char *code)
{
    int cp = 0;
    for (const char *p = code; *p; p++)
        cp += ((unsigned char)*p & 0xC0) != 0x80;
    return rt_complete(S, code, cp);
}

/* Index of match in the reply's matches, or -1. */
static long find(json_t *r, const char *match)
{
    json_t *m = json_object_get(r, "matches");
    for (size_t i = 0; i < json_array_size(m); i++)
        if (strcmp(json_string_value(json_array_get(m, i)), match) == 0)
            return (long)i;
    return -1;
}

/* The experimental type of match. */
static const char *type_of(json_t *r, const char *match)
{
    json_t *types = json_object_get(json_object_get(r, "metadata"), "_jupyter_types_experimental");
    for (size_t i = 0; i < json_array_size(types); i++) {
        json_t *t = json_array_get(types, i);
        if (strcmp(json_string_value(json_object_get(t, "text")), match) == 0)
            return json_string_value(json_object_get(t, "type"));
    }
    return NULL;
}

static int cursor(json_t *r, const char *which)
{
    return (int)json_integer_value(json_object_get(r, which));
}

static void test_keywords_and_session_names(void)
{
    json_t *r = complete("retu");
    CHECK(find(r, "return") == 0);
    CHECK_STR(type_of(r, "return"), "keyword");
    CHECK(cursor(r, "cursor_start") == 0 && cursor(r, "cursor_end") == 4);
    json_decref(r);

    r = complete("int y = coun");
    CHECK(find(r, "counter") >= 0 && find(r, "counter") < 2); /* the session's names first */
    CHECK_STR(type_of(r, "counter"), "variable");
    CHECK(find(r, "count_up") >= 0 && find(r, "count_up") < 2);
    CHECK_STR(type_of(r, "count_up"), "function");
    CHECK(cursor(r, "cursor_start") == 8 && cursor(r, "cursor_end") == 12);
    json_decref(r);

    r = complete("poi");
    CHECK(find(r, "point_t") >= 0);
    CHECK_STR(type_of(r, "point_t"), "type");
    CHECK(find(r, "point") >= 0); /* the tag */
    json_decref(r);

    r = complete("SCA");
    CHECK(find(r, "SCALE") == 0);
    CHECK_STR(type_of(r, "SCALE"), "macro");
    json_decref(r);

    /* sorted and de-duplicated */
    r = complete("str");
    json_t *m = json_object_get(r, "matches");
    int sorted = 1;
    for (size_t i = 1; i < json_array_size(m); i++)
        if (strcmp(json_string_value(json_array_get(m, i - 1)),
                   json_string_value(json_array_get(m, i))) >= 0)
            sorted = 0; /* no session names start with str: one sorted run */
    CHECK(sorted);
    CHECK(find(r, "struct") >= 0 && find(r, "strlen") >= 0 && find(r, "strcmp") >= 0);
    json_decref(r);
}

static void test_header_names(void)
{
    json_t *r = complete("pri");
    CHECK(find(r, "printf") >= 0);
    CHECK_STR(type_of(r, "printf"), "function");
    json_decref(r);

    r = complete("mem");
    CHECK(find(r, "memcpy") >= 0 && find(r, "memset") >= 0 && find(r, "memmove") >= 0);
    json_decref(r);

    r = complete("display_h");
    CHECK(find(r, "display_html") == 0);
    json_decref(r);

    r = complete("size_");
    CHECK(find(r, "size_t") >= 0);
    CHECK_STR(type_of(r, "size_t"), "type");
    json_decref(r);

    r = complete("M_P");
    CHECK(find(r, "M_PI") >= 0);
    CHECK_STR(type_of(r, "M_PI"), "macro");
    json_decref(r);

    r = complete("std");
    CHECK(find(r, "stdout") >= 0);
    CHECK_STR(type_of(r, "stdout"), "variable");
    json_decref(r);

    r = complete("int x = __gpuc");
    CHECK(find(r, "__gpuc_show_int") >= 0); /* '_' names only when asked for */
    json_decref(r);
    r = complete("g");
    CHECK(find(r, "__gpuc_show_int") < 0);
    json_decref(r);

    /* headers a cell included */
    r = complete("isdi");
    CHECK(find(r, "isdigit") >= 0);
    json_decref(r);

    r = complete("struct t");
    CHECK(find(r, "tm") >= 0); /* struct tm, from <time.h> */
    CHECK(find(r, "tree") == 0);
    json_decref(r);
}

static void test_members(void)
{
    json_t *r = complete("p.");
    CHECK(json_array_size(json_object_get(r, "matches")) == 2);
    CHECK(find(r, "x") == 0 && find(r, "y") == 1);
    CHECK_STR(type_of(r, "x"), "member");
    CHECK(cursor(r, "cursor_start") == 2 && cursor(r, "cursor_end") == 2);
    json_decref(r);

    r = complete("q.x + q.");
    CHECK(find(r, "x") >= 0 && find(r, "y") >= 0);
    json_decref(r);

    r = complete("pp->y");
    CHECK(json_array_size(json_object_get(r, "matches")) == 1 && find(r, "y") == 0);
    CHECK(cursor(r, "cursor_start") == 4 && cursor(r, "cursor_end") == 5);
    json_decref(r);

    r = complete("t->");
    CHECK(find(r, "left") >= 0 && find(r, "right") >= 0 && find(r, "value") >= 0);
    CHECK(find(r, "label") >= 0 && find(r, "i") >= 0 && find(r, "f") >= 0); /* anonymous union */
    CHECK(find(r, "cb") >= 0 && find(r, "bits") >= 0 && find(r, "name") >= 0);
    json_decref(r);

    r = complete("t->left->left->ri");
    CHECK(find(r, "right") == 0);
    json_decref(r);

    r = complete("t->value.");
    CHECK(find(r, "x") == 0 && find(r, "y") == 1);
    json_decref(r);

    r = complete("pts[1].");
    CHECK(find(r, "x") >= 0);
    json_decref(r);

    r = complete("struct tree *n = t; n->");
    CHECK(find(r, "left") >= 0);
    json_decref(r);

    r = complete("double len(point_t *v) { return v->");
    CHECK(find(r, "x") == 0 && find(r, "y") == 1);
    json_decref(r);

    r = complete("clock_now.tv_");
    CHECK(find(r, "tv_sec") >= 0 && find(r, "tv_nsec") >= 0);
    json_decref(r);

    r = complete("counter.");
    CHECK(json_array_size(json_object_get(r, "matches")) == 0);
    json_decref(r);

    r = complete("1.");
    CHECK(json_array_size(json_object_get(r, "matches")) == 0);
    json_decref(r);
}

static void test_magics(void)
{
    json_t *r = complete("%");
    CHECK(json_array_size(json_object_get(r, "matches")) > 0);
    CHECK(find(r, "%timeit") >= 0);
    CHECK(find(r, "%%timeit") >= 0);
    CHECK_STR(type_of(r, "%timeit"), "magic");
    CHECK(cursor(r, "cursor_start") == 0 && cursor(r, "cursor_end") == 1);
    json_decref(r);

    r = complete("int a = 1;\n  %ti");
    CHECK(find(r, "%timeit") >= 0);
    CHECK(find(r, "%%timeit") < 0); /* cell magics on the first line only */
    CHECK(cursor(r, "cursor_start") == 13 && cursor(r, "cursor_end") == 16);
    json_decref(r);

    r = complete("%%ti");
    CHECK(find(r, "%%timeit") >= 0 && find(r, "%timeit") < 0);
    json_decref(r);

    r = complete("int m = 7 %");
    CHECK(find(r, "%timeit") < 0); /* the operator */
    json_decref(r);
}

static void test_code_points(void)
{
    /* "é" is 2 bytes, "€" 3, "😀" 4: one code point each */
    json_t *r = complete("// é€😀\ncoun");
    CHECK(find(r, "counter") >= 0);
    CHECK(cursor(r, "cursor_start") == 7 && cursor(r, "cursor_end") == 11);
    json_decref(r);

    r = complete("char *s = \"é\"; p.y");
    CHECK(find(r, "y") == 0);
    CHECK(cursor(r, "cursor_start") == 17 && cursor(r, "cursor_end") == 18);
    json_decref(r);

    /* a cursor in the middle: "coun|ter" */
    r = rt_complete(S, "/*é*/ counter", 10);
    CHECK(find(r, "counter") >= 0);
    CHECK(cursor(r, "cursor_start") == 6 && cursor(r, "cursor_end") == 10);
    json_decref(r);
}

/* The text/plain of an inspect reply at the end of code, or NULL. */
static char *inspect(const char *code, int detail)
{
    json_t *r = rt_inspect(S, code, (int)strlen(code), detail);
    CHECK_STR(json_string_value(json_object_get(r, "status")), "ok");
    char *text = NULL;
    if (json_is_true(json_object_get(r, "found"))) {
        json_t *data = json_object_get(r, "data");
        CHECK(json_string_value(json_object_get(data, "text/markdown")) != NULL);
        text = strdup(json_string_value(json_object_get(data, "text/plain")));
    } else {
        CHECK(json_object_size(json_object_get(r, "data")) == 0);
    }
    json_decref(r);
    return text;
}

static void check_has(const char *text, const char *part)
{
    CHECK(text && strstr(text, part));
    if (!text || !strstr(text, part))
        fprintf(stderr, "  missing \"%s\" in:\n%s\n", part, text ? text : "(not found)");
}

static void test_inspect(void)
{
    char *t = inspect("counter", 0);
    check_has(t, "int counter");
    check_has(t, "defined in cell 1");
    free(t);

    t = inspect("count_up", 0);
    check_has(t, "count_up(int by)");
    check_has(t, "function, defined in cell 2");
    free(t);

    t = inspect("printf", 0);
    check_has(t, "int printf(const char *format, ...);");
    check_has(t, "declared in <stdio.h>");
    check_has(t, "stdout");
    free(t);

    t = inspect("printf(\"%d\", ", 0); /* inside the call */
    check_has(t, "int printf(");
    free(t);

    t = inspect("gpuc_display_html", 0);
    check_has(t, "void gpuc_display_html(const char *html);");
    check_has(t, "gpuc.h");
    check_has(t, "HTML");
    free(t);

    t = inspect("display_html", 0); /* the old name says the new one */
    check_has(t, "void display_html(const char *html);");
    check_has(t, "old name of gpuc_display_html");
    free(t);

    t = inspect("fputc", 0); /* no doc: the header's declaration */
    check_has(t, "fputc");
    check_has(t, "declared in <stdio.h>");
    free(t);

    t = inspect("point_t", 0);
    check_has(t, "typedef struct point point_t;");
    CHECK(t && !strstr(t, "int x"));
    free(t);
    t = inspect("point_t", 1);
    check_has(t, "struct point {");
    free(t);

    t = inspect("t->left", 0);
    check_has(t, "struct tree *left");
    check_has(t, "member");
    free(t);

    t = inspect("SCALE", 0);
    check_has(t, "#define SCALE 3");
    free(t);

    t = inspect("no_such_name_here", 0);
    CHECK(t == NULL);
    t = inspect("", 0);
    CHECK(t == NULL);
}

/* Names the cell declares before the cursor, not run yet. */
static void test_cell_names(void)
{
    json_t *r = complete("double otter_speed = 3; otter_");
    CHECK(find(r, "otter_speed") == 0);
    CHECK_STR(type_of(r, "otter_speed"), "variable");
    json_decref(r);

    r = complete("typedef struct { double x; } vec_t;\nvec_t otter_v, *otter_p;\n"
                 "enum { OTTER_A, OTTER_B };\nint otter_f(int);\notter_");
    CHECK(find(r, "otter_v") >= 0 && find(r, "otter_p") >= 0);
    CHECK_STR(type_of(r, "otter_f"), "function");
    json_decref(r);
    r = complete("typedef struct { double x; } vec_t;\nve");
    CHECK_STR(type_of(r, "vec_t"), "type");
    json_decref(r);
    r = complete("enum { OTTER_A, OTTER_B };\nint x = OTTER_");
    CHECK(find(r, "OTTER_A") == 0 && find(r, "OTTER_B") == 1);
    json_decref(r);

    /* a function being written: its parameters, its locals, an inner block's */
    r = complete("double area(double width, int (*scale)(int)) {\n"
                 "    double wid_sq = width * width;\n"
                 "    for (int wi = 0; wi < 3; wi++) {\n"
                 "        int wide = wi;\n"
                 "        wi");
    CHECK(find(r, "width") >= 0 && find(r, "wid_sq") >= 0 && find(r, "wi") >= 0 &&
          find(r, "wide") >= 0);
    json_decref(r);
    r = complete("double area(double width, int (*scale)(int)) { return sc");
    CHECK(find(r, "scale") == 0);
    json_decref(r);
    r = complete("double area(double width) { return width; }\nwi");
    CHECK(find(r, "width") < 0);     /* out of scope after the function */
    json_decref(r);
    r = complete("double area(double width) { return width; }\nare");
    CHECK(find(r, "area") == 0);
    json_decref(r);
    r = complete("int a1 = 0;\nif (a1) { int a2 = 1; }\na");
    CHECK(find(r, "a1") >= 0 && find(r, "a2") < 0); /* a closed block's locals are not seen */
    json_decref(r);
    /* members of a variable of a struct type the cell defines */
    r = complete("struct vec3 { double vx, vy, vz; };\nstruct vec3 v3 = {0};\nv3.");
    CHECK(find(r, "vx") == 0 && find(r, "vz") == 2);
    json_decref(r);
    r = complete("typedef struct { point_t at; int tag; } spot_t;\nspot_t sp;\nspot_t *spp = &sp;\n"
                 "spp->");
    CHECK(find(r, "at") == 0 && find(r, "tag") == 1);
    json_decref(r);
    r = complete("typedef struct { point_t at; int tag; } spot_t;\nspot_t sp;\nsp.at.");
    CHECK(find(r, "x") == 0 && find(r, "y") == 1); /* a member of a session type */
    json_decref(r);
    r = complete("typedef struct { int a; } in_t;\nint f(in_t *arg) { return arg->");
    CHECK(find(r, "a") == 0);
    json_decref(r);
    r = complete("point_t here;\nhere.");         /* a session type, a cell variable */
    CHECK(find(r, "x") == 0);
    json_decref(r);

    r = complete("int otter_");
    CHECK(find(r, "otter_") < 0);    /* not the name being typed itself */
    json_decref(r);
}

/* The fixture (SESSION_TEST_MAIN_SETUP runs it first): the cells the
 * completions and inspections of the tests above are about. */
static void define_names(void)
{
    run("int counter = 1;");
    run("int count_up(int by) { return counter += by; }");
    run("struct point { int x; int y; };\ntypedef struct point point_t;\n#define SCALE 3\n"
        "struct point p = {1, 2};\npoint_t q;\npoint_t *pp = &q;\npoint_t pts[4];");
    run("#include <ctype.h>\n#include <time.h>\nstruct timespec clock_now;");
    run("struct tree {\n  struct tree *left, *right;\n  point_t value;\n"
        "  union { int i; float f; };\n  const char *name, label[8];\n"
        "  int (*cb)(int a);\n  unsigned bits : 3;\n};\nstruct tree *t;");
    json_t *r = complete("p.");
    if (find(r, "x") < 0)
        dump(r);
    json_decref(r);
}

SESSION_TEST_MAIN_SETUP("test_rt_complete", define_names, test_keywords_and_session_names,
                  test_header_names, test_members, test_magics, test_code_points, test_inspect,
                  test_cell_names)
