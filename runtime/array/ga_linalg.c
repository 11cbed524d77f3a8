/* ga_linalg: numpy.linalg through the floor's bk_lapack (see ga_linalg.h).
 * Every step is planned here once in column-major terms: an operand is
 * copied into a new C-order array of shape (..., cols, rows) — which is
 * its matrices column-major with leading dimension rows — by one
 * converting kernel (ga_map, which also broadcasts batches), LAPACK works
 * in that copy, and the result is its transposed view. inv and det
 * factor A^T instead (A's plain C-order copy), as CuPy does: inv(A) is
 * inv(A^T)^T and det(A) det(A^T), so neither transposes; svd of a square
 * or wide A likewise takes A^T's (A = V S U^T), with CuPy's jobs. */
#include "ga_linalg.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "ga_api.h"
#include "ga_blas.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_eval.h"
#include "ga_map.h"

/* The arrays a step makes on the way, freed together at its end. */
#define TEMPS 16
typedef struct temps {
    ga_array_t *a[TEMPS];
    int n;
} temps_t;

/* Remembers a (may be NULL) to be freed by drop; returns it. */
static ga_array_t *temp(temps_t *t, ga_array_t *a)
{
    if (a && t->n < TEMPS)
        t->a[t->n++] = a;
    return a;
}

static void drop(temps_t *t)
{
    for (int i = 0; i < t->n; i++)
        ga_array_free(t->a[i]);
    t->n = 0;
}

/* Takes a back from t (it becomes the caller's result). */
static ga_array_t *keep(temps_t *t, ga_array_t *a)
{
    for (int i = 0; i < t->n; i++)
        if (t->a[i] == a)
            t->a[i] = NULL;
    return a;
}

static ga_arg_t arr(ga_array_t *a)
{
    return (ga_arg_t){.kind = GA_ARG_ARRAY, .a = a};
}

static ga_arg_t num(double f)
{
    return (ga_arg_t){.kind = GA_ARG_FLOAT, .f = f};
}

/* The dtype LAPACK works in for a (float32, float64), or -1 with err. */
static int work_dtype(const char *what, const ga_array_t *a, cm_error_t *err)
{
    char k = ga_dtype_kind(a->dtype);
    if (a->dtype == GA_F32 || a->dtype == GA_F64)
        return (int)a->dtype;
    if (k == GA_KIND_COMPLEX || a->dtype == GA_F16) {
        CM_ERROR(err, GA_E_DTYPE, "%s of %s: linear algebra is computed in float32 and float64 "
                 "(float16 is unsupported, as in NumPy; complex matrices: not yet)", what,
                 ga_dtype_name(a->dtype));
        return -1;
    }
    return GA_F64; /* bool and integers, as NumPy */
}

static int la_type(ga_dtype_t t)
{
    return t == GA_F64 ? CM_LA_F64 : CM_LA_F32;
}

/* A C-order copy of a converted to dtype dt, out (NULL: a new array)
 * written when given. NULL with err. */
static ga_array_t *converted(ga_array_t *a, ga_dtype_t dt, ga_array_t *out, cm_error_t *err)
{
    char expr[32];
    snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(dt));
    ga_arg_t arg = arr(a);
    return ga_map_eval(expr, out, 1, &arg, err);
}

/* a's last two axes swapped (a view); NULL with err. */
static ga_array_t *swapped(ga_array_t *a, cm_error_t *err)
{
    int axes[GA_MAX_DIMS];
    for (int d = 0; d < a->ndim; d++)
        axes[d] = d;
    axes[a->ndim - 1] = a->ndim - 2;
    axes[a->ndim - 2] = a->ndim - 1;
    return ga_array_permute(a, axes, err);
}

/* a (..., r, c) as a view of shape (bshape[0, nb)..., r, c): its batch
 * dimensions broadcast (stride 0 where it has none or 1). */
static ga_array_t *stretched(ga_array_t *a, int nb, const int64_t *bshape, cm_error_t *err)
{
    int64_t shape[GA_MAX_DIMS], strides[GA_MAX_DIMS];
    int anb = a->ndim - 2;
    for (int d = 0; d < nb; d++) {
        int k = d - (nb - anb);
        shape[d] = bshape[d];
        strides[d] = k >= 0 && a->shape[k] != 1 ? a->strides[k] : 0;
    }
    for (int d = 0; d < 2; d++) {
        shape[nb + d] = a->shape[anb + d];
        strides[nb + d] = a->strides[anb + d];
    }
    ga_array_t *v = ga_array_on(a->buf, a->dtype, nb + 2, shape, err);
    if (v) {
        memcpy(v->strides, strides, (size_t)(nb + 2) * sizeof *strides);
        v->offset = a->offset;
    }
    return v;
}

/* a (..., rows, cols) converted to t and laid out column-major over the
 * batch shape bshape[0, nb) (a's batch dimensions broadcast to it): a new
 * C-order array (bshape..., cols, rows). NULL with err. */
