/* test_ga_random: the generator on the CPU backend — Philox4x32-10 against
 * Random123's known answers, each element a function of (seed, counter,
 * index) only, the session generator (same seed, same numbers; the next
 * call new ones), statistics of uniform, normal and integers, the errors,
 * and the GPU kernels' source compiled by NVRTC for compute_90 (where
 * NVRTC can be loaded; it cannot run here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"
#include "ga_api.h"
#include "ga_philox.h"
#include "ga_random.h"
#include "gpu.h"
#include "gpu_nvrtc.h"

/* Random123 1.14, tests/kat_vectors, the three "philox4x32 10" lines:
 * counter (4 words), key (2 words), result (4 words). */
static void test_known_answers(void)
{
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int t = 0; t < 3; t++) {
        ga_rng_block_t c = {{kat[t][0], kat[t][1], kat[t][2], kat[t][3]}};
        ga_rng_block_t r = ga_philox4x32_10(c, kat[t][4], kat[t][5]);
        for (int k = 0; k < 4; k++)
            CHECK(r.v[k] == kat[t][6 + k]);
    }
    /* block 0 of seed 0 is the all-zero vector */
    ga_rng_block_t z = ga_rng_words(0, 0);
    CHECK(z.v[0] == 0x6627e8d5 && z.v[3] == 0x9b00dbd8);
    /* the 64-bit high product */
    CHECK(ga_rng_mulhi64(~0ull, ~0ull) == ~0ull - 1);
    CHECK(ga_rng_mulhi64(1ull << 63, 6) == 3);
    CHECK(ga_rng_mulhi64(0x123456789abcdef0ull, 0xfedcba9876543210ull) ==
          (uint64_t)(((unsigned __int128)0x123456789abcdef0ull * 0xfedcba9876543210ull) >> 64));
}

/* The float log and sincos of the normals against the C library's. */
static void test_float_functions(void)
{
    double worst_log = 0, worst_sin = 0;
    for (uint64_t i = 0; i <= 200000; i++) {
        /* a + 1 from 1 to 2^32, log-spaced, and the ends */
        uint64_t x = i == 200000 ? (1ull << 32) : (uint64_t)exp2(32.0 * (double)i / 200000);
        /* of the first 24 bits of x: the input itself is cut to 24 bits */
        int shift = 0;
        while ((x >> shift) >> 24)
            shift++;
        double x24 = ldexp((double)(x >> shift), shift);
        double want = log(x24 / 4294967296.0);
        double got = ga_rng_log_u32((uint32_t)(x - 1), ga_rng_logtab);
        worst_log = fmax(worst_log, fabs(got - want) / (fabs(want) * 1.2e-7 + 1e-9));
        uint32_t b = (uint32_t)(i * 21475u + (i >> 3));
        float s, c;
        ga_rng_sincos_u32(b, &s, &c);
        double t = 6.283185307179586 * (double)(b & ~0x7Fu) / 4294967296.0; /* 25 bits */
        worst_sin = fmax(worst_sin, fmax(fabs(s - sin(t)), fabs(c - cos(t))));
    }
    printf("float log: within %.2f ulp; sincos: within %.3g\n", worst_log, worst_sin);
    CHECK(worst_log < 2.5);
    CHECK(worst_sin < 2.5e-7);
    float s, c;
    ga_rng_sincos_u32(0, &s, &c);
    CHECK(s == 0 && c == 1);
    ga_rng_sincos_u32(1u << 30, &s, &c); /* a quarter turn */
    CHECK(s == 1 && c == 0);
    CHECK(ga_rng_log_u32(0xFFFFFFFFu, ga_rng_logtab) == 0);
}

static ga_array_t *filled(ga_dtype_t dtype, int64_t n, const ga_rng_params_t *p, uint64_t seed,
                          uint64_t start)
{
    cm_error_t err = {0};
    ga_array_t *a = ga_array_new(GA_CPU, dtype, 1, &n, &err);
    CHECK(a != NULL);
    CHECK(ga_random_fill(a, p, seed, start, &err) == 0);
    return a;
}

/* Element i depends on (seed, start + i / per) only: a call that starts
 * one block later gives the same elements shifted by per. */
