/* bk_profile_cuda: the GPU's profiler (bk_profile_internal.h), over CUPTI
 * (backend/cuda/gpu_cupti.c). Times come from CUPTI's activity records
 * (kernels, copies, memsets), named by the floor's labels where the floor
 * launched them (an array kernel's expression, a BLAS call); the peaks
 * from the device's attributes: memory clock x 2 (double data rate) x bus
 * width, and SMs x clock x the FP32 / FP64 lanes per SM of its compute
 * capability (FP16 without tensor cores: twice FP32) x 2 for an FMA.
 * Counter mode: CUPTI's Range Profiler (gpu_cupti_counters.c) counts each
 * kernel's DRAM bytes, FLOP instructions by precision and achieved
 * occupancy, paired with the activity records in launch order, and each
 * kernel's time under replay (gpu__time_duration: CUPTI's activity records
 * carry no timestamps then); where the driver does not permit counters,
 * the times are still shown and the note says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk_profile_internal.h"
#include "cm_time.h"
#include "gpu_cupti.h"
#include "gpu_driver.h"

enum { /* CUdevice_attribute (cuda.h, CUDA 13.0) */
    A_WARP = 10, A_CLOCK = 13, A_SMS = 16, A_MEM_CLOCK = 36, A_BUS = 37, A_THREADS_SM = 39,
    A_MAJOR = 75, A_MINOR = 76, A_SHARED_SM = 81, A_REGS_SM = 82, A_BLOCKS_SM = 106,
};

static struct {
    unsigned long long cupti_t0; /* CUPTI's clock at the start, ns */
    double host_t0;              /* cm_seconds() then, against the floor's origin */
    int ordinal;
    int counting;                /* counter mode is on (the Range Profiler) */
} G;

/* FP32 and FP64 lanes per SM by compute capability (NVIDIA's tables of
 * arithmetic instruction throughput) */
static void lanes(int major, int minor, int *fp32, int *fp64)
{
    *fp32 = 128;
    *fp64 = 2;
    if (major == 7) {
        *fp32 = 64;
        *fp64 = minor == 0 || minor == 2 ? 32 : 2;
    } else if (major == 8 && minor == 0) {
        *fp32 = 64;
        *fp64 = 32;
    } else if (major == 9 || major == 10) {
        *fp64 = 64;
    }
}

static int attribute(const gpu_driver_t *drv, int dev, int attr)
{
    int v = 0;
    return drv->cuDeviceGetAttribute(&v, attr, dev) == 0 ? v : 0;
}

static int start(int ordinal, int mode, bk_profile_t *p, cm_error_t *err)
{
    const gpu_driver_t *drv = gpu_driver_get(err);
    if (!drv)
        return -1;
    gpu_cudevice_t dev = 0;
    if (drv->cuDeviceGet(&dev, ordinal) != 0) {
        CM_ERROR(err, BK_E_DEVICE, "no CUDA device %d", ordinal);
        return -1;
    }
    bk_device_info_t info;
    bk_device_info(p->device, &info, NULL);
    snprintf(p->device_name, sizeof p->device_name, "%s", info.name);
    bk_prof_peaks_t *k = &p->peaks;
    int major = attribute(drv, dev, A_MAJOR), minor = attribute(drv, dev, A_MINOR);
    k->sms = attribute(drv, dev, A_SMS);
    k->warp = attribute(drv, dev, A_WARP);
    k->threads_per_sm = attribute(drv, dev, A_THREADS_SM);
    k->blocks_per_sm = attribute(drv, dev, A_BLOCKS_SM);
    k->registers_per_sm = attribute(drv, dev, A_REGS_SM);
    k->shared_per_sm = attribute(drv, dev, A_SHARED_SM);
    double mem_hz = attribute(drv, dev, A_MEM_CLOCK) * 1e3, bus = attribute(drv, dev, A_BUS);
    double hz = attribute(drv, dev, A_CLOCK) * 1e3;
    int fp32, fp64;
    lanes(major, minor, &fp32, &fp64);
    k->bytes_per_s = mem_hz * 2 * bus / 8;
    k->flops[BK_PREC_F32] = k->sms * hz * fp32 * 2;
    k->flops[BK_PREC_F64] = k->sms * hz * fp64 * 2;
    k->flops[BK_PREC_F16] = 2 * k->flops[BK_PREC_F32];
    snprintf(k->how, sizeof k->how,
             "from the device's attributes: %.0f MHz memory x 2 x %.0f-bit bus = %.0f GB/s; %d "
             "SMs x %.0f MHz x %d FP32 / %d FP64 lanes (sm_%d%d) x 2; tensor cores not counted",
             mem_hz / 1e6, bus, k->bytes_per_s / 1e9, k->sms, hz / 1e6, fp32, fp64, major, minor);
    if (gpu_cupti_start(err))
        return -1;
    G.ordinal = ordinal;
    G.counting = 0;
    p->mode = mode;
    p->counted = 0;
    snprintf(p->note, sizeof p->note, "times from CUPTI's activity records (%s); "
             "%%%%profile --counters counts bytes and FLOPs", gpu_cupti_path());
    if (mode == BK_PROF_COUNTERS) {
        cm_error_t why = {0};
        if (gpu_cupti_counters_start(ordinal, &why) == 0)
            G.counting = 1;
        else
            snprintf(p->note, sizeof p->note, "times only, no counters: %.500s", why.text);
    }
    G.cupti_t0 = gpu_cupti_timestamp();
    G.host_t0 = cm_seconds();
    return 0;
}