static ga_array_t *colmajor(temps_t *t, ga_array_t *a, ga_dtype_t dt, int nb,
                            const int64_t *bshape, cm_error_t *err)
{
    ga_array_t *v = temp(t, swapped(a, err));
    if (v && nb != v->ndim - 2) /* broadcast to the batch shape: stride 0 where a has none */
        v = temp(t, stretched(v, nb, bshape, err));
    if (!v)
        return NULL;
    int64_t shape[GA_MAX_DIMS];
    memcpy(shape, bshape, (size_t)nb * sizeof *shape);
    shape[nb] = a->shape[a->ndim - 1];
    shape[nb + 1] = a->shape[a->ndim - 2];
    ga_array_t *c = temp(t, ga_array_new(a->device, dt, nb + 2, shape, err));
    if (!c)
        return NULL;
    return c->size == 0 || converted(v, dt, c, err) ? c : NULL;
}

/* "(3, 4)" */
static void shape_of(const ga_array_t *a, char *buf, size_t len)
{
    ga_shape_text(a->ndim, a->shape, buf, len);
}

/* Checks that a holds matrices (at least 2-d; square when asked). */
static int check_matrices(const char *what, const ga_array_t *a, int square, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    if (a->ndim < 2) {
        CM_ERROR(err, GA_E_SHAPE, "%s: %d-dimensional array given; the array must be at least "
                 "two-dimensional", what, a->ndim);
        return -1;
    }
    if (square && a->shape[a->ndim - 1] != a->shape[a->ndim - 2]) {
        char s[128];
        shape_of(a, s, sizeof s);
        CM_ERROR(err, GA_E_SHAPE, "%s: the last 2 dimensions of the array must be square, not %s",
                 what, s);
        return -1;
    }
    if (a->shape[a->ndim - 1] > INT_MAX / 4 || a->shape[a->ndim - 2] > INT_MAX / 4) {
        CM_ERROR(err, GA_E_SHAPE, "%s: a matrix dimension above 2^29: LAPACK takes int sizes",
                 what);
        return -1;
    }
    return 0;
}

/* The number of matrices over a batch shape, checked to fit an int. */
static int batch_count(int nb, const int64_t *bshape, int *count, cm_error_t *err)
{
    int64_t n = 1;
    for (int d = 0; d < nb; d++)
        n *= bshape[d];
    if (n > INT_MAX) {
        CM_ERROR(err, GA_E_SHAPE, "%lld matrices in one batch: at most 2^31 - 1", (long long)n);
        return -1;
    }
    *count = (int)n;
    return 0;
}

/* Runs l over its batch on device; the first matrix whose info is > 0 in
 * *bad (-1 when none). 0 / -1 with err. */
static int run(int device, cm_lapack_t *l, int *bad, cm_error_t *err)
{
    *bad = -1;
    if (l->batch == 0)
        return 0;
    int *info = calloc((size_t)l->batch, sizeof *info);
    if (!info) {
        CM_ERROR(err, GA_E_MEMORY, "out of host memory for %d LAPACK results", l->batch);
        return -1;
    }
    l->info = info;
    cm_error_t e = {0};
    int rc = bk_lapack(device, l, &e);
    if (rc != 0)
        CM_ERROR(err, e.code == BK_E_MEMORY ? GA_E_MEMORY : GA_E_DEVICE, "%s", e.text);
    for (int i = 0; rc == 0 && i < l->batch && *bad < 0; i++)
        if (info[i] > 0)
            *bad = i;
    free(info);
    l->info = NULL;
    return rc;
}

/* NumPy's LinAlgError text, with which matrix of a batch. */
static void linalg_error(cm_error_t *err, const char *what, int count, int bad)
{
    if (count > 1)
        CM_ERROR(err, GA_E_LINALG, "%s (matrix %d of the batch)", what, bad);
    else
        CM_ERROR(err, GA_E_LINALG, "%s", what);
}

static void *data(const ga_array_t *a)
{
    return ga_array_data(a);
}

/* ---- LU: solve, inv, det ------------------------------------------------ */

/* The LU factors of each matrix of a (n x n) in lu (column-major, on the
 * batch shape of a) and their pivots, an int32 (count, n) array. */
typedef struct lu {
    ga_array_t *lu, *ipiv;
    int n, count, bad;
    ga_dtype_t dtype;
} lu_t;

/* dt: the dtype to work in, or -1 for a's (work_dtype). */
static int factor(temps_t *t, const char *what, ga_array_t *a, int dt, int nb,
                  const int64_t *bshape, lu_t *f, cm_error_t *err)
{
    if (dt < 0)
        dt = work_dtype(what, a, err);
    if (dt < 0 || batch_count(nb, bshape, &f->count, err) != 0)
        return -1;
    f->dtype = (ga_dtype_t)dt;
    f->n = (int)a->shape[a->ndim - 1];
    f->lu = colmajor(t, a, f->dtype, nb, bshape, err);
    int64_t pshape[2] = {f->count, f->n};
    f->ipiv = f->lu ? temp(t, ga_array_new(a->device, GA_I32, 2, pshape, err)) : NULL;
    if (!f->ipiv)
        return -1;
    int n1 = f->n > 0 ? f->n : 1;
    cm_lapack_t l = {.op = CM_LA_GETRF, .type = la_type(f->dtype), .m = f->n, .n = f->n,
                     .a = data(f->lu), .lda = n1, .stride_a = (long long)f->n * f->n,
                     .ipiv = data(f->ipiv), .stride_ipiv = f->n,
                     .batch = f->n ? f->count : 0};
    return run(a->device, &l, &f->bad, err);
}

