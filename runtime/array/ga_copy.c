/* ga_copy: moving elements (see ga_copy.h). */
#include "ga_copy.h"

#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "ga_fill.h"
#include "ga_map.h"
#include "ga_transpose.h"

/* The byte address of element idx (an index per axis) of a. */
static char *element(const ga_array_t *a, const int64_t *idx)
{
    int64_t off = a->offset;
    for (int k = 0; k < a->ndim; k++)
        off += idx[k] * a->strides[k];
    return (char *)a->buf->ptr + off * (int64_t)ga_dtype_size(a->dtype);
}

/* Calls fn for each run of a along its last axis, in C order: the run's
 * first element, its length and the position of that element in C order.
 * A 0-d array is one run of one element. Stops at the first fn error. */
typedef int (*run_fn)(void *ctx, const ga_array_t *a, char *first, int64_t len, int64_t pos,
                      cm_error_t *err);

/* The step between a run's elements: 1 where a is contiguous (each_run
 * gives one run of every element, whatever the stride of a last axis of
 * length 1 says, e.g. (n, 1) with strides (1, n) from a transpose). */
static int64_t run_stride(const ga_array_t *a)
{
    return a->ndim == 0 || ga_array_is_contiguous(a) ? 1 : a->strides[a->ndim - 1];
}

static int each_run(const ga_array_t *a, run_fn fn, void *ctx, cm_error_t *err)
{
    if (a->size == 0)
        return 0;
    if (a->ndim == 0 || ga_array_is_contiguous(a))
        return fn(ctx, a, element(a, (int64_t[GA_MAX_DIMS]){0}), a->size, 0, err);
    int64_t idx[GA_MAX_DIMS] = {0};
    int last = a->ndim - 1;
    int64_t len = a->shape[last], pos = 0;
    for (;;) {
        if (fn(ctx, a, element(a, idx), len, pos, err) != 0)
            return -1;
        pos += len;
        int k = last - 1;
        while (k >= 0 && ++idx[k] == a->shape[k])
            idx[k--] = 0;
        if (k < 0)
            return 0;
    }
}

/* Copies the len elements of a strided run (first, stride in elements)
 * one by one to or from host memory advancing host_step bytes per element. */