/* "saxpy" from "_Z5saxpyifPKfPf", "f" from "_ZN2ns1fEv" (its last part): the
 * name a kernel cell gave it */
static void plain_name(const char *sym, char *buf, size_t len)
{
    snprintf(buf, len, "%s", sym);
    if (strncmp(sym, "_Z", 2) != 0)
        return;
    const char *p = sym + 2;
    int nested = *p == 'N';
    if (nested)
        p++;
    const char *last = NULL;
    long last_len = 0;
    while (*p >= '1' && *p <= '9') {
        char *end;
        long k = strtol(p, &end, 10);
        if (k <= 0 || (size_t)k > strlen(end))
            break;
        last = end;
        last_len = k;
        p = end + k;
        if (!nested)
            break;
    }
    if (last)
        snprintf(buf, len, "%.*s", (int)last_len, last);
}

/* c's row in p, or NULL (out of memory) */
static bk_prof_row_t *add_record(bk_profile_t *p, const gpu_cupti_record_t *c, int *labelled)
{
    bk_prof_row_t *r = bk_prof_add_row(p);
    if (!r)
        return NULL;
    r->device = bk_device(BK_CUDA, c->device);
    r->stream = c->stream;
    /* signed: work queued before the start may have begun before it */
    r->start = (double)(long long)(c->start - G.cupti_t0) / 1e9 + (G.host_t0 - bk_prof_origin());
    r->seconds = c->end > c->start ? (double)(c->end - c->start) / 1e9 : 0;
    const bk_prof_label_t *l = bk_prof_label(c->external);
    if (c->kind == GPU_CUPTI_KERNEL) {
        r->kind = l ? l->kind : BK_PROF_KERNEL;
        if (l)
            snprintf(r->name, sizeof r->name, "%s", l->name);
        else
            plain_name(c->name, r->name, sizeof r->name);
        memcpy(r->grid, c->grid, sizeof r->grid);
        memcpy(r->block, c->block, sizeof r->block);
        r->registers = c->registers;
        r->shared_static = c->static_shared;
        r->shared_dynamic = c->dynamic_shared;
        /* the counts the floor knows of the call go with its first kernel */
        if (l && c->external <= 4096 && !labelled[c->external]) {
            labelled[c->external] = 1;
            r->bytes_read = l->bytes_read;
            r->bytes_written = l->bytes_written;
            for (int i = 0; i < BK_NPREC; i++)
                r->ops[i][BK_OP_ADD] = l->flops[i];
            snprintf(r->note, sizeof r->note, "%s", l->note);
        }
        return r;
    }
    r->kind = BK_PROF_COPY;
    snprintf(r->name, sizeof r->name, "%s", c->name);
    double b = (double)c->bytes;
    int reads = c->kind == GPU_CUPTI_MEMCPY && (c->copy_kind == 2 || c->copy_kind == 8 || c->copy_kind == 10);
    int writes = c->kind == GPU_CUPTI_MEMSET || c->copy_kind == 1 || c->copy_kind == 8 || c->copy_kind == 10;
    r->bytes_read = reads ? b : 0;
    r->bytes_written = writes ? b : 0;
    return r;
}

static int by_correlation(const void *a, const void *b)
{
    const gpu_cupti_record_t *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    unsigned long long dx = x->end - x->start, dy = y->end - y->start;
    return dx < dy ? -1 : dx > dy;
}

