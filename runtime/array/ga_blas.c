/* ga_blas: matmul and dot of device arrays (see ga_blas.h). The shapes
 * and layouts are worked out here once, in row-major terms; the CPU
 * backend calls CBLAS row-major, a GPU calls cuBLAS column-major with the
 * operands swapped (C^T = B^T A^T), so one description serves both. */
#include "ga_blas.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "ga_api.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_map.h"

static int tf32;

int ga_blas_set_tf32(int on)
{
    int was = tf32;
    tf32 = on != 0;
    return was;
}

/* One operand as BLAS sees it: matrices of rows x cols, batched. */
typedef struct operand {
    ga_array_t *arr;       /* what BLAS reads: the caller's array or tmp */
    ga_array_t *tmp;       /* a converted or contiguous copy, freed at the end */
    int vector;            /* it was 1-d */
    int64_t rows, cols;
    int trans;             /* 0: (i, j) at i * ld + j; 1: at j * ld + i */
    int64_t ld;
    int nbatch;            /* batch dimensions, before broadcasting */
    int64_t bshape[GA_MAX_DIMS], bstride[GA_MAX_DIMS];
} operand_t;

/* Reads the shape of a (0 < ndim) into op; side 0 is the left operand. */
static void describe(operand_t *op, ga_array_t *a, int side)
{
    memset(op, 0, sizeof *op);
    op->arr = a;
    op->vector = a->ndim == 1;
    if (op->vector) {
        op->rows = side == 0 ? 1 : a->shape[0];
        op->cols = side == 0 ? a->shape[0] : 1;
    } else {
        op->rows = a->shape[a->ndim - 2];
        op->cols = a->shape[a->ndim - 1];
        op->nbatch = a->ndim - 2;
    }
}

/* The strides of op->arr's matrix axes (rows, cols) in elements. */
static void matrix_strides(const operand_t *op, int64_t *rs, int64_t *cs)
{
    const ga_array_t *a = op->arr;
    if (op->vector) {
        *rs = op->rows == 1 ? 0 : a->strides[0];
        *cs = op->cols == 1 ? 0 : a->strides[0];
    } else {
        *rs = a->strides[a->ndim - 2];
        *cs = a->strides[a->ndim - 1];
    }
}

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

/* Sets op->trans and op->ld when BLAS can read the matrix layout as it
 * is; 0, or -1 when it must be copied first. */
static int pick_layout(operand_t *op)
{
    int64_t rs, cs;
    matrix_strides(op, &rs, &cs);
    int64_t r = op->rows, c = op->cols;
    if ((c <= 1 || cs == 1) && (r <= 1 || rs >= max1(c))) {
        op->trans = 0;
        op->ld = r <= 1 ? max1(c) : rs;
        return 0;
    }
    if ((r <= 1 || rs == 1) && (c <= 1 || cs >= max1(r))) {
        op->trans = 1;
        op->ld = c <= 1 ? max1(r) : cs;
        return 0;
    }
    return -1;
}

/* A C-order copy of a in dtype to, on a's device, by one elementwise
 * kernel (ga_map: "float32(a)"). NULL with err. */
static ga_array_t *convert(const ga_array_t *a, ga_dtype_t to, cm_error_t *err)
{
    char expr[32];
    snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(to));
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = (ga_array_t *)a};
    return ga_map_eval(expr, NULL, 1, &arg, err);
}

/* Makes op's array one BLAS can read in dtype: converted or copied when
 * needed. 0 / -1 with err. */
static int prepare(operand_t *op, ga_dtype_t dtype, cm_error_t *err)
{
    if (op->arr->dtype == dtype && pick_layout(op) == 0)
        return 0;
    op->tmp = convert(op->arr, dtype, err);
    if (!op->tmp)
        return -1;
    op->arr = op->tmp;
    return pick_layout(op); /* C order always fits */
}

/* "(3, 4)" of a */
static void shape_of(const ga_array_t *a, char *buf, size_t len)
{
    ga_shape_text(a->ndim, a->shape, buf, len);
}

/* The batch shape of the result (op's batch dimensions broadcast); nb
 * its length. 0, or -1 with err. */
