/* ga_api: the array functions cells call (see ga_api.h). Each checks its
 * arguments, calls the library, and turns a failure into the cell's
 * error through the raise hook. */
#include "ga_api.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "ga_copy.h"
#include "ga_expr.h"
#include "ga_kernel.h"
#include "ga_create.h"
#include "ga_fill.h"
#include "ga_npy.h"
#include "ga_print.h"

static void (*raise_fn)(const char *kind, const char *message);
static cm_error_t last_error;

void ga_api_set_raise(void (*fn)(const char *kind, const char *message))
{
    raise_fn = fn;
}

const cm_error_t *ga_api_last_error(void)
{
    return &last_error;
}

const char *ga_api_kind(int code)
{
    switch (code) {
    case GA_E_SHAPE: return "ShapeError";
    case GA_E_DTYPE: return "DTypeError";
    case GA_E_FREED: return "FreedArrayError";
    case GA_E_DEVICE: return "DeviceError";
    case GA_E_MEMORY: return "OutOfMemoryError";
    case GA_E_FILE: return "FileError";
    case GA_E_EXPR: return "ExpressionError";
    case GA_E_KERNEL: return "KernelError";
    case GA_E_VALUE: return "ValueError";
    case GA_E_LINALG: return "LinAlgError";
    default: return "ArrayError";
    }
}

void ga_api_fail(const char *fn, const cm_error_t *err)
{
    cm_error_clear(&last_error);
    CM_ERROR(&last_error, err->code ? err->code : GA_E_SHAPE, "%s: %s", fn, err->text);
    if (raise_fn)
        raise_fn(ga_api_kind(last_error.code), last_error.text);
}

void ga_api_failf(const char *fn, int code, const char *fmt, ...)
{
    cm_error_t err = {0};
    err.code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.text, sizeof err.text, fmt, ap);
    va_end(ap);
    ga_api_fail(fn, &err);
}

static ga_array_t *made(const char *fn, ga_array_t *a, const cm_error_t *err)
{
    if (!a)
        ga_api_fail(fn, err);
    return a;
}

/* 0 when a is live, else the failure of fn. */
static int live(const char *fn, ga_array_t *a)
{
    cm_error_t err = {0};
    if (ga_array_check(a, &err) == 0)
        return 0;
    ga_api_fail(fn, &err);
    return -1;
}

/* dims as int64_t; -1 (failed) when ndim is out of range. */
static int take_dims(const char *fn, int ndim, const long long *dims, int64_t *out)
{
    if (ndim < 0 || ndim > GA_MAX_DIMS || (ndim && !dims)) {
        ga_api_failf(fn, GA_E_SHAPE, "%d dimensions: an array has 0 to %d", ndim, GA_MAX_DIMS);
        return -1;
    }
    for (int k = 0; k < ndim; k++)
        out[k] = dims[k];
    return 0;
}

/* ---- making ---------------------------------------------------------- */

static ga_array_t *full(const char *fn, int dtype, int fill, double value, int ndim,
                        const long long *dims)
{
    int64_t shape[GA_MAX_DIMS];
    if (take_dims(fn, ndim, dims, shape) != 0)
        return NULL;
    cm_error_t err = {0};
    int device = bk_default_device();
    ga_array_t *a = fill ? ga_create_full(device, (ga_dtype_t)dtype, ndim, shape, value, &err)
                         : ga_array_new(device, (ga_dtype_t)dtype, ndim, shape, &err);
    return made(fn, a, &err);
}

ga_array_t *ga_api_empty(ga_cell_dtype_t dtype, int ndim, const long long *dims)
{
    return full("ga_empty", dtype.code, 0, 0, ndim, dims);
}

ga_array_t *ga_api_zeros(ga_cell_dtype_t dtype, int ndim, const long long *dims)
{
    return full("ga_zeros", dtype.code, 1, 0, ndim, dims);
}

ga_array_t *ga_api_ones(ga_cell_dtype_t dtype, int ndim, const long long *dims)
{
    return full("ga_ones", dtype.code, 1, 1, ndim, dims);
}

