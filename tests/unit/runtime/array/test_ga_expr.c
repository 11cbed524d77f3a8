/* test_ga_expr: array expressions — parsing and its errors, NumPy's
 * result dtypes, and that the kernels generated for a GPU compile with
 * NVRTC for every dtype, variant and reduction (where NVRTC is found: on
 * a machine without a GPU this is what checks the GPU text). The values
 * are checked against NumPy by tests/array/test_math_numpy.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ga_expr.h"
#include "ga_fft.h"
#include "ga_fill.h"
#include "ga_index.h"
#include "ga_join.h"
#include "ga_map.h"
#include "ga_reduce.h"
#include "ga_scan.h"
#include "ga_sort.h"
#include "gpu.h"

static ga_expr_t e;

static void parse_fails(const char *text, const char *needle)
{
    cm_error_t err = {0};
    CHECK(ga_expr_parse(text, &e, &err) == -1);
    CHECK(err.code == GA_E_EXPR);
    if (!strstr(err.text, needle))
        fprintf(stderr, "  \"%s\": %s (wanted \"%s\")\n", text, err.text, needle);
    CHECK(strstr(err.text, needle) != NULL);
}

static void test_parse(void)
{
    cm_error_t err = {0};
    CHECK(ga_expr_parse("(a - b) * (a - b) + alpha * c", &e, &err) == 0);
    CHECK(e.nvars == 4);
    CHECK_STR(e.names[0], "a");
    CHECK_STR(e.names[2], "alpha");
    CHECK(e.reduce == GA_R_NONE);
    CHECK(ga_expr_parse("x, y: y - x", &e, &err) == 0);
    CHECK(e.nvars == 2 && !strcmp(e.names[0], "x") && !strcmp(e.names[1], "y"));
    CHECK(ga_expr_parse("sum((a - b) * (a - b), -1)", &e, &err) == 0);
    CHECK(e.reduce == GA_R_SUM && e.axis == -1 && e.nvars == 2);
    CHECK(ga_expr_parse("c ? a : -b ** 2", &e, &err) == 0);
    CHECK(e.nvars == 3 && !strcmp(e.names[0], "c"));
    CHECK(ga_expr_parse("y, x: max(x != x ? 0.0 : y)", &e, &err) == 0); /* a list, then ?: */
    CHECK(e.nvars == 2 && !strcmp(e.names[0], "y") && e.reduce == GA_R_MAX);
    CHECK(ga_expr_parse("where(a > 0, sqrt(a), 0.5f) + 1e-3", &e, &err) == 0);
    CHECK(ga_expr_operand(&e) == -1);
    CHECK(ga_expr_parse("max(a)", &e, &err) == 0 && ga_expr_operand(&e) == 0);

    parse_fails("(a - ", "column 6: expected a value at the end");
    parse_fails("a + $", "column 5: unexpected '$'");
    parse_fails("sqrt(a, b)", "sqrt takes 1 argument, got 2");
    parse_fails("frobnicate(a)", "unknown function frobnicate");
    parse_fails("a + sum(b)", "a reduction is allowed only around the whole expression");
    parse_fails("x: x + y", "unknown name y");
    parse_fails("2 * 3", "names no operand");
    parse_fails("sum(a, b)", "the axis of a reduction must be an integer");
    parse_fails("(a + b", "expected ')'");
    parse_fails("3x", "malformed number");
}

/* The result dtype of text over (dtype, weak) pairs, or -1 on an error. */
static int typed(const char *text, int n, const ga_dtype_t *d, const int *w)
{
    cm_error_t err = {0};
    if (ga_expr_parse(text, &e, &err) || ga_expr_type(&e, (ga_dtype_t *)d, (int *)w, &err))
        return -1;
    return (int)ga_expr_dtype(&e);
    (void)n;
}

