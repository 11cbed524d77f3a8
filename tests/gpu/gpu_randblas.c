/* gpu_randblas: random numbers and matmul on a real GPU (not run by ctest;
 * CI has no GPU). Exit status: 0 all good, 1 a check failed, 77 no GPU.
 *
 * Random: compiles ga_random's CUDA source with NVRTC (directly, so that
 * it runs before backend/cuda/gpu_program.c exists), launches every kernel as
 * ga_random.c does on n = 1e6 + 3 elements and compares the bytes with the
 * CPU backend's for the same (seed, counter): all must be equal bit for
 * bit but float64 normals (within 1e-13 std: they use the math libraries).
 * The same through ga_random_fill (backend/cuda/gpu_program). Then times uniform
 * and normal of 1e8 float32.
 *
 * Matmul: ga_blas_matmul on GPU arrays (cuBLAS) against the CPU backend
 * (OpenBLAS) for each dtype, TF32, transposed views, batches with
 * broadcasting, matrix-vector, strided copies, and ga_blas_dot; then
 * times 4096^2 and 10000^2 products in f32, TF32, f64, f16 (TFLOP/s).
 *
 *     gpu_randblas [--bench]      (--bench: the timings too) */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "ga_array.h"
#include "ga_blas.h"
#include "ga_copy.h"
#include "ga_random.h"
#include "gpu.h"
#include "gpu_driver.h"
#include "gpu_internal.h"
#include "gpu_nvrtc.h"

static int failures;

/* Counts a failed check and says which, at line. */
static void expect_at(int ok, int line, const char *fmt, ...)
{
    if (ok)
        return;
    failures++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL line %d: ", line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}
#define EXPECT(cond, ...) expect_at((cond) != 0, __LINE__, __VA_ARGS__)

static gpu_cumodule_t module_of_random(const gpu_info_t *info)
{
    cm_error_t err = {0};
    const gpu_nvrtc_t *nv = gpu_nvrtc_get(&err);
    const gpu_driver_t *d = gpu_driver_get(&err);
    if (!nv || !d || gpu_context_ensure(&err) != 0) {
        printf("FAIL: %s\n", err.text);
        exit(1);
    }
    gpu_nvrtc_program_t prog = NULL;
    nv->nvrtcCreateProgram(&prog, ga_random_cuda_source(), "ga_random.cu", 0, NULL, NULL);
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", info->devices[0].major,
             info->devices[0].minor);
    const char *opts[] = {arch, "--std=c++17"};
    int rc = nv->nvrtcCompileProgram(prog, 2, opts);
    size_t size = 0;
    nv->nvrtcGetProgramLogSize(prog, &size);
    char *log = calloc(1, size + 1);
    nv->nvrtcGetProgramLog(prog, log);
    if (rc != 0) {
        printf("FAIL: NVRTC: %s\n", log);
        exit(1);
    }
    nv->nvrtcGetCUBINSize(prog, &size);
    char *cubin = malloc(size);
    nv->nvrtcGetCUBIN(prog, cubin);
    gpu_cumodule_t mod = NULL;
    if (GPU_CU_CHECK(d->cuModuleLoadData(&mod, cubin), &err) != 0) {
        printf("FAIL: %s\n", err.text);
        exit(1);
    }
    free(cubin);
    free(log);
    nv->nvrtcDestroyProgram(&prog);
    return mod;
}