/* b = A^-1 b in place over f's batch: b column-major (count, k, n). */
static int lu_solve(const lu_t *f, ga_array_t *b, int k, cm_error_t *err)
{
    int n1 = f->n > 0 ? f->n : 1, bad;
    cm_lapack_t l = {.op = CM_LA_GETRS, .type = la_type(f->dtype), .m = f->n, .n = f->n,
                     .nrhs = k, .a = data(f->lu), .lda = n1, .stride_a = (long long)f->n * f->n,
                     .b = data(b), .ldb = n1, .stride_b = (long long)f->n * k,
                     .ipiv = data(f->ipiv), .stride_ipiv = f->n,
                     .batch = f->n && k ? f->count : 0};
    return run(b->device, &l, &bad, err);
}

/* The broadcast batch shape of a and b (their dimensions before the last
 * two; b's before the last one when it is 1-d... a vector has none). */
static int broadcast_batch(const ga_array_t *a, int anb, const ga_array_t *b, int bnb,
                           int64_t *shape, int *nb, cm_error_t *err)
{
    *nb = anb > bnb ? anb : bnb;
    for (int d = 0; d < *nb; d++) {
        int da = d - (*nb - anb), db = d - (*nb - bnb);
        int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            char ta[128], tb[128];
            shape_of(a, ta, sizeof ta);
            shape_of(b, tb, sizeof tb);
            CM_ERROR(err, GA_E_SHAPE, "shapes %s and %s: batch dimensions do not broadcast "
                     "(%lld != %lld)", ta, tb, (long long)sa, (long long)sb);
            return -1;
        }
        shape[d] = sa == 1 ? sb : sa;
    }
    return 0;
}

ga_array_t *ga_linalg_solve(ga_array_t *a, ga_array_t *b, cm_error_t *err)
{
    if (check_matrices("solve", a, 1, err) != 0 || ga_array_check(b, err) != 0)
        return NULL;
    if (a->device != b->device) {
        CM_ERROR(err, GA_E_DEVICE, "the arrays are on different devices: move one with "
                 "ga_to_device");
        return NULL;
    }
    int vector = b->ndim == 1;
    int64_t n = a->shape[a->ndim - 1];
    if (b->ndim == 0 || b->shape[vector ? 0 : b->ndim - 2] != n) {
        char ta[128], tb[128];
        shape_of(a, ta, sizeof ta);
        shape_of(b, tb, sizeof tb);
        CM_ERROR(err, GA_E_SHAPE, "solve: shapes %s and %s do not align (b must be (%lld,) or "
                 "(..., %lld, k))", ta, tb, (long long)n, (long long)n);
        return NULL;
    }
    int at = work_dtype("solve", a, err), bt = at < 0 ? -1 : work_dtype("solve", b, err);
    if (bt < 0)
        return NULL;
    ga_dtype_t rt = ga_dtype_promote((ga_dtype_t)at, (ga_dtype_t)bt); /* as NumPy's */
    temps_t t = {0};
    int64_t bshape[GA_MAX_DIMS];
    int nb;
    ga_array_t *r = NULL;
    ga_array_t *bm = vector ? temp(&t, ga_array_reshape(b, 2, (int64_t[]){n, 1}, err)) : b;
    lu_t f;
    if (bm && broadcast_batch(a, a->ndim - 2, bm, bm->ndim - 2, bshape, &nb, err) == 0 &&
        factor(&t, "solve", a, (int)rt, nb, bshape, &f, err) == 0) {
        int k = (int)bm->shape[bm->ndim - 1];
        ga_array_t *x = colmajor(&t, bm, rt, nb, bshape, err);
        if (f.bad >= 0)
            linalg_error(err, "Singular matrix", f.count, f.bad);
        else if (x && lu_solve(&f, x, k, err) == 0) {
            if (vector) { /* (..., 1, n) -> (..., n) */
                int64_t shape[GA_MAX_DIMS];
                memcpy(shape, bshape, (size_t)nb * sizeof *shape);
                shape[nb] = n;
                r = ga_array_reshape(x, nb + 1, shape, err);
            } else {
                r = swapped(x, err);
            }
        }
    }
    drop(&t);
    return r;
}

/* Identity matrices (bshape..., n, n) of dt: zeros, then the diagonals
 * (a (count, n) view of stride n + 1) set by one fill — one kernel on a
 * GPU (ga_copy_fill), as CuPy's eye. NULL with err. */
static ga_array_t *identities(temps_t *t, int device, ga_dtype_t dt, int nb,
                              const int64_t *bshape, int count, int n, cm_error_t *err)
{
    int64_t shape[GA_MAX_DIMS];
    memcpy(shape, bshape, (size_t)nb * sizeof *shape);
    shape[nb] = shape[nb + 1] = n;
    ga_array_t *x = temp(t, ga_create_full(device, dt, nb + 2, shape, 0, err));
    if (!x || x->size == 0)
        return x;
    ga_array_t *flat = temp(t, ga_array_reshape(x, 2, (int64_t[]){count, (int64_t)n * n}, err));
    ga_array_t *diag = flat ? temp(t, ga_array_slice(flat, 1, 0, GA_END, n + 1, err)) : NULL;
    return diag && ga_copy_fill(diag, 1, err) == 0 ? x : NULL;
}

