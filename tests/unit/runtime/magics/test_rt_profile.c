/* Tests of %%profile's arithmetic (rt_profile.c): FLOPs from the operation
 * counts (an FMA is 2, unknown stays unknown), totals per name, and the
 * verdicts against a device's roofs: memory-bound with its fraction of the
 * peak bandwidth, compute-bound with its fraction of the peak FLOP/s, a
 * grid too small for the GPU, times only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_profile.h"

static bk_prof_row_t row(const char *name, double seconds, double read, double written,
                         double fadd, double fmul, double ffma)
{
    bk_prof_row_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    r.kind = BK_PROF_KERNEL;
    r.seconds = seconds;
    r.bytes_read = read;
    r.bytes_written = written;
    for (int p = 0; p < BK_NPREC; p++)
        for (int o = 0; o < BK_NOPS; o++)
            r.ops[p][o] = 0;
    r.ops[BK_PREC_F32][BK_OP_ADD] = fadd;
    r.ops[BK_PREC_F32][BK_OP_MUL] = fmul;
    r.ops[BK_PREC_F32][BK_OP_FMA] = ffma;
    r.grid[0] = r.grid[1] = r.grid[2] = 1000;
    r.block[0] = 256;
    r.block[1] = r.block[2] = 1;
    return r;
}

int main(void)
{
    bk_profile_t p;
    memset(&p, 0, sizeof p);
    p.peaks.bytes_per_s = 1e12;             /* 1 TB/s */
    p.peaks.flops[BK_PREC_F32] = 10e12;     /* 10 TFLOP/s: the ridge at 10 FLOP/byte */
    p.peaks.sms = 100;
    char v[300];

    bk_prof_row_t r = row("stream", 1e-3, 500e6, 330e6, 0, 0, 1e6);
    CHECK(rt_profile_flops(&r, BK_PREC_F32) == 2e6);
    rt_profile_verdict(&p, &r, v, sizeof v);
    CHECK(strstr(v, "memory-bound at 83% of peak bandwidth") == v);
    printf("%s\n", v);

    r = row("gemm", 1e-3, 100e6, 0, 0, 0, 3e9);
    rt_profile_verdict(&p, &r, v, sizeof v);
    CHECK(strstr(v, "compute-bound at 60% of peak fp32") == v);
    printf("%s\n", v);

    r = row("small", 1e-3, 1e6, 0, 0, 0, 0);
    r.grid[0] = 10;
    r.grid[1] = r.grid[2] = 1;
    rt_profile_verdict(&p, &r, v, sizeof v);
    CHECK(strstr(v, "10 blocks for 100 SMs") != NULL);
    p.simulated = 1;
    rt_profile_verdict(&p, &r, v, sizeof v);
    CHECK(strstr(v, "SMs") == NULL && strstr(v, "of the model's peak bandwidth"));
    p.simulated = 0;

    r = row("times", 1e-3, -1, -1, 0, 0, 0);
    for (int q = 0; q < BK_NPREC; q++)
        for (int o = 0; o < BK_NOPS; o++)
            r.ops[q][o] = -1;
    CHECK(rt_profile_total_flops(&r) == -1);
    rt_profile_verdict(&p, &r, v, sizeof v);
    CHECK(strstr(v, "times only") == v);

    /* totals: by kind and name, in order of first appearance */
    bk_prof_row_t rows[3] = {row("a", 1, 10, 5, 1, 1, 1), row("b", 2, 1, 1, 0, 0, 0),
                             row("a", 3, 20, 5, 1, 0, 0)};
    p.rows = rows;
    p.nrows = 3;
    rt_profile_total_t *t = NULL;
    int n = rt_profile_totals(&p, &t);
    CHECK(n == 2);
    if (n == 2) {
        CHECK(!strcmp(t[0].row.name, "a") && t[0].count == 2 && t[0].row.seconds == 4);
        CHECK(t[0].row.bytes_read == 30 && t[0].row.bytes_written == 10);
        CHECK(rt_profile_flops(&t[0].row, BK_PREC_F32) == 4 + 1);
        CHECK(!strcmp(t[1].row.name, "b") && t[1].count == 1);
    }
    free(t);
    return check_report("test_rt_profile");
}
