/* test_rt_session_code: the code of cells that nothing can call once they
 * have run is given back to the arena (rt_run.c, rt_tcc_code_of), and
 * what may still be used is not: string literals and static locals of
 * statement cells kept in session variables, pointers to library and
 * session functions taken there, functions of every cell, re-run code,
 * and the lines a fault report names. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_check.h"
#include "rt_tcc.h"

static json_t *run(const char *code)
{
    return run_next_capturing(code);
}

/* Runs n cells of statements of different sizes (their code is given
 * back, and placed again), each checked. */
static void churn(int n)
{
    char code[512], want[32];
    for (int i = 0; i < n; i++) {
        switch (i % 3) {
        case 0:
            snprintf(code, sizeof code, "1 + %d", i);
            snprintf(want, sizeof want, "%d", 1 + i);
            EXPECT(code, want);
            break;
        case 1:
            snprintf(code, sizeof code, "churn_total += %d;\nprintf(\"churn %d %%d\\n\", churn_total);", i, i);
            EXPECT(code, NULL);
            break;
        default:
            snprintf(code, sizeof code,
                     "double churn_a = %d * 0.5, churn_b = churn_a * churn_a;\n"
                     "for (int k = 0; k < 3; k++) churn_b += k;\nchurn_b > churn_a ? %d : -1", i, i);
            snprintf(want, sizeof want, "%d", i);
            EXPECT(code, want);
        }
    }
}

/* The fixture (SESSION_TEST_MAIN_SETUP runs it first): what churn uses. */
static void declare_churn(void)
{
    EXPECT("#include <stdio.h>\nlong churn_total;", NULL);
}

static void test_kept_pointers(void)
{
    EXPECT("#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n"
           "char *kept_str; const char *kept_lit;\nint (*kept_printf)(const char *, ...);\n"
           "size_t (*kept_strlen)(const char *);\nint *kept_static;\nint (*kept_twice)(int);\n"
           "char *kept_words[4];\nlong churn_total;", NULL);
    EXPECT("int twice(int x) { return 2 * x; }", NULL);
    /* statement cells: their code goes, their data stays */
    EXPECT("kept_lit = \"a literal of a statement cell\";", NULL);
    EXPECT("kept_printf = printf; kept_strlen = strlen; kept_twice = twice;", NULL);
    EXPECT("{ static int box = 5; kept_static = &box; }", NULL);
    EXPECT("kept_str = strdup(\"on the heap\");\nkept_words[0] = \"w0\"; kept_words[1] = \"w1\";", NULL);
    churn(300);
    EXPECT("kept_lit", "\"a literal of a statement cell\"");
    EXPECT_OUT("kept_printf(\"%s|%zu\\n\", kept_words[1], kept_strlen(kept_lit));", NULL,
               "w1|29\n");
    EXPECT("kept_twice(21) + *kept_static", "47");
    EXPECT("kept_str", "\"on the heap\"");
    EXPECT("twice(4)", "8");
    EXPECT("churn_total", "14950"); /* 1 + 4 + ... + 298 */
}

/* A function defined in a cell that also runs statements keeps its code;
 * pointers to functions of earlier cells survive their redefinition. */
static void test_functions_stay(void)
{
    EXPECT("int gen(void) { return 1; }\nint (*kept_gen)(void) = gen;\ngen()", "1");
    EXPECT("int gen(void) { return 2; }\ngen() + kept_gen()", "3");
    churn(60);
    EXPECT("kept_gen() * 10 + gen()", "12");
}

/* Statement cells run again reuse kept code; the code of the eight kept
 * for re-runs goes when they are pushed out. */
static void test_reruns_kept(void)
{
    for (int round = 0; round < 3; round++) {
        EXPECT("churn_total * 0 + 7", "7");
        churn(12);
    }
    EXPECT("churn_total * 0 + 7", "7");
}

/* The arena does not grow with cells whose code is given back. */
static void test_arena_flat(void)
{
    churn(30);
    size_t placed0, free0, placed1, free1;
    rt_tcc_arena_stats(&placed0, &free0);
    char code[64], want[32];
    for (int i = 0; i < 300; i++) {
        snprintf(code, sizeof code, "1000 + %d", i);
        snprintf(want, sizeof want, "%d", 1000 + i);
        EXPECT(code, want);
    }
    rt_tcc_arena_stats(&placed1, &free1);
    CHECK(free1 > 0);
    CHECK(placed1 - placed0 < 4096);
    if (placed1 - placed0 >= 4096)
        fprintf(stderr, "arena grew %zu bytes over 300 cells\n", placed1 - placed0);
}