ga_array_t *ga_api_full(ga_cell_dtype_t dtype, double value, int ndim, const long long *dims)
{
    return full("ga_full", dtype.code, 1, value, ndim, dims);
}

ga_array_t *ga_api_arange(ga_cell_dtype_t dtype, double start, double stop, double step)
{
    cm_error_t err = {0};
    return made("ga_arange",
                ga_create_arange(bk_default_device(), (ga_dtype_t)dtype.code, start, stop, step, &err),
                &err);
}

ga_array_t *ga_api_arange_i(ga_cell_dtype_t dtype, long long start, long long stop,
                            long long step)
{
    cm_error_t err = {0};
    return made("ga_arange", ga_create_arange_int(bk_default_device(), (ga_dtype_t)dtype.code,
                                                  start, stop, step, &err),
                &err);
}

ga_array_t *ga_api_linspace(ga_cell_dtype_t dtype, double start, double stop, long long num)
{
    cm_error_t err = {0};
    return made("ga_linspace",
                ga_create_linspace(bk_default_device(), (ga_dtype_t)dtype.code, start, stop, num,
                                   &err),
                &err);
}

ga_array_t *ga_api_eye(ga_cell_dtype_t dtype, long long n)
{
    cm_error_t err = {0};
    return made("ga_eye", ga_create_eye(bk_default_device(), (ga_dtype_t)dtype.code, n, &err), &err);
}

static ga_array_t *like(const char *fn, ga_array_t *a, int fill, double value)
{
    if (live(fn, a) != 0)
        return NULL;
    cm_error_t err = {0};
    ga_array_t *b = fill ? ga_create_full(a->device, a->dtype, a->ndim, a->shape, value, &err)
                         : ga_array_new(a->device, a->dtype, a->ndim, a->shape, &err);
    return made(fn, b, &err);
}

ga_array_t *ga_api_empty_like(ga_array_t *a)
{
    return like("ga_empty_like", a, 0, 0);
}

ga_array_t *ga_api_zeros_like(ga_array_t *a)
{
    return like("ga_zeros_like", a, 1, 0);
}

ga_array_t *ga_api_ones_like(ga_array_t *a)
{
    return like("ga_ones_like", a, 1, 1);
}

ga_array_t *ga_api_full_like(ga_array_t *a, double value)
{
    return like("ga_full_like", a, 1, value);
}

/* value as an element of dtype: an integer exactly (outside an integer
 * dtype's range: ValueError, NumPy's OverflowError), a double as C
 * converts it. -1: failed. */
static int value_bytes(const char *fn, int dtype, const ga_arg_t *v, unsigned char *out)
{
    if (!ga_dtype_valid(dtype)) {
        ga_api_failf(fn, GA_E_DTYPE, "%d is not a dtype", dtype);
        return -1;
    }
    if (v->kind == GA_ARG_FLOAT) {
        ga_dtype_set_f64((ga_dtype_t)dtype, out, 0, v->f);
        return 0;
    }
    if (v->kind != GA_ARG_INT && v->kind != GA_API_VALUE_UINT) {
        ga_api_failf(fn, GA_E_VALUE, "the value is not a number");
        return -1;
    }
    int is_unsigned = v->kind == GA_API_VALUE_UINT;
    if (ga_dtype_set_int((ga_dtype_t)dtype, out, 0, v->i, is_unsigned) == 0)
        return 0;
    if (is_unsigned)
        ga_api_failf(fn, GA_E_VALUE, "%llu is out of bounds for %s", (unsigned long long)v->i,
                     ga_dtype_name((ga_dtype_t)dtype));
    else
        ga_api_failf(fn, GA_E_VALUE, "%lld is out of bounds for %s", (long long)v->i,
                     ga_dtype_name((ga_dtype_t)dtype));
    return -1;
}