/* inv(A) = inv(A^T)^T, as CuPy's: A's C-order copy is A^T column-major,
 * so X = (A^T)^-1 solved against the identity (which is its own
 * transpose) is, read in C order, A^-1 — no transposing on the way in or
 * out, and a C-contiguous result. */
ga_array_t *ga_linalg_inv(ga_array_t *a, cm_error_t *err)
{
    if (check_matrices("inv", a, 1, err) != 0)
        return NULL;
    temps_t t = {0};
    ga_array_t *r = NULL;
    lu_t f;
    int nb = a->ndim - 2, dt = work_dtype("inv", a, err), count;
    ga_array_t *at = dt < 0 || batch_count(nb, a->shape, &count, err) != 0 ? NULL
                                                                         : temp(&t, swapped(a, err));
    /* the identities first: their kernels run while getrf's info is awaited */
    ga_array_t *x = at ? identities(&t, a->device, (ga_dtype_t)dt, nb, a->shape, count,
                                    (int)a->shape[nb], err) : NULL;
    if (x && factor(&t, "inv", at, dt, nb, a->shape, &f, err) == 0) {
        if (f.bad >= 0)
            linalg_error(err, "Singular matrix", f.count, f.bad);
        else if (lu_solve(&f, x, f.n, err) == 0)
            r = keep(&t, x);
    }
    drop(&t);
    return r;
}

ga_array_t *ga_linalg_det(ga_array_t *a, cm_error_t *err)
{
    if (check_matrices("det", a, 1, err) != 0)
        return NULL;
    temps_t t = {0};
    ga_array_t *r = NULL;
    lu_t f;
    int nb = a->ndim - 2;
    double *det = NULL, *diag = NULL;
    int *piv = NULL;
    ga_array_t *at = temp(&t, swapped(a, err)); /* det(A^T) = det(A): a plain copy to factor */
    if (at && factor(&t, "det", at, -1, nb, a->shape, &f, err) == 0) {
        size_t cells = (size_t)f.count * (size_t)f.n;
        det = malloc((size_t)(f.count ? f.count : 1) * sizeof *det);
        diag = malloc((cells ? cells : 1) * sizeof *diag);
        piv = malloc((cells ? cells : 1) * sizeof *piv);
        /* the diagonals, a (count, n) view of stride n + 1, read in float64 */
        ga_array_t *lu = f.n ? temp(&t, ga_array_reshape(f.lu, 2, (int64_t[]){f.count,
                                                        (int64_t)f.n * f.n}, err)) : NULL;
        ga_array_t *d = lu ? temp(&t, ga_array_slice(lu, 1, 0, GA_END, f.n + 1, err)) : NULL;
        ga_array_t *d64 = d ? temp(&t, converted(d, GA_F64, NULL, err)) : NULL;
        int ok = det && diag && piv;
        if (!ok)
            CM_ERROR(err, GA_E_MEMORY, "out of host memory for %d determinants", f.count);
        else if (f.n && (!d64 || ga_copy_to_host(d64, diag, err) != 0 ||
                         ga_copy_to_host(f.ipiv, piv, err) != 0))
            ok = 0;
        for (int i = 0; ok && i < f.count; i++) {
            double p = 1;
            for (int j = 0; j < f.n; j++)
                p *= (piv[(size_t)i * f.n + j] != j + 1 ? -1 : 1) * diag[(size_t)i * f.n + j];
            det[i] = p;
        }
        if (ok) {
            if (f.dtype == GA_F32) { /* as float32, in place */
                for (int i = 0; i < f.count; i++)
                    ((float *)det)[i] = (float)det[i];
            }
            r = ga_create_from_host(a->device, f.dtype, nb, a->shape, det, err);
        }
    }
    free(det);
    free(diag);
    free(piv);
    drop(&t);
    return r;
}

/* ---- cholesky, qr --------------------------------------------------------- */

/* m's matrices (..., r, c) with the elements above (upper = 0: below)
 * the diagonal zeroed, into a new C-order array. */
static ga_array_t *triangle(temps_t *t, ga_array_t *m, int lower, cm_error_t *err)
{
    int64_t r = m->shape[m->ndim - 2], c = m->shape[m->ndim - 1];
    ga_array_t *i = temp(t, ga_create_arange(m->device, GA_I64, 0, (double)r, 1, err));
    ga_array_t *j = temp(t, ga_create_arange(m->device, GA_I64, 0, (double)c, 1, err));
    ga_array_t *ic = i ? temp(t, ga_array_reshape(i, 2, (int64_t[]){r, 1}, err)) : NULL;
    if (!ic || !j)
        return NULL;
    ga_arg_t args[3] = {arr(m), arr(ic), arr(j)};
    return ga_map_eval(lower ? "a, b, c: where(b >= c, a, 0)" : "a, b, c: where(b <= c, a, 0)", NULL, 3, args, err);
}