/* by start, then (no times: counter mode) by launch */
static int by_start(const void *a, const void *b)
{
    const gpu_cupti_record_t *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

/* A replayed kernel leaves a record per pass, under one correlation id:
 * the shortest is kept (the others ran with more counters). Returns the
 * count left, in order of start. */
static int one_per_launch(gpu_cupti_record_t *v, int n)
{
    if (n)
        qsort(v, (size_t)n, sizeof *v, by_correlation);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!m || v[i].kind != GPU_CUPTI_KERNEL || v[m - 1].kind != GPU_CUPTI_KERNEL ||
            v[m - 1].correlation != v[i].correlation)
            v[m++] = v[i];
    if (m)
        qsort(v, (size_t)m, sizeof *v, by_start);
    return m;
}

/* The Range Profiler's counts of the k-th kernel into r. */
static void add_counts(bk_prof_row_t *r, const gpu_cupti_counts_t *c)
{
    const double *x = c->v;
    r->bytes_read = x[GPU_CUPTI_DRAM_READ];
    r->bytes_written = x[GPU_CUPTI_DRAM_WRITE];
    static const int first[BK_NPREC] = {GPU_CUPTI_HADD, GPU_CUPTI_FADD, GPU_CUPTI_DADD};
    for (int i = 0; i < BK_NPREC; i++) {
        r->ops[i][BK_OP_ADD] = x[first[i]];
        r->ops[i][BK_OP_MUL] = x[first[i] + 1];
        r->ops[i][BK_OP_FMA] = x[first[i] + 2];
        r->ops[i][BK_OP_SPECIAL] = -1;
    }
    r->occupancy_achieved = x[GPU_CUPTI_OCCUPANCY] / 100;
    if (x[GPU_CUPTI_TIME] > 0) /* a replayed pass's, as Nsight Compute times it */
        r->seconds = x[GPU_CUPTI_TIME] / 1e9;
    r->note[0] = '\0';
}

static int stop(bk_profile_t *p, cm_error_t *err)
{
    gpu_cupti_counts_t *counts = NULL;
    int ncounts = 0, passes = 0;
    cm_error_t why = {0};
    if (G.counting && gpu_cupti_counters_stop(&counts, &ncounts, &passes, &why))
        snprintf(p->note, sizeof p->note, "the counters could not be read: %.500s", why.text);
    gpu_cupti_record_t *v = NULL;
    int n = 0;
    if (gpu_cupti_stop(&v, &n, err)) {
        free(counts);
        return -1;
    }
    n = one_per_launch(v, n);
    int *labelled = calloc(4097, sizeof *labelled);
    int k = 0, by_metric = 0, timed = 0;
    double cursor = G.host_t0 - bk_prof_origin(); /* where a row without a start goes */
    for (int i = 0; i < n && labelled; i++) {
        bk_prof_row_t *r = add_record(p, &v[i], labelled);
        if (!r)
            break;
        if (v[i].kind == GPU_CUPTI_KERNEL && k < ncounts) {
            add_counts(r, &counts[k]);
            by_metric += counts[k++].v[GPU_CUPTI_TIME] > 0;
        }
        timed += r->kind != BK_PROF_COPY && r->seconds > 0;
        /* CUPTI gives no timestamps while the Range Profiler replays: the
         * rows are laid end to end in launch order (replay serialises them) */
        if (!v[i].start && !v[i].end)
            r->start = cursor;
        cursor = r->start + (r->seconds > 0 ? r->seconds : 0);
    }
    if (counts) {
        p->counted = 1;
        snprintf(p->note, sizeof p->note,
                 "counter mode: CUPTI's Range Profiler replayed each kernel (%d pass%s; kernels "
                 "serialised); %s; device-memory bytes are DRAM's, FLOPs the executed SASS "
                 "add/mul/fma instructions per thread (an FMA is 2)%s",
                 passes, passes == 1 ? "" : "es",
                 by_metric ? "times under replay: each kernel's gpu__time_duration in a replayed "
                             "pass, alone on the GPU, as Nsight Compute times it"
                 : timed   ? "times under replay: the shortest of CUPTI's records of the passes"
                           : "no times under replay (this CUPTI gave none)",
                 k == ncounts ? "" : "; kernels and counted ranges did not pair up one to one");
    }
    free(labelled);
    free(counts);
    free(v);
    return 0;
}

static void push(unsigned long long id)
{
    gpu_cupti_push(id);
}

static void pop(void)
{
    gpu_cupti_pop();
}

const bk_prof_backend_t bk_prof_cuda = {start, stop, push, pop};