static int broadcast_batches(const operand_t *x, const operand_t *y, const ga_array_t *a,
                             const ga_array_t *b, int64_t *shape, int *nb, cm_error_t *err)
{
    *nb = x->nbatch > y->nbatch ? x->nbatch : y->nbatch;
    for (int d = 0; d < *nb; d++) {
        int dx = d - (*nb - x->nbatch), dy = d - (*nb - y->nbatch);
        int64_t sx = dx >= 0 ? x->arr->shape[dx] : 1, sy = dy >= 0 ? y->arr->shape[dy] : 1;
        if (sx != sy && sx != 1 && sy != 1) {
            char ta[128], tb[128];
            shape_of(a, ta, sizeof ta);
            shape_of(b, tb, sizeof tb);
            CM_ERROR(err, GA_E_SHAPE,
                     "shapes %s and %s do not broadcast in their batch dimensions: %lld != %lld",
                     ta, tb, (long long)sx, (long long)sy);
            return -1;
        }
        shape[d] = sx == 1 ? sy : sx;
    }
    return 0;
}

/* op's batch strides against the result's batch shape (0 where op is
 * broadcast). */
static void batch_strides(operand_t *op, int nb)
{
    for (int d = 0; d < nb; d++) {
        int k = d - (nb - op->nbatch);
        op->bstride[d] = k >= 0 && op->arr->shape[k] != 1 ? op->arr->strides[k] : 0;
    }
}

/* Element offset of batch number i (C order over shape[0, nb)). */
static int64_t batch_offset(const operand_t *op, const int64_t *shape, int nb, int64_t i)
{
    int64_t off = 0;
    for (int d = nb - 1; d >= 0; d--) {
        off += (i % shape[d]) * op->bstride[d];
        i /= shape[d];
    }
    return off;
}

/* The one stride between consecutive batches of op, or -1 when there is
 * none (then one call per matrix). */
static int64_t uniform_stride(const operand_t *op, const int64_t *shape, int nb, int64_t count)
{
    if (count <= 1)
        return 0;
    int64_t s = batch_offset(op, shape, nb, 1), span = 1;
    for (int d = nb - 1; d >= 0; d--) {
        if (shape[d] != 1 && op->bstride[d] != s * span)
            return -1;
        span *= shape[d];
    }
    return s >= 0 ? s : -1;
}

