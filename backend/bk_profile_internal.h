/* bk_profile_internal: what bk_profile.c asks of each backend's profiler
 * (bk_profile_sim.c, bk_profile_cuda.c), and what they share. */
#ifndef BK_PROFILE_INTERNAL_H
#define BK_PROFILE_INTERNAL_H

#include "bk.h"

/* A name the floor gives the launches of one call on a GPU (an array
 * kernel's expression, a BLAS call), with the counts it knows. */
typedef struct bk_prof_label {
    int kind;
    char name[160];
    double flops[BK_NPREC], bytes_read, bytes_written;
    char note[96];
} bk_prof_label_t;

typedef struct bk_prof_backend {
    /* fills p's device_name, simulated, peaks; starts recording. 0 / -1 */
    int (*start)(int ordinal, int mode, bk_profile_t *p, cm_error_t *err);
    /* stops recording and adds the rows (bk_prof_add_row). 0 / -1 */
    int (*stop)(bk_profile_t *p, cm_error_t *err);
    /* a GPU's: the launches from now until pop are the label's (id > 0) */
    void (*push)(unsigned long long id);
    void (*pop)(void);
} bk_prof_backend_t;

extern const bk_prof_backend_t bk_prof_sim, bk_prof_cuda;

/* A new row of p, every number unknown (-1), or NULL (out of memory). */
bk_prof_row_t *bk_prof_add_row(bk_profile_t *p);

/* The label of id, or NULL. Borrowed. */
const bk_prof_label_t *bk_prof_label(unsigned long long id);

/* The cm_seconds() the profile started at. */
double bk_prof_origin(void);

#endif
