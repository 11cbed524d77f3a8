/* rt_profile: what %%profile's files share: rt_profile.c shows the
 * profile, rt_profile_draw.c draws its pictures, rt_profile_stats.c does
 * the arithmetic both use (calls run show -> draw -> stats). */
#ifndef RT_PROFILE_H
#define RT_PROFILE_H

#include <stddef.h>

#include "bk.h"
#include "cm_buf.h"

/* One name's rows added up. */
typedef struct rt_profile_total {
    bk_prof_row_t row;         /* seconds, bytes and operations summed */
    int count;                 /* rows of the name */
} rt_profile_total_t;

/* ---- the arithmetic (rt_profile_stats.c) ---- */

/* "fp16", "fp32", "fp64". */
const char *rt_profile_prec_name(int prec);

/* The precision (BK_PREC_*) with the most FLOPs in r (FP32 when none). */
int rt_profile_main_prec(const bk_prof_row_t *r);

/* FLOPs of r in precision prec (an FMA is 2), or -1 unknown. */
double rt_profile_flops(const bk_prof_row_t *r, int prec);

/* FLOPs of r in every precision, or -1 when none is known. */
double rt_profile_total_flops(const bk_prof_row_t *r);

/* The rows of p added up by kind and name, in order of first appearance:
 * *out (the caller frees it), returns how many. */
int rt_profile_totals(const bk_profile_t *p, rt_profile_total_t **out);

/* "memory-bound at 83% of peak bandwidth (0.25 FLOP/byte, below the
 * ridge at 9.8)" for r on p's device, into buf. */
void rt_profile_verdict(const bk_profile_t *p, const bk_prof_row_t *r, char *buf, size_t len);

/* ---- the pictures (rt_profile_draw.c) ---- */

/* Appends s with &, <, > and " escaped, for HTML and SVG. */
void rt_profile_escape(cm_buf_t *b, const char *s);

/* SVG pictures (new strings): the rows on a time axis, one lane per
 * device and stream; the names' totals under the device's roofs. */
char *rt_profile_timeline(const bk_profile_t *p);
char *rt_profile_roofline(const bk_profile_t *p, const rt_profile_total_t *tot, int ntot);

#endif