static int fits_int(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

/* Address of element off of op's array. */
static const char *at(const operand_t *op, int64_t off)
{
    return (const char *)ga_array_data(op->arr) + off * (int64_t)ga_dtype_size(op->arr->dtype);
}

static int blas_type(ga_dtype_t d)
{
    return d == GA_F64 ? BK_BLAS_F64 : d == GA_F32 ? BK_BLAS_F32 : BK_BLAS_F16;
}

/* C^T (n x m, column-major) = op(B^T) op(A^T): the operands swap. */
static int gemm(const operand_t *x, const operand_t *y, ga_array_t *c, int64_t m, int64_t n,
                    int64_t k, const int64_t *bshape, int nb, int64_t count, cm_error_t *err)
{
    bk_gemm_t g = {
        .type = blas_type(c->dtype), .tf32 = tf32, .trans_a = y->trans, .trans_b = x->trans,
        .m = (int)n, .n = (int)m, .k = (int)k, .lda = (int)y->ld, .ldb = (int)x->ld,
        .ldc = (int)max1(n), .stride_c = m * n, .batch = 1,
    };
    int64_t sx = uniform_stride(x, bshape, nb, count), sy = uniform_stride(y, bshape, nb, count);
    if (sx >= 0 && sy >= 0 && count <= INT_MAX) {
        g.a = at(y, 0);
        g.b = at(x, 0);
        g.c = ga_array_data(c);
        g.stride_a = sy;
        g.stride_b = sx;
        g.batch = (int)count;
        return bk_gemm(c->device, &g, err);
    }
    for (int64_t i = 0; i < count; i++) {
        g.a = at(y, batch_offset(y, bshape, nb, i));
        g.b = at(x, batch_offset(x, bshape, nb, i));
        g.c = (char *)ga_array_data(c) + i * m * n * (int64_t)ga_dtype_size(c->dtype);
        if (bk_gemm(c->device, &g, err) != 0)
            return -1;
    }
    return 0;
}

/* The dtype both operands promote to, if BLAS multiplies it; -1 with err. */
static int product_dtype(const ga_array_t *a, const ga_array_t *b, cm_error_t *err)
{
    if (a->device != b->device) {
        char da[16], db[16];
        ga_device_text(a->device, da, sizeof da);
        ga_device_text(b->device, db, sizeof db);
        CM_ERROR(err, GA_E_DEVICE,
                 "the arrays are on different devices (%s and %s): move one with ga_to_device",
                 da, db);
        return -1;
    }
    ga_dtype_t t = ga_dtype_promote(a->dtype, b->dtype);
    if (ga_dtype_kind(t) != GA_KIND_FLOAT) {
        CM_ERROR(err, GA_E_DTYPE,
                 "%s and %s: products are computed for float16, float32 and float64 only "
                 "(no integer, bool or complex BLAS); convert to float64 first",
                 ga_dtype_name(a->dtype), ga_dtype_name(b->dtype));
        return -1;
    }
    return (int)t;
}

static void release(operand_t *x, operand_t *y)
{
    ga_array_free(x->tmp);
    ga_array_free(y->tmp);
}

ga_array_t *ga_blas_matmul(ga_array_t *a, ga_array_t *b, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0 || ga_array_check(b, err) != 0)
        return NULL;
    int t = product_dtype(a, b, err);
    if (t < 0)
        return NULL;
    if (a->ndim == 0 || b->ndim == 0) {
        CM_ERROR(err, GA_E_SHAPE, "a 0-d array is not a matrix (operand %d)", a->ndim ? 2 : 1);
        return NULL;
    }
    operand_t x, y;
    describe(&x, a, 0);
    describe(&y, b, 1);
    if (x.cols != y.rows) {
        char ta[128], tb[128];
        shape_of(a, ta, sizeof ta);
        shape_of(b, tb, sizeof tb);
        CM_ERROR(err, GA_E_SHAPE, "shapes %s and %s do not align: %lld != %lld", ta, tb,
                 (long long)x.cols, (long long)y.rows);
        return NULL;
    }
    int64_t m = x.rows, n = y.cols, k = x.cols;
    int64_t shape[GA_MAX_DIMS];
    int nb;
    if (broadcast_batches(&x, &y, a, b, shape, &nb, err) != 0)
        return NULL;
    int64_t count = 1;
    for (int d = 0; d < nb; d++)
        count *= shape[d];
    int ndim = nb;
    if (!x.vector)
        shape[ndim++] = m;
    if (!y.vector)
        shape[ndim++] = n;
    ga_array_t *c = ga_array_new(a->device, (ga_dtype_t)t, ndim, shape, err);
    if (!c)
        return NULL;
    if (c->size == 0)
        return c;
    if (k == 0) {
        if (ga_copy_fill(c, 0, err) != 0) {
            ga_array_free(c);
            return NULL;
        }
        return c;
    }
    if (!fits_int(m) || !fits_int(n) || !fits_int(k)) {
        CM_ERROR(err, GA_E_SHAPE, "a dimension above 2^31 - 1 (%lld x %lld x %lld): BLAS takes "
                 "int dimensions", (long long)m, (long long)k, (long long)n);
        ga_array_free(c);
        return NULL;
    }
    /* float16 where the device's BLAS has none: computed in float32 and rounded back */
    ga_dtype_t ct = t == GA_F16 && !bk_f16_blas(a->device) ? GA_F32 : (ga_dtype_t)t;
    ga_array_t *out = c;
    int rc = prepare(&x, ct, err) == 0 && prepare(&y, ct, err) == 0 ? 0 : -1;
    if (rc == 0 && (!fits_int(x.ld) || !fits_int(y.ld))) {
        CM_ERROR(err, GA_E_SHAPE, "a row stride above 2^31 - 1: copy the operand first");
        rc = -1;
    }
    if (rc == 0 && ct != (ga_dtype_t)t) {
        out = ga_array_new(a->device, ct, ndim, shape, err);
        rc = out ? 0 : -1;
    }
    if (rc == 0) {
        batch_strides(&x, nb);
        batch_strides(&y, nb);
        rc = gemm(&x, &y, out, m, n, k, shape, nb, count, err);
    }
    if (rc == 0 && out != c) { /* rounded back into c */
        char expr[32];
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(c->dtype));
        ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = out};
        rc = ga_map_eval(expr, c, 1, &arg, err) ? 0 : -1;
    }
    if (out != c)
        ga_array_free(out);
    release(&x, &y);
    if (rc != 0) {
        ga_array_free(c);
        return NULL;
    }
    return c;
}

