/* rt_profile_stats: %%profile's arithmetic (see rt_profile.h) — FLOPs from
 * operation counts, totals per name, and the verdict against the roofs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_profile.h"

static const char *const PREC_NAME[BK_NPREC] = {"fp16", "fp32", "fp64"};

const char *rt_profile_prec_name(int prec)
{
    return prec >= 0 && prec < BK_NPREC ? PREC_NAME[prec] : "?";
}

double rt_profile_flops(const bk_prof_row_t *r, int prec)
{
    const double *o = r->ops[prec];
    if (o[BK_OP_ADD] < 0 || o[BK_OP_MUL] < 0 || o[BK_OP_FMA] < 0)
        return o[BK_OP_ADD] >= 0 && o[BK_OP_MUL] < 0 ? o[BK_OP_ADD] : -1; /* a call's FLOPs */
    return o[BK_OP_ADD] + o[BK_OP_MUL] + 2 * o[BK_OP_FMA];
}

double rt_profile_total_flops(const bk_prof_row_t *r)
{
    double sum = 0;
    int known = 0;
    for (int p = 0; p < BK_NPREC; p++) {
        double f = rt_profile_flops(r, p);
        if (f >= 0) {
            sum += f;
            known = 1;
        }
    }
    return known ? sum : -1;
}

/* Adds the rows of one name: times, bytes, operations (unknown stays
 * unknown). */
static void add_into(bk_prof_row_t *sum, const bk_prof_row_t *r)
{
    sum->seconds += r->seconds;
    sum->bytes_read = sum->bytes_read < 0 || r->bytes_read < 0 ? -1 : sum->bytes_read + r->bytes_read;
    sum->bytes_written =
        sum->bytes_written < 0 || r->bytes_written < 0 ? -1 : sum->bytes_written + r->bytes_written;
    sum->sector_bytes =
        sum->sector_bytes < 0 || r->sector_bytes < 0 ? -1 : sum->sector_bytes + r->sector_bytes;
    for (int p = 0; p < BK_NPREC; p++)
        for (int o = 0; o < BK_NOPS; o++)
            sum->ops[p][o] = sum->ops[p][o] < 0 || r->ops[p][o] < 0 ? -1 : sum->ops[p][o] + r->ops[p][o];
}

int rt_profile_totals(const bk_profile_t *p, rt_profile_total_t **out)
{
    rt_profile_total_t *t = calloc((size_t)p->nrows + 1, sizeof *t);
    int n = 0;
    for (int i = 0; t && i < p->nrows; i++) {
        const bk_prof_row_t *r = &p->rows[i];
        int k = 0;
        while (k < n && (t[k].row.kind != r->kind || strcmp(t[k].row.name, r->name)))
            k++;
        if (k == n) {
            t[n].row = *r;
            t[n].count = 1;
            n++;
        } else {
            add_into(&t[k].row, r);
            t[k].count++;
        }
    }
    *out = t;
    return n;
}

int rt_profile_main_prec(const bk_prof_row_t *r)
{
    int best = BK_PREC_F32;
    double most = 0;
    for (int p = 0; p < BK_NPREC; p++) {
        double f = rt_profile_flops(r, p);
        if (f > most) {
            most = f;
            best = p;
        }
    }
    return best;
}

void rt_profile_verdict(const bk_profile_t *p, const bk_prof_row_t *r, char *buf, size_t len)
{
    double bytes = r->bytes_read >= 0 && r->bytes_written >= 0 ? r->bytes_read + r->bytes_written : -1;
    double flops = rt_profile_total_flops(r);
    if (r->seconds <= 0) {
        snprintf(buf, len, "no time measured");
        return;
    }
    if (bytes < 0 && flops < 0) {
        snprintf(buf, len, "times only: %%%%profile --counters counts bytes and FLOPs");
        return;
    }
    int prec = rt_profile_main_prec(r);
    double bw = bytes > 0 ? bytes / r->seconds : 0;
    double fl = flops > 0 ? flops / r->seconds : 0;
    double peak_bw = p->peaks.bytes_per_s, peak_fl = p->peaks.flops[prec];
    double bw_frac = peak_bw > 0 ? bw / peak_bw : 0, fl_frac = peak_fl > 0 ? fl / peak_fl : 0;
    double ridge = peak_bw > 0 && peak_fl > 0 ? peak_fl / peak_bw : 0;
    double ai = bytes > 0 && flops >= 0 ? flops / bytes : -1;
    const char *sim = p->simulated ? " of the model's" : " of";
    if (bytes <= 0 && flops <= 0) {
        snprintf(buf, len, "latency-bound: no device-memory traffic or FLOPs counted");
    } else if (ai >= 0 && ridge > 0 && ai < ridge) {
        snprintf(buf, len, "memory-bound at %.0f%%%s peak bandwidth (%.3g FLOP/byte, below the "
                 "ridge at %.3g)", 100 * bw_frac, sim, ai, ridge);
    } else if (flops > 0 && peak_fl > 0) {
        snprintf(buf, len, "compute-bound at %.0f%%%s peak %s (%.3g FLOP/byte, above the ridge "
                 "at %.3g)", 100 * fl_frac, sim, PREC_NAME[prec], ai, ridge);
    } else {
        snprintf(buf, len, "memory-bound at %.0f%%%s peak bandwidth", 100 * bw_frac, sim);
    }
    if (bw_frac < 0.6 && fl_frac < 0.6 && r->kind == BK_PROF_KERNEL && !p->simulated) {
        size_t used = strlen(buf);
        unsigned long long blocks = (unsigned long long)r->grid[0] * r->grid[1] * r->grid[2];
        if (blocks && p->peaks.sms > 0 && blocks < (unsigned long long)p->peaks.sms)
            snprintf(buf + used, len - used, "; %llu blocks for %d SMs: the grid is too small "
                     "to fill the GPU", blocks, p->peaks.sms);
    }
}

