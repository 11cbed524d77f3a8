/* bk_profile: %%profile's recording on the floor (see bk.h). The
 * profiled device's backend (bk_profile_internal.h) records its launches;
 * this file keeps the profile, the rows of calls the floor's callers time
 * on host memory, the labels naming a GPU's launches, and the occupancy
 * arithmetic both backends use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk_profile_internal.h"
#include "cm_time.h"

#define MAX_LABELS 4096 /* labels of one profile; later calls stay unnamed */

static struct {
    int on;
    const bk_prof_backend_t *be;
    bk_profile_t *p;
    double origin;
    bk_prof_label_t *labels; /* [MAX_LABELS]; id = index + 1 */
    int nlabels;
    int gpu_depth;           /* labels pushed on the GPU's backend and not popped */
} F;

int bk_profiling(void)
{
    return F.on;
}

double bk_prof_origin(void)
{
    return F.origin;
}

bk_prof_row_t *bk_prof_add_row(bk_profile_t *p)
{
    if (p->nrows % 64 == 0) {
        bk_prof_row_t *v = realloc(p->rows, ((size_t)p->nrows + 64) * sizeof *v);
        if (!v)
            return NULL;
        p->rows = v;
    }
    bk_prof_row_t *r = &p->rows[p->nrows++];
    memset(r, 0, sizeof *r);
    r->bytes_read = r->bytes_written = r->sector_bytes = -1;
    for (int i = 0; i < BK_NPREC; i++)
        for (int j = 0; j < BK_NOPS; j++)
            r->ops[i][j] = -1;
    r->registers = -1;
    r->shared_static = r->shared_dynamic = -1;
    r->occupancy = r->occupancy_achieved = -1;
    return r;
}

const bk_prof_label_t *bk_prof_label(unsigned long long id)
{
    return id >= 1 && id <= (unsigned long long)F.nlabels ? &F.labels[id - 1] : NULL;
}

int bk_profile_start(bk_device_t d, int mode, cm_error_t *err)
{
    int b = bk_backend(d);
    const bk_prof_backend_t *be = b == BK_SIM ? &bk_prof_sim : b == BK_CUDA ? &bk_prof_cuda : NULL;
    if (!be) {
        CM_ERROR(err, BK_E_DEVICE, "no profiler for this device: kernels run on a GPU or the "
                 "simulator");
        return -1;
    }
    if (F.on) { /* one a jump out of a cell left on: dropped */
        cm_error_t ignored = {0};
        bk_profile_free(bk_profile_stop(&ignored));
    }
    bk_profile_t *p = calloc(1, sizeof *p);
    F.labels = calloc(MAX_LABELS, sizeof *F.labels);
    if (!p || !F.labels) {
        free(p);
        free(F.labels);
        F.labels = NULL;
        CM_ERROR(err, BK_E_MEMORY, "out of memory");
        return -1;
    }
    p->device = d;
    p->mode = mode;
    F.nlabels = 0;
    F.gpu_depth = 0;
    F.origin = cm_seconds();
    if (be->start(bk_ordinal(d), mode, p, err)) {
        free(p);
        free(F.labels);
        F.labels = NULL;
        return -1;
    }
    F.be = be;
    F.p = p;
    F.on = 1;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    double x = ((const bk_prof_row_t *)a)->start, y = ((const bk_prof_row_t *)b)->start;
    return x < y ? -1 : x > y;
}

bk_profile_t *bk_profile_stop(cm_error_t *err)
{
    if (!F.on) {
        CM_ERROR(err, BK_E_DEVICE, "no profile is on");
        return NULL;
    }
    F.on = 0;
    bk_profile_t *p = F.p;
    int rc = F.be->stop(p, err);
    free(F.labels);
    F.labels = NULL;
    F.p = NULL;
    if (rc) {
        bk_profile_free(p);
        return NULL;
    }
    if (p->nrows) /* rows may be NULL then: qsort of NULL is undefined */
        qsort(p->rows, (size_t)p->nrows, sizeof *p->rows, by_start);
    for (int i = 0; i < p->nrows; i++) {
        bk_prof_row_t *r = &p->rows[i];
        int threads = (int)(r->block[0] * r->block[1] * r->block[2]);
        double shared = (r->shared_static > 0 ? r->shared_static : 0) +
                        (r->shared_dynamic > 0 ? r->shared_dynamic : 0);
        if (r->kind == BK_PROF_KERNEL && threads > 0 && r->occupancy < 0)
            r->occupancy = bk_profile_occupancy(&p->peaks, threads, r->registers, shared);
    }
    return p;
}

