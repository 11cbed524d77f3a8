/* ga_reduce: reductions — sum, prod, min, max, mean, var, std, argmin,
 * argmax, any, all, count_nonzero — of a whole array or along one axis,
 * of an expression mapped over arrays in the same pass (ga_map's
 * "sum((a - b) * (a - b))"). Floats are summed in tree order (pairwise on
 * the CPU, blocks then a tree on a GPU), in float64 for float64 and in
 * float32 for float16/32 as NumPy does. */
#ifndef GA_REDUCE_H
#define GA_REDUCE_H

#include "cm_error.h"
#include "ga_array.h"
#include "ga_expr.h"
#include "ga_map.h"

/* Runs e (typed, e->reduce set) over the operands ga_map_eval_reducing checked:
 * arrays[k] (NULL for scalars), dtypes, weak, all on device. out: NULL
 * for a new array, else the result array to write. The result: 0-d for
 * e->axis == GA_AXIS_ALL, else the broadcast shape without that axis.
 * NULL with err. */
ga_array_t *ga_reduce_eval(const ga_expr_t *e, ga_array_t *out, int nargs, const ga_arg_t *args,
                           ga_array_t *const *arrays, const ga_dtype_t *dtypes, const int *weak,
                           int device, cm_error_t *err);

/* The whole source (prelude included) of a reduction text ("sum(a * b,
 * 1)") over operands of dtypes: for a GPU (gpu; variant 1 whole array,
 * 2 whole array with vector loads, 3 along a contiguous axis, 5 the same
 * with vector loads, 6 that a warp a row, 4 along another; nd output
 * dimensions) or the CPU. For tests (NVRTC checks the
 * GPU text where there is no GPU). Caller frees; NULL with err. */
char *ga_reduce_source(const char *text, int nargs, const ga_dtype_t *dtypes, const int *weak,
                       int gpu, int variant, int nd, cm_error_t *err);

#endif
