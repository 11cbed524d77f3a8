/* ga_create: making arrays (see ga_create.h). full, eye, arange and
 * linspace are made on the array's device (ga_fill: zeros by the
 * backend's memset, the rest by one kernel each). */
#include "ga_create.h"

#include <math.h>
#include <stdlib.h>

#include "bk.h"
#include "ga_copy.h"
#include "ga_fill.h"

ga_array_t *ga_create_full_bytes(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                                 const void *value, cm_error_t *err)
{
    ga_array_t *a = ga_array_new(device, dtype, ndim, shape, err);
    if (a && ga_fill_bytes(a, value, err) != 0) {
        ga_array_free(a);
        return NULL;
    }
    return a;
}

ga_array_t *ga_create_full(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                           double value, cm_error_t *err)
{
    unsigned char bytes[16];
    if (!ga_dtype_valid((int)dtype)) {
        CM_ERROR(err, GA_E_DTYPE, "%d is not a dtype", (int)dtype);
        return NULL;
    }
    ga_dtype_set_f64(dtype, bytes, 0, value);
    return ga_create_full_bytes(device, dtype, ndim, shape, bytes, err);
}

/* A new 1-d array of n elements that fill(a, x, y) sets. */
static ga_array_t *made_by(int device, ga_dtype_t dtype, int64_t n,
                           int (*fill)(ga_array_t *, double, double, cm_error_t *), double x,
                           double y, cm_error_t *err)
{
    ga_array_t *a = ga_array_new(device, dtype, 1, &n, err);
    if (a && fill(a, x, y, err) != 0) {
        ga_array_free(a);
        return NULL;
    }
    return a;
}

ga_array_t *ga_create_arange(int device, ga_dtype_t dtype, double start, double stop,
                             double step, cm_error_t *err)
{
    if (step == 0 || !isfinite(step) || !isfinite(start) || !isfinite(stop)) {
        CM_ERROR(err, GA_E_VALUE, "arange: start, stop and step must be finite and step not 0");
        return NULL;
    }
    /* NumPy's length: ceil of the quotient in double, an error past
     * int64 either way */
    double len = ceil((stop - start) / step);
    if (!(len >= -9.2e18 && len <= 9.2e18)) {
        CM_ERROR(err, GA_E_SHAPE, "arange: %.3g elements is too many", len);
        return NULL;
    }
    int64_t n = len > 0 ? (int64_t)len : 0;
    if (dtype == GA_BOOL && n > 2) {
        CM_ERROR(err, GA_E_DTYPE, "arange: %lld bools; NumPy allows at most 2", (long long)n);
        return NULL;
    }
    return made_by(device, dtype, n, ga_fill_arange, start, start + step, err);
}

/* NumPy's length of an arange of integers: the ceiling of Python's true
 * division (stop - start) / step, the exact quotient rounded to a double,
 * worked out in integers; -1 past 2^52 (more than memory holds). */
static int64_t integer_length(int64_t start, int64_t stop, int64_t step)
{
    __int128 num = (__int128)stop - start;
    if (num == 0 || (num > 0) != (step > 0))
        return 0; /* the quotient is at most -0: no elements */
    unsigned __int128 a = num < 0 ? -(unsigned __int128)num : (unsigned __int128)num;
    unsigned __int128 b = step < 0 ? -(unsigned __int128)step : (unsigned __int128)step;
    unsigned __int128 q = a / b, r = a % b;
    if (q >= (unsigned __int128)1 << 52)
        return -1;
    if (r == 0 || q == 0)
        return (int64_t)q + (r != 0);
    /* q + r / b rounds down to q when r / b is at most half q's ulp,
     * 2^(e - 53) (a tie goes to q, whose mantissa is even below 2^52) */
    int e = 63 - __builtin_clzll((unsigned long long)q);
    return (int64_t)q + ((r << (53 - e)) > b);
}

ga_array_t *ga_create_arange_int(int device, ga_dtype_t dtype, int64_t start, int64_t stop,
                                 int64_t step, cm_error_t *err)
{
    if (step == 0) {
        CM_ERROR(err, GA_E_VALUE, "arange: step must not be 0");
        return NULL;
    }
    int64_t n = integer_length(start, stop, step);
    if (n < 0) {
        CM_ERROR(err, GA_E_SHAPE, "arange: more than 2^52 elements is too many");
        return NULL;
    }
    if (dtype == GA_BOOL && n > 2) {
        CM_ERROR(err, GA_E_DTYPE, "arange: %lld bools; NumPy allows at most 2", (long long)n);
        return NULL;
    }
    ga_array_t *a = ga_array_new(device, dtype, 1, &n, err);
    if (a && ga_fill_arange_int(a, start, step, err) != 0) {
        ga_array_free(a);
        return NULL;
    }
    return a;
}

ga_array_t *ga_create_linspace(int device, ga_dtype_t dtype, double start, double stop,
                               int64_t num, cm_error_t *err)
{
    if (num < 0) {
        CM_ERROR(err, GA_E_SHAPE, "linspace: num is %lld; it cannot be negative",
                 (long long)num);
        return NULL;
    }
    return made_by(device, dtype, num, ga_fill_linspace, start, stop, err);
}

ga_array_t *ga_create_eye(int device, ga_dtype_t dtype, int64_t n, cm_error_t *err)
{
    const int64_t shape[2] = {n, n};
    ga_array_t *a = ga_create_full(device, dtype, 2, shape, 0, err);
    if (!a)
        return NULL;
    ga_array_t *diag = ga_array_reshape(a, 1, (int64_t[]){n * n}, err);
    ga_array_t *ones = diag ? ga_array_slice(diag, 0, 0, GA_END, n + 1, err) : NULL;
    int rc = ones ? ga_copy_fill(ones, 1, err) : -1;
    ga_array_free(ones);
    ga_array_free(diag);
    if (rc != 0) {
        ga_array_free(a);
        return NULL;
    }
    return a;
}

ga_array_t *ga_create_from_host(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                                const void *data, cm_error_t *err)
{
    if (!data) {
        CM_ERROR(err, GA_E_SHAPE, "the host pointer is NULL");
        return NULL;
    }
    ga_array_t *a = ga_array_new(device, dtype, ndim, shape, err);
    if (a && ga_copy_from_host(a, data, err) != 0) {
        ga_array_free(a);
        return NULL;
    }
    return a;
}

ga_array_t *ga_create_wrap(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                           void *ptr, cm_error_t *err)
{
    if (!ptr) {
        CM_ERROR(err, GA_E_SHAPE, "the device pointer is NULL");
        return NULL;
    }
    int64_t n = ga_array_count(dtype, ndim, shape, err);
    if (n < 0)
        return NULL;
    ga_buffer_t *b = bk_buffer_wrap(device, ptr, (size_t)n * ga_dtype_size(dtype));
    ga_array_t *a = ga_array_on(b, dtype, ndim, shape, err);
    if (!a)
        free(b);
    return a;
}