ga_array_t *ga_api_full_v(ga_cell_dtype_t dtype, ga_arg_t value, int ndim, const long long *dims)
{
    int64_t shape[GA_MAX_DIMS];
    unsigned char bytes[16];
    if (take_dims("ga_full", ndim, dims, shape) != 0 ||
        value_bytes("ga_full", dtype.code, &value, bytes) != 0)
        return NULL;
    cm_error_t err = {0};
    return made("ga_full", ga_create_full_bytes(bk_default_device(), (ga_dtype_t)dtype.code, ndim,
                                                shape, bytes, &err),
                &err);
}

ga_array_t *ga_api_full_like_v(ga_array_t *a, ga_arg_t value)
{
    unsigned char bytes[16];
    if (live("ga_full_like", a) != 0 || value_bytes("ga_full_like", a->dtype, &value, bytes) != 0)
        return NULL;
    cm_error_t err = {0};
    return made("ga_full_like",
                ga_create_full_bytes(a->device, a->dtype, a->ndim, a->shape, bytes, &err), &err);
}

ga_array_t *ga_api_from_host(ga_cell_dtype_t dtype, const void *data, int ndim, const long long *dims)
{
    int64_t shape[GA_MAX_DIMS];
    if (take_dims("ga_from_host", ndim, dims, shape) != 0)
        return NULL;
    cm_error_t err = {0};
    return made("ga_from_host",
                ga_create_from_host(bk_default_device(), (ga_dtype_t)dtype.code, ndim, shape, data,
                                    &err),
                &err);
}

ga_array_t *ga_api_from_device(ga_cell_dtype_t dtype, void *ptr, int ndim, const long long *dims)
{
    int64_t shape[GA_MAX_DIMS];
    if (take_dims("ga_from_device", ndim, dims, shape) != 0)
        return NULL;
    cm_error_t err = {0};
    return made("ga_from_device",
                ga_create_wrap(bk_default_device(), (ga_dtype_t)dtype.code, ndim, shape, ptr, &err),
                &err);
}

ga_array_t *ga_api_load(const char *path)
{
    ga_npy_info_t info;
    void *data = NULL;
    cm_error_t err = {0};
    if (ga_npy_load(path, &info, &data, &err) != 0) {
        ga_api_fail("ga_load", &err);
        return NULL;
    }
    ga_array_t *a = ga_create_from_host(bk_default_device(), info.dtype, info.ndim, info.shape,
                                        data, &err);
    free(data);
    return made("ga_load", a, &err);
}

void ga_api_save(ga_array_t *a, const char *path)
{
    if (live("ga_save", a) != 0)
        return;
    size_t bytes = (size_t)a->size * ga_dtype_size(a->dtype);
    void *host = malloc(bytes ? bytes : 1);
    if (!host)
        abort();
    cm_error_t err = {0};
    if (ga_copy_to_host(a, host, &err) != 0 ||
        ga_npy_save(path, a->dtype, a->ndim, a->shape, host, &err) != 0)
        ga_api_fail("ga_save", &err);
    free(host);
}

void ga_api_print(ga_array_t *a)
{
    if (live("ga_print", a) != 0)
        return;
    cm_error_t err = {0};
    char *text = ga_print_repr(a, NULL, ga_copy_gather, NULL, &err);
    if (!text) {
        ga_api_fail("ga_print", &err);
        return;
    }
    printf("%s\n", text);
    free(text);
}

/* ---- views and copies -------------------------------------------------- */

ga_array_t *ga_api_reshape(ga_array_t *a, int ndim, const long long *dims)
{
    int64_t shape[GA_MAX_DIMS];
    if (live("ga_reshape", a) != 0 || take_dims("ga_reshape", ndim, dims, shape) != 0)
        return NULL;
    cm_error_t err = {0};
    return made("ga_reshape", ga_array_reshape(a, ndim, shape, &err), &err);
}

ga_array_t *ga_api_slice(ga_array_t *a, int axis, long long start, long long stop,
                         long long step)
{
    cm_error_t err = {0};
    return made("ga_slice", ga_array_slice(a, axis, start, stop, step, &err), &err);
}

ga_array_t *ga_api_index(ga_array_t *a, int axis, long long i)
{
    cm_error_t err = {0};
    return made("ga_index", ga_array_index(a, axis, i, &err), &err);
}