ga_array_t *ga_linalg_cholesky(ga_array_t *a, cm_error_t *err)
{
    if (check_matrices("cholesky", a, 1, err) != 0)
        return NULL;
    int dt = work_dtype("cholesky", a, err), count, bad;
    int nb = a->ndim - 2;
    if (dt < 0 || batch_count(nb, a->shape, &count, err) != 0)
        return NULL;
    temps_t t = {0};
    ga_array_t *r = NULL;
    int n = (int)a->shape[a->ndim - 1];
    ga_array_t *c = colmajor(&t, a, (ga_dtype_t)dt, nb, a->shape, err);
    cm_lapack_t l = {.op = CM_LA_POTRF, .type = la_type((ga_dtype_t)dt), .m = n, .n = n,
                     .a = c ? data(c) : NULL, .lda = n > 0 ? n : 1,
                     .stride_a = (long long)n * n, .batch = n ? count : 0};
    if (c && run(a->device, &l, &bad, err) == 0) {
        ga_array_t *v = temp(&t, swapped(c, err));
        if (bad >= 0)
            linalg_error(err, "Matrix is not positive definite", count, bad);
        else if (v)
            r = triangle(&t, v, 1, err);
    }
    drop(&t);
    return r;
}

int ga_linalg_qr(ga_array_t *a, ga_array_t **q, ga_array_t **r, cm_error_t *err)
{
    if (check_matrices("qr", a, 0, err) != 0)
        return -1;
    int dt = work_dtype("qr", a, err), count, bad;
    int nb = a->ndim - 2;
    if (dt < 0 || batch_count(nb, a->shape, &count, err) != 0)
        return -1;
    int m = (int)a->shape[nb], n = (int)a->shape[nb + 1], k = m < n ? m : n;
    temps_t t = {0};
    int rc = -1;
    ga_array_t *c = colmajor(&t, a, (ga_dtype_t)dt, nb, a->shape, err); /* (..., n, m) */
    int64_t tshape[GA_MAX_DIMS];
    memcpy(tshape, a->shape, (size_t)nb * sizeof *tshape);
    tshape[nb] = k;
    ga_array_t *tau = c ? temp(&t, ga_array_new(a->device, (ga_dtype_t)dt, nb + 1, tshape, err))
                        : NULL;
    cm_lapack_t l = {.op = CM_LA_GEQRF, .type = la_type((ga_dtype_t)dt), .m = m, .n = n,
                     .nrhs = k, .a = c ? data(c) : NULL, .lda = m > 0 ? m : 1,
                     .stride_a = (long long)m * n, .w = tau ? data(tau) : NULL, .stride_w = k,
                     .batch = k ? count : 0};
    ga_array_t *rr = NULL, *qq = NULL;
    if (tau && run(a->device, &l, &bad, err) == 0) {
        /* R: the first k rows of the factored matrix, upper triangle */
        ga_array_t *v = temp(&t, swapped(c, err));
        ga_array_t *top = v ? temp(&t, ga_array_slice(v, nb, 0, k, 1, err)) : NULL;
        rr = top ? temp(&t, triangle(&t, top, 0, err)) : NULL;
        /* Q: the first k columns, made from the reflectors in place */
        l.op = CM_LA_ORGQR;
        l.n = k;
        if (rr && q && run(a->device, &l, &bad, err) == 0) {
            ga_array_t *cols = temp(&t, ga_array_slice(c, nb, 0, k, 1, err));
            qq = cols ? swapped(cols, err) : NULL;
        }
        rc = rr && (!q || qq) ? 0 : -1;
    }
    if (rc == 0) {
        *r = keep(&t, rr);
        if (q)
            *q = qq;
    }
    drop(&t);
    return rc;
}

/* ---- svd, eigh ------------------------------------------------------------ */

