/* ga_fill: values made where the array lives — every element set to one
 * value given by its bytes (exact for every dtype: int64 and uint64
 * extremes, float16, complex), and NumPy's arange and linspace with
 * NumPy's own arithmetic, so that the results are NumPy's bit for bit.
 * Each is one kernel written once for C and CUDA (GA_KERNEL, GA_LOOP):
 * a loop on the CPU backend and the simulator, a grid on a GPU; nothing
 * crosses the bus. Zero bytes are the backend's memset. */
#ifndef GA_FILL_H
#define GA_FILL_H

#include "ga_array.h"

/* Sets every element of a (any view) to the element at value (a's
 * dtype, ga_dtype_size bytes). 0 / -1 with err (no compiler, a launch). */
int ga_fill_bytes(ga_array_t *a, const void *value, cm_error_t *err);

/* a (1-d, contiguous, n elements) = NumPy's arange in a's dtype from the
 * first two values start and start + step (next), as numpy's fill:
 * v0, v1, then v0 + i * (v1 - v0) in the dtype's arithmetic (integers
 * wrapping, float16 in float, no fused multiply-add). Integer dtypes
 * take start and next truncated: GA_E_VALUE when either is out of the
 * dtype's range (NumPy's OverflowError). 0 / -1 with err. */
int ga_fill_arange(ga_array_t *a, double start, double next, cm_error_t *err);

/* The same from integers, exact (NumPy's arange of Python ints): integer
 * dtypes take start and start + step as they are (GA_E_VALUE outside the
 * dtype), other dtypes their doubles. */
int ga_fill_arange_int(ga_array_t *a, int64_t start, int64_t step, cm_error_t *err);

/* a (1-d, contiguous, n elements) = NumPy's linspace(start, stop, n)
 * with endpoint: in float64, i * step + start with step (stop - start) /
 * (n - 1) (i / (n - 1) * delta where step underflows to 0), the last
 * element stop exactly, then cast (integer dtypes: floor first). */
int ga_fill_linspace(ga_array_t *a, double start, double stop, cm_error_t *err);

/* The kernel text of dtype d's range kernels and of the fill for
 * elements of elsize bytes, prelude included: for tests (ga_kernel_check). */
char *ga_fill_source(ga_dtype_t d, int elsize);

#endif
