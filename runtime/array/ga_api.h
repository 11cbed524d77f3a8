/* ga_api: the array functions cells call, by the names gpuc.h gives them
 * (listed once in runtime/cell/rt_api.h; the user guide is docs/arrays.md).
 *
 * A failure ends the cell: the function reports through the raise hook
 * (the session's protected boundary) with a kind — ShapeError,
 * DTypeError, FreedArrayError, DeviceError, OutOfMemoryError, FileError, ValueError —
 * and a message naming the function; it does not return. Without a hook
 * (unit tests) it returns NULL / NaN / -1 and ga_api_last_error says why.
 *
 * Shapes arrive as (ndim, dims): gpuc.h's macros turn ga_zeros(F32, 3, 4)
 * into ga_zeros_n(F32, 2, (const long long[]){3, 4}). A dtype arrives as
 * ga_cell_dtype_t (ga_dtype.h). */
#ifndef GA_API_H
#define GA_API_H

#include <stddef.h>

#include "cm_error.h"
#include "ga_array.h"
#include "ga_map.h"

/* Where failures go: fn(kind, message) must not return (rt_protect_raise). */
void ga_api_set_raise(void (*fn)(const char *kind, const char *message));

/* The last failure when there is no hook (borrowed; code 0 when none). */
const cm_error_t *ga_api_last_error(void);

/* The kind of a GA_E_* code ("ShapeError"...). Static. */
const char *ga_api_kind(int code);

/* Reports err as the failure of function fn ("fn: text", of err's kind)
 * through the hook; returns only without one. For the session's own
 * array functions too (rt_array_pictures). */
void ga_api_fail(const char *fn, const cm_error_t *err);

/* The same with a GA_E_* code and a message made from fmt. */
void ga_api_failf(const char *fn, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- making ---- */
ga_array_t *ga_api_empty(ga_cell_dtype_t dtype, int ndim, const long long *dims);
ga_array_t *ga_api_zeros(ga_cell_dtype_t dtype, int ndim, const long long *dims);
ga_array_t *ga_api_ones(ga_cell_dtype_t dtype, int ndim, const long long *dims);
ga_array_t *ga_api_full(ga_cell_dtype_t dtype, double value, int ndim, const long long *dims);
ga_array_t *ga_api_arange(ga_cell_dtype_t dtype, double start, double stop, double step);
ga_array_t *ga_api_linspace(ga_cell_dtype_t dtype, double start, double stop, long long num);
ga_array_t *ga_api_eye(ga_cell_dtype_t dtype, long long n);
ga_array_t *ga_api_empty_like(ga_array_t *a);
ga_array_t *ga_api_zeros_like(ga_array_t *a);
ga_array_t *ga_api_ones_like(ga_array_t *a);
ga_array_t *ga_api_full_like(ga_array_t *a, double value);
ga_array_t *ga_api_from_host(ga_cell_dtype_t dtype, const void *data, int ndim, const long long *dims);

/* What gpuc.h's ga_full, ga_full_like and ga_set call: the value an
 * integer (GA_ARG_INT, or GA_API_VALUE_UINT: i holds a uint64's bits)
 * put exactly (outside an integer dtype's range: ValueError, as NumPy's
 * OverflowError), or a double (GA_ARG_FLOAT) converted as C converts. The
 * double forms above stay for cells built against an older gpuc.h. */
enum { GA_API_VALUE_UINT = 4 };
/* ga_arange of three integers (gpuc.h's ga_arange picks it): exact. */
ga_array_t *ga_api_arange_i(ga_cell_dtype_t dtype, long long start, long long stop,
                            long long step);
ga_array_t *ga_api_full_v(ga_cell_dtype_t dtype, ga_arg_t value, int ndim, const long long *dims);
ga_array_t *ga_api_full_like_v(ga_array_t *a, ga_arg_t value);
void ga_api_set_v(ga_array_t *a, ga_arg_t value, int nidx, const long long *idx);
ga_array_t *ga_api_from_device(ga_cell_dtype_t dtype, void *ptr, int ndim, const long long *dims);

/* .npy files (NumPy's format): a new array on the default device; a's
 * elements written as a C-order little-endian file. */
ga_array_t *ga_api_load(const char *path);
void ga_api_save(ga_array_t *a, const char *path);

/* Prints a as a cell's result shows it (NumPy's repr) and a newline. */
void ga_api_print(ga_array_t *a);

/* ---- views and copies ---- */
ga_array_t *ga_api_reshape(ga_array_t *a, int ndim, const long long *dims);
ga_array_t *ga_api_slice(ga_array_t *a, int axis, long long start, long long stop,
                         long long step);
ga_array_t *ga_api_index(ga_array_t *a, int axis, long long i);
ga_array_t *ga_api_row(ga_array_t *a, long long i);
ga_array_t *ga_api_col(ga_array_t *a, long long j);
ga_array_t *ga_api_transpose(ga_array_t *a);
ga_array_t *ga_api_permute(ga_array_t *a, int naxes, const long long *axes);
ga_array_t *ga_api_copy(ga_array_t *a);
ga_array_t *ga_api_to_device(ga_array_t *a, int device);

/* ---- host memory ---- */
void ga_api_read(ga_array_t *a, void *dst);       /* a's elements into dst, C order */
void ga_api_write(ga_array_t *a, const void *src); /* src (C order) into a's elements */
double ga_api_item(ga_array_t *a, int nidx, const long long *idx);
/* one element of an integer or bool array, exact (DTypeError for floats) */
long long ga_api_item_i64(ga_array_t *a, int nidx, const long long *idx);
void ga_api_set(ga_array_t *a, double value, int nidx, const long long *idx);

/* ---- what an array is ---- */
int ga_api_ndim(ga_array_t *a);
long long ga_api_dim(ga_array_t *a, int axis);
long long ga_api_size(ga_array_t *a);
size_t ga_api_nbytes(ga_array_t *a);
int ga_api_dtype(ga_array_t *a); /* its code (GA_CODE_F32 in cells) */
int ga_api_device(ga_array_t *a);
void *ga_api_data(ga_array_t *a);

/* ---- lifetime and devices ---- */
void ga_api_free(ga_array_t *a);
ga_array_t *ga_api_keep(ga_array_t *a);
void ga_api_use_device(int device); /* where new arrays go: GA_CPU or a GPU number */
int ga_api_default_device(void);

#endif
