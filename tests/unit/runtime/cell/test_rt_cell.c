/* test_rt_cell: the cell splitter and is_complete. */
#include <string.h>

#include "check.h"
#include "rt_cell.h"

static const char *kinds(const char *code)
{
    static char out[512];
    rt_cell_t c;
    rt_cell_split(code, NULL, NULL, &c);
    out[0] = '\0';
    for (size_t i = 0; i < c.n; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, rt_item_kind_name(c.items[i].kind));
    }
    rt_cell_free(&c);
    return out;
}

int main(void)
{
    CHECK_STR(kinds("int x = 1;"), "declaration");
    CHECK_STR(kinds("x = 1;"), "statement");
    CHECK_STR(kinds("x"), "expression");
    CHECK_STR(kinds("x + f(1, 2)"), "expression");
    CHECK_STR(kinds("int f(int a) { return a; }"), "function");
    CHECK_STR(kinds("int f(int a);"), "declaration");
    CHECK_STR(kinds("struct p { int x; };\nstruct p q = {1};"), "declaration declaration");
    CHECK_STR(kinds("typedef int myint;\nmyint z = 3;\nz"), "declaration declaration expression");
    CHECK_STR(kinds("size_t n = 3;\nuint8_t b;\nFILE *f;"), "declaration declaration declaration");
    CHECK_STR(kinds("#include <stdio.h>\n#define M(a) \\\n  ((a) + 1)\nM(2)"),
              "directive directive expression");
    CHECK_STR(kinds("printf(\"{ ; \");\nchar c = '{';\n// { ;\n/* } ; */ x"),
              "statement declaration expression");
    CHECK_STR(kinds("for (int i = 0; i < 3; i++) { s += i; }\nx"), "statement expression");
    CHECK_STR(kinds("if (a) { b(); } else { c(); }\nd();"), "statement statement");
    CHECK_STR(kinds("if (a) b(); else c();"), "statement");
    CHECK_STR(kinds("do { i++; } while (i < 3);\nwhile (0) {}"), "statement statement");
    CHECK_STR(kinds("{ int t = 1; }"), "statement");
    CHECK_STR(kinds("p = (struct p){1, 2};"), "statement");
    CHECK_STR(kinds("int main(void) {\n  return 0;\n}\nmain()"), "function expression");
    CHECK_STR(kinds("static inline int sq(int v) { return v * v; }"), "function");
    CHECK_STR(kinds("return;"), "statement");

    rt_cell_t c;
    rt_cell_split("int a;\n\nint f(void)\n{\n  return 1;\n}\n", NULL, NULL, &c);
    CHECK(c.n == 2);
    CHECK(c.n == 2 && c.items[1].line == 3 && c.items[1].end_line == 6);
    rt_cell_free(&c);

    CHECK_STR(rt_cell_completeness("int f() {"), "incomplete");
    CHECK_STR(rt_cell_completeness("f(1, "), "incomplete");
    CHECK_STR(rt_cell_completeness("/* open"), "incomplete");
    CHECK_STR(rt_cell_completeness("char *s = \"open"), "incomplete");
    CHECK_STR(rt_cell_completeness("#define X \\\n"), "incomplete");
    CHECK_STR(rt_cell_completeness("x = 1; }"), "invalid");
    CHECK_STR(rt_cell_completeness("printf(\"}\");"), "complete");
    /* what jupyter console sends line by line: a table of C fragments */
    static const struct { const char *code, *status; } table[] = {
        {"int x = 1;", "complete"},
        {"x + 1", "complete"},
        {"printf(\"%d\\n\", x)", "complete"},
        {"f(x)", "complete"},
        {"return f(x)", "complete"},
        {"x++", "complete"},
        {"(int)f(2)", "complete"},
        {"for (int i = 0; i < n; i++)", "incomplete"},
        {"for (int i = 0; i < n; i++) sum += i;", "complete"},
        {"if (x > 0)", "incomplete"},
        {"if (x > 0) y = 1;", "complete"},
        {"if (x > 0) y = 1; else", "incomplete"},
        {"while (n--)", "incomplete"},
        {"while (n--);", "complete"},
        {"switch (k)", "incomplete"},
        {"do", "incomplete"},
        {"do { n--; } while (n > 0)", "incomplete"},
        {"do { n--; } while (n > 0);", "complete"},
        {"double half(double v)", "incomplete"},
        {"double half(double v);", "complete"},
        {"double half(double v) { return v / 2; }", "complete"},
        {"static int *make(int n)", "incomplete"},
        {"struct point make_point(int x, int y)", "incomplete"},
        {"int main(void)\n{", "incomplete"},
        {"int main(void)\n{\n    return 0;\n}", "complete"},
        {"int a[] = {1, 2,", "incomplete"},
        {"int a[] = {1, 2, 3};", "complete"},
        {"int x =", "incomplete"},
        {"y = x +", "incomplete"},
        {"y = x &&", "incomplete"},
        {"f(1,", "incomplete"},
        {"z = c ?", "incomplete"},
        {"p->", "incomplete"},
        {"/* a comment", "incomplete"},
        {"/* a comment */", "complete"},
        {"// a line comment", "complete"},
        {"char *s = \"open", "incomplete"},
        {"char c = 'x", "incomplete"},
        {"#include <stdio.h>", "complete"},
        {"#define SQ(x) ((x) * (x))", "complete"},
        {"#define LONG \\", "incomplete"},
        {"%%kernel", "incomplete"},
        {"%%kernel\n__global__ void k() {}", "complete"},
        {"%who", "complete"},
        {"}", "invalid"},
        {"(]", "invalid"},
        {"f(x]", "invalid"},
        {"int a[3) = 0;", "invalid"},
        {"", "complete"},
        {"   \n", "complete"},
        {"sizeof(int)", "complete"},
        {"ga_t x = ga_zeros(F32, 3)", "complete"},
        {"typedef struct { int x; } p_t", "complete"},
        {"enum color { RED, GREEN,", "incomplete"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const char *got = rt_cell_completeness(table[i].code);
        if (strcmp(got, table[i].status))
            fprintf(stderr, "  is_complete(\"%s\"): %s, expected %s\n", table[i].code, got,
                    table[i].status);
        CHECK_STR(got, table[i].status);
    }
    CHECK(rt_cell_check_complete("int f() {\n  if (x) {").indent == 2);
    CHECK(rt_cell_check_complete("for (;;)").indent == 1);

    /* IPython's habits: their form alone */
    rt_shortcut_form_t f;
    CHECK(rt_cell_shortcut("  quit()\n", &f) == RT_SHORTCUT_EXIT);
    CHECK_STR(f.name, "quit");
    CHECK(rt_cell_shortcut("exit", NULL) == RT_SHORTCUT_EXIT);
    CHECK(rt_cell_shortcut("printf??", &f) == RT_SHORTCUT_HELP && f.detail == 1);
    CHECK_STR(f.name, "printf");
    CHECK(rt_cell_shortcut("?ga_zeros", &f) == RT_SHORTCUT_HELP && f.detail == 0);
    CHECK_STR(f.name, "ga_zeros");
    CHECK(rt_cell_shortcut("exit(1)", NULL) == RT_SHORTCUT_NONE);
    CHECK(rt_cell_shortcut("?x?", NULL) == RT_SHORTCUT_NONE);
    CHECK(rt_cell_shortcut("a ? b : c", NULL) == RT_SHORTCUT_NONE);
    CHECK(rt_cell_shortcut("2?", NULL) == RT_SHORTCUT_NONE);
    return check_report("test_rt_cell");
}