int ga_linalg_svd(ga_array_t *a, int full_matrices, ga_array_t **u, ga_array_t **s,
                  ga_array_t **vh, cm_error_t *err)
{
    if (check_matrices("svd", a, 0, err) != 0)
        return -1;
    int dt = work_dtype("svd", a, err), count, bad;
    int nb = a->ndim - 2;
    if (dt < 0 || batch_count(nb, a->shape, &count, err) != 0)
        return -1;
    int vectors = u || vh;
    int m = (int)a->shape[nb], n = (int)a->shape[nb + 1];
    /* the SVD of a^T when a is square or wide (cuSOLVER's gesvd takes
     * m >= n), as CuPy's: a's plain C-order copy is a^T column-major, so
     * nothing is transposed on the way in and u and vh come out
     * C-contiguous; a tall a is copied transposed */
    int wide = m <= n;
    int M = wide ? n : m, N = wide ? m : n;
    int ucols = full_matrices ? M : N;
    /* reduced: job 'O', U over c itself (CuPy's jobu 'O', jobvt 'S') */
    int over = vectors && !full_matrices;
    temps_t t = {0};
    ga_array_t *x = wide ? temp(&t, swapped(a, err)) : a;
    ga_array_t *c = x ? colmajor(&t, x, (ga_dtype_t)dt, nb, a->shape, err) : NULL;
    int64_t shape[GA_MAX_DIMS];
    memcpy(shape, a->shape, (size_t)nb * sizeof *shape);
    shape[nb] = N;
    ga_array_t *sv = c ? temp(&t, ga_array_new(a->device, (ga_dtype_t)dt, nb + 1, shape, err))
                       : NULL;
    ga_array_t *ub = NULL, *vb = NULL; /* U column-major: (..., ucols, M); V^T: (..., N, N) */
    if (sv && vectors) {
        shape[nb] = ucols;
        shape[nb + 1] = M;
        ub = over ? c : temp(&t, ga_array_new(a->device, (ga_dtype_t)dt, nb + 2, shape, err));
        shape[nb] = shape[nb + 1] = N;
        vb = ub ? temp(&t, ga_array_new(a->device, (ga_dtype_t)dt, nb + 2, shape, err)) : NULL;
    }
    int rc = -1;
    if (sv && (!vectors || vb)) {
        cm_lapack_t l = {.op = CM_LA_GESVD, .type = la_type((ga_dtype_t)dt), .m = M, .n = N,
                         .job = !vectors ? 'N' : over ? 'O' : 'A', .a = data(c),
                         .lda = M > 0 ? M : 1, .stride_a = (long long)M * N, .w = data(sv),
                         .stride_w = N, .u = vectors && !over ? data(ub) : NULL, .ldu = M,
                         .stride_u = (long long)ucols * M, .vt = vectors ? data(vb) : NULL,
                         .ldvt = N, .stride_vt = (long long)N * N, .batch = N ? count : 0};
        if (N == 0 && vectors)
            CM_ERROR(err, GA_E_SHAPE, "svd of empty matrices: not supported yet");
        else if (run(a->device, &l, &bad, err) == 0) {
            if (bad >= 0)
                linalg_error(err, "SVD did not converge", count, bad);
            else
                rc = 0;
        }
    }
    if (rc == 0 && vectors) {
        /* a = U S V^T: u = T(ub), vh = T(vb); for a^T's SVD, u = vb, vh = ub */
        ga_array_t *uu = wide ? vb : temp(&t, swapped(ub, err));
        ga_array_t *vv = wide ? ub : temp(&t, swapped(vb, err));
        if (!uu || !vv)
            rc = -1;
        else {
            if (u)
                *u = keep(&t, uu);
            if (vh)
                *vh = keep(&t, vv);
        }
    }
    if (rc == 0)
        *s = keep(&t, sv);
    drop(&t);
    return rc;
}

int ga_linalg_eigh(ga_array_t *a, ga_array_t **w, ga_array_t **v, cm_error_t *err)
{
    if (check_matrices("eigh", a, 1, err) != 0)
        return -1;
    int dt = work_dtype("eigh", a, err), count, bad;
    int nb = a->ndim - 2;
    if (dt < 0 || batch_count(nb, a->shape, &count, err) != 0)
        return -1;
    int n = (int)a->shape[nb];
    temps_t t = {0};
    ga_array_t *c = colmajor(&t, a, (ga_dtype_t)dt, nb, a->shape, err);
    int64_t shape[GA_MAX_DIMS];
    memcpy(shape, a->shape, (size_t)nb * sizeof *shape);
    shape[nb] = n;
    ga_array_t *ev = c ? temp(&t, ga_array_new(a->device, (ga_dtype_t)dt, nb + 1, shape, err))
                       : NULL;
    int rc = -1;
    if (ev) {
        cm_lapack_t l = {.op = CM_LA_SYEVD, .type = la_type((ga_dtype_t)dt), .m = n, .n = n,
                         .job = v ? 'V' : 'N', .a = data(c), .lda = n > 0 ? n : 1,
                         .stride_a = (long long)n * n, .w = data(ev), .stride_w = n,
                         .batch = n ? count : 0};
        if (run(a->device, &l, &bad, err) == 0) {
            if (bad >= 0)
                linalg_error(err, "Eigenvalues did not converge", count, bad);
            else
                rc = 0;
        }
    }
    ga_array_t *vv = rc == 0 && v ? swapped(c, err) : NULL;
    if (v && !vv)
        rc = -1;
    if (rc == 0) {
        *w = keep(&t, ev);
        if (v)
            *v = vv;
    }
    drop(&t);
    return rc;
}

/* ---- lstsq, norm ------------------------------------------------------------ */

/* The one value of the 0-d or 1-element array r as a double; r freed. */
static int scalar(ga_array_t *r, double *out, cm_error_t *err)
{
    if (!r)
        return -1;
    int rc = ga_copy_scalar(r, out, err);
    ga_array_free(r);
    return rc;
}

