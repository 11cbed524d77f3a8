/* ga_scan: cumulative sums and products (NumPy's cumsum and cumprod)
 * along one axis, or of the flattened array. Result dtypes as NumPy's
 * (bool and signed integers accumulate in int64, unsigned in uint64,
 * floats in their dtype, float16 rounded at each step as NumPy does).
 *
 * The CPU backend runs each line in order, as NumPy does. A GPU runs a
 * long contiguous line in three passes (tile totals, a scan of the totals,
 * tiles scanned with their offsets), rows of a contiguous axis one block
 * each, and other axes one thread per line. */
#ifndef GA_SCAN_H
#define GA_SCAN_H

#include "cm_error.h"
#include "ga_array.h"

typedef enum ga_scan_op { GA_SCAN_SUM = 0, GA_SCAN_PROD = 1 } ga_scan_op_t;

/* op of a along axis (negative counts from the end), or of a flattened
 * in C order when axis is GA_AXIS_ALL (ga_expr.h): a new array (1-d then).
 * NULL with err: GA_E_SHAPE (axis), GA_E_DTYPE (complex), GA_E_FREED... */
ga_array_t *ga_scan(ga_scan_op_t op, ga_array_t *a, int axis, cm_error_t *err);

/* The whole source of a scan kernel for a GPU (gpu) or the CPU, for an
 * input of dtype d: for tests (NVRTC checks the GPU text). Caller frees. */
char *ga_scan_source(ga_scan_op_t op, ga_dtype_t d, int gpu);

#endif
