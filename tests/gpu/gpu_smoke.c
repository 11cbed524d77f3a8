/* gpu_smoke: the CUDA backend on a real GPU (not run by ctest; CI has no
 * GPU). Probes, compiles saxpy, runs it on 1<<20 elements with memory from
 * the runtime API (libcudart through dlsym, as host cells would), checks
 * the result against the CPU, times bare cuLaunchKernel against gpu_launch,
 * and ends with an out-of-bounds write to show the sticky error path.
 * Exit status: 0 all good, 1 a check failed, 77 no GPU. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "gpu_driver.h"

typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
typedef int (*sync_fn)(void);

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int failures;
#define EXPECT(cond, ...)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

int main(void)
{
    gpu_info_t info;
    cm_error_t err;
    int n = gpu_probe(&info);
    printf("driver %d, nvrtc %d, cudart %d, cublas %d\n", info.driver_version,
           info.nvrtc_version, info.cudart_version, info.cublas_present);
    for (int i = 0; i < info.device_count && i < GPU_MAX_DEVICES; i++)
        printf("device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", i, info.devices[i].name,
               info.devices[i].major, info.devices[i].minor, info.devices[i].sm_count,
               info.devices[i].total_mem / (double)(1 << 30));
    if (n == 0) {
        printf("SKIP: no GPU: %s\n", info.reason);
        return 77;
    }
    cm_error_clear(&err);
    EXPECT(gpu_select(0, &err) == 0, "select: %s", err.text);

    const char *src =
        "__global__ void saxpy(int n, float a, float *x, float *y)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = a * x[i] + y[i];\n"
        "}\n"
        "extern \"C\" __global__ void empty(void) {}\n"
        "__global__ void oob(float *x) { x[threadIdx.x + (1 << 28)] = 1.0f; }\n";
    /* what the cell layer reads from src (runtime/cell/rt_kscan.c): the
     * backend is given it, as a one-part unit (no earlier cells) */
    static gpu_param_t saxpy_params[] = {
        {GPU_PARAM_SCALAR, 4, "int n"}, {GPU_PARAM_SCALAR, 4, "float a"},
        {GPU_PARAM_POINTER, 8, "float *x"}, {GPU_PARAM_POINTER, 8, "float *y"}};
    static gpu_param_t oob_params[] = {{GPU_PARAM_POINTER, 8, "float *x"}};
    static const gpu_kernel_info_t kernels[] = {
        {"saxpy", "", 1, 4, saxpy_params}, {"empty", "", 6, 0, NULL}, {"oob", "", 7, 1, oob_params}};
    gpu_part_t part = {1, src, 0, NULL, 0};
    gpu_unit_t unit = {1, "-O3", &part, 1, kernels, 3, NULL, 0, NULL, 0};
    gpu_cell_t *cell = NULL;
    cm_error_clear(&err);
    if (gpu_compile_unit(&unit, &cell, &err)) {
        printf("FAIL compile: %s\n%s\n", err.text, cell && cell->log ? cell->log : "");
        return 1;
    }
    printf("compiled for %s in %.1f ms (%s), loaded in %.2f ms\n", cell->arch, cell->compile_ms,
           cell->cache, cell->load_ms);
    EXPECT(cell->loaded && cell->cubin, "loaded %d cubin %d", cell->loaded, cell->cubin);
    gpu_cell_free(cell);
    cm_error_clear(&err);
    part.cell = unit.cell = 2;
    if (gpu_compile_unit(&unit, &cell, &err) == 0)
        printf("recompile: %.3f ms (%s)\n", cell->compile_ms, cell->cache);
    gpu_cell_free(cell);

    cm_error_clear(&err);
    EXPECT(gpu_runtime_load(&err) == 0, "runtime: %s", err.text);
    void *rt = gpu_runtime_handle();
    malloc_fn cmalloc = (malloc_fn)dlsym(rt, "cudaMalloc");
    free_fn cfree = (free_fn)dlsym(rt, "cudaFree");
    memcpy_fn cmemcpy = (memcpy_fn)dlsym(rt, "cudaMemcpy");
    sync_fn csync = (sync_fn)dlsym(rt, "cudaDeviceSynchronize");
    if (!cmalloc || !cfree || !cmemcpy || !csync) {
        printf("FAIL: runtime functions not found\n");
        return 1;
    }

    int count = 1 << 20;
    float a = 2.5f, *hx = malloc(count * sizeof *hx), *hy = malloc(count * sizeof *hy);
    float *out = malloc(count * sizeof *out);
    for (int i = 0; i < count; i++) {
        hx[i] = (float)i / count;
        hy[i] = 1.0f - (float)i / count;
    }
    void *dx = NULL, *dy = NULL;
    EXPECT(cmalloc(&dx, count * sizeof(float)) == 0, "cudaMalloc x");
    EXPECT(cmalloc(&dy, count * sizeof(float)) == 0, "cudaMalloc y");
    gpu_track_alloc(dx, count * sizeof(float), "x: float32[1048576]");
    gpu_track_alloc(dy, count * sizeof(float), "y: float32[1048576]");
    EXPECT(cmemcpy(dx, hx, count * sizeof(float), 1) == 0, "H2D x");
    EXPECT(cmemcpy(dy, hy, count * sizeof(float), 1) == 0, "H2D y");
    unsigned grid[3] = {(count + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
    void *args[4] = {&count, &a, &dx, &dy};
    size_t sizes[4] = {4, 4, 8, 8};
    cm_error_clear(&err);
    EXPECT(gpu_launch("saxpy", grid, block, 0, NULL, 4, args, sizes, "sspp", NULL, 3, 1, &err) == 0,
           "launch: %s", err.text);
    cm_error_clear(&err);
    EXPECT(gpu_synchronize(&err) == 0, "sync: %s", err.text);
    EXPECT(cmemcpy(out, dy, count * sizeof(float), 2) == 0, "D2H");
    double maxerr = 0;
    for (int i = 0; i < count; i++) {
        double e = fabs((double)out[i] - (double)(a * hx[i] + hy[i]));
        maxerr = e > maxerr ? e : maxerr;
    }
    printf("saxpy 1<<20: max abs error %.3g\n", maxerr);
    EXPECT(maxerr <= 1e-5, "max abs error %g", maxerr);

    /* launch overhead: bare cuLaunchKernel vs gpu_launch, empty kernel */
    const gpu_driver_t *d = gpu_driver_get(NULL);
    gpu_cumodule_t mod = NULL;
    gpu_cufunction_t fn = NULL;
    unsigned one[3] = {1, 1, 1};
    {
        /* the reference: an empty kernel from a hand-written PTX module,
         * launched with cuLaunchKernel directly */
        const char *ptx_src = ".version 8.0\n.target sm_52\n.address_size 64\n"
                              ".visible .entry bare_empty() { ret; }\n";
        cm_error_clear(&err);
        if (GPU_CU_CHECK(d->cuModuleLoadData(&mod, ptx_src), &err) == 0 &&
            GPU_CU_CHECK(d->cuModuleGetFunction(&fn, mod, "bare_empty"), &err) == 0) {
            for (int i = 0; i < 100; i++)
                d->cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            d->cuCtxSynchronize();
            double t0 = now_us();
            for (int i = 0; i < 1000; i++)
                d->cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            double bare = (now_us() - t0) / 1000;
            d->cuCtxSynchronize();
            for (int i = 0; i < 100; i++)
                gpu_launch("empty", one, one, 0, NULL, 0, NULL, NULL, "", NULL, 5, 1, &err);
            d->cuCtxSynchronize();
            t0 = now_us();
            for (int i = 0; i < 1000; i++)
                gpu_launch("empty", one, one, 0, NULL, 0, NULL, NULL, "", NULL, 5, 1, &err);
            double ours = (now_us() - t0) / 1000;
            d->cuCtxSynchronize();
            printf("launch, host time per launch: bare cuLaunchKernel %.2f us, gpu_launch %.2f us "
                   "(%.2fx)\n", bare, ours, ours / bare);
        } else {
            printf("FAIL bare module: %s\n", err.text);
            failures++;
        }
    }

    /* the sticky path: an out-of-bounds write */
    void *oargs[1] = {&dx};
    size_t osizes[1] = {8};
    cm_error_clear(&err);
    EXPECT(gpu_launch("oob", one, block, 0, NULL, 1, oargs, osizes, "p", NULL, 6, 3, &err) == 0,
           "oob launch: %s", err.text);
    cm_error_clear(&err);
    int rc = gpu_synchronize(&err);
    printf("out-of-bounds write: sync rc %d, sticky %d:\n  %s\n", rc, gpu_error_is_sticky(err.code),
           err.text);
    EXPECT(rc == -1 && gpu_error_is_sticky(err.code), "expected a sticky error, got %d", err.code);
    EXPECT(strstr(err.text, "oob, launched at cell 6, line 3") != NULL, "names the launch");
    cm_error_clear(&err);
    int again = gpu_launch("saxpy", grid, block, 0, NULL, 4, args, sizes, "sspp", NULL, 7, 1, &err);
    printf("launch after the sticky error: rc %d: %s\n", again, err.text);
    printf("%s\n", failures ? "FAILED" : "OK");
    free(hx);
    free(hy);
    free(out);
    return failures ? 1 : 0;
}