ga_array_t *ga_linalg_lstsq(ga_array_t *a, ga_array_t *b, double rcond, ga_array_t **residuals,
                            long long *rank, ga_array_t **s, cm_error_t *err)
{
    if (check_matrices("lstsq", a, 0, err) != 0 || ga_array_check(b, err) != 0)
        return NULL;
    int64_t m = a->shape[0], n = a->shape[1];
    if (a->ndim != 2 || (b->ndim != 1 && b->ndim != 2) || b->shape[0] != m) {
        char ta[128], tb[128];
        shape_of(a, ta, sizeof ta);
        shape_of(b, tb, sizeof tb);
        CM_ERROR(err, GA_E_SHAPE, "lstsq: a must be (m, n) and b (m,) or (m, k), not %s and %s",
                 ta, tb);
        return NULL;
    }
    int dt = work_dtype("lstsq", a, err), bt = dt < 0 ? -1 : work_dtype("lstsq", b, err);
    if (bt < 0)
        return NULL;
    dt = (int)ga_dtype_promote((ga_dtype_t)dt, (ga_dtype_t)bt); /* as NumPy's */
    if (m == 0 || n == 0) {
        CM_ERROR(err, GA_E_SHAPE, "lstsq of an empty matrix: not supported yet");
        return NULL;
    }
    temps_t t = {0};
    ga_array_t *u = NULL, *sv = NULL, *vh = NULL, *x = NULL, *aa = NULL;
    int64_t k = m < n ? m : n;
    double *sh = malloc((size_t)k * sizeof *sh);
    if (!sh)
        CM_ERROR(err, GA_E_MEMORY, "out of host memory");
    else if ((aa = (int)a->dtype == dt ? a : temp(&t, converted(a, (ga_dtype_t)dt, NULL, err))) &&
             ga_linalg_svd(aa, 0, &u, &sv, &vh, err) == 0) {
        temp(&t, u);
        temp(&t, sv);
        temp(&t, vh);
        ga_array_t *s64 = temp(&t, converted(sv, GA_F64, NULL, err));
        if (s64 && ga_copy_to_host(s64, sh, err) == 0) {
            double cut = (rcond < 0 ? (dt == GA_F32 ? FLT_EPSILON : DBL_EPSILON) *
                                          (double)(m > n ? m : n) : rcond) * sh[0];
            long long r = 0;
            for (int64_t i = 0; i < k; i++)
                r += sh[i] > cut;
            /* x = V diag(1/s, 0 past the cut) U^T b */
            ga_array_t *bb = temp(&t, converted(b, (ga_dtype_t)dt, NULL, err));
            ga_array_t *ut = temp(&t, swapped(u, err));
            ga_array_t *utb = bb && ut ? temp(&t, ga_blas_matmul(ut, bb, err)) : NULL;
            ga_array_t *sc = b->ndim == 2 && sv ? temp(&t, ga_array_reshape(sv, 2,
                                                       (int64_t[]){k, 1}, err)) : sv;
            ga_arg_t args[3] = {arr(utb), arr(sc), num(cut)};
            ga_array_t *y = utb && sc ? temp(&t, ga_map_eval("a, b, c: where(b > c, a / b, 0)", NULL, 3,
                                                             args, err)) : NULL;
            ga_array_t *v = y ? temp(&t, swapped(vh, err)) : NULL;
            x = v ? temp(&t, ga_blas_matmul(v, y, err)) : NULL;
            ga_array_t *res = NULL;
            if (x && residuals) {
                if (r == n && m > n) {
                    ga_array_t *ax = temp(&t, ga_blas_matmul(aa, x, err));
                    ga_arg_t rargs[2] = {arr(bb), arr(ax)};
                    res = ax ? ga_eval("sum((a - b) * (a - b), 0)", NULL, 2, rargs, err) : NULL;
                    if (res && res->ndim == 0) {
                        ga_array_t *one = ga_array_reshape(res, 1, (int64_t[]){1}, err);
                        ga_array_free(res);
                        res = one;
                    }
                } else {
                    res = ga_array_new(a->device, (ga_dtype_t)dt, 1, (int64_t[]){0}, err);
                }
                if (!res)
                    x = NULL;
            }
            if (x) {
                keep(&t, x);
                if (residuals)
                    *residuals = res;
                if (rank)
                    *rank = r;
                if (s)
                    *s = keep(&t, sv);
            }
        }
    }
    free(sh);
    drop(&t);
    return x;
}

/* The expression of a vector norm of order p (a number). */
static void vector_norm(double p, char *expr, size_t len)
{
    if (isinf(p))
        snprintf(expr, len, "%s(abs(float64(a)))", p > 0 ? "max" : "min");
    else if (p == 0)
        snprintf(expr, len, "sum(float64(a != 0))");
    else if (p == 1)
        snprintf(expr, len, "sum(abs(float64(a)))");
    else if (p == 2)
        snprintf(expr, len, "sum(float64(a) * float64(a))");
    else
        snprintf(expr, len, "sum(abs(float64(a)) ** %.17g)", p);
}

/* The singular values' max (which 1), min (-1) or sum (0). */
static int singular(ga_array_t *a, int which, double *out, cm_error_t *err)
{
    ga_array_t *s = NULL;
    if (ga_linalg_svd(a, 0, NULL, &s, NULL, err) != 0)
        return -1;
    ga_arg_t arg = arr(s);
    ga_array_t *r = ga_eval(which > 0 ? "max(float64(a))" : which < 0 ? "min(float64(a))"
                                                                      : "sum(float64(a))",
                            NULL, 1, &arg, err);
    ga_array_free(s);
    return scalar(r, out, err);
}

