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
    return check_report("test_rt_cell");
}
