/* Tests of the simulator's counts for %%profile (sim_profile.c): kernels
 * compiled and launched while sim_profile_on, their records checked
 * against counts known from the source — bytes loaded and stored in
 * global and shared memory, 32-byte sectors of coalesced and strided warp
 * accesses, FP32 and FP64 adds, multiplies, FMAs and divisions, copies.
 * Skipped (77) where there is no C++ compiler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu_jit.h"
#include "sim.h"

#define N 1024

static const char *SRC =
    "#line 1 \"cell[1]\"\n"
    "__global__ void axpy(int n, float a, const float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__global__ void strided(const float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    y[i] = x[(i * 32) % 1024];\n"
    "}\n"
    "__global__ void dmath(const double *x, double *y) {\n"
    "    int i = threadIdx.x;\n"
    "    y[i] = fma(x[i], 2.0, 1.0) / x[i];\n"
    "}\n"
    "__global__ void tile(const float *x, float *y) {\n"
    "    __shared__ float s[64];\n"
    "    s[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    y[threadIdx.x] = s[63 - threadIdx.x];\n"
    "}\n";

static const sim_profile_record_t *named(const sim_profile_record_t *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

int main(void)
{
    char dir[] = "/tmp/gpuc-simprof-test-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    sim_set_checks(0, 0);
    cm_error_t err = {0};
    char *log = NULL, *shared = NULL;
    size_t shared_bytes = 0;
    double ms;
    const char *cache;
    const char *names[] = {"axpy", "strided", "dmath", "tile"};
    sim_entry_fn entries[4] = {0};
    int rc = sim_compile(SRC, NULL, 4, names, entries, NULL, 0, NULL, NULL, NULL, &shared,
                         &shared_bytes, &log, &ms, &cache, &err);
    if (rc != 0 && err.code == CPU_E_JIT_COMPILER) {
        printf("no C++ compiler: %s\n", err.text);
        return 77;
    }
    CHECK(rc == 0);
    if (rc != 0) {
        printf("%s\n%s\n", err.text, log ? log : "");
        return 1;
    }
    float *x = sim_array_alloc(N * sizeof(float)), *y = sim_array_alloc(N * sizeof(float));
    double *dx = sim_array_alloc(64 * sizeof(double)), *dy = sim_array_alloc(64 * sizeof(double));
    for (int i = 0; i < N; i++)
        x[i] = y[i] = 1;
    for (int i = 0; i < 64; i++)
        dx[i] = 2;

    sim_profile_start();
    int n = N;
    float a = 2;
    unsigned g[3] = {N / 256, 1, 1}, b[3] = {256, 1, 1}, one[3] = {1, 1, 1}, b64[3] = {64, 1, 1};
    sim_kernel_t k0 = {"axpy", entries[0], NULL, 0, shared, shared_bytes, 0};
    void *a0[] = {&n, &a, &x, &y};
    CHECK(sim_launch(&k0, g, b, 0, a0, &err) == 0);
    sim_kernel_t k1 = {"strided", entries[1], NULL, 0, shared, shared_bytes, 0};
    void *a1[] = {&x, &y};
    CHECK(sim_launch(&k1, g, b, 0, a1, &err) == 0);
    sim_kernel_t k2 = {"dmath", entries[2], NULL, 0, shared, shared_bytes, 0};
    void *a2[] = {&dx, &dy};
    CHECK(sim_launch(&k2, one, b64, 0, a2, &err) == 0);
    sim_kernel_t k3 = {"tile", entries[3], NULL, 0, shared, shared_bytes, 0};
    CHECK(sim_launch(&k3, one, b64, 0, a1, &err) == 0);
    sim_profile_copy("cudaMemcpy HtoD", 0, 400, 0, 0);
    sim_profile_record_t *v = NULL;
    int nrec = sim_profile_stop(&v);
    CHECK(nrec == 5);
    CHECK(!sim_profile_on);

    const sim_profile_record_t *r = named(v, nrec, "axpy");
    CHECK(r && r->counted && r->ops_counted);
    if (r) {
        CHECK(r->load_global == 8 * N && r->store_global == 4 * N);
        CHECK(r->ops[SIM_PREC_F32][SIM_OP_MUL] + r->ops[SIM_PREC_F32][SIM_OP_ADD] +
                  2 * r->ops[SIM_PREC_F32][SIM_OP_FMA] == 2 * N);
        CHECK(r->ops[SIM_PREC_F64][SIM_OP_ADD] == 0);
        /* coalesced: a warp's 32 floats are 4 sectors, for x, y read and y written */
        CHECK(r->sectors == 3 * (N / 32) * 4);
        CHECK(r->grid[0] == N / 256 && r->block[0] == 256 && r->seconds > 0);
        printf("axpy: %llu %llu, %llu sectors\n", r->load_global, r->store_global, r->sectors);
    }
    r = named(v, nrec, "strided");
    CHECK(r != NULL);
    if (r) {
        CHECK(r->load_global == 4 * N && r->store_global == 4 * N);
        /* the reads of a warp 128 bytes apart: 32 sectors each; the writes 4 */
        CHECK(r->sectors == (N / 32) * (32 + 4));
        printf("strided: %llu sectors\n", r->sectors);
    }
    r = named(v, nrec, "dmath");
    CHECK(r != NULL);
    if (r) {
        CHECK(r->ops[SIM_PREC_F64][SIM_OP_FMA] == 64);
        CHECK(r->ops[SIM_PREC_F64][SIM_OP_SPECIAL] == 64); /* the division */
        CHECK(r->ops[SIM_PREC_F32][SIM_OP_ADD] + r->ops[SIM_PREC_F32][SIM_OP_MUL] == 0);
        printf("dmath: fma %llu special %llu add %llu mul %llu\n", r->ops[1][SIM_OP_FMA],
               r->ops[1][SIM_OP_SPECIAL], r->ops[1][SIM_OP_ADD], r->ops[1][SIM_OP_MUL]);
    }
    r = named(v, nrec, "tile");
    CHECK(r != NULL);
    if (r) {
        CHECK(r->load_global == 64 * 4 && r->store_global == 64 * 4);
        CHECK(r->load_shared == 64 * 4 && r->store_shared == 64 * 4);
    }
    r = named(v, nrec, "cudaMemcpy HtoD");
    CHECK(r && r->kind == SIM_PROF_COPY && r->store_global == 400 && r->load_global == 0);
    free(v);

    /* off again: a launch records nothing */
    CHECK(sim_launch(&k0, g, b, 0, a0, &err) == 0);
    sim_profile_start();
    nrec = sim_profile_stop(&v);
    CHECK(nrec == 0);
    free(v);
    free(log);
    char cmd[80];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_report("test_sim_profile");
}
