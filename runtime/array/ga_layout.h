/* ga_layout: how the operands of one operation walk their elements —
 * NumPy's broadcasting of shapes, each operand's strides on the common
 * shape (0 where it is broadcast), and dimensions merged where every
 * operand allows it, so that most operations run as one flat loop. */
#ifndef GA_LAYOUT_H
#define GA_LAYOUT_H

#include <stdint.h>

#include "cm_error.h"
#include "ga_array.h"

#define GA_LAYOUT_MAX_OPS 18   /* operands + the output */

typedef struct ga_layout {
    int nd;                                     /* dimensions after merging (0: one element) */
    int nops;
    int64_t n;                                  /* elements */
    int64_t shape[GA_MAX_DIMS];
    int64_t strides[GA_LAYOUT_MAX_OPS][GA_MAX_DIMS]; /* (nops, nd), in elements */
} ga_layout_t;

/* The broadcast of the shapes of arrays[0, n) (NULL entries are scalars
 * and ignored) into *ndim / shape. -1 with err (GA_E_SHAPE: "shapes (3,)
 * and (4,) do not broadcast"). */
int ga_layout_broadcast(ga_array_t *const *arrays, int n, int *ndim, int64_t *shape,
                        cm_error_t *err);

/* Fills l for arrays[0, nops) walked over (ndim, shape) — each array's
 * shape must broadcast to it; NULL entries (scalars) get stride 0 — and
 * merges dimensions. */
void ga_layout_make(ga_layout_t *l, ga_array_t *const *arrays, int nops, int ndim,
                    const int64_t *shape);

/* Non-zero when every operand of l is walked with unit stride over one
 * dimension (or l has one element): a flat loop. Scalars (stride 0 over
 * the whole shape) count when skip[i] is set. */
int ga_layout_flat(const ga_layout_t *l, const int *skip);

#endif
