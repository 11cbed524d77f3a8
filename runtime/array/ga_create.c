/* ga_create: making arrays (see ga_create.h). full and eye fill through
 * ga_copy_fill (zeros by the backend's memset, other values and eye's
 * diagonal by one kernel on a GPU); arange and linspace are made on the
 * host and copied. */
#include "ga_create.h"

#include <math.h>
#include <stdlib.h>

#include "bk.h"
#include "ga_copy.h"

ga_array_t *ga_create_full(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                           double value, cm_error_t *err)
{
    ga_array_t *a = ga_array_new(device, dtype, ndim, shape, err);
    if (a && ga_copy_fill(a, value, err) != 0) {
        ga_array_free(a);
        return NULL;
    }
    return a;
}

/* A 1-d array of n values f(i) made on the host. */
static ga_array_t *from_values(int device, ga_dtype_t dtype, int64_t n,
                               double (*f)(const double *p, int64_t i), const double *p,
                               cm_error_t *err)
{
    ga_array_t *a = ga_array_new(device, dtype, 1, &n, err);
    if (!a)
        return NULL;
    char *host = malloc(n ? (size_t)n * ga_dtype_size(dtype) : 1);
    if (!host)
        abort();
    for (int64_t i = 0; i < n; i++)
        ga_dtype_set_f64(dtype, host, (size_t)i, f(p, i));
    int rc = ga_copy_from_host(a, host, err);
    free(host);
    if (rc != 0) {
        ga_array_free(a);
        return NULL;
    }
    return a;
}

static double arange_at(const double *p, int64_t i)
{
    return p[0] + (double)i * p[1];
}

ga_array_t *ga_create_arange(int device, ga_dtype_t dtype, double start, double stop,
                             double step, cm_error_t *err)
{
    if (step == 0 || !isfinite(step) || !isfinite(start) || !isfinite(stop)) {
        CM_ERROR(err, GA_E_SHAPE, "arange: start, stop and step must be finite and step not 0");
        return NULL;
    }
    double len = ceil((stop - start) / step);
    if (len > 9.2e18) {
        CM_ERROR(err, GA_E_SHAPE, "arange: %.3g elements is too many", len);
        return NULL;
    }
    const double p[2] = {start, step};
    return from_values(device, dtype, len > 0 ? (int64_t)len : 0, arange_at, p, err);
}

static double linspace_at(const double *p, int64_t i)
{
    /* NumPy: start + i * step, and the last value exactly stop */
    return i == (int64_t)p[3] - 1 && p[3] > 1 ? p[1] : p[0] + (double)i * p[2];
}

ga_array_t *ga_create_linspace(int device, ga_dtype_t dtype, double start, double stop,
                               int64_t num, cm_error_t *err)
{
    if (num < 0) {
        CM_ERROR(err, GA_E_SHAPE, "linspace: num is %lld; it cannot be negative",
                 (long long)num);
        return NULL;
    }
    const double p[4] = {start, stop, num > 1 ? (stop - start) / (double)(num - 1) : 0,
                         (double)num};
    return from_values(device, dtype, num, linspace_at, p, err);
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
