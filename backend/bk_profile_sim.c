/* bk_profile_sim: the simulator's profiler (bk_profile_internal.h). Its
 * rows are the simulator's own counts (backend/sim/sim_profile.c); its
 * peaks are a model of the CPU that runs it, documented in
 * docs/simulator.md: the bandwidth of a host copy measured once, and per
 * core one scalar FMA pipe pair (4 FLOP per cycle) at the clock
 * /proc/cpuinfo gives — the code the simulator runs is scalar. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk_profile_internal.h"
#include "cm_time.h"
#include "sim.h"

#define FLOP_PER_CYCLE 4.0 /* two scalar FMA pipes a core */

/* Bytes per second of a host copy (read and written), measured once. */
static double host_bandwidth(void)
{
    static double measured;
    if (measured > 0)
        return measured;
    size_t n = 32u << 20;
    char *a = malloc(n), *b = malloc(n);
    if (!a || !b) {
        free(a);
        free(b);
        return measured = 10e9;
    }
    memset(a, 1, n);
    memset(b, 2, n);
    double best = 1e9;
    for (int i = 0; i < 3; i++) {
        double t0 = cm_seconds();
        memcpy(i % 2 ? a : b, i % 2 ? b : a, n);
        double t = cm_seconds() - t0;
        if (t > 0 && t < best)
            best = t;
    }
    free(a);
    free(b);
    return measured = 2.0 * (double)n / best;
}

/* The cores' clock in Hz (/proc/cpuinfo's first "cpu MHz"), else 2 GHz. */
static double core_hz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    double mhz = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "cpu MHz", 7) && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
            break;
    if (f)
        fclose(f);
    return (mhz > 100 ? mhz : 2000) * 1e6;
}

static int start(int ordinal, int mode, bk_profile_t *p, cm_error_t *err)
{
    (void)ordinal;
    (void)mode; /* the simulator always counts */
    (void)err;
    snprintf(p->device_name, sizeof p->device_name, "%s", sim_device_name());
    p->simulated = 1;
    p->counted = 1;
    bk_prof_peaks_t *k = &p->peaks;
    k->sms = sim_device_attribute(SIM_ATTR_MULTIPROCESSORS);
    k->warp = sim_device_attribute(SIM_ATTR_WARP_SIZE);
    k->threads_per_sm = sim_device_attribute(SIM_ATTR_THREADS_PER_MULTIPROCESSOR);
    k->blocks_per_sm = 32;
    k->registers_per_sm = 0; /* registers are the CPU's: no limit modelled */
    k->shared_per_sm = sim_device_attribute(SIM_ATTR_SHARED_PER_MULTIPROCESSOR);
    k->bytes_per_s = host_bandwidth();
    double hz = core_hz();
    k->flops[BK_PREC_F32] = k->flops[BK_PREC_F64] = k->sms * hz * FLOP_PER_CYCLE;
    k->flops[BK_PREC_F16] = 0;
    snprintf(k->how, sizeof k->how,
             "simulated: a model of the CPU that runs the simulator: %.1f GB/s (a host copy, "
             "measured), %d cores x %.2f GHz x %.0f FLOP/cycle (scalar FMA), FP32 and FP64 alike",
             k->bytes_per_s / 1e9, k->sms, hz / 1e9, FLOP_PER_CYCLE);
    snprintf(p->note, sizeof p->note,
             "simulated: bytes are what the threads asked of global memory (no cache "
             "modelled), operations what g++ made of the kernel; times are the simulator's on "
             "the CPU, with every access counted");
    sim_profile_start();
    return 0;
}

static void add_record(bk_profile_t *p, const sim_profile_record_t *s)
{
    bk_prof_row_t *r = bk_prof_add_row(p);
    if (!r)
        return;
    r->kind = s->kind == SIM_PROF_COPY ? BK_PROF_COPY : BK_PROF_KERNEL;
    r->device = p->device;
    snprintf(r->name, sizeof r->name, "%s", s->name);
    memcpy(r->grid, s->grid, sizeof r->grid);
    memcpy(r->block, s->block, sizeof r->block);
    r->start = s->start - bk_prof_origin();
    r->seconds = s->seconds;
    if (s->counted) {
        r->bytes_read = (double)s->load_global;
        r->bytes_written = (double)s->store_global;
        if (r->kind == BK_PROF_KERNEL)
            r->sector_bytes = 32.0 * (double)s->sectors;
    } else {
        snprintf(r->note, sizeof r->note, "not counted: ran without instrumentation");
    }
    if (r->kind == BK_PROF_KERNEL) {
        /* a module's __shared__ variables are one section on the simulator,
         * whichever kernel uses them: a kernel's own static share is unknown */
        r->shared_static = s->shared_static ? -1 : 0;
        r->shared_dynamic = (double)s->shared_dynamic;
    }
    static const int prec[SIM_NPREC] = {BK_PREC_F32, BK_PREC_F64};
    for (int i = 0; i < SIM_NPREC && s->ops_counted; i++)
        for (int j = 0; j < SIM_NOPS; j++)
            r->ops[prec[i]][j] = (double)s->ops[i][j];
    if (s->ops_counted)
        r->ops[BK_PREC_F16][BK_OP_ADD] = r->ops[BK_PREC_F16][BK_OP_MUL] =
            r->ops[BK_PREC_F16][BK_OP_FMA] = r->ops[BK_PREC_F16][BK_OP_SPECIAL] = 0;
    else if (s->counted && r->kind == BK_PROF_KERNEL)
        snprintf(r->note, sizeof r->note, "operations not counted: objdump could not read the code");
}

static int stop(bk_profile_t *p, cm_error_t *err)
{
    (void)err;
    sim_profile_record_t *v = NULL;
    int n = sim_profile_stop(&v);
    for (int i = 0; i < n; i++)
        add_record(p, &v[i]);
    free(v);
    return 0;
}

const bk_prof_backend_t bk_prof_sim = {start, stop, NULL, NULL};