/* Launches kernel name over a as ga_random.c's gpu_fill does. */
static void launch(gpu_cumodule_t mod, const char *name, ga_array_t *a, const ga_rng_params_t *p,
                   uint64_t seed, uint64_t start, int sms)
{
    cm_error_t err = {0};
    const gpu_driver_t *d = gpu_driver_get(&err);
    gpu_cufunction_t fn = NULL;
    EXPECT(GPU_CU_CHECK(d->cuModuleGetFunction(&fn, mod, name), &err) == 0, "%s", err.text);
    uint64_t blocks = ga_random_blocks(p->dist, a->dtype, a->size);
    uint64_t want = (blocks + 255) / 256, cap = (uint64_t)sms * 32;
    unsigned grid = (unsigned)(want < cap ? want : cap);
    void *out = ga_array_data(a);
    unsigned long long n = (unsigned long long)a->size, sd = seed, st = start;
    unsigned long long low = (uint64_t)p->low, range = (uint64_t)p->high - (uint64_t)p->low;
    double mean = p->mean, std = p->std;
    void *args[] = {&out, &n, &sd, &st, &mean, &std, &low, &range};
    EXPECT(GPU_CU_CHECK(d->cuLaunchKernel(fn, grid ? grid : 1, 1, 1, 256, 1, 1, 0, NULL, args,
                                          NULL), &err) == 0, "%s: %s", name, err.text);
}

/* |x[i] - y[i]| of dtype, in units of std */
static double apart(ga_dtype_t dtype, const void *x, const void *y, size_t i, double std)
{
    return fabs(ga_dtype_get_f64(dtype, x, i) - ga_dtype_get_f64(dtype, y, i)) / std;
}

static void check_random(gpu_cumodule_t mod, int sms)
{
    struct { ga_rng_params_t p; ga_dtype_t dtype; const char *kernel; } cases[] = {
        {{.dist = GA_RNG_UNIFORM}, GA_F32, "ga_uniform_f32"},
        {{.dist = GA_RNG_UNIFORM}, GA_F16, "ga_uniform_f16"},
        {{.dist = GA_RNG_UNIFORM}, GA_F64, "ga_uniform_f64"},
        {{.dist = GA_RNG_NORMAL, .mean = 1, .std = 2}, GA_F32, "ga_normal_f32"},
        {{.dist = GA_RNG_NORMAL, .mean = 1, .std = 2}, GA_F16, "ga_normal_f16"},
        {{.dist = GA_RNG_NORMAL, .mean = 1, .std = 2}, GA_F64, "ga_normal_f64"},
        {{.dist = GA_RNG_INTEGERS, .low = -100, .high = 27}, GA_I8, "ga_integers_1"},
        {{.dist = GA_RNG_INTEGERS, .low = 0, .high = 60000}, GA_U16, "ga_integers_2"},
        {{.dist = GA_RNG_INTEGERS, .low = -7, .high = 1000000007}, GA_I32, "ga_integers_4"},
        {{.dist = GA_RNG_INTEGERS, .low = INT64_MIN, .high = INT64_MAX}, GA_I64, "ga_integers_8"},
    };
    int64_t n = 1000003;
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        cm_error_t err = {0};
        ga_array_t *g = ga_array_new(0, cases[t].dtype, 1, &n, &err);
        ga_array_t *c = ga_array_new(GA_CPU, cases[t].dtype, 1, &n, &err);
        EXPECT(g && c, "%s", err.text);
        launch(mod, cases[t].kernel, g, &cases[t].p, 12345, 678, sms);
        EXPECT(ga_random_fill(c, &cases[t].p, 12345, 678, &err) == 0, "%s", err.text);
        /* and through the library (backend/cuda/gpu_program), as cells get it */
        ga_array_t *g2 = ga_array_new(0, cases[t].dtype, 1, &n, &err);
        EXPECT(g2 && ga_random_fill(g2, &cases[t].p, 12345, 678, &err) == 0, "%s", err.text);
        size_t es = ga_dtype_size(cases[t].dtype);
        char *back = malloc((size_t)n * es);
        EXPECT(ga_copy_to_host(g, back, &err) == 0, "%s", err.text);
        int64_t differ = 0;
        double worst = 0;
        for (int64_t i = 0; i < n; i++)
            if (memcmp(back + i * es, (char *)ga_array_data(c) + i * es, es) != 0) {
                differ++;
                worst = fmax(worst, apart(cases[t].dtype, back, ga_array_data(c), (size_t)i, 2));
            }
        if (cases[t].p.dist == GA_RNG_NORMAL && cases[t].dtype == GA_F64) {
            /* float64 normals use the math libraries: a few ulp apart */
            printf("%s: %lld of %lld elements differ from the CPU's, by at most %.3g std\n",
                   cases[t].kernel, (long long)differ, (long long)n, worst);
            EXPECT(worst <= 1e-13, "%s: %.3g std apart", cases[t].kernel, worst);
        } else {
            printf("%s: %s\n", cases[t].kernel, differ ? "DIFFERS" : "bit-identical to the CPU");
            EXPECT(differ == 0, "%s: %lld elements differ", cases[t].kernel, (long long)differ);
        }
        char *back2 = malloc((size_t)n * es);
        EXPECT(ga_copy_to_host(g2, back2, &err) == 0, "%s", err.text);
        EXPECT(memcmp(back, back2, (size_t)n * es) == 0, "%s: gpu_program's launch differs",
               cases[t].kernel);
        free(back2);
        free(back);
        ga_array_free(g);
        ga_array_free(g2);
        ga_array_free(c);
    }
}

