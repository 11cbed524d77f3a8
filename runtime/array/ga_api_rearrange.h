/* ga_api_rearrange: the cell functions that join, split, index by data,
 * sort and search arrays (ga_join, ga_index, ga_sort; the user guide is
 * docs/arrays.md, "Joining, indexing by data, sorting"). Failures end the
 * cell as ga_api's do (ga_api_fail), naming the function. Arrays made are
 * the session's (swept at the end of the cell unless held). */
#ifndef GA_API_REARRANGE_H
#define GA_API_REARRANGE_H

#include "ga_array.h"
#include "ga_map.h"

/* ---- joining and splitting ---- */
ga_array_t *ga_api_concatenate(int n, ga_array_t *const *arrays, int axis);
ga_array_t *ga_api_stack(int n, ga_array_t *const *arrays, int axis);
/* views into parts[]: `sections` equal ones (nidx < 0) or cut at idx[0,
 * nidx); returns how many (parts must have room for them) */
int ga_api_split(ga_array_t *a, long long sections, int axis, int nidx, const long long *idx,
                 ga_array_t **parts);
/* widths: 1 (every side), 2 (before, after of every axis) or 2 per axis */
ga_array_t *ga_api_pad(ga_array_t *a, const char *mode, double value, int nwidths,
                       const long long *widths);
ga_array_t *ga_api_repeat(ga_array_t *a, long long repeats, int axis);
ga_array_t *ga_api_tile(ga_array_t *a, int nreps, const long long *reps);
ga_array_t *ga_api_flip(ga_array_t *a, int axis);
ga_array_t *ga_api_roll(ga_array_t *a, long long shift, int axis);

/* ---- indexing by data ---- */
ga_array_t *ga_api_take(ga_array_t *a, ga_array_t *idx, int axis);
ga_array_t *ga_api_take_mode(ga_array_t *a, ga_array_t *idx, int axis, const char *mode);
void ga_api_put(ga_array_t *a, ga_array_t *idx, const ga_arg_t *v);
void ga_api_put_mode(ga_array_t *a, ga_array_t *idx, const ga_arg_t *v, const char *mode);
/* the index arrays of a's non-zero elements into out[0, ndim); returns ndim */
int ga_api_nonzero(ga_array_t *a, ga_array_t **out);
ga_array_t *ga_api_argwhere(ga_array_t *a);
ga_array_t *ga_api_flatnonzero(ga_array_t *a);
ga_array_t *ga_api_mask_select(ga_array_t *a, ga_array_t *mask);
void ga_api_mask_assign(ga_array_t *a, ga_array_t *mask, const ga_arg_t *v);
ga_array_t *ga_api_compress(ga_array_t *cond, ga_array_t *a, int axis);

/* ---- sorting and searching ---- */
ga_array_t *ga_api_sort(ga_array_t *a, int axis);
ga_array_t *ga_api_argsort(ga_array_t *a, int axis);
ga_array_t *ga_api_partition(ga_array_t *a, long long kth, int axis);
ga_array_t *ga_api_argpartition(ga_array_t *a, long long kth, int axis);
ga_array_t *ga_api_unique(ga_array_t *a);
ga_array_t *ga_api_unique_counts(ga_array_t *a, ga_array_t **counts);
ga_array_t *ga_api_searchsorted(ga_array_t *a, ga_array_t *v, const char *side);
ga_array_t *ga_api_histogram(ga_array_t *a, long long bins, double lo, double hi,
                             ga_array_t **edges);

#endif