static void test_counter_based(void)
{
    struct { ga_rng_params_t p; ga_dtype_t dtype; int per; } cases[] = {
        {{.dist = GA_RNG_UNIFORM}, GA_F32, 4},
        {{.dist = GA_RNG_UNIFORM}, GA_F16, 4},
        {{.dist = GA_RNG_UNIFORM}, GA_F64, 2},
        {{.dist = GA_RNG_NORMAL, .mean = 1, .std = 2}, GA_F32, 4},
        {{.dist = GA_RNG_NORMAL, .mean = 1, .std = 2}, GA_F64, 2},
        {{.dist = GA_RNG_INTEGERS, .low = -3, .high = 100}, GA_I16, 2},
        {{.dist = GA_RNG_INTEGERS, .low = 0, .high = 1LL << 40}, GA_U64, 2},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        size_t es = ga_dtype_size(cases[t].dtype);
        int per = cases[t].per;
        CHECK(ga_random_blocks(cases[t].p.dist, cases[t].dtype, 13) ==
              (uint64_t)((13 + per - 1) / per));
        ga_array_t *a = filled(cases[t].dtype, 13, &cases[t].p, 7, 100);
        ga_array_t *b = filled(cases[t].dtype, 13 - per, &cases[t].p, 7, 101);
        ga_array_t *c = filled(cases[t].dtype, 13, &cases[t].p, 8, 100);
        CHECK(memcmp((char *)ga_array_data(a) + per * es, ga_array_data(b), (13 - per) * es) == 0);
        CHECK(memcmp(ga_array_data(a), ga_array_data(c), 13 * es) != 0);
        ga_array_free(a);
        ga_array_free(b);
        ga_array_free(c);
    }
    /* uniform float32 is word >> 8 times 2^-24, word k of block 0 */
    ga_rng_params_t u = {.dist = GA_RNG_UNIFORM};
    ga_array_t *a = filled(GA_F32, 3, &u, 0, 0);
    CHECK(((float *)ga_array_data(a))[2] == (float)(0xbc57ac4cu >> 8) / 16777216.0f);
    ga_array_free(a);
}

static void moments(const ga_array_t *a, double *mean, double *std, double *lo, double *hi)
{
    double s = 0, s2 = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int64_t i = 0; i < a->size; i++) {
        double x = ga_dtype_get_f64(a->dtype, ga_array_data(a), (size_t)i);
        s += x;
        s2 += x * x;
        *lo = x < *lo ? x : *lo;
        *hi = x > *hi ? x : *hi;
    }
    *mean = s / (double)a->size;
    *std = sqrt(s2 / (double)a->size - *mean * *mean);
}

/* Pearson's chi-square of counts over nbins equally likely bins. */
static double chi_square(const int64_t *counts, int nbins, int64_t n)
{
    double e = (double)n / nbins, chi = 0;
    for (int b = 0; b < nbins; b++)
        chi += (counts[b] - e) * (counts[b] - e) / e;
    return chi;
}

