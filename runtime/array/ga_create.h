/* ga_create: making arrays — zeros, ones, full, arange, linspace,
 * eye, the *_like forms, from host memory (a copy) and over device memory
 * the user allocated (a view that does not own it). Each returns a new
 * live array, or NULL with err set (a bad shape or dtype, no memory).
 * An uninitialised array is ga_array_new (ga_array.h). */
#ifndef GA_CREATE_H
#define GA_CREATE_H

#include "ga_array.h"

/* value converted as C converts a double (ga_dtype_set_f64). */
ga_array_t *ga_create_full(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                           double value, cm_error_t *err);

/* The exact form: every element the dtype element at value (its bytes). */
ga_array_t *ga_create_full_bytes(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                                 const void *value, cm_error_t *err);

/* Values start, start + step, ... below stop (above, for step < 0), as
 * NumPy's arange: ceil((stop - start) / step) elements, NumPy's values
 * bit for bit (ga_fill_arange). step 0 or a bound not finite: GA_E_VALUE;
 * bool past 2 elements: GA_E_DTYPE (NumPy's TypeError). */
ga_array_t *ga_create_arange(int device, ga_dtype_t dtype, double start, double stop,
                             double step, cm_error_t *err);

/* The same from integers, exact as NumPy's arange of Python ints (the
 * length from the quotient rounded to a double as Python divides;
 * integer dtypes wrap as NumPy's do). */
ga_array_t *ga_create_arange_int(int device, ga_dtype_t dtype, int64_t start, int64_t stop,
                                 int64_t step, cm_error_t *err);

/* num values from start to stop, both included (num 1: start), as
 * NumPy's linspace with endpoint, bit for bit (ga_fill_linspace). */
ga_array_t *ga_create_linspace(int device, ga_dtype_t dtype, double start, double stop,
                               int64_t num, cm_error_t *err);

/* The n x n identity. */
ga_array_t *ga_create_eye(int device, ga_dtype_t dtype, int64_t n, cm_error_t *err);

/* A copy of a dense C-order host buffer of shape. */
ga_array_t *ga_create_from_host(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                                const void *data, cm_error_t *err);

/* A view of memory at ptr on device that the caller allocated and keeps
 * (never freed by gpuc), C-contiguous with shape. */
ga_array_t *ga_create_wrap(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                           void *ptr, cm_error_t *err);

#endif