static void bench_random(gpu_cumodule_t mod, int sms)
{
    cm_error_t err = {0};
    int64_t n = 100000000;
    ga_array_t *g = ga_array_new(0, GA_F32, 1, &n, &err);
    const char *names[] = {"ga_uniform_f32", "ga_normal_f32"};
    ga_rng_params_t ps[] = {{.dist = GA_RNG_UNIFORM}, {.dist = GA_RNG_NORMAL, .std = 1}};
    for (int k = 0; k < 2; k++) {
        launch(mod, names[k], g, &ps[k], 1, 0, sms);
        gpu_timer_t *t = gpu_timer_new();
        double s = 0;
        int reps = 50;
        gpu_timer_start(t, &err);
        for (int r = 0; r < reps; r++)
            launch(mod, names[k], g, &ps[k], 1, (uint64_t)r * 25000000, sms);
        gpu_timer_stop(t, &s, &err);
        gpu_timer_free(t);
        printf("BENCH %s 1e8 float32: %.4f ms, %.0f GB/s written\n", names[k], s / reps * 1e3,
               4e8 / (s / reps) / 1e9);
        /* the session generator as cells call it: a new array each time */
        int64_t shape = n;
        ga_array_free(ga_random_new(0, GA_F32, 1, &shape, &ps[k], &err));
        t = gpu_timer_new();
        gpu_timer_start(t, &err);
        for (int r = 0; r < reps; r++)
            ga_array_free(ga_random_new(0, GA_F32, 1, &shape, &ps[k], &err));
        gpu_timer_stop(t, &s, &err);
        gpu_timer_free(t);
        printf("BENCH ga_random_new %s 1e8 float32: %.4f ms%s%s\n", names[k], s / reps * 1e3,
               err.code ? " ERROR " : "", err.code ? err.text : "");
    }
    ga_array_free(g);
}

/* Relative error of the GPU product against the CPU one, over max |c|. */
static double compare(ga_array_t *gpu, ga_array_t *cpu)
{
    cm_error_t err = {0};
    size_t es = ga_dtype_size(gpu->dtype);
    char *back = malloc((size_t)gpu->size * es + 1);
    ga_copy_to_host(gpu, back, &err);
    double worst = 0, mag = 1e-30;
    for (int64_t i = 0; i < cpu->size; i++) {
        double a = ga_dtype_get_f64(gpu->dtype, back, (size_t)i);
        double b = ga_dtype_get_f64(cpu->dtype, ga_array_data(cpu), (size_t)i);
        worst = fmax(worst, fabs(a - b));
        mag = fmax(mag, fabs(b));
    }
    free(back);
    return worst / mag;
}

static ga_array_t *normal_cpu(ga_dtype_t dtype, int ndim, const int64_t *shape, uint64_t seed)
{
    cm_error_t err = {0};
    ga_array_t *a = ga_array_new(GA_CPU, dtype, ndim, shape, &err);
    ga_rng_params_t p = {.dist = GA_RNG_NORMAL, .std = 1};
    ga_random_fill(a, &p, seed, 0, &err);
    return a;
}