static void test_statistics(void)
{
    const int64_t n = 1000000;
    double mean, std, lo, hi;
    ga_rng_params_t u = {.dist = GA_RNG_UNIFORM};
    ga_dtype_t floats[] = {GA_F16, GA_F32, GA_F64};
    for (int d = 0; d < 3; d++) {
        ga_array_t *a = filled(floats[d], n, &u, 42, 0);
        moments(a, &mean, &std, &lo, &hi);
        CHECK(fabs(mean - 0.5) < 0.002 && fabs(std - sqrt(1 / 12.0)) < 0.002);
        CHECK(lo >= 0 && hi < 1);
        /* 64 bins, so that each holds as many float16 values (k / 2048) */
        int64_t counts[64] = {0};
        for (int64_t i = 0; i < n; i++)
            counts[(int)(ga_dtype_get_f64(a->dtype, ga_array_data(a), (size_t)i) * 64)]++;
        /* 63 degrees of freedom: the 99.99% point is 113.6 */
        CHECK(chi_square(counts, 64, n) < 113.6);
        ga_array_free(a);
    }
    ga_rng_params_t g = {.dist = GA_RNG_NORMAL, .mean = 3, .std = 0.5};
    for (int d = 0; d < 3; d++) {
        ga_array_t *a = filled(floats[d], n, &g, 43, 0);
        moments(a, &mean, &std, &lo, &hi);
        CHECK(fabs(mean - 3) < 0.005 && fabs(std - 0.5) < 0.005);
        /* the share within one std: 68.27% */
        int64_t within = 0;
        for (int64_t i = 0; i < n; i++)
            within += fabs(ga_dtype_get_f64(a->dtype, ga_array_data(a), (size_t)i) - 3) < 0.5;
        CHECK(fabs((double)within / n - 0.6827) < 0.003);
        ga_array_free(a);
    }
    ga_rng_params_t r = {.dist = GA_RNG_INTEGERS, .low = -5, .high = 7};
    ga_dtype_t ints[] = {GA_I8, GA_I16, GA_I32, GA_I64};
    for (int d = 0; d < 4; d++) {
        ga_array_t *a = filled(ints[d], n, &r, 44, 0);
        int64_t counts[12] = {0};
        int bad = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t v = ga_dtype_get_i64(a->dtype, ga_array_data(a), (size_t)i);
            if (v < -5 || v >= 7)
                bad++;
            else
                counts[v + 5]++;
        }
        CHECK(bad == 0);
        CHECK(chi_square(counts, 12, n) < 35); /* 11 degrees of freedom, 99.97% */
        ga_array_free(a);
    }
    /* the whole range of uint8 and of int64 */
    ga_rng_params_t full8 = {.dist = GA_RNG_INTEGERS, .low = 0, .high = 256};
    ga_array_t *a = filled(GA_U8, n, &full8, 45, 0);
    int64_t counts[256] = {0};
    for (int64_t i = 0; i < n; i++)
        counts[((uint8_t *)ga_array_data(a))[i]]++;
    CHECK(chi_square(counts, 256, n) < 340); /* 255 degrees of freedom */
    ga_array_free(a);
    ga_rng_params_t full64 = {.dist = GA_RNG_INTEGERS, .low = INT64_MIN, .high = INT64_MAX};
    a = filled(GA_I64, 1000, &full64, 46, 0);
    int negative = 0;
    for (int i = 0; i < 1000; i++)
        negative += ((int64_t *)ga_array_data(a))[i] < 0;
    CHECK(negative > 400 && negative < 600);
    ga_array_free(a);
}

static void test_session_generator(void)
{
    cm_error_t err = {0};
    ga_rng_params_t u = {.dist = GA_RNG_UNIFORM};
    int64_t shape[2] = {3, 5};
    ga_random_seed(42);
    ga_array_t *a = ga_random_new(GA_CPU, GA_F32, 2, shape, &u, &err);
    ga_array_t *b = ga_random_new(GA_CPU, GA_F32, 2, shape, &u, &err);
    uint64_t seed, counter;
    ga_random_state(&seed, &counter);
    CHECK(seed == 42 && counter == 8); /* two calls of 15 float32: 4 blocks each */
    ga_random_seed(42);
    ga_array_t *c = ga_random_new(GA_CPU, GA_F32, 2, shape, &u, &err);
    CHECK(a && b && c);
    CHECK(memcmp(ga_array_data(a), ga_array_data(c), 15 * 4) == 0);
    CHECK(memcmp(ga_array_data(a), ga_array_data(b), 15 * 4) != 0);
    /* the second call starts where the first ended: block 4 */
    ga_array_t *d = filled(GA_F32, 15, &u, 42, 4);
    CHECK(memcmp(ga_array_data(b), ga_array_data(d), 15 * 4) == 0);
    ga_array_free(a);
    ga_array_free(b);
    ga_array_free(c);
    ga_array_free(d);
    /* empty arrays use no blocks */
    int64_t none = 0;
    ga_random_state(&seed, &counter);
    ga_array_t *e = ga_random_new(GA_CPU, GA_F64, 1, &none, &u, &err);
    uint64_t after;
    ga_random_state(&seed, &after);
    CHECK(e && e->size == 0 && after == counter);
    ga_array_free(e);
}

