/* ga_copy: moving an array's elements — to and from dense host buffers,
 * into a new contiguous array, a few chosen elements (for printing), and
 * filling. Strided views are walked in runs along their last axis: a run
 * with stride 1 is one copy; a strided view on a GPU is first gathered
 * into a contiguous array on the device by a copy kernel (ga_map), so it
 * crosses the bus in one transfer. Filling runs on the device (ga_fill). */
#ifndef GA_COPY_H
#define GA_COPY_H

#include "ga_array.h"

/* a's elements in C order into host buffer dst (size * elsize bytes). */
int ga_copy_to_host(const ga_array_t *a, void *dst, cm_error_t *err);

/* The dense C-order host buffer src into a's elements. */
int ga_copy_from_host(ga_array_t *a, const void *src, cm_error_t *err);

/* A new C-contiguous array with a's elements on device (a's own device
 * when device is a's; another one copies across through the host). */
ga_array_t *ga_copy_array(const ga_array_t *a, int device, cm_error_t *err);

/* a's elements C-contiguous on its device: a new view of a when they are
 * already, else a contiguous copy (either is the caller's to free). */
ga_array_t *ga_copy_contiguous(ga_array_t *a, cm_error_t *err);

/* The elements at the cartesian product of per-axis index lists
 * idx[k][0, count[k]) into dst, densely, in C order (a ga_gather_fn for
 * printing: only what is shown crosses the bus). */
int ga_copy_gather(void *ctx, const ga_array_t *a, const int64_t *const *idx,
                   const int64_t *count, void *dst, cm_error_t *err);

/* The one element of a (size 1: a 0-d result, an element view) as a
 * double, read back from its device. 0 / -1 with err. */
int ga_copy_scalar(const ga_array_t *a, double *out, cm_error_t *err);

/* The same, exact, of an integer or bool array as a long long: a float or
 * complex a is a GA_E_DTYPE error, a uint64 past LLONG_MAX GA_E_VALUE. */
int ga_copy_scalar_i64(const ga_array_t *a, long long *out, cm_error_t *err);

/* Sets every element of a to value (converted to a's dtype as C converts
 * a double; imag = 0) on its device: ga_fill_bytes (ga_fill.h), which is
 * also the exact form, taking the value's bytes in the dtype. */
int ga_copy_fill(ga_array_t *a, double value, cm_error_t *err);

#endif
