/* Tests of the floor's profiling (bk_profile.c): theoretical occupancy
 * against an SM's limits, and a profile of the simulated device recording
 * the calls the floor's callers make on host memory (an array kernel, a
 * gemm, copies), with the counts they give and the host's times, in order;
 * nothing recorded when no profile is on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

int main(void)
{
    /* an H100's SM: 2048 threads, 32 blocks, 64 Ki registers, 228 KiB shared */
    bk_prof_peaks_t h = {0};
    h.warp = 32;
    h.threads_per_sm = 2048;
    h.blocks_per_sm = 32;
    h.registers_per_sm = 65536;
    h.shared_per_sm = 228 * 1024;
    CHECK(near(bk_profile_occupancy(&h, 256, 32, 0), 1.0));
    CHECK(near(bk_profile_occupancy(&h, 256, 128, 0), 0.25));    /* 32 Ki registers a block: 2 blocks */
    CHECK(near(bk_profile_occupancy(&h, 256, -1, 100 * 1024), 0.25)); /* shared: 2 blocks */
    CHECK(near(bk_profile_occupancy(&h, 32, 16, 0), 0.5));       /* 32 blocks of one warp */
    CHECK(near(bk_profile_occupancy(&h, 48, 16, 0), 1.0));       /* 2 warps (rounded up) x 32 */
    CHECK(bk_profile_occupancy(&h, 1024, 255, 0) == 0);          /* does not fit */

    cm_error_t err = {0};
    CHECK(!bk_profiling());
    CHECK(bk_profile_begin(BK_CPU_DEVICE, BK_PROF_ARRAY, "x", NULL, 1, 1, NULL) == 0);
    CHECK(bk_profile_stop(&err) == NULL && err.code == BK_E_DEVICE);
    CHECK(bk_profile_start(BK_CPU_DEVICE, BK_PROF_TIMES, &err) == -1);

    bk_device_t sim = bk_device(BK_SIM, 0);
    /* a profile left on is dropped by the next start */
    CHECK(bk_profile_start(sim, BK_PROF_TIMES, &err) == 0);
    CHECK(bk_profile_begin(BK_CPU_DEVICE, BK_PROF_ARRAY, "left", NULL, 1, 1, NULL) > 0);
    CHECK(bk_profile_start(sim, BK_PROF_TIMES, &err) == 0);
    bk_profile_t *p = bk_profile_stop(&err);
    CHECK(p && p->nrows == 0);
    bk_profile_free(p);
    CHECK(bk_profile_start(sim, BK_PROF_TIMES, &err) == 0);
    CHECK(bk_profiling());
    double flops[BK_NPREC] = {0, 2000, 0};
    int t = bk_profile_begin(BK_CPU_DEVICE, BK_PROF_ARRAY, "ga_map \"a * b + a\"", flops, 8000, 4000,
                             "counted from the expression");
    CHECK(t > 0);
    bk_profile_end(t);
    float a[4] = {1, 2, 3, 4}, c[4] = {0};
    CHECK(bk_mem_copy(BK_CPU_DEVICE, c, a, sizeof a, &err) == 0);
    bk_gemm_t g = {0};
    g.type = BK_BLAS_F32;
    g.m = g.n = g.k = 2;
    g.a = a;
    g.b = a;
    g.c = c;
    g.lda = g.ldb = g.ldc = 2;
    g.batch = 1;
    CHECK(bk_gemm(BK_CPU_DEVICE, &g, &err) == 0);
    p = bk_profile_stop(&err);
    CHECK(p != NULL && !bk_profiling());
    if (p) {
        CHECK(p->simulated && p->counted && p->peaks.bytes_per_s > 0 && p->peaks.flops[BK_PREC_F32] > 0);
        CHECK(strstr(p->peaks.how, "simulated") != NULL);
        CHECK(p->nrows == 3);
        if (p->nrows == 3) {
            const bk_prof_row_t *r = &p->rows[0];
            CHECK(r->kind == BK_PROF_ARRAY && !strcmp(r->name, "ga_map \"a * b + a\""));
            CHECK(r->bytes_read == 8000 && r->bytes_written == 4000 && r->ops[BK_PREC_F32][BK_OP_ADD] == 2000);
            CHECK(r->seconds >= 0 && r->start >= 0);
            r = &p->rows[1];
            CHECK(r->kind == BK_PROF_COPY && !strcmp(r->name, "copy DtoD"));
            CHECK(r->bytes_read == sizeof a && r->bytes_written == sizeof a);
            r = &p->rows[2];
            CHECK(r->kind == BK_PROF_BLAS && !strcmp(r->name, "gemm 2x2x2 float32"));
            CHECK(r->ops[BK_PREC_F32][BK_OP_ADD] == 16 && r->bytes_read == 32 && r->bytes_written == 16);
            CHECK(p->rows[0].start <= p->rows[1].start && p->rows[1].start <= p->rows[2].start);
        }
        bk_profile_free(p);
    }
    return check_report("test_bk_profile");
}