static void test_types(void)
{
    const ga_dtype_t f32_i32[2] = {GA_F32, GA_I32}, f32_f[2] = {GA_F32, GA_F64},
                     i32_f[2] = {GA_I32, GA_F64}, b_i[2] = {GA_BOOL, GA_I64},
                     u8_i[2] = {GA_U8, GA_I64}, i8_i8[2] = {GA_I8, GA_I8}, f16[1] = {GA_F16},
                     i16[1] = {GA_I16}, b2[2] = {GA_BOOL, GA_BOOL};
    const int aa[2] = {0, 0}, aw[2] = {0, 1}, a1[1] = {0};
    CHECK(typed("a + b", 2, f32_i32, aa) == GA_F64);      /* float32 + int32 arrays: float64 */
    CHECK(typed("a * b", 2, f32_f, aw) == GA_F32);        /* float32 * 2.5: float32 (weak) */
    CHECK(typed("a * b", 2, i32_f, aw) == GA_F64);        /* int32 * 2.5: float64 */
    CHECK(typed("a + b", 2, b_i, aw) == GA_I64);          /* bool + 1: int64 */
    CHECK(typed("a - b", 2, u8_i, aw) == GA_U8);          /* uint8 - 1: uint8 */
    CHECK(typed("a / b", 2, i8_i8, aa) == GA_F64);        /* true division of ints: float64 */
    CHECK(typed("sqrt(a)", 1, f16, a1) == GA_F16);
    CHECK(typed("sqrt(a)", 1, i16, a1) == GA_F32);
    CHECK(typed("floor(a)", 1, i16, a1) == GA_I16);
    CHECK(typed("a < b", 2, f32_i32, aa) == GA_BOOL);
    CHECK(typed("a * b", 2, b2, aa) == GA_BOOL);
    CHECK(typed("a - b", 2, b2, aa) == -1);               /* NumPy refuses bool - bool */
    CHECK(typed("-a", 1, (const ga_dtype_t[]){GA_BOOL}, a1) == -1);
    CHECK(typed("a & b", 2, f32_f, aw) == -1);            /* bit operations need integers */
    CHECK(typed("float16(a)", 1, i16, a1) == GA_F16);
    CHECK(typed("where(a > 0, a, b)", 2, i32_f, aw) == GA_F64);
    const ga_dtype_t c64[1] = {GA_C64};
    CHECK(typed("a + 1", 1, c64, a1) == -1);
    CHECK(ga_expr_reduce_dtype(GA_R_SUM, GA_I8) == GA_I64);
    CHECK(ga_expr_reduce_dtype(GA_R_SUM, GA_U16) == GA_U64);
    CHECK(ga_expr_reduce_dtype(GA_R_MEAN, GA_I32) == GA_F64);
    CHECK(ga_expr_reduce_dtype(GA_R_MEAN, GA_F16) == GA_F16);
    CHECK(ga_expr_reduce_dtype(GA_R_ARGMAX, GA_F32) == GA_I64);
    CHECK(ga_expr_reduce_dtype(GA_R_ANY, GA_F32) == GA_BOOL);
}

/* Every dtype through a mixed expression and every reduction compiles for
 * a GPU (PTX where there is no GPU). */
