/* Tests of library kernels (gpu_program) that need no GPU: a program
 * compiles (PTX where there is no GPU) and is found again, a compile error
 * names the line of the generated source, and asking for a kernel without
 * a GPU is the "no GPU" error. Exits 77 (a skip) where NVRTC is missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gpu.h"

static const char *square =
    "extern \"C\" __global__ void square(long long n, const float *x, float *y)\n"
    "{\n"
    "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = x[i] * x[i] * SCALE;\n"
    "}\n";

int main(void)
{
    char dir[] = "/tmp/test_gpu_program_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    cm_error_t err = {0};
    gpu_program_t *p = gpu_program_get(square, "-DSCALE=2.0f", &err);
    if (!p && err.code == GPU_E_NO_LIBRARY) {
        printf("test_gpu_program: NVRTC not found, skipped (%s)\n", err.text);
        return 77;
    }
    CHECK(p != NULL);
    /* the same source and options: the same program, no compile */
    CHECK(gpu_program_get(square, "-DSCALE=2.0f", &err) == p);
    /* other options: another program */
    gpu_program_t *q = gpu_program_get(square, "-DSCALE=3.0f", &err);
    CHECK(q && q != p);

    /* the toolkit's CCCL folder is on NVRTC's path: <curand_kernel.h> needs
     * <cuda/std/type_traits> from it */
    cm_error_clear(&err);
    CHECK(gpu_program_get("#include <curand_kernel.h>\n"
                          "extern \"C\" __global__ void rng(float *out, unsigned long long seed)\n"
                          "{\n    curandStatePhilox4_32_10_t s;\n"
                          "    curand_init(seed, threadIdx.x, 0, &s);\n"
                          "    out[threadIdx.x] = curand_uniform(&s);\n}\n",
                          NULL, &err) != NULL);
    if (err.code)
        fprintf(stderr, "  curand_kernel.h: %s\n", err.text);

    /* a compile error: the line in the generated source */
    cm_error_clear(&err);
    CHECK(gpu_program_get("extern \"C\" __global__ void k(float *x)\n{\n  x[0] = y;\n}\n", NULL,
                          &err) == NULL);
    CHECK(err.code == GPU_E_COMPILE);
    CHECK(strstr(err.text, "line 3") && strstr(err.text, "\"y\" is undefined"));

    /* no GPU here: the kernel cannot be loaded, and says why */
    gpu_info_t info;
    memset(&info, 0, sizeof info);
    if (gpu_probe(&info) == 0) {
        cm_error_clear(&err);
        CHECK(gpu_program_kernel(p, 0, "square", &err) == NULL);
        CHECK(err.code == GPU_E_NO_GPU || err.code == GPU_E_NO_LIBRARY);
        CHECK(gpu_program_sm_count(0) == 0);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_report("test_gpu_program");
}