typedef ga_array_t *(*view_fn)(ga_array_t *a);
static ga_array_t *same(ga_array_t *a) { return a; }
static ga_array_t *transposed(ga_array_t *a)
{
    cm_error_t err = {0};
    return ga_array_permute(a, NULL, &err);
}
static ga_array_t *swap_last(ga_array_t *a)
{
    cm_error_t err = {0};
    int axes[GA_MAX_DIMS];
    for (int k = 0; k < a->ndim; k++)
        axes[k] = k;
    axes[a->ndim - 1] = a->ndim - 2;
    axes[a->ndim - 2] = a->ndim - 1;
    return ga_array_permute(a, axes, &err);
}
static ga_array_t *every_other_row(ga_array_t *a)
{
    cm_error_t err = {0};
    return ga_array_slice(a, 0, 0, GA_END, 2, &err);
}

static void check_matmul(void)
{
    struct {
        const char *what;
        ga_dtype_t dtype;
        int tf32;
        int nda; int64_t sa[4];
        int ndb; int64_t sb[4];
        view_fn va, vb;
        double tol;
    } cases[] = {
        {"f32 (300, 200) @ (200, 100)", GA_F32, 0, 2, {300, 200}, 2, {200, 100}, same, same, 1e-5},
        {"tf32", GA_F32, 1, 2, {300, 200}, 2, {200, 100}, same, same, 5e-3},
        {"f64", GA_F64, 0, 2, {300, 200}, 2, {200, 100}, same, same, 1e-13},
        {"f16", GA_F16, 0, 2, {300, 200}, 2, {200, 100}, same, same, 3e-3},
        {"f32 A^T @ B^T", GA_F32, 0, 2, {200, 300}, 2, {100, 200}, transposed, transposed, 1e-5},
        {"f16 A @ B^T", GA_F16, 0, 2, {300, 200}, 2, {100, 200}, same, transposed, 3e-3},
        {"f64 batch (3, 1, 40, 50) @ (2, 50, 60)", GA_F64, 0, 4, {3, 1, 40, 50}, 3, {2, 50, 60},
         same, same, 1e-13},
        {"f32 batch of transposes @ matrix", GA_F32, 0, 3, {7, 50, 40}, 2, {50, 30}, swap_last,
         same, 1e-5},
        {"f32 matrix @ vector", GA_F32, 0, 2, {300, 200}, 1, {200}, same, same, 1e-5},
        {"f64 vector @ batch", GA_F64, 0, 1, {50}, 3, {4, 50, 30}, same, same, 1e-13},
        {"f32 strided rows (copied)", GA_F32, 0, 2, {600, 200}, 2, {200, 100}, every_other_row,
         same, 1e-5},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        cm_error_t err = {0};
        ga_array_t *a = cases[t].va(normal_cpu(cases[t].dtype, cases[t].nda, cases[t].sa, 2 * t));
        ga_array_t *b = cases[t].vb(normal_cpu(cases[t].dtype, cases[t].ndb, cases[t].sb, 2 * t + 1));
        /* the same views of the same data on the GPU */
        ga_array_t *g0 = ga_copy_array(normal_cpu(cases[t].dtype, cases[t].nda, cases[t].sa, 2 * t),
                                       0, &err);
        ga_array_t *g1 = ga_copy_array(normal_cpu(cases[t].dtype, cases[t].ndb, cases[t].sb,
                                                  2 * t + 1), 0, &err);
        ga_array_t *gav = cases[t].va(g0), *gbv = cases[t].vb(g1);
        ga_blas_set_tf32(cases[t].tf32);
        ga_array_t *gc = ga_blas_matmul(gav, gbv, &err);
        EXPECT(gc != NULL, "%s: %s", cases[t].what, err.text);
        ga_blas_set_tf32(0);
        ga_array_t *cc = ga_blas_matmul(a, b, &err);
        if (gc && cc) {
            double e = compare(gc, cc);
            printf("matmul %s: relative difference to OpenBLAS %.2g\n", cases[t].what, e);
            EXPECT(e < cases[t].tol, "%s: %.3g", cases[t].what, e);
            EXPECT(gc->ndim == cc->ndim && gc->size == cc->size, "%s: shape", cases[t].what);
        }
    }
    /* dot: float32 with a stride, float64, float16 */
    ga_dtype_t dts[] = {GA_F32, GA_F64, GA_F16};
    for (int k = 0; k < 3; k++) {
        cm_error_t err = {0};
        int64_t n = k == 2 ? 1000 : 100000;
        ga_array_t *x = normal_cpu(dts[k], 1, &n, 90 + k), *y = normal_cpu(dts[k], 1, &n, 95 + k);
        ga_array_t *gx = ga_copy_array(x, 0, &err), *gy = ga_copy_array(y, 0, &err);
        double dg = 0, dc = 0;
        EXPECT(ga_blas_dot(gx, gy, &dg, &err) == 0, "dot: %s", err.text);
        ga_blas_dot(x, y, &dc, &err);
        printf("dot %s: gpu %.10g cpu %.10g\n", ga_dtype_name(dts[k]), dg, dc);
        EXPECT(fabs(dg - dc) <= (k == 1 ? 1e-9 : k == 0 ? 1e-2 : 0.5) * fmax(1, fabs(dc)),
               "dot %s", ga_dtype_name(dts[k]));
    }
}