static int test_gpu_sources(void)
{
    cm_error_t err = {0};
    gpu_program_t *p = gpu_program_get("extern \"C\" __global__ void k() {}\n", NULL, &err);
    if (!p && err.code == GPU_E_NO_LIBRARY) {
        printf("test_ga_expr: NVRTC not found, GPU sources not compiled (%s)\n", err.text);
        return 0;
    }
    const ga_dtype_t all[] = {GA_BOOL, GA_I8, GA_U8, GA_I16, GA_U16, GA_I32,
                              GA_U32, GA_I64, GA_U64, GA_F16, GA_F32, GA_F64};
    int compiled = 0;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        ga_dtype_t d[3] = {all[i], GA_F32, GA_I64};
        int w[3] = {0, 0, 1};
        const char *text = all[i] == GA_BOOL
                               ? "where(a, b, c) + maximum(b, 1) + (a && b > 0)"
                               : "a % c + a ** 2 + abs(a) + maximum(a, b) * sign(b) + (a > b ? a : c)";
        for (int nd = 0; nd <= 3; nd += 3) {
            cm_error_clear(&err);
            char *src = ga_map_source(text, 3, d, w, 1, nd, &err);
            CHECK(src != NULL);
            gpu_program_t *prog = src ? gpu_program_get(src, NULL, &err) : NULL;
            if (!prog)
                fprintf(stderr, "  %s / %s nd %d: %s\n", ga_dtype_name(all[i]), text, nd, err.text);
            CHECK(prog != NULL);
            compiled += prog != NULL;
            free(src);
        }
        for (int nd = 0; nd <= 2; nd++) { /* a fill (ga_copy_fill): one number, into views too */
            char fill[32];
            snprintf(fill, sizeof fill, "%s(a)", ga_dtype_name(all[i]));
            char k = ga_dtype_kind(all[i]);
            ga_dtype_t fd[1] = {k == GA_KIND_INT || k == GA_KIND_UINT ? GA_I64 : GA_F64};
            int fw[1] = {1};
            cm_error_clear(&err);
            char *src = ga_map_source(fill, 1, fd, fw, 1, nd, &err);
            gpu_program_t *prog = src ? gpu_program_get(src, NULL, &err) : NULL;
            if (!prog)
                fprintf(stderr, "  fill %s nd %d: %s\n", fill, nd, err.text);
            CHECK(prog != NULL);
            compiled += prog != NULL;
            free(src);
        }
        for (int idx = 0; idx < 3; idx++) { /* sort, argsort (int64, uint32 indices), searchsorted, histogram */
            char *src = ga_sort_source(all[i], idx, 1);
            cm_error_clear(&err);
            gpu_program_t *prog = gpu_program_get(src, NULL, &err);
            if (!prog)
                fprintf(stderr, "  %s / sort %d: %s\n", ga_dtype_name(all[i]), idx, err.text);
            CHECK(prog != NULL);
            compiled += prog != NULL;
            free(src);
        }
        if (i < 6) { /* take, put (by element size), the compaction */
            static const int sizes[6] = {0, 1, 2, 4, 8, 16};
            char *src = ga_index_source(sizes[i]);
            cm_error_clear(&err);
            gpu_program_t *prog = gpu_program_get(src, NULL, &err);
            if (!prog)
                fprintf(stderr, "  index %d: %s\n", sizes[i], err.text);
            CHECK(prog != NULL);
            compiled += prog != NULL;
            free(src);
        }
        for (int op = 0; op < 2; op++) {
            char *src = ga_scan_source((ga_scan_op_t)op, all[i], 1);
            cm_error_clear(&err);
            gpu_program_t *prog = gpu_program_get(src, NULL, &err);
            if (!prog)
                fprintf(stderr, "  %s / scan %d: %s\n", ga_dtype_name(all[i]), op, err.text);
            CHECK(prog != NULL);
            compiled += prog != NULL;
            free(src);
        }
        static const char *const ops[] = {"sum", "prod", "min", "max", "mean", "argmin",
                                          "argmax", "any", "all", "count_nonzero"};
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
            for (int variant = 1; variant <= 6; variant++) {
                if (variant == 6 && (o == 5 || o == 6)) /* argmin, argmax: never a warp a row */
                    continue;
                ga_dtype_t t = all[i]; /* the axis variants: a dtype of each size and kind */
                if (variant >= 3 && !(t == GA_BOOL || t == GA_I8 || t == GA_U64 || t == GA_F16 ||
                                      t == GA_F32 || t == GA_F64))
                    continue;
                char text2[64];
                snprintf(text2, sizeof text2, "%s(a * c)", ops[o]);
                if (all[i] == GA_BOOL)
                    snprintf(text2, sizeof text2, "%s(a)", ops[o]);
                ga_dtype_t d2[2] = {all[i], GA_I64};
                int w2[2] = {0, 1};
                cm_error_clear(&err);
                char *src = ga_reduce_source(text2, all[i] == GA_BOOL ? 1 : 2, d2, w2, 1, variant,
                                             variant > 2 ? 2 : 0, &err);
                CHECK(src != NULL);
                gpu_program_t *prog = src ? gpu_program_get(src, NULL, &err) : NULL;
                if (!prog)
                    fprintf(stderr, "  %s / %s variant %d: %s\n", ga_dtype_name(all[i]), text2,
                            variant, err.text);
                CHECK(prog != NULL);
                compiled += prog != NULL;
                free(src);
            }
    }
    char *src = ga_fft_kernel_source(); /* fft of real input: widen, mirror */
    cm_error_clear(&err);
    gpu_program_t *prog = gpu_program_get(src, NULL, &err);
    if (!prog)
        fprintf(stderr, "  fft kernels: %s\n", err.text);
    CHECK(prog != NULL);
    compiled += prog != NULL;
    free(src);
    for (int d = 0; d < GA_NDTYPES; d++) { /* fill (by element size), arange and linspace */
        src = ga_fill_source((ga_dtype_t)d, (int)ga_dtype_size((ga_dtype_t)d));
        cm_error_clear(&err);
        prog = gpu_program_get(src, NULL, &err);
        if (!prog)
            fprintf(stderr, "  %s / fill: %s\n", ga_dtype_name((ga_dtype_t)d), err.text);
        CHECK(prog != NULL);
        compiled += prog != NULL;
        free(src);
    }
    return compiled;
}

int main(void)
{
    char dir[] = "/tmp/test_ga_expr_XXXXXX";
    if (mkdtemp(dir))
        setenv("XDG_CACHE_HOME", dir, 1);
    test_parse();
    test_types();
    int n = test_gpu_sources();
    printf("test_ga_expr: %d GPU kernels compiled\n", n);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_report("test_ga_expr");
}
