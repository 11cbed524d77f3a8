/* ga_print: an array's text as NumPy 2.x shows it (repr and str: the
 * 'maxprec' float mode, summarised edges, line wrapping), with gpuc's
 * suffix ", dtype=float32, shape=(2,), device=gpu0)", and an HTML table.
 *
 * Only the shown elements are read: the printer works out the indices it
 * shows on each axis (all of them, or the first and last `edgeitems` when
 * the array has more than `threshold` elements) and asks the caller's
 * gather function ONCE for that cartesian product, so printing a 1e8-element
 * GPU array copies a few dozen elements to the host. */
#ifndef GA_PRINT_H
#define GA_PRINT_H

#include <stdint.h>

#include "cm_error.h"
#include "ga_array.h"

/* Copies the elements of a at the cartesian product of per-axis index
 * lists (idx[k][0..count[k]) for axis k, C order) into out, densely,
 * elsize bytes each. Supplied by the caller (the real one copies from the
 * GPU; tests use a host one). 0 or -1 with err set. */
typedef int (*ga_gather_fn)(void *ctx, const ga_array_t *a, const int64_t *const *idx,
                            const int64_t *count, void *out, cm_error_t *err);

/* NumPy's print options that gpuc uses. */
typedef struct ga_print_opts {
    int precision;      /* most fraction digits of a float (8) */
    int64_t threshold;  /* more elements than this: summarise (1000) */
    int edgeitems;      /* shown at each end of a summarised axis (3) */
    int linewidth;      /* characters per line (75) */
    int suppress;       /* 1: never switch to exponent format for small values (0) */
} ga_print_opts_t;

/* NumPy's defaults: 8, 1000, 3, 75, 0. */
void ga_print_defaults(ga_print_opts_t *o);

/* NumPy's repr body plus gpuc's suffix:
 * "array([1., 2.], dtype=float32, shape=(2,), device=cpu)". o NULL: the
 * defaults. New string (free() it), or NULL with err set (a bad dtype or
 * shape, out of memory, or the gather's error). */
char *ga_print_repr(const ga_array_t *a, const ga_print_opts_t *o, ga_gather_fn gather, void *ctx,
                    cm_error_t *err);

/* The elements as NumPy's str(a) shows them: "[1. 2.]"; a 0-d array as
 * NumPy's scalar str ("1.0", "(1+2j)"). New string, or NULL with err set. */
char *ga_print_str(const ga_array_t *a, const ga_print_opts_t *o, ga_gather_fn gather, void *ctx,
                   cm_error_t *err);

/* An HTML table of the same summarised elements ("…" cells where rows or
 * columns are elided); for more than 2 dimensions the last two axes of the
 * first and last blocks, each captioned with its index. Followed by a
 * caption line "float32, shape=(2, 3), device=gpu0". New string, or NULL
 * with err set. */
char *ga_print_html(const ga_array_t *a, const ga_print_opts_t *o, ga_gather_fn gather, void *ctx,
                    cm_error_t *err);

#endif