static void bench_matmul(void)
{
    int64_t sizes[] = {4096, 10000};
    struct { ga_dtype_t dtype; int tf32; const char *name; } kinds[] = {
        {GA_F32, 0, "f32"}, {GA_F32, 1, "tf32"}, {GA_F64, 0, "f64"}, {GA_F16, 0, "f16"}};
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 4; k++) {
            cm_error_t err = {0};
            int64_t n = sizes[s], shape[2] = {n, n};
            ga_array_t *a = ga_array_new(0, kinds[k].dtype, 2, shape, &err);
            ga_array_t *b = ga_array_new(0, kinds[k].dtype, 2, shape, &err);
            ga_copy_fill(a, 0.5, &err);
            ga_copy_fill(b, 0.25, &err);
            ga_blas_set_tf32(kinds[k].tf32);
            ga_array_free(ga_blas_matmul(a, b, &err)); /* warm up: handle, heuristics */
            int reps = n < 5000 ? 20 : 5;
            gpu_timer_t *t = gpu_timer_new();
            double sec = 0;
            gpu_timer_start(t, &err);
            for (int r = 0; r < reps; r++)
                ga_array_free(ga_blas_matmul(a, b, &err));
            gpu_timer_stop(t, &sec, &err);
            gpu_timer_free(t);
            ga_blas_set_tf32(0);
            double per = sec / reps;
            printf("BENCH matmul %s %lld^2: %.3f ms, %.1f TFLOP/s%s%s\n", kinds[k].name,
                   (long long)n, per * 1e3, 2.0 * n * n * n / per / 1e12, err.code ? " ERROR " : "",
                   err.code ? err.text : "");
            ga_array_free(a);
            ga_array_free(b);
        }
}

int main(int argc, char **argv)
{
    gpu_info_t info;
    memset(&info, 0, sizeof info);
    if (gpu_probe(&info) == 0) {
        printf("SKIP: no GPU: %s\n", info.reason);
        return 77;
    }
    printf("device: %s, cuBLAS %s\n", info.devices[0].name, info.cublas_present ? "yes" : "no");
    int bench = argc > 1 && strcmp(argv[1], "--bench") == 0;
    gpu_cumodule_t mod = module_of_random(&info);
    check_random(mod, info.devices[0].sm_count);
    check_matmul();
    if (bench) {
        bench_random(mod, info.devices[0].sm_count);
        bench_matmul();
    }
    ga_array_free_all();
    printf("%s\n", failures ? "FAILED" : "ALL PASSED");
    return failures ? 1 : 0;
}
