/* ga_join: joining, splitting and rearranging arrays — NumPy's
 * concatenate, stack, split, pad, repeat, tile, flip and roll.
 *
 * Everything here is views and copies: a result is a new C-contiguous
 * array whose parts are written by ga_map's copy kernel ("a") through
 * views of it (slices, broadcast views), so every device runs it with the
 * kernels it already has; flip and split return views, as NumPy's do.
 * Dtypes: concatenate and stack promote as NumPy (ga_dtype_promote);
 * complex dtypes are array math's DTypeError.
 *
 * Axes: negative counts from the end; GA_AXIS_ALL (ga_expr.h) means the
 * flattened array where NumPy's axis=None does. Errors are cm_error_t
 * values: GA_E_SHAPE (an axis out of range, shapes that do not join),
 * GA_E_VALUE (a bad count or width), GA_E_DEVICE (arrays on different
 * devices), and those of ga_map. Results are new arrays the caller owns. */
#ifndef GA_JOIN_H
#define GA_JOIN_H

#include "cm_error.h"
#include "ga_array.h"

/* The arrays[0, n) joined along axis (an existing axis), or stacked along
 * a new axis (stack != 0: every array of one shape). */
ga_array_t *ga_join_concatenate(int n, ga_array_t *const *arrays, int axis, int stack,
                                cm_error_t *err);

/* a cut along axis into views: into `sections` equal parts (sections must
 * divide the length) when nidx < 0, else at the indices idx[0, nidx)
 * (nidx + 1 parts, NumPy's split with a list). The parts go into
 * parts[]; returns their number, or -1 with err. */
int ga_join_split(ga_array_t *a, int64_t sections, int nidx, const int64_t *idx, int axis,
                  ga_array_t **parts, cm_error_t *err);

typedef enum ga_pad_mode {
    GA_PAD_CONSTANT, GA_PAD_EDGE, GA_PAD_REFLECT, GA_PAD_SYMMETRIC, GA_PAD_WRAP
} ga_pad_mode_t;

/* The mode named by text ("constant", "edge", "reflect", "symmetric",
 * "wrap"), or -1. */
int ga_join_pad_mode(const char *text);

/* a padded by width[2k] before and width[2k + 1] after axis k; constant
 * mode fills with value. reflect, symmetric and wrap take widths up to
 * the axis's length (reflect: below it); more is GA_E_VALUE. */
ga_array_t *ga_join_pad(ga_array_t *a, const int64_t *width, ga_pad_mode_t mode, double value,
                        cm_error_t *err);

/* Each element of a repeated `repeats` times along axis (GA_AXIS_ALL:
 * of the flattened array). */
ga_array_t *ga_join_repeat(ga_array_t *a, int64_t repeats, int axis, cm_error_t *err);

/* a repeated reps[k] times along each axis; reps aligned at the right
 * with a's shape, a's dimensions padded with leading 1s (NumPy's tile). */
ga_array_t *ga_join_tile(ga_array_t *a, int nreps, const int64_t *reps, cm_error_t *err);

/* a view of a reversed along axis (GA_AXIS_ALL: every axis). */
ga_array_t *ga_join_flip(ga_array_t *a, int axis, cm_error_t *err);

/* a's elements shifted by `shift` along axis, those past the end coming
 * back at the start (GA_AXIS_ALL: the flattened array, shape kept). */
ga_array_t *ga_join_roll(ga_array_t *a, int64_t shift, int axis, cm_error_t *err);

/* Copies src into dst (a view; src broadcasts to its shape): ga_map's
 * "a". For the other array operations that write through views. */
int ga_join_copy_into(ga_array_t *dst, ga_array_t *src, cm_error_t *err);

#endif