/* ---- dot ------------------------------------------------------------------ */

/* BLAS's increment of the vector op: its stride when positive, else the
 * vector is copied (0 / -1 with err). */
static int vector_inc(operand_t *op, ga_dtype_t dtype, int64_t *inc, cm_error_t *err)
{
    int64_t s = op->arr->size > 1 ? op->arr->strides[0] : 1;
    if (op->arr->dtype != dtype || s <= 0 || s > INT_MAX) {
        op->tmp = convert(op->arr, dtype, err);
        if (!op->tmp)
            return -1;
        op->arr = op->tmp;
        s = 1;
    }
    *inc = s;
    return 0;
}

int ga_blas_dot(ga_array_t *a, ga_array_t *b, double *out, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0 || ga_array_check(b, err) != 0)
        return -1;
    int t = product_dtype(a, b, err);
    if (t < 0)
        return -1;
    char ta[128], tb[128];
    shape_of(a, ta, sizeof ta);
    shape_of(b, tb, sizeof tb);
    if (a->ndim != 1 || b->ndim != 1) {
        CM_ERROR(err, GA_E_SHAPE, "takes two vectors (1-d arrays), not shapes %s and %s: use "
                 "ga_matmul for matrices", ta, tb);
        return -1;
    }
    if (a->shape[0] != b->shape[0]) {
        CM_ERROR(err, GA_E_SHAPE, "shapes %s and %s do not align: %lld != %lld", ta, tb,
                 (long long)a->shape[0], (long long)b->shape[0]);
        return -1;
    }
    int64_t n = a->shape[0];
    *out = 0;
    if (n == 0)
        return 0;
    if (!fits_int(n)) {
        CM_ERROR(err, GA_E_SHAPE, "%lld elements: BLAS takes at most 2^31 - 1", (long long)n);
        return -1;
    }
    ga_dtype_t ct = t == GA_F16 && !bk_f16_blas(a->device) ? GA_F32 : (ga_dtype_t)t;
    operand_t x, y;
    describe(&x, a, 0);
    describe(&y, b, 1);
    int64_t incx = 1, incy = 1;
    int rc = vector_inc(&x, ct, &incx, err) == 0 && vector_inc(&y, ct, &incy, err) == 0 ? 0 : -1;
    unsigned char r[8];
    if (rc == 0)
        rc = bk_dot(a->device, blas_type(ct), (int)n, at(&x, 0), (int)incx, at(&y, 0), (int)incy, r,
                    err);
    if (rc == 0)
        *out = ga_dtype_get_f64(ct, r, 0);
    if (rc == 0 && ct != (ga_dtype_t)t) /* as a float16 result */
        *out = ga_half_to_float(ga_float_to_half((float)*out));
    release(&x, &y);
    return rc;
}

/* ---- what cells call ---------------------------------------------------- */

ga_array_t *ga_api_matmul(ga_array_t *a, ga_array_t *b)
{
    cm_error_t err = {0};
    ga_array_t *c = ga_blas_matmul(a, b, &err);
    if (!c)
        ga_api_fail("ga_matmul", &err);
    return c;
}

double ga_api_dot(ga_array_t *a, ga_array_t *b)
{
    cm_error_t err = {0};
    double r;
    if (ga_blas_dot(a, b, &r, &err) != 0) {
        ga_api_fail("ga_dot", &err);
        return NAN;
    }
    return r;
}

int ga_api_set_tf32(int on)
{
    return ga_blas_set_tf32(on);
}