void bk_profile_free(bk_profile_t *p)
{
    if (!p)
        return;
    free(p->rows);
    free(p);
}

int bk_profile_begin(bk_device_t d, int kind, const char *name, const double flops[BK_NPREC],
                     double bytes_read, double bytes_written, const char *note)
{
    if (!F.on || F.nlabels == MAX_LABELS)
        return 0;
    bk_prof_label_t *l = &F.labels[F.nlabels++];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    snprintf(l->name, sizeof l->name, "%s", name);
    for (int i = 0; i < BK_NPREC; i++)
        l->flops[i] = flops ? flops[i] : -1;
    l->bytes_read = bytes_read;
    l->bytes_written = bytes_written;
    snprintf(l->note, sizeof l->note, "%s", note ? note : "");
    int token = F.nlabels;
    if (!bk_host_memory(d)) {
        /* the outermost label names the launches (an array call's, with its
         * counts, around the floor's own launch) */
        if (F.gpu_depth > 0 || !F.be->push) {
            F.nlabels--;
            return 0;
        }
        F.be->push((unsigned long long)token);
        F.gpu_depth++;
        return token;
    }
    /* a call on host memory: its row, timed by the host's clock */
    bk_prof_row_t *r = bk_prof_add_row(F.p);
    if (!r)
        return 0;
    r->kind = kind;
    r->device = d;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->start = cm_seconds() - F.origin;
    r->seconds = -1 - (double)token; /* open: closed by bk_profile_end */
    r->bytes_read = bytes_read;
    r->bytes_written = bytes_written;
    for (int i = 0; i < BK_NPREC; i++) /* what the caller knows is FLOPs: adds and multiplies */
        r->ops[i][BK_OP_ADD] = flops && flops[i] >= 0 ? flops[i] : -1;
    snprintf(r->note, sizeof r->note, "%s", l->note);
    return token;
}

void bk_profile_end(int token)
{
    if (!F.on || token <= 0)
        return;
    for (int i = F.p->nrows - 1; i >= 0; i--) {
        bk_prof_row_t *r = &F.p->rows[i];
        if (r->seconds == -1 - (double)token) {
            r->seconds = cm_seconds() - F.origin - r->start;
            return;
        }
    }
    if (F.be->pop && F.gpu_depth > 0) {
        F.be->pop();
        F.gpu_depth--;
    }
}

double bk_profile_occupancy(const bk_prof_peaks_t *p, int threads, int registers, double shared)
{
    if (threads <= 0 || p->threads_per_sm <= 0 || p->warp <= 0)
        return -1;
    int warps = (threads + p->warp - 1) / p->warp;
    int max_warps = p->threads_per_sm / p->warp;
    int blocks = max_warps / warps;
    if (p->blocks_per_sm > 0 && blocks > p->blocks_per_sm)
        blocks = p->blocks_per_sm;
    if (shared > 0 && p->shared_per_sm > 0 && blocks > (int)(p->shared_per_sm / shared))
        blocks = (int)(p->shared_per_sm / shared);
    if (registers > 0 && p->registers_per_sm > 0) {
        /* registers are given per warp in units of 256 */
        int per_warp = (registers * p->warp + 255) / 256 * 256;
        int by_regs = p->registers_per_sm / (per_warp * warps);
        if (blocks > by_regs)
            blocks = by_regs;
    }
    return blocks <= 0 ? 0 : (double)(blocks * warps) / max_warps;
}
