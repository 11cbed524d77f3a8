/* test_ga_onesweep: a GPU's onesweep sort where there is no GPU.
 *
 * The kernels (CUB's histogram, onesweep and segmented-sort agents in our
 * wrappers, with our key type's NumericTraits) compile with NVRTC to
 * sm_90 cubins (CUB's sm_90 paths, ptxas's limits on registers and shared
 * memory) for every key dtype, for sort and for argsort, with the lines'
 * kernel at its largest block (and its smallest for three dtypes), so that
 * a header or template error fails here and not on the GPU machine. And the keys' order, the same text compiled by the CPU's C
 * compiler: every float16 bit pattern, and float32 / float64 / integer
 * samples, ranked as NumPy orders them (NaN of either sign last; argsort:
 * -0.0 equal to 0.0, every NaN one key; sort: a bijection, -0.0 just below
 * 0.0), the keys CUB pads a tile with ranked last, and Out undoing In. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"
#include "cm_buf.h"
#include "ga_onesweep.h"
#include "gpu.h"

typedef unsigned long long (*key_fn)(unsigned long long);

/* ga_os_in / ga_os_out / GA_OS_MAX of d's key text, compiled for the CPU. */
static int key_fns(ga_dtype_t d, int idx, key_fn *in, key_fn *out, unsigned long long *max)
{
    char *src = ga_onesweep_keys_source(d, idx);
    cm_buf_t b = {0};
    cm_buf_adds(&b, src);
    cm_buf_adds(&b, "unsigned long long t_in(unsigned long long u) { return ga_os_in((ga_uk)u); }\n"
                    "unsigned long long t_out(unsigned long long k) { return ga_os_out((ga_uk)k); }\n"
                    "unsigned long long t_max(unsigned long long x) { (void)x; return GA_OS_MAX; }\n");
    free(src);
    cm_error_t err = {0};
    *in = (key_fn)bk_kernel_get(BK_CPU_DEVICE, cm_buf_str(&b), NULL, "t_in", &err);
    *out = *in ? (key_fn)bk_kernel_get(BK_CPU_DEVICE, cm_buf_str(&b), NULL, "t_out", &err) : NULL;
    key_fn m = *out ? (key_fn)bk_kernel_get(BK_CPU_DEVICE, cm_buf_str(&b), NULL, "t_max", &err) : NULL;
    cm_buf_free(&b);
    if (!m) {
        fprintf(stderr, "  keys of %s: %s\n", ga_dtype_name(d), err.text);
        return -1;
    }
    *max = m(0);
    return 0;
}

/* NumPy's order of two values: -1, 0, 1 (NaNs equal, after every number). */
static int numpy_cmp(double a, double b)
{
    int na = isnan(a), nb = isnan(b);
    if (na || nb)
        return na - nb;
    return (a > b) - (a < b);
}

static double value_of(ga_dtype_t d, unsigned long long u)
{
    switch (d) {
    case GA_F16: {
        _Float16 h;
        uint16_t s = (uint16_t)u;
        memcpy(&h, &s, 2);
        return (double)h;
    }
    case GA_F32: {
        float f;
        uint32_t s = (uint32_t)u;
        memcpy(&f, &s, 4);
        return f;
    }
    case GA_F64: {
        double f;
        memcpy(&f, &u, 8);
        return f;
    }
    case GA_I8: return (int8_t)u;
    case GA_I16: return (int16_t)u;
    case GA_I32: return (int32_t)u;
    case GA_I64: return (double)(int64_t)u; /* the samples below stay exact */
    default: return (double)u;
    }
}

/* Checks In's order over samples (bits) against NumPy's. Returns the bad pairs. */
static int check_order(ga_dtype_t d, int idx, const unsigned long long *bits, int n)
{
    key_fn in, out;
    unsigned long long max, all = ga_dtype_size(d) == 8 ? ~0ULL : (1ULL << (8 * ga_dtype_size(d))) - 1;
    if (key_fns(d, idx, &in, &out, &max))
        return 1;
    int bad = 0, is_float = d == GA_F16 || d == GA_F32 || d == GA_F64;
    bad += in(max) != all; /* CUB's padding ranks last */
    for (int i = 0; i < n; i++) {
        unsigned long long ki = in(bits[i]);
        double vi = value_of(d, bits[i]);
        /* sort: Out gives the very bits back; argsort: Out's key is In's */
        bad += idx ? in(out(ki)) != ki : out(ki) != bits[i];
        for (int j = 0; j < n; j++) {
            unsigned long long kj = in(bits[j]);
            double vj = value_of(d, bits[j]);
            int want = numpy_cmp(vi, vj), got = (ki > kj) - (ki < kj);
            if (want != 0 && got != want)
                bad++;
            else if (want == 0 && is_float && idx && got != 0) /* argsort: equal keys stay in order */
                bad++;
            else if (want == 0 && !idx && bits[i] != bits[j] && !isnan(vi) && got == 0)
                bad++; /* sort: distinct bits, distinct keys (-0.0 and 0.0) */
        }
        if (is_float && !idx && vi == 0 && signbit(vi)) { /* -0.0 just below 0.0 */
            bad += in(bits[i]) + 1 != in(0);
        }
    }
    if (bad)
        fprintf(stderr, "  %s %s: %d bad\n", ga_dtype_name(d), idx ? "argsort" : "sort", bad);
    return bad;
}

