/* ga_api_math: the array math functions cells call (gpuc.h's macros of
 * ga_ops.h lead here): expressions, named operations, reductions, casts.
 * Failures end the cell as ga_api's do (ga_api_fail): ExpressionError for
 * an expression that does not parse, DTypeError, ShapeError (broadcasting,
 * axes), DeviceError, OutOfMemoryError, KernelError (a generated kernel
 * that did not compile: a gpuc bug, or no C compiler on the CPU backend). */
#ifndef GA_API_MATH_H
#define GA_API_MATH_H

#include "ga_array.h"
#include "ga_map.h"

/* expr over args[0, nargs); out NULL or the output. fn names the call in
 * messages ("ga_add"). */
ga_array_t *ga_api_eval(const char *fn, const char *expr, ga_array_t *out, int nargs,
                        const ga_arg_t *args);

/* op ("sum", "argmax" ...) of every element of a, as a double (argmin,
 * argmax: the flat index; any, all: 0 or 1). Waits for the device. */
double ga_api_reduce_all(const char *fn, const char *op, ga_array_t *a);

/* The same, exact, as a long long, where a's result is an integer (a
 * DTypeError for a float result: a double holds integers to 2^53 only). */
long long ga_api_reduce_all_i64(const char *fn, const char *op, ga_array_t *a);

/* op of a along axis (negative counts from the end; GA_AXIS_ALL: every
 * element, a 0-d array), keepdims: the axis stays with length 1. */
ga_array_t *ga_api_reduce_axis(const char *fn, const char *op, ga_array_t *a, int axis,
                               int keepdims);

/* op of a over the axes[0, naxes) at once (GA_AXIS_ALL alone: every
 * axis); var and std divide by N - ddof (N the number of elements each
 * result reduces; ddof is 0 for the others). keepdims as above.
 * ValueError for no axes or argmin/argmax over several, ShapeError for an
 * axis out of range or repeated. */
ga_array_t *ga_api_reduce_axes(const char *fn, const char *op, ga_array_t *a, int naxes,
                               const long long *axes, int keepdims, double ddof);

/* Cumulative sum / product of a along axis (GA_AXIS_ALL: flattened). */
ga_array_t *ga_api_cumsum(ga_array_t *a, int axis);
ga_array_t *ga_api_cumprod(ga_array_t *a, int axis);

/* a's elements converted to dtype (a new array; NumPy's astype). */
ga_array_t *ga_api_astype(ga_array_t *a, ga_cell_dtype_t dtype);

#endif