ga_array_t *ga_api_row(ga_array_t *a, long long i)
{
    cm_error_t err = {0};
    if (live("ga_row", a) != 0)
        return NULL;
    if (a->ndim < 1) {
        ga_api_failf("ga_row", GA_E_SHAPE, "a 0-d array has no rows");
        return NULL;
    }
    return made("ga_row", ga_array_index(a, 0, i, &err), &err);
}

ga_array_t *ga_api_col(ga_array_t *a, long long j)
{
    cm_error_t err = {0};
    if (live("ga_col", a) != 0)
        return NULL;
    if (a->ndim != 2) {
        ga_api_failf("ga_col", GA_E_SHAPE, "columns are of 2-d arrays; this one has %d dimension%s",
              a->ndim, a->ndim == 1 ? "" : "s");
        return NULL;
    }
    return made("ga_col", ga_array_index(a, 1, j, &err), &err);
}

ga_array_t *ga_api_transpose(ga_array_t *a)
{
    cm_error_t err = {0};
    return made("ga_transpose", ga_array_permute(a, NULL, &err), &err);
}

ga_array_t *ga_api_permute(ga_array_t *a, int naxes, const long long *axes)
{
    if (live("ga_permute", a) != 0)
        return NULL;
    if (naxes != a->ndim) {
        ga_api_failf("ga_permute", GA_E_SHAPE, "%d axes given for an array of %d dimensions", naxes,
              a->ndim);
        return NULL;
    }
    int order[GA_MAX_DIMS];
    for (int k = 0; k < naxes; k++)
        order[k] = (int)axes[k];
    cm_error_t err = {0};
    return made("ga_permute", ga_array_permute(a, order, &err), &err);
}

ga_array_t *ga_api_copy(ga_array_t *a)
{
    cm_error_t err = {0};
    if (live("ga_copy", a) != 0)
        return NULL;
    return made("ga_copy", ga_copy_array(a, a->device, &err), &err);
}

ga_array_t *ga_api_to_device(ga_array_t *a, int device)
{
    cm_error_t err = {0};
    if (live("ga_to_device", a) != 0)
        return NULL;
    bk_device_t to = bk_device_of_number(device, &err);
    if (to == BK_NO_DEVICE) {
        ga_api_fail("ga_to_device", &err);
        return NULL;
    }
    return made("ga_to_device", ga_copy_array(a, to, &err), &err);
}

/* ---- host memory ----------------------------------------------------------- */

void ga_api_read(ga_array_t *a, void *dst)
{
    cm_error_t err = {0};
    if (live("ga_read", a) == 0 && ga_copy_to_host(a, dst, &err) != 0)
        ga_api_fail("ga_read", &err);
}

void ga_api_write(ga_array_t *a, const void *src)
{
    cm_error_t err = {0};
    if (live("ga_write", a) == 0 && ga_copy_from_host(a, src, &err) != 0)
        ga_api_fail("ga_write", &err);
}

/* The 0-d view of element idx, or NULL (failed as fn). */
static ga_array_t *element_view(const char *fn, ga_array_t *a, int nidx, const long long *idx)
{
    if (live(fn, a) != 0)
        return NULL;
    if (nidx != a->ndim) {
        ga_api_failf(fn, GA_E_SHAPE, "%d ind%s given for an array of %d dimension%s", nidx,
              nidx == 1 ? "ex" : "ices", a->ndim, a->ndim == 1 ? "" : "s");
        return NULL;
    }
    cm_error_t err = {0};
    ga_array_t *v = a, *next;
    for (int k = 0; k < nidx; k++) {
        next = ga_array_index(v, 0, idx[k], &err);
        if (v != a)
            ga_array_free(v);
        if (!next) {
            ga_api_fail(fn, &err);
            return NULL;
        }
        v = next;
    }
    if (v == a) {
        v = ga_array_permute(a, NULL, &err); /* a 0-d array's own view */
    }
    return v;
}