static void test_errors(void)
{
    cm_error_t err = {0};
    struct { ga_rng_params_t p; ga_dtype_t dtype; int code; const char *text; } bad[] = {
        {{.dist = GA_RNG_UNIFORM}, GA_I32, GA_E_DTYPE, "not int32 (use ga_integers)"},
        {{.dist = GA_RNG_NORMAL, .std = 1}, GA_C64, GA_E_DTYPE, "not complex64"},
        {{.dist = GA_RNG_INTEGERS, .high = 3}, GA_F32, GA_E_DTYPE, "not float32"},
        {{.dist = GA_RNG_INTEGERS, .high = 3}, GA_BOOL, GA_E_DTYPE, "not bool"},
        {{.dist = GA_RNG_NORMAL, .std = -1}, GA_F32, GA_E_VALUE, "std must be >= 0"},
        {{.dist = GA_RNG_NORMAL, .std = NAN}, GA_F32, GA_E_VALUE, "std must be >= 0"},
        {{.dist = GA_RNG_INTEGERS, .low = 5, .high = 5}, GA_I32, GA_E_VALUE, "low >= high"},
        {{.dist = GA_RNG_INTEGERS, .low = 0, .high = 300}, GA_I8, GA_E_VALUE,
         "[0, 300) does not fit int8 (-128 ... 127)"},
        {{.dist = GA_RNG_INTEGERS, .low = -1, .high = 3}, GA_U32, GA_E_VALUE, "does not fit"},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        cm_error_clear(&err);
        CHECK(ga_random_check(&bad[t].p, bad[t].dtype, &err) == -1);
        CHECK(err.code == bad[t].code);
        if (!strstr(err.text, bad[t].text)) {
            CHECK(!"message");
            fprintf(stderr, "  got: %s\n  expected to contain: %s\n", err.text, bad[t].text);
        }
    }
    ga_rng_params_t ok = {.dist = GA_RNG_INTEGERS, .low = -128, .high = 128};
    CHECK(ga_random_check(&ok, GA_I8, &err) == 0);
    /* through the cell API: no hook, so NULL and the last error */
    CHECK(ga_api_integers((ga_cell_dtype_t){GA_F64}, 0, 10, 1, (const long long[]){4}) == NULL);
    CHECK(strstr(ga_api_last_error()->text, "ga_integers: integers are made as int8") != NULL);
    CHECK(ga_api_normal((ga_cell_dtype_t){GA_F32}, 0, -2, 0, NULL) == NULL);
    CHECK(ga_api_last_error()->code == GA_E_VALUE);
    CHECK_STR(ga_api_kind(GA_E_VALUE), "ValueError");
    ga_api_seed(5);
    ga_array_t *a = ga_api_random((ga_cell_dtype_t){GA_F32}, 2, (const long long[]){2, 3});
    CHECK(a && a->ndim == 2 && a->shape[1] == 3);
    ga_array_free(a);
}

/* The GPU kernels' source must compile: NVRTC for compute_90, PTX. */
static void test_cuda_source_compiles(void)
{
    cm_error_t err = {0};
    const gpu_nvrtc_t *nv = gpu_nvrtc_get(&err);
    if (!nv) {
        printf("NVRTC not found: the CUDA source is not compiled (%s)\n", err.text);
        return;
    }
    gpu_nvrtc_program_t prog = NULL;
    CHECK(GPU_NVRTC_CHECK(nv->nvrtcCreateProgram(&prog, ga_random_cuda_source(), "ga_random.cu",
                                                 0, NULL, NULL), &err) == 0);
    const char *opts[] = {"--gpu-architecture=compute_90", "--std=c++17", GA_RANDOM_CUDA_OPTIONS};
    int rc = nv->nvrtcCompileProgram(prog, 3, opts);
    size_t log_size = 0;
    nv->nvrtcGetProgramLogSize(prog, &log_size);
    char *log = calloc(1, log_size + 1);
    nv->nvrtcGetProgramLog(prog, log);
    CHECK(rc == 0);
    if (rc != 0 || strstr(log, "warning"))
        fprintf(stderr, "NVRTC log:\n%s\n", log);
    size_t ptx_size = 0;
    if (rc == 0) {
        nv->nvrtcGetPTXSize(prog, &ptx_size);
        char *ptx = malloc(ptx_size);
        nv->nvrtcGetPTX(prog, ptx);
        const char *names[] = {"ga_uniform_f32", "ga_uniform_f16", "ga_uniform_f64",
                               "ga_normal_f32", "ga_normal_f16", "ga_normal_f64",
                               "ga_integers_1", "ga_integers_2", "ga_integers_4",
                               "ga_integers_8"};
        for (int i = 0; i < 10; i++)
            CHECK(strstr(ptx, names[i]) != NULL);
        /* 4 floats per thread in one store */
        CHECK(strstr(ptx, "st.global.v4.f32") != NULL || strstr(ptx, "st.global.v4.b32") != NULL);
        free(ptx);
    }
    free(log);
    nv->nvrtcDestroyProgram(&prog);
}

int main(void)
{
    test_known_answers();
    test_float_functions();
    test_counter_based();
    test_statistics();
    test_session_generator();
    test_errors();
    test_cuda_source_compiles();
    ga_array_free_all();
    return check_report("test_ga_random");
}
