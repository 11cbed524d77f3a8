/* Tests of backend/sim's compile path: g++ with the prelude through cpu_jit,
 * errors in NVRTC's form on the cell's lines, the extern __shared__
 * rewrite, options, and the compiled kernels run by the scheduler. Skipped
 * (77) where there is no C++ compiler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu_jit.h"
#include "sim.h"

static int compile(const char *src, const char *options, int n, const char *const *names,
                   sim_entry_fn *entries, char **shared, size_t *shared_bytes, char **log,
                   cm_error_t *err)
{
    double ms;
    const char *cache;
    cm_error_clear(err);
    return sim_compile(src, options, n, names, entries, NULL, 0, NULL, NULL, NULL, shared, shared_bytes, log, &ms, &cache,
                       err);
}

int main(void)
{
    char dir[] = "/tmp/gpuc-sim-test-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    sim_set_checks(0, 0); /* the kernels below write to the test's stack: memcheck says no */
    cm_error_t err;
    char *log = NULL, *shared = NULL;
    size_t shared_bytes = 0;
    sim_entry_fn entries[2] = {0};

    /* an error: NVRTC's form, on the part's own line, with the source line and a caret */
    const char *bad = "#line 1 \"cell[1]\"\n__device__ int ok(int x) { return x; }\n"
                      "#line 1 \"cell[2]\"\n__global__ void k(int *x) {\n    x[0] = nope;\n}\n";
    const char *names_k[] = {"k"};
    int rc = compile(bad, NULL, 1, names_k, entries, &shared, &shared_bytes, &log, &err);
    if (rc != 0 && err.code == CPU_E_JIT_COMPILER) {
        printf("no C++ compiler: %s\n", err.text);
        return 77;
    }
    CHECK(rc == -1 && err.code == SIM_E_COMPILE);
    CHECK(log && strstr(log, "cell[2](2): error: 'nope' was not declared in this scope"));
    CHECK(log && strstr(log, "\n      x[0] = nope;\n             ^\n"));
    CHECK(strncmp(err.text, "cell[2](2): error:", 18) == 0);
    printf("log:\n%s\n", log ? log : "(none)");
    free(log);
    log = NULL;

    /* two kernels, extern __shared__ with #include lines of CUDA's headers
     * blanked, an option, static shared memory */
    const char *good =
        "#line 1 \"cell[1]\"\n"
        "#include <cuda_runtime.h>\n"
        "#include <cuda_fp16.h>\n"
        "__global__ void rev(float *x, int n) {\n"
        "    extern __shared__ __align__(16) float buf[]; int t = threadIdx.x;\n"
        "    buf[t] = x[t]; __syncthreads(); x[t] = buf[n - 1 - t] * SCALE;\n"
        "}\n"
        "__global__ void tile(int *out) {\n"
        "    __shared__ int s[64];\n"
        "    s[threadIdx.x] = threadIdx.x; __syncthreads();\n"
        "    out[threadIdx.x] = s[63 - threadIdx.x] + __LINE__ * 1000;\n"
        "}\n";
    const char *names2[] = {"rev", "tile"};
    rc = compile(good, "-DSCALE=2 --use_fast_math -lineinfo", 2, names2, entries, &shared,
                 &shared_bytes, &log, &err);
    CHECK(rc == 0);
    if (rc != 0)
        printf("error: %s\n%s\n", err.text, log ? log : "");
    CHECK(entries[0] && entries[1]);
    CHECK(shared && shared_bytes >= 64 * sizeof(int));
    if (rc == 0) {
        float x[32];
        int n = 32, out[64];
        for (int i = 0; i < 32; i++)
            x[i] = (float)i;
        float *px = x;
        int *po = out;
        void *a1[] = {&px, &n}, *a2[] = {&po};
        sim_kernel_t k1 = {"rev", entries[0], NULL, 0, shared, shared_bytes, 0};
        sim_kernel_t k2 = {"tile", entries[1], NULL, 0, shared, shared_bytes, 0};
        unsigned g[3] = {1, 1, 1}, b1[3] = {32, 1, 1}, b2[3] = {64, 1, 1};
        CHECK(sim_launch(&k1, g, b1, 32 * sizeof(float), a1, &err) == 0);
        CHECK(x[0] == 62.0f && x[31] == 0.0f);
        CHECK(sim_launch(&k2, g, b2, 0, a2, &err) == 0);
        /* the rewrites kept the lines: __LINE__ of the statement is 10 */
        CHECK(out[0] == 63 + 10000 && out[63] == 10000);
        CHECK(!sim_take_error(NULL));
    }
    free(log);
    log = NULL;

    /* vector types and dim3 with the toolkit's headers (where installed) and
     * with the prelude's own (as where there is no toolkit): the same sizes,
     * alignments and functions either way */
    const char *vec =
        "#line 1 \"cell[1]\"\n"
        "__global__ void vec(int *out) {\n"
        "    float4 f = make_float4(1, 2, 3, 4); double2 d = make_double2(5, 6); dim3 g(7);\n"
        "    uint3 t = threadIdx; int2 i = make_int2(8, 9);\n"
        "    out[0] = (int)(f.x + f.y + f.z + f.w + d.x + d.y) + g.x + g.y + t.x + i.x + i.y;\n"
        "    out[1] = sizeof(float4) * 100 + alignof(float4) * 10 + alignof(double2) / 8;\n"
        "    out[2] = sizeof(uchar2) * 100 + sizeof(short4) * 10 + alignof(int2);\n"
        "}\n";
    const char *names_v[] = {"vec"};
    const char *variants[] = {NULL, "-D__GPUC_OWN_VECTORS"};
    for (int v = 0; v < 2; v++) {
        rc = compile(vec, variants[v], 1, names_v, entries, &shared, &shared_bytes, &log, &err);
        CHECK(rc == 0);
        if (rc != 0) {
            printf("error (%s): %s\n%s\n", variants[v] ? variants[v] : "toolkit", err.text,
                   log ? log : "");
            continue;
        }
        int out[3] = {0};
        int *po = out;
        void *a[] = {&po};
        sim_kernel_t k = {"vec", entries[0], NULL, 0, shared, shared_bytes, 0};
        unsigned g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
        CHECK(sim_launch(&k, g, b, 0, a, &err) == 0);
        CHECK(out[0] == 21 + 7 + 1 + 0 + 17);
        CHECK(out[1] == 16 * 100 + 16 * 10 + 2);
        CHECK(out[2] == 2 * 100 + 8 * 10 + 8);
        free(log);
        log = NULL;
    }
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_report("test_sim_compile");
}