double ga_api_item(ga_array_t *a, int nidx, const long long *idx)
{
    ga_array_t *v = element_view("ga_item", a, nidx, idx);
    if (!v)
        return NAN;
    cm_error_t err = {0};
    double x = NAN;
    int rc = ga_copy_scalar(v, &x, &err);
    ga_array_free(v);
    if (rc != 0) {
        ga_api_fail("ga_item", &err);
        return NAN;
    }
    return x;
}

long long ga_api_item_i64(ga_array_t *a, int nidx, const long long *idx)
{
    ga_array_t *v = element_view("ga_item_i64", a, nidx, idx);
    if (!v)
        return 0;
    cm_error_t err = {0};
    long long x = 0;
    int rc = ga_copy_scalar_i64(v, &x, &err);
    ga_array_free(v);
    if (rc != 0)
        ga_api_fail("ga_item_i64", &err);
    return rc ? 0 : x;
}

void ga_api_set(ga_array_t *a, double value, int nidx, const long long *idx)
{
    ga_array_t *v = element_view("ga_set", a, nidx, idx);
    if (!v)
        return;
    cm_error_t err = {0};
    int rc = ga_copy_fill(v, value, &err);
    ga_array_free(v);
    if (rc != 0)
        ga_api_fail("ga_set", &err);
}

void ga_api_set_v(ga_array_t *a, ga_arg_t value, int nidx, const long long *idx)
{
    unsigned char bytes[16];
    if (live("ga_set", a) != 0 || value_bytes("ga_set", a->dtype, &value, bytes) != 0)
        return;
    ga_array_t *v = element_view("ga_set", a, nidx, idx);
    if (!v)
        return;
    cm_error_t err = {0};
    int rc = ga_fill_bytes(v, bytes, &err);
    ga_array_free(v);
    if (rc != 0)
        ga_api_fail("ga_set", &err);
}

/* ---- what an array is ------------------------------------------------------ */

int ga_api_ndim(ga_array_t *a)
{
    return live("ga_ndim", a) == 0 ? a->ndim : -1;
}

long long ga_api_dim(ga_array_t *a, int axis)
{
    if (live("ga_dim", a) != 0)
        return -1;
    int ax = axis < 0 ? axis + a->ndim : axis;
    if (ax < 0 || ax >= a->ndim) {
        ga_api_failf("ga_dim", GA_E_SHAPE, "axis %d is out of range for an array of %d dimensions",
              axis, a->ndim);
        return -1;
    }
    return a->shape[ax];
}

long long ga_api_size(ga_array_t *a)
{
    return live("ga_size", a) == 0 ? a->size : -1;
}

size_t ga_api_nbytes(ga_array_t *a)
{
    return live("ga_nbytes", a) == 0 ? (size_t)a->size * ga_dtype_size(a->dtype) : 0;
}

int ga_api_dtype(ga_array_t *a)
{
    return live("ga_dtype", a) == 0 ? (int)a->dtype : -1;
}

int ga_api_device(ga_array_t *a)
{
    return live("ga_device", a) == 0 ? bk_device_number(a->device) : GA_CPU;
}

void *ga_api_data(ga_array_t *a)
{
    return live("ga_data", a) == 0 ? ga_array_data(a) : NULL;
}

/* ---- lifetime and devices ----------------------------------------------------- */

void ga_api_free(ga_array_t *a)
{
    if (a && ga_array_is_live(a))
        ga_array_free(a);
    else if (a)
        live("ga_free", a); /* freeing twice is a use after free */
}

ga_array_t *ga_api_keep(ga_array_t *a)
{
    if (live("ga_keep", a) == 0)
        ga_array_keep(a, 1);
    return a;
}

void ga_api_use_device(int device)
{
    cm_error_t err = {0};
    bk_device_t d = bk_device_of_number(device, &err);
    if (d == BK_NO_DEVICE)
        ga_api_fail("ga_use_device", &err);
    else
        bk_set_default_device(d);
}

int ga_api_default_device(void)
{
    return bk_device_number(bk_default_device());
}
