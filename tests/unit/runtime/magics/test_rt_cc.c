/* test_rt_cc: %%cc cells through rt_execute: code compiled by the
 * system compiler calling and called by TCC cells, errors, flags; and
 * plain C cells TCC cannot compile, which that compiler takes. */
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

/* The first traceback line that contains part, or NULL. */
static const char *traceback_line(json_t *r, const char *part)
{
    json_t *tb = json_object_get(error_of(r), "traceback");
    for (size_t i = 0; i < json_array_size(tb); i++) {
        const char *l = json_string_value(json_array_get(tb, i));
        if (l && strstr(l, part))
            return l;
    }
    return NULL;
}

/* A %%cc function used by later TCC cells, and its variable. */
static void test_called_from_tcc(void)
{
    EXPECT("%%cc\n"
           "#include <math.h>\n"
           "double cc_scale = 2.0;\n"
           "double cc_norm(const double *v, int n)\n"
           "{\n"
           "    double s = 0;\n"
           "    for (int i = 0; i < n; i++)\n"
           "        s += v[i] * v[i];\n"
           "    return cc_scale * sqrt(s);\n"
           "}\n"
           "static int hidden_helper(void) { return 1; }\n"
           "int cc_calls(void) { return hidden_helper() + 41; }",
           NULL);
    EXPECT("double vv[2] = {3, 4};\ncc_norm(vv, 2)", "10");
    EXPECT("cc_scale = 0.5;\ncc_norm(vv, 2)", "2.5");
    EXPECT("cc_calls()", "42");
    /* static functions stay the %%cc cell's own */
    EXPECT_ERROR("hidden_helper()", "CompileError", "hidden_helper");
}

/* A %%cc cell using an earlier TCC cell's function, variables and type. */
static void test_calls_tcc(void)
{
    EXPECT("typedef struct { int a; double b; } pair_t;\n"
           "int tcc_count = 5;\n"
           "double tcc_factor = 1.5;\n"
           "pair_t tcc_pair = {2, 0.25};\n"
           "int tcc_twice(int x) { return 2 * x; }",
           NULL);
    EXPECT("%%cc\n"
           "double cc_mix(int x)\n"
           "{\n"
           "    tcc_count++;\n"
           "    tcc_factor *= 2;\n"
           "    return tcc_twice(x) * tcc_factor + tcc_pair.b + tcc_count;\n"
           "}\n"
           "void cc_pair(pair_t *p) { p->a = tcc_pair.a + 1; p->b = tcc_factor; }",
           NULL);
    EXPECT("cc_mix(10)", "66.25"); /* 20 * 3 + 0.25 + 6 */
    EXPECT("tcc_count", "6");
    EXPECT("tcc_factor", "3");
    EXPECT("pair_t pp;\ncc_pair(&pp);\npp.a * 10 + pp.b", "33");
    /* a %%cc cell calls another %%cc cell's function */
    EXPECT("%%cc\nint cc_calls_cc(void) { return cc_calls() + tcc_twice(1); }", NULL);
    EXPECT("cc_calls_cc()", "44");
}

static void test_errors(void)
{
    int f = check_failures;
    json_t *r = run("%%cc\nint good(void) { return 1; }\nint bad(void)\n{\n    return zz + 1;\n}");
    CHECK_STR(status(r), "error");
    CHECK_STR(ename(r), "CompileError");
    CHECK(strstr(evalue(r), "line 5: 'zz' undeclared") != NULL);
    CHECK(traceback_line(r, "line 5, column 12: error: 'zz' undeclared") != NULL);
    CHECK(traceback_line(r, "    return zz + 1;") != NULL);
    if (check_failures > f)
        dump(r);
    json_decref(r);
    /* nothing of a failed cell is kept */
    EXPECT_ERROR("good()", "CompileError", "good");
    EXPECT_ERROR("%%cc\nint k = 1;\nk++;", "UsageError", "line 3: %%cc cells hold definitions only");
    EXPECT_ERROR("%%cc -fno-such-flag\nint f1(void) { return 1; }", "CompileError",
                 "no-such-flag");
    const char *cc = getenv("CC");
    char *saved = cc ? strdup(cc) : NULL;
    setenv("CC", "/nonexistent/gcc", 1);
    EXPECT_ERROR("%%cc\nint f2(void) { return 2; }", "NoCompiler", "needs a system C compiler");
    if (saved) {
        setenv("CC", saved, 1);
        free(saved);
    } else {
        unsetenv("CC");
    }
}

/* Flags replace the default; a later %%cc cell replaces a function. */
static void test_flags_and_redefinition(void)
{
    EXPECT("%%cc -O3 -DCC_BASE=100\nint cc_ver(void) { return CC_BASE + 1; }\n"
           "int cc_uses_ver(void) { return cc_ver() * 10; }\n"
           "#ifndef __OPTIMIZE__\n#error not optimised\n#endif",
           NULL);
    EXPECT("cc_ver()", "101");
    EXPECT("%%cc -O0\nint cc_ver(void) { return 2; }\n"
           "#ifdef __OPTIMIZE__\n#error optimised\n#endif",
           NULL);
    EXPECT("cc_ver()", "2");
    /* a redefinition in TCC, seen by a later %%cc cell */
    EXPECT("int tcc_twice(int x) { return 3 * x; }", NULL);
    EXPECT("%%cc\nint cc_thrice(int x) { return tcc_twice(x); }", NULL);
    EXPECT("cc_thrice(5)", "15");
}

/* A plain C cell TCC cannot compile is taken by the system compiler, with
 * the same persistence; a cell TCC compiles stays on TCC (__TINYC__ says
 * which compiler built a function). */
static void test_fallback(void)
{
    EXPECT("int by_tcc(void)\n{\n#ifdef __TINYC__\n    return 1;\n#else\n    return 0;\n#endif\n}\n"
           "by_tcc()",
           "1");
    /* (the harness sees TCC cells' stdout only: the object's goes to the process's) */
    EXPECT("#include <complex.h>\n"
           "double complex cz = 1.0 + 2.0 * I;\n"
           "double complex cw = cz * cz;\n"
           "int complex_by_tcc(void)\n{\n#ifdef __TINYC__\n    return 1;\n#else\n"
           "    return 0;\n#endif\n}\n"
           "complex_by_tcc() * 100 + creal(cw)",
           "-3");
    EXPECT("cimag(cw) * 10 + by_tcc()", "41");
    EXPECT("void vm_fill(int rows, int cols, int t[rows][cols])\n"
           "{\n"
           "    for (int i = 0; i < rows; i++)\n"
           "        for (int j = 0; j < cols; j++)\n"
           "            t[i][j] = i * cols + j;\n"
           "}\n"
           "int vm_tab[2][3];\n"
           "vm_fill(2, 3, vm_tab);\n"
           "vm_tab[1][2]",
           "5");
    EXPECT("int vm_more[3][4];\nvm_fill(3, 4, vm_more);\nvm_more[2][3] + vm_tab[1][0]", "14");
    /* both fail: an error on the cell's line, pointing at the name */
    EXPECT_ERROR("double complex cbad = 1 + nope_cc;", "CompileError", "'nope_cc' undeclared");
    EXPECT("by_tcc()", "1");
}

int main(void)
{
    if (system("command -v \"${CC:-cc}\" >/dev/null 2>&1") != 0) {
        printf("test_rt_cc: no system C compiler; skipped\n");
        return 77;
    }
    static void (*const tests[])(void) = {test_called_from_tcc, test_calls_tcc, test_errors,
                                          test_flags_and_redefinition, test_fallback, NULL};
    return session_test_main("test_rt_cc", tests);
}