static void test_key_order(void)
{
    /* float16: spread over every pattern (both NaN signs, both zeros, infinities) */
    enum { N16 = 1100 };
    static unsigned long long h[N16];
    int n = 0;
    for (unsigned u = 0; u < 65536; u += 61)
        h[n++] = u;
    unsigned long long extra16[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7c01, 0x7e00, 0xfe00, 0xffff, 0x7fff,
                                    0x0001, 0x8001, 0x3c00, 0xbc00};
    for (size_t i = 0; i < sizeof extra16 / sizeof *extra16; i++)
        h[n++] = extra16[i];
    for (int idx = 0; idx < 2; idx++)
        CHECK(check_order(GA_F16, idx, h, n) == 0);

    static unsigned long long s[300];
    float f32[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -1e-45f, 3.4e38f,
                   -3.4e38f, 0.5f, -0.5f, 1e-38f, 123.25f};
    n = 0;
    for (size_t i = 0; i < sizeof f32 / sizeof *f32; i++) {
        uint32_t u;
        memcpy(&u, &f32[i], 4);
        s[n++] = u;
    }
    s[n++] = 0x7fc00001u; /* NaNs with payloads, both signs */
    s[n++] = 0xffffffffu;
    s[n++] = 0x7f800001u;
    s[n++] = 0xff800001u;
    srand(29);
    while (n < 200)
        s[n++] = ((unsigned long long)rand() << 17 ^ (unsigned long long)rand()) & 0xffffffffu;
    for (int idx = 0; idx < 2; idx++)
        CHECK(check_order(GA_F32, idx, s, n) == 0);

    double f64[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, -NAN, 5e-324, -5e-324, 1.7e308, -2.5};
    n = 0;
    for (size_t i = 0; i < sizeof f64 / sizeof *f64; i++)
        memcpy(&s[n++], &f64[i], 8);
    s[n++] = 0xffffffffffffffffULL;
    s[n++] = 0x7ff0000000000001ULL;
    while (n < 200)
        s[n++] = (unsigned long long)rand() << 42 ^ (unsigned long long)rand() << 21 ^ (unsigned long long)rand();
    for (int idx = 0; idx < 2; idx++)
        CHECK(check_order(GA_F64, idx, s, n) == 0);

    /* integers: every int8 / uint8, int16 samples, the ends of the wider ones */
    n = 0;
    for (unsigned u = 0; u < 256; u++)
        s[n++] = u;
    CHECK(check_order(GA_I8, 0, s, n) == 0);
    CHECK(check_order(GA_U8, 1, s, n) == 0);
    CHECK(check_order(GA_BOOL, 0, s, 2) == 0);
    n = 0;
    for (unsigned u = 0; u < 65536; u += 257)
        s[n++] = u;
    s[n++] = 0x7fff;
    s[n++] = 0x8000;
    CHECK(check_order(GA_I16, 1, s, n) == 0);
    CHECK(check_order(GA_U16, 0, s, n) == 0);
    unsigned long long ends32[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 12345, 0x80000001};
    CHECK(check_order(GA_I32, 0, ends32, 7) == 0);
    CHECK(check_order(GA_U32, 1, ends32, 7) == 0);
    unsigned long long ends64[] = {0, 1, 0x7ffffffffffffc00ULL, 0x8000000000000000ULL, 0xfffffffffffff800ULL,
                                   1ULL << 40, 0xffffffffffffffffULL - 4095};
    CHECK(check_order(GA_I64, 1, ends64, 7) == 0);
    CHECK(check_order(GA_U64, 0, ends64, 7) == 0);
}

/* Every dtype's kernels, for sort and argsort, compile with NVRTC for sm_90's CUB paths. */
static void test_nvrtc(void)
{
    cm_error_t err = {0};
    gpu_program_t *p = gpu_program_get("extern \"C\" __global__ void k() {}\n", NULL, &err);
    if (!p && err.code == GPU_E_NO_LIBRARY) {
        printf("test_ga_onesweep: NVRTC not found, the kernels not compiled (%s)\n", err.text);
        return;
    }
    const ga_dtype_t all[] = {GA_BOOL, GA_I8, GA_U8, GA_I16, GA_U16, GA_I32,
                              GA_U32, GA_I64, GA_U64, GA_F16, GA_F32, GA_F64};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        for (int idx = 0; idx < 2; idx++) {
            /* the lines' kernel too: the largest block (the most shared memory) */
            char *src = ga_onesweep_source(all[i], idx, GA_ONESWEEP_LINE_MAX);
            CHECK(strstr(src, "AgentRadixSortOnesweep") != NULL && strstr(src, "ga_os_lines") != NULL);
            cm_error_clear(&err);
            gpu_program_t *prog = gpu_program_get(src, "--gpu-architecture=sm_90", &err);
            if (!prog)
                fprintf(stderr, "  onesweep %s %s: %s\n", ga_dtype_name(all[i]), idx ? "argsort" : "sort",
                        err.text);
            CHECK(prog != NULL);
            free(src);
        }
    /* the smallest block for lines (one warp), for a few dtypes */
    const ga_dtype_t few[] = {GA_U8, GA_F32, GA_F64};
    for (int i = 0; i < 3; i++) {
        char *src = ga_onesweep_source(few[i], i != 0, GA_ONESWEEP_LINE_MIN);
        cm_error_clear(&err);
        gpu_program_t *prog = gpu_program_get(src, "--gpu-architecture=sm_90", &err);
        if (!prog)
            fprintf(stderr, "  lines of %d, %s: %s\n", GA_ONESWEEP_LINE_MIN, ga_dtype_name(few[i]), err.text);
        CHECK(prog != NULL);
        free(src);
    }
}

int main(void)
{
    test_key_order();
    test_nvrtc();
    return check_report("test_ga_onesweep");
}