/* Runs n cells made from format (one %d: 0, 1, ...), cell i giving
 * first + i, and checks that they keep at most per_cell bytes each of the
 * arena, and that the arena grows by no more (and 1 KiB): what they give
 * back is used again. */
static void expect_kept(const char *format, int n, int first, size_t per_cell)
{
    size_t placed0, free0, placed, free_bytes;
    rt_tcc_arena_stats(&placed0, &free0);
    char code[128], want[32];
    for (int i = 0; i < n; i++) {
        snprintf(code, sizeof code, format, i);
        snprintf(want, sizeof want, "%d", first + i);
        EXPECT(code, want);
    }
    rt_tcc_arena_stats(&placed, &free_bytes);
    size_t kept = (placed - free_bytes) - (placed0 - free0), grew = placed - placed0;
    CHECK(kept <= n * per_cell);
    CHECK(grew <= n * per_cell + 1024);
    if (kept > n * per_cell || grew > n * per_cell + 1024)
        fprintf(stderr, "%d cells of %s kept %zu bytes, the arena grew %zu\n", n, format, kept,
                grew);
}

static void test_rebound_data_packed(void)
{
    EXPECT("int packed_v = -1;\nint *packed_first = &packed_v;", NULL);
    churn(30);
    expect_kept("int packed_v = %d;\npacked_v + *packed_first", 100, -1, 16);
    churn(30);
    EXPECT("*packed_first * 1000 + packed_v", "-901");
}

/* The data of a statement cell is moved out of its image before it runs
 * (its code is then given back whole): pointers to it held in its own
 * data, in the code of later cells (through the GOT: a variable of the
 * session) and in session variables still lead to it. */
static void test_moved_data(void)
{
    EXPECT("int moved_a[3] = {1, 2, 3};\nint *moved_q = &moved_a[1];\n"
           "const char *moved_s = \"moved\";\nstatic double moved_d = 2.5;\n"
           "double *moved_dp = &moved_d;", NULL);
    churn(60);
    EXPECT("*moved_q + moved_a[2] * 10", "32");
    EXPECT("moved_s", "\"moved\"");
    EXPECT("moved_a[0] = 7;\n*moved_dp * 2", "5");
    churn(30);
    EXPECT("moved_a[0] * 100 + *moved_q", "702");
}

/* A cell that defines a function keeps that function's code (moved to
 * the kept data when it refers only to itself and the data); its
 * statements' code goes (a function that calls through the PLT keeps the
 * whole image). Old definitions stay callable through pointers, and a
 * fault in one names its line. */
static void test_own_functions_kept(void)
{
    EXPECT("int fpure(int x) { return x * 3; }\nint (*kept_fpure)(int) = fpure;\nfpure(2)", "6");
    EXPECT("int fprint(int x) { printf(\"fprint %d\\n\", x); return x; }\n"
           "int (*kept_fprint)(int) = fprint;\nfprint(1)", "1");
    EXPECT("int fcrash_box = 9;\nint fcrash(int *p) {\n  return *p;\n}\nfcrash(&fcrash_box)", "9");
    char where[64];
    snprintf(where, sizeof where, "in function fcrash() (cell %d, line 3)", cell_no);
    expect_kept("int fpure(int x) { return x * 3 + %d; }\nfpure(1)", 50, 3, 32);
    churn(60);
    EXPECT("kept_fpure(5) * 1000 + fpure(0)", "15049");
    EXPECT_OUT("kept_fprint(4)", "4", "fprint 4\n");
    EXPECT_ERROR("fcrash(0)", "SegmentationFault", where);
}

/* A fault in a statement cell placed where earlier code was given back
 * names its own line. */
static void test_fault_lines(void)
{
    churn(30);
    EXPECT("int *fault_null = 0;", NULL);
    char want[64];
    snprintf(want, sizeof want, "cell %d, line 3", cell_no + 1);
    EXPECT_ERROR("int fa = 1;\nfa++;\n*fault_null = fa;", "SegmentationFault", want);
    churn(9);
    snprintf(want, sizeof want, "cell %d, line 2", cell_no + 1);
    EXPECT_ERROR("churn_total++;\n*fault_null = 2;", "SegmentationFault", want);
}

SESSION_TEST_MAIN_SETUP("test_rt_session_code", declare_churn, test_kept_pointers,
                        test_functions_stay, test_reruns_kept, test_arena_flat,
                        test_rebound_data_packed, test_moved_data, test_own_functions_kept,
                        test_fault_lines)