static int copy_elements(const ga_array_t *a, char *first, int64_t len, int64_t stride,
                         char *host, size_t host_step, int to_host, cm_error_t *err)
{
    size_t es = ga_dtype_size(a->dtype);
    for (int64_t i = 0; i < len; i++) {
        char *e = first + i * stride * (int64_t)es, *h = host + (size_t)i * host_step;
        int rc = to_host ? bk_mem_to_host(a->device, h, e, es, err)
                         : bk_mem_to_device(a->device, e, h, es, err);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Copies one run between a's memory and a dense host buffer. */
typedef struct move {
    char *host;
    int to_host;
} move_t;

static int move_run(void *ctx, const ga_array_t *a, char *first, int64_t len, int64_t pos,
                    cm_error_t *err)
{
    move_t *m = ctx;
    size_t es = ga_dtype_size(a->dtype);
    char *h = m->host + pos * (int64_t)es;
    int64_t stride = run_stride(a);
    if (stride == 1 || len == 1)
        return m->to_host ? bk_mem_to_host(a->device, h, first, (size_t)len * es, err)
                          : bk_mem_to_device(a->device, first, h, (size_t)len * es, err);
    return copy_elements(a, first, len, stride, h, es, m->to_host, err);
}

/* A strided view into dst (contiguous, on its device): a transposed one
 * by tiles, any other by ga_map's copy kernel. */
static int copy_on_device(ga_array_t *dst, const ga_array_t *a, cm_error_t *err)
{
    int done = ga_transpose_copy(dst, a, err);
    if (done)
        return done < 0 ? -1 : 0;
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = (ga_array_t *)a};
    return ga_map_eval("a", dst, 1, &arg, err) ? 0 : -1;
}

/* A strided view on a GPU copied into a new contiguous array there by a
 * kernel (ga_map's "a"), or NULL when array math cannot (complex dtypes,
 * no NVRTC): the caller then copies run by run through the host. */
static ga_array_t *gather_on_device(const ga_array_t *a)
{
    char k = ga_dtype_kind(a->dtype);
    if (bk_host_memory(a->device) || ga_array_is_contiguous(a) || k == GA_KIND_COMPLEX)
        return NULL;
    cm_error_t e = {0};
    ga_array_t *c = ga_array_new(a->device, a->dtype, a->ndim, a->shape, &e);
    if (c && copy_on_device(c, a, &e)) {
        ga_array_free(c);
        c = NULL;
    }
    return c;
}

int ga_copy_to_host(const ga_array_t *a, void *dst, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    ga_array_t *c = gather_on_device(a);
    move_t m = {dst, 1};
    int rc = each_run(c ? c : a, move_run, &m, err);
    ga_array_free(c);
    return rc;
}

int ga_copy_from_host(ga_array_t *a, const void *src, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    move_t m = {(char *)src, 0};
    return each_run(a, move_run, &m, err);
}

ga_array_t *ga_copy_array(const ga_array_t *a, int device, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return NULL;
    size_t bytes = (size_t)a->size * ga_dtype_size(a->dtype);
    ga_array_t *c = ga_array_new(device, a->dtype, a->ndim, a->shape, err);
    if (!c)
        return NULL;
    int rc;
    if (device == a->device && !bk_host_memory(device) && ga_array_is_contiguous(a)) {
        rc = bk_mem_copy(device, ga_array_data(c), ga_array_data(a), bytes, err);
    } else if (device == a->device && !bk_host_memory(device) &&
               ga_dtype_kind(a->dtype) != GA_KIND_COMPLEX) {
        rc = copy_on_device(c, a, err); /* a strided view: a copy kernel */
    } else if (device != a->device && ga_array_is_contiguous(a)) {
        /* between devices: peer to peer where they can (bk_mem_peer) */
        rc = bk_mem_peer(device, ga_array_data(c), a->device, ga_array_data(a), bytes, err);
    } else if (bk_host_memory(device)) {
        rc = ga_copy_to_host(a, ga_array_data(c), err);
    } else {
        /* through the host: copies across devices, complex views */
        void *tmp = malloc(bytes ? bytes : 1);
        if (!tmp)
            abort();
        rc = ga_copy_to_host(a, tmp, err);
        if (rc == 0)
            rc = bk_mem_to_device(device, ga_array_data(c), tmp, bytes, err);
        free(tmp);
    }
    if (rc != 0) {
        ga_array_free(c);
        return NULL;
    }
    return c;
}

ga_array_t *ga_copy_contiguous(ga_array_t *a, cm_error_t *err)
{
    if (ga_array_is_contiguous(a))
        return ga_array_reshape(a, a->ndim, a->shape, err);
    return ga_copy_array(a, a->device, err);
}

int ga_copy_gather(void *ctx, const ga_array_t *a, const int64_t *const *idx,
                   const int64_t *count, void *dst, cm_error_t *err)
{
    (void)ctx;
    if (ga_array_check(a, err) != 0)
        return -1;
    size_t es = ga_dtype_size(a->dtype);
    char *out = dst;
    if (a->ndim == 0)
        return bk_mem_to_host(a->device, out, element(a, NULL), es, err);
    for (int k = 0; k < a->ndim; k++)
        if (count[k] == 0)
            return 0;
    int last = a->ndim - 1;
    int64_t pick[GA_MAX_DIMS] = {0}, at[GA_MAX_DIMS];
    for (;;) {
        for (int k = 0; k < last; k++)
            at[k] = idx[k][pick[k]];
        /* the last axis in runs of consecutive indices */
        for (int64_t i = 0; i < count[last];) {
            int64_t j = i + 1;
            while (j < count[last] && idx[last][j] == idx[last][j - 1] + 1)
                j++;
            at[last] = idx[last][i];
            if (a->strides[last] == 1) {
                if (bk_mem_to_host(a->device, out, element(a, at), (size_t)(j - i) * es, err))
                    return -1;
                out += (j - i) * (int64_t)es;
            } else {
                for (int64_t r = i; r < j; r++, out += es) {
                    at[last] = idx[last][r];
                    if (bk_mem_to_host(a->device, out, element(a, at), es, err) != 0)
                        return -1;
                }
            }
            i = j;
        }
        int k = last - 1;
        while (k >= 0 && ++pick[k] == count[k])
            pick[k--] = 0;
        if (k < 0)
            return 0;
    }
}

int ga_copy_fill(ga_array_t *a, double value, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    unsigned char bytes[16];
    ga_dtype_set_f64(a->dtype, bytes, 0, value);
    return ga_fill_bytes(a, bytes, err);
}

/* The one element of a into bytes (16 at least). */
static int scalar_bytes(const ga_array_t *a, unsigned char *bytes, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    if (a->size != 1) {
        CM_ERROR(err, GA_E_SHAPE, "%lld elements, not one", (long long)a->size);
        return -1;
    }
    return ga_copy_to_host(a, bytes, err);
}

int ga_copy_scalar(const ga_array_t *a, double *out, cm_error_t *err)
{
    unsigned char bytes[16];
    if (scalar_bytes(a, bytes, err) != 0)
        return -1;
    *out = ga_dtype_get_f64(a->dtype, bytes, 0);
    return 0;
}

int ga_copy_scalar_i64(const ga_array_t *a, long long *out, cm_error_t *err)
{
    unsigned char bytes[16];
    char kind = a ? ga_dtype_kind(a->dtype) : 0;
    if (a && kind != GA_KIND_INT && kind != GA_KIND_UINT && kind != GA_KIND_BOOL) {
        CM_ERROR(err, GA_E_DTYPE, "the value is %s, not an integer (the double variant "
                 "reads it)", ga_dtype_name(a->dtype));
        return -1;
    }
    if (scalar_bytes(a, bytes, err) != 0)
        return -1;
    if (a->dtype == GA_U64 && ga_dtype_get_u64(a->dtype, bytes, 0) > (uint64_t)INT64_MAX) {
        CM_ERROR(err, GA_E_VALUE, "the uint64 value %llu does not fit a long long",
                 (unsigned long long)ga_dtype_get_u64(a->dtype, bytes, 0));
        return -1;
    }
    *out = (long long)ga_dtype_get_i64(a->dtype, bytes, 0);
    return 0;
}