int ga_linalg_norm(ga_array_t *a, const char *ord, double *out, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    if (ga_dtype_kind(a->dtype) == GA_KIND_COMPLEX) {
        CM_ERROR(err, GA_E_DTYPE, "norm of %s: complex arrays: not yet", ga_dtype_name(a->dtype));
        return -1;
    }
    ga_arg_t arg = arr(a);
    char expr[96];
    double p = 2;
    char *end = NULL;
    int named = ord && (!strcmp(ord, "fro") || !strcmp(ord, "nuc"));
    if (ord && !named) {
        p = !strcmp(ord, "inf") ? INFINITY : !strcmp(ord, "-inf") ? -INFINITY : strtod(ord, &end);
        if (end && (end == ord || *end)) {
            CM_ERROR(err, GA_E_VALUE, "norm: ord \"%s\" is not a number, \"inf\", \"-inf\", "
                     "\"fro\" or \"nuc\"", ord);
            return -1;
        }
    }
    if (!ord || (a->ndim == 1 && !named)) {
        if (a->ndim != 1 && ord) {
            CM_ERROR(err, GA_E_SHAPE, "norm: a %d-d array takes ord NULL only", a->ndim);
            return -1;
        }
        vector_norm(p, expr, sizeof expr);
        if (scalar(ga_eval(expr, NULL, 1, &arg, err), out, err) != 0)
            return -1;
        if (p == 2)
            *out = sqrt(*out);
        else if (!isinf(p) && p != 0 && p != 1)
            *out = pow(*out, 1 / p);
        return 0;
    }
    if (a->ndim != 2) {
        CM_ERROR(err, GA_E_SHAPE, "norm: ord \"%s\" takes a vector or a matrix, not a %d-d array",
                 ord, a->ndim);
        return -1;
    }
    if (named && ord[0] == 'n')
        return singular(a, 0, out, err);
    if (named) {
        if (scalar(ga_eval("sum(float64(a) * float64(a))", NULL, 1, &arg, err), out, err) != 0)
            return -1;
        *out = sqrt(*out);
        return 0;
    }
    if (p == 2 || p == -2)
        return singular(a, p > 0 ? 1 : -1, out, err);
    if (p != 1 && p != -1 && !isinf(p)) {
        CM_ERROR(err, GA_E_VALUE, "norm: invalid norm order \"%s\" for matrices", ord);
        return -1;
    }
    /* 1: the largest column sum of |a|; inf: the largest row sum */
    snprintf(expr, sizeof expr, "sum(abs(float64(a)), %d)", isinf(p) ? 1 : 0);
    ga_array_t *sums = ga_eval(expr, NULL, 1, &arg, err);
    if (!sums)
        return -1;
    ga_arg_t sarg = arr(sums);
    ga_array_t *r = ga_eval(p > 0 ? "max(a)" : "min(a)", NULL, 1, &sarg, err);
    ga_array_free(sums);
    return scalar(r, out, err);
}

/* ---- what cells call ------------------------------------------------------- */

static ga_array_t *made(const char *fn, ga_array_t *r, const cm_error_t *err)
{
    if (!r)
        ga_api_fail(fn, err);
    return r;
}

ga_array_t *ga_api_solve(ga_array_t *a, ga_array_t *b)
{
    cm_error_t err = {0};
    return made("ga_solve", ga_linalg_solve(a, b, &err), &err);
}

ga_array_t *ga_api_inv(ga_array_t *a)
{
    cm_error_t err = {0};
    return made("ga_inv", ga_linalg_inv(a, &err), &err);
}

ga_array_t *ga_api_det(ga_array_t *a)
{
    cm_error_t err = {0};
    return made("ga_det", ga_linalg_det(a, &err), &err);
}

ga_array_t *ga_api_cholesky(ga_array_t *a)
{
    cm_error_t err = {0};
    return made("ga_cholesky", ga_linalg_cholesky(a, &err), &err);
}

void ga_api_qr(ga_array_t *a, ga_array_t **q, ga_array_t **r)
{
    cm_error_t err = {0};
    if (!r)
        ga_api_failf("ga_qr", GA_E_VALUE, "r must point to a ga_t (q may be NULL)");
    else if (ga_linalg_qr(a, q, r, &err) != 0)
        ga_api_fail("ga_qr", &err);
}

void ga_api_svd(ga_array_t *a, int full_matrices, ga_array_t **u, ga_array_t **s,
                ga_array_t **vh)
{
    cm_error_t err = {0};
    if (!s || !u != !vh)
        ga_api_failf("ga_svd", GA_E_VALUE, "s must point to a ga_t, and u and vh both or "
                     "neither (NULL, NULL: singular values only)");
    else if (ga_linalg_svd(a, full_matrices, u, s, vh, &err) != 0)
        ga_api_fail("ga_svd", &err);
}

void ga_api_eigh(ga_array_t *a, ga_array_t **w, ga_array_t **v)
{
    cm_error_t err = {0};
    if (!w)
        ga_api_failf("ga_eigh", GA_E_VALUE, "w must point to a ga_t (v may be NULL)");
    else if (ga_linalg_eigh(a, w, v, &err) != 0)
        ga_api_fail("ga_eigh", &err);
}

ga_array_t *ga_api_lstsq(ga_array_t *a, ga_array_t *b, double rcond, ga_array_t **residuals,
                         long long *rank, ga_array_t **s)
{
    cm_error_t err = {0};
    return made("ga_lstsq", ga_linalg_lstsq(a, b, rcond, residuals, rank, s, &err), &err);
}

double ga_api_norm(ga_array_t *a, const char *ord)
{
    cm_error_t err = {0};
    double r;
    if (ga_linalg_norm(a, ord, &r, &err) != 0) {
        ga_api_fail("ga_norm", &err);
        return NAN;
    }
    return r;
}
