/* ga_index: take, put, argwhere, masks, compress (see ga_index.h). */
#include "ga_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_eval.h"
#include "ga_expr.h"
#include "ga_join.h"
#include "ga_kernel.h"
#include "ga_scan.h"

/* ---- kernels ------------------------------------------------------------ */

typedef struct dims {
    int64_t d[GA_MAX_DIMS];
} dims_t; /* the kernels' ga_dims: a shape passed by value */

typedef struct plan {
    int elsize; /* 0: the compaction, which moves no elements */
} plan_t;

static const char *element_type(int elsize)
{
    switch (elsize) {
    case 1: return "ga_u8";
    case 2: return "ga_u16";
    case 4: return "ga_u32";
    case 8: return "ga_u64";
    default: return "ga_e16";
    }
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    if (!p->elsize) {
        cm_buf_addf(&b, "typedef struct { ga_i64 d[%d]; } ga_dims;\n", GA_MAX_DIMS);
        cm_buf_adds(&b,
            /* out[pos[q] - 1] = q's index along each of nd axes */
            "GA_KERNEL ga_argwhere(ga_i64 n, const ga_u8 *m, const ga_i64 *pos, int nd, ga_dims shape,\n"
            "                      ga_i64 *out)\n{\n"
            "    GA_LOOP(q, n) {\n        if (!m[q]) continue;\n"
            "        ga_i64 p = pos[q] - 1, r = q;\n"
            "        for (int k = nd - 1; k >= 0; k--) {\n"
            "            out[p * nd + k] = r % shape.d[k];\n            r /= shape.d[k];\n        }\n"
            "    }\n}\n"
            /* indices of an axis of N outside [-N, N): bad[0] set, one of them in bad[1] */
            "GA_KERNEL ga_check_index(ga_i64 J, ga_i64 N, const ga_i64 *idx, ga_i64 *bad)\n{\n"
            "    GA_LOOP(j, J) {\n        ga_i64 x = idx[j];\n"
            "        if (x < -N || x >= N) { bad[0] = 1; bad[1] = x; }\n    }\n}\n");
        return cm_buf_steal(&b);
    }
    cm_buf_adds(&b, "typedef struct { ga_u64 lo, hi; } ga_e16;\n");
    cm_buf_addf(&b, "typedef %s ga_e;\n", element_type(p->elsize));
    cm_buf_adds(&b,
        /* a (O, N, I), idx (J), out (O, J, I) */
        /* an index out of [-N, N) is not read: it sets bad[0] and its value in bad[1] */
        "GA_KERNEL ga_take(ga_i64 O, ga_i64 N, ga_i64 J, ga_i64 I, const ga_e *a, const ga_i64 *idx,\n"
        "                  ga_e *out, ga_i64 *bad)\n{\n"
        /* a flat take (O = I = 1): no 64-bit divisions an element */
        "    if (O == 1 && I == 1) {\n"
        "        GA_LOOP(q, J) {\n            ga_i64 x = idx[q];\n            if (x < 0) x += N;\n"
        "            if (x < 0 || x >= N) { bad[0] = 1; bad[1] = idx[q]; continue; }\n"
        "            out[q] = a[x];\n        }\n        return;\n    }\n"
        "    GA_LOOP(q, O * J * I) {\n"
        "        ga_i64 i = q % I, r = q / I, j = r % J, o = r / J, x = idx[j];\n"
        "        if (x < 0) x += N;\n"
        "        if (x < 0 || x >= N) { bad[0] = 1; bad[1] = idx[j]; continue; }\n"
        "        out[q] = a[(o * N + x) * I + i];\n    }\n}\n"
        /* the rows r of a (M, I) whose m[r] is set, to row pos[r] - 1 of out */
        "GA_KERNEL ga_compact(ga_i64 M, ga_i64 I, const ga_u8 *m, const ga_i64 *pos, const ga_e *a,\n"
        "                     ga_e *out)\n{\n"
        "    GA_LOOP(q, M * I) {\n        ga_i64 r = q / I;\n"
        "        if (m[r]) out[(pos[r] - 1) * I + (q - r * I)] = a[q];\n    }\n}\n"
        /* the reverse: a[(o, idx[j], i)] = v[q % nv], idx checked before */
        "GA_KERNEL ga_put(ga_i64 O, ga_i64 N, ga_i64 J, ga_i64 I, ga_e *a, const ga_i64 *idx,\n"
        "                 const ga_e *v, ga_i64 nv)\n{\n"
        "    if (O == 1 && I == 1) { /* flat, and most often one value */\n"
        "        GA_LOOP(q, J) {\n            ga_i64 x = idx[q];\n"
        "            a[x < 0 ? x + N : x] = v[nv == 1 ? 0 : q % nv];\n        }\n        return;\n    }\n"
        "    GA_LOOP(q, O * J * I) {\n"
        "        ga_i64 i = q % I, r = q / I, j = r % J, o = r / J, x = idx[j];\n"
        "        a[(o * N + (x < 0 ? x + N : x)) * I + i] = v[q % nv];\n    }\n}\n");
    return cm_buf_steal(&b);
}

char *ga_index_source(int elsize)
{
    plan_t p = {elsize};
    return ga_kernel_source(make_source, &p);
}

static void *kernel(int device, int elsize, const char *name, cm_error_t *err)
{
    plan_t p = {elsize};
    char sig[32];
    snprintf(sig, sizeof sig, "index|%d", elsize);
    return ga_kernel_get(device, sig, name, make_source, &p, err);
}

typedef enum { TAKE, PUT } move_t;

/* take or put over a (O, N, I), idx (J) and other ((O, J, I) for take; v
 * of nv elements for put), all contiguous; bad: take's two int64 for an
 * index out of range. */
static int move(move_t how, ga_array_t *a, int64_t O, int64_t N, int64_t I, ga_array_t *idx,
                ga_array_t *other, ga_array_t *bad, const char *what, cm_error_t *err)
{
    long long o = O, n = N, j = idx->size, i = I, nv = other->size;
    if (!o || !j || !i)
        return 0;
    int es = (int)ga_dtype_size(a->dtype);
    void *fn = kernel(a->device, es, how == TAKE ? "ga_take" : "ga_put", err);
    if (!fn)
        return -1;
    void *pa = ga_array_data(a), *pi = ga_array_data(idx), *po = ga_array_data(other);
    void *pb = bad ? ga_array_data(bad) : NULL;
    if (bk_lang(a->device) == BK_LANG_C) {
        if (how == TAKE)
            ((void (*)(long long, long long, long long, long long, const void *, const void *,
                       void *, void *))fn)(o, n, j, i, pa, pi, po, pb);
        else
            ((void (*)(long long, long long, long long, long long, void *, const void *,
                       const void *, long long))fn)(o, n, j, i, pa, pi, po, nv);
        return 0;
    }
    void *args[8] = {&o, &n, &j, &i, &pa, &pi, &po, how == TAKE ? (void *)&pb : (void *)&nv};
    return ga_kernel_launch(a->device, fn, o * j * i, args, what, err);
}

/* ---- helpers ------------------------------------------------------------ */

static int axis_of(int axis, int ndim, cm_error_t *err)
{
    if (axis < -ndim || axis >= ndim) {
        CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for a %d-d array", axis, ndim);
        return -1;
    }
    return axis < 0 ? axis + ndim : axis;
}

static ga_array_t *eval1(const char *expr, ga_array_t *out, ga_array_t *a, cm_error_t *err)
{
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = a};
    return ga_eval(expr, out, 1, &arg, err);
}

/* a contiguous as ndim dims of shape: a view, or a copy. */
static ga_array_t *contiguous_as(ga_array_t *a, int ndim, const int64_t *shape, cm_error_t *err)
{
    ga_array_t *c = ga_copy_contiguous(a, err);
    ga_array_t *v = c ? ga_array_reshape(c, ndim, shape, err) : NULL;
    ga_array_free(c);
    return v;
}

static long long scalar_i64(ga_array_t *r, cm_error_t *err)
{
    long long x = 0;
    if (r && ga_copy_scalar_i64(r, &x, err) == 0) {
        ga_array_free(r);
        return x;
    }
    ga_array_free(r);
    return 0;
}

/* 0 when idx's dtype is an integer one, else -1 with err. */
static int index_dtype(const ga_array_t *idx, cm_error_t *err)
{
    char k = ga_dtype_kind(idx->dtype);
    if (k == GA_KIND_INT || k == GA_KIND_UINT)
        return 0;
    CM_ERROR(err, GA_E_DTYPE, "indices must be integers, not %s", ga_dtype_name(idx->dtype));
    return -1;
}

/* idx as a contiguous int64 array (a view when it is one): a new array. */
static ga_array_t *as_int64(ga_array_t *idx, cm_error_t *err)
{
    if (index_dtype(idx, err))
        return NULL;
    if (idx->dtype == GA_I64)
        return ga_copy_contiguous(idx, err);
    return eval1("int64(a)", NULL, idx, err);
}

/* The two int64 of a kernel's out-of-range flag (zeros), or NULL. */
static ga_array_t *new_flag(int device, cm_error_t *err)
{
    int64_t two = 2;
    return ga_create_full(device, GA_I64, 1, &two, 0, err);
}

/* What the kernel flagged in bad: 0, or -1 with the error naming the index. */
static int flagged(ga_array_t *bad, int64_t n, cm_error_t *err)
{
    int64_t flags[2] = {0, 0};
    if (ga_copy_to_host(bad, flags, err))
        return -1;
    if (!flags[0])
        return 0;
    CM_ERROR(err, GA_E_SHAPE, "index %lld is out of bounds for an axis of size %lld",
             (long long)flags[1], (long long)n);
    return -1;
}

/* Every index of ni (int64, contiguous) in [-n, n), checked on its device
 * in one pass: 0, or -1 with the error naming one that is not. */
static int check_indices(ga_array_t *ni, int64_t n, cm_error_t *err)
{
    if (!ni->size)
        return 0;
    ga_array_t *bad = new_flag(ni->device, err);
    void *fn = bad ? kernel(ni->device, 0, "ga_check_index", err) : NULL;
    long long j = ni->size, nn = n;
    void *pi = ga_array_data(ni), *pb = bad ? ga_array_data(bad) : NULL;
    int rc = fn ? 0 : -1;
    if (fn && bk_lang(ni->device) == BK_LANG_C) {
        ((void (*)(long long, long long, const void *, void *))fn)(j, nn, pi, pb);
    } else if (fn) {
        void *args[4] = {&j, &nn, &pi, &pb};
        rc = ga_kernel_launch(ni->device, fn, j, args, "ga_put", err);
    }
    if (rc == 0)
        rc = flagged(bad, n, err);
    ga_array_free(bad);
    return rc;
}

/* ---- take and put --------------------------------------------------------- */

ga_array_t *ga_index_take(ga_array_t *a, ga_array_t *idx, int axis, cm_error_t *err)
{
    if (ga_array_check(a, err) || ga_array_check(idx, err))
        return NULL;
    if (idx->device != a->device) {
        CM_ERROR(err, GA_E_DEVICE, "the indices are on another device than the array");
        return NULL;
    }
    int64_t n = a->size;
    ga_array_t *src = NULL, *ni = NULL, *out = NULL, *bad = NULL;
    int ax = 0;
    if (axis == GA_AXIS_ALL) {
        src = contiguous_as(a, 1, &n, err);
    } else {
        if (a->ndim == 0)
            CM_ERROR(err, GA_E_SHAPE, "a 0-d array has no axis %d", axis);
        else if ((ax = axis_of(axis, a->ndim, err)) >= 0)
            src = ga_copy_contiguous(a, err);
    }
    if (!src)
        return NULL;
    int64_t O = 1, I = 1, N = src->shape[ax];
    for (int k = 0; k < ax; k++)
        O *= src->shape[k];
    for (int k = ax + 1; k < src->ndim; k++)
        I *= src->shape[k];
    int nd = src->ndim - 1 + idx->ndim;
    if (nd > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "the result would have %d dimensions (at most %d)", nd, GA_MAX_DIMS);
        goto done;
    }
    int64_t shape[GA_MAX_DIMS];
    int m = 0;
    for (int k = 0; k < ax; k++)
        shape[m++] = src->shape[k];
    for (int k = 0; k < idx->ndim; k++)
        shape[m++] = idx->shape[k];
    for (int k = ax + 1; k < src->ndim; k++)
        shape[m++] = src->shape[k];
    /* the indices as int64, checked by the gather itself (one pass) */
    ni = as_int64(idx, err);
    bad = ni ? new_flag(a->device, err) : NULL;
    out = bad ? ga_array_new(a->device, a->dtype, nd, shape, err) : NULL;
    if (out && (move(TAKE, src, O, N, I, ni, out, bad, "ga_take", err) || flagged(bad, N, err))) {
        ga_array_free(out);
        out = NULL;
    }
done:
    ga_array_free(bad);
    ga_array_free(ni);
    ga_array_free(src);
    return out;
}

/* v (a number or an array) as a contiguous array of dtype and shape (a
 * broadcast of it, converted as NumPy's unsafe casting does). */
static ga_array_t *values_as(const ga_arg_t *v, int device, ga_dtype_t dtype, int ndim,
                             const int64_t *shape, cm_error_t *err)
{
    ga_array_t *r = ga_array_new(device, dtype, ndim, shape, err);
    if (!r || !r->size)
        return r;
    int rc;
    if (v->kind != GA_ARG_ARRAY) {
        rc = ga_copy_fill(r, v->kind == GA_ARG_INT ? (double)v->i : v->f, err);
    } else if (v->a->device != device) {
        CM_ERROR(err, GA_E_DEVICE, "the values are on another device than the array");
        rc = -1;
    } else {
        char expr[32];
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(dtype));
        rc = eval1(expr, r, v->a, err) ? 0 : -1;
    }
    if (rc) {
        ga_array_free(r);
        return NULL;
    }
    return r;
}

/* Runs put over a's elements seen as (M, rest), writing back when a's
 * layout needs a contiguous copy to be seen so. */
static int put_rows(ga_array_t *a, int64_t M, ga_array_t *ni, ga_array_t *vals, cm_error_t *err)
{
    int64_t I = M ? a->size / M : 1;
    ga_array_t *w = ga_array_is_contiguous(a) ? NULL : ga_copy_array(a, a->device, err);
    if (!ga_array_is_contiguous(a) && !w)
        return -1;
    int rc = move(PUT, w ? w : a, 1, M, I, ni, vals, NULL, "ga_put", err);
    if (rc == 0 && w)
        rc = ga_join_copy_into(a, w, err);
    ga_array_free(w);
    return rc;
}

int ga_index_put(ga_array_t *a, ga_array_t *idx, const ga_arg_t *v, cm_error_t *err)
{
    if (ga_array_check(a, err) || ga_array_check(idx, err) ||
        (v->kind == GA_ARG_ARRAY && ga_array_check(v->a, err)))
        return -1;
    ga_array_t *ni = as_int64(idx, err), *vals = NULL;
    if (!ni || check_indices(ni, a->size, err)) { /* before anything is written */
        ga_array_free(ni);
        return -1;
    }
    int64_t nv = v->kind == GA_ARG_ARRAY ? v->a->size : 1;
    int rc = -1;
    if (nv == 0 && ni->size) {
        CM_ERROR(err, GA_E_VALUE, "no values to put at %lld indices", (long long)ni->size);
    } else { /* the values flattened, in a's dtype */
        ga_array_t *f = v->kind == GA_ARG_ARRAY ? contiguous_as(v->a, 1, &nv, err) : NULL;
        ga_arg_t fa = {.kind = GA_ARG_ARRAY, .a = f};
        if (v->kind != GA_ARG_ARRAY || f)
            vals = values_as(f ? &fa : v, a->device, a->dtype, 1, &nv, err);
        ga_array_free(f);
        if (vals)
            rc = put_rows(a, a->size, ni, vals, err);
    }
    ga_array_free(vals);
    ga_array_free(ni);
    return rc;
}

/* ---- non-zero elements ------------------------------------------------------ */

/* a as a contiguous bool array *m (its non-zero elements) and their
 * running count *pos (int64; NULL for an empty a), *total the count. */
static int running_count(ga_array_t *a, ga_array_t **m, ga_array_t **pos, long long *total,
                         cm_error_t *err)
{
    *m = a->dtype == GA_BOOL ? ga_copy_contiguous(a, err) : eval1("bool(a)", NULL, a, err);
    *pos = NULL;
    *total = 0;
    if (!*m)
        return -1;
    if (!a->size)
        return 0;
    *pos = ga_scan(GA_SCAN_SUM, *m, GA_AXIS_ALL, err);
    ga_array_t *last = *pos ? ga_array_index(*pos, 0, a->size - 1, err) : NULL;
    *total = last ? scalar_i64(last, err) : 0;
    return err->code ? -1 : 0;
}

ga_array_t *ga_index_argwhere(ga_array_t *a, int flat, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    if (ga_dtype_kind(a->dtype) == GA_KIND_COMPLEX) {
        CM_ERROR(err, GA_E_DTYPE, "array math does not support %s", ga_dtype_name(a->dtype));
        return NULL;
    }
    int nd = flat ? 1 : a->ndim;
    dims_t shape = {{0}};
    if (flat)
        shape.d[0] = a->size;
    else
        memcpy(shape.d, a->shape, sizeof a->shape);
    ga_array_t *m = NULL, *pos = NULL, *out = NULL;
    long long n = a->size, total = 0;
    if (running_count(a, &m, &pos, &total, err))
        goto done;
    int64_t oshape[2] = {total, nd};
    out = ga_array_new(a->device, GA_I64, flat ? 1 : 2, oshape, err);
    if (!out || !total || !nd)
        goto done;
    void *fn = kernel(a->device, 0, "ga_argwhere", err);
    void *pm = ga_array_data(m), *pp = ga_array_data(pos), *po = ga_array_data(out);
    int rc = -1;
    if (fn && bk_lang(a->device) == BK_LANG_C) {
        ((void (*)(long long, const void *, const void *, int, dims_t, void *))fn)(n, pm, pp, nd,
                                                                                 shape, po);
        rc = 0;
    } else if (fn) {
        void *args[6] = {&n, &pm, &pp, &nd, &shape, &po};
        rc = ga_kernel_launch(a->device, fn, n, args, "ga_argwhere", err);
    }
    if (rc) {
        ga_array_free(out);
        out = NULL;
    }
done:
    ga_array_free(pos);
    ga_array_free(m);
    if (err->code && out) {
        ga_array_free(out);
        out = NULL;
    }
    return out;
}

/* mask must be a's leading dimensions: M, the number of rows they make. */
static int mask_rows(const ga_array_t *a, const ga_array_t *mask, int64_t *M, cm_error_t *err)
{
    int ok = mask->ndim <= a->ndim && mask->device == a->device;
    for (int k = 0; ok && k < mask->ndim; k++)
        ok = mask->shape[k] == a->shape[k];
    if (!ok) {
        char s0[96], s1[96];
        ga_shape_text(a->ndim, a->shape, s0, sizeof s0);
        ga_shape_text(mask->ndim, mask->shape, s1, sizeof s1);
        if (mask->device != a->device)
            CM_ERROR(err, GA_E_DEVICE, "the mask is on another device than the array");
        else
            CM_ERROR(err, GA_E_SHAPE, "a mask of shape %s does not match an array of shape %s", s1, s0);
        return -1;
    }
    *M = mask->size;
    return 0;
}

ga_array_t *ga_index_mask_select(ga_array_t *a, ga_array_t *mask, cm_error_t *err)
{
    int64_t M;
    if (ga_array_check(a, err) || ga_array_check(mask, err) || mask_rows(a, mask, &M, err))
        return NULL;
    int64_t shape[GA_MAX_DIMS + 1];
    shape[0] = M;
    int nd = 1;
    for (int k = mask->ndim; k < a->ndim; k++)
        shape[nd++] = a->shape[k];
    /* the selected rows straight to their places (no index array) */
    ga_array_t *m = NULL, *pos = NULL, *rows = NULL, *r = NULL;
    long long total = 0, MM = M, I = 1;
    for (int k = 1; k < nd; k++)
        I *= shape[k];
    if (running_count(mask, &m, &pos, &total, err) || !(rows = contiguous_as(a, nd, shape, err)))
        goto done;
    shape[0] = total;
    if (!(r = ga_array_new(a->device, a->dtype, nd, shape, err)) || !total || !I)
        goto done;
    void *fn = kernel(a->device, (int)ga_dtype_size(a->dtype), "ga_compact", err);
    void *pm = ga_array_data(m), *pp = ga_array_data(pos), *pa = ga_array_data(rows),
         *po = ga_array_data(r);
    int rc = fn ? 0 : -1;
    if (fn && bk_lang(a->device) == BK_LANG_C) {
        ((void (*)(long long, long long, const void *, const void *, const void *, void *))fn)(
            MM, I, pm, pp, pa, po);
    } else if (fn) {
        void *args[6] = {&MM, &I, &pm, &pp, &pa, &po};
        rc = ga_kernel_launch(a->device, fn, MM * I, args, "ga_mask_select", err);
    }
    if (rc) {
        ga_array_free(r);
        r = NULL;
    }
done:
    ga_array_free(rows);
    ga_array_free(pos);
    ga_array_free(m);
    return r;
}

/* a[mask] = v for a number v: one pass of where(m, v, a) written into a
 * (the mask seen with a's trailing axes as 1s), with no index array and no
 * array of values. */
static int assign_number(ga_array_t *a, ga_array_t *mask, const ga_arg_t *v, cm_error_t *err)
{
    int64_t shape[GA_MAX_DIMS];
    for (int k = 0; k < a->ndim; k++)
        shape[k] = k < mask->ndim ? mask->shape[k] : 1;
    ga_array_t *m = contiguous_as(mask, a->ndim, shape, err);
    if (!m)
        return -1;
    /* v converted to a's dtype first, as NumPy converts it (0.25 into
     * int32: 0) */
    char expr[64];
    snprintf(expr, sizeof expr, "m, v, a: where(m, %s(v), a)", ga_dtype_name(a->dtype));
    ga_arg_t args[3] = {{.kind = GA_ARG_ARRAY, .a = m}, *v, {.kind = GA_ARG_ARRAY, .a = a}};
    ga_array_t *r = ga_eval(expr, a, 3, args, err);
    ga_array_free(m);
    return r ? 0 : -1;
}

int ga_index_mask_assign(ga_array_t *a, ga_array_t *mask, const ga_arg_t *v, cm_error_t *err)
{
    int64_t M;
    if (ga_array_check(a, err) || ga_array_check(mask, err) || mask_rows(a, mask, &M, err) ||
        (v->kind == GA_ARG_ARRAY && ga_array_check(v->a, err)))
        return -1;
    if (v->kind != GA_ARG_ARRAY && ga_dtype_kind(a->dtype) != GA_KIND_COMPLEX)
        return a->size ? assign_number(a, mask, v, err) : 0;
    ga_array_t *idx = ga_index_argwhere(mask, 1, err);
    if (!idx)
        return -1;
    /* the values: v broadcast to the selection's shape (count,) + rest */
    int64_t shape[GA_MAX_DIMS + 1];
    shape[0] = idx->size;
    int nd = 1;
    for (int k = mask->ndim; k < a->ndim; k++)
        shape[nd++] = a->shape[k];
    ga_array_t *vals = values_as(v, a->device, a->dtype, nd, shape, err);
    int rc = vals ? put_rows(a, M, idx, vals, err) : -1;
    ga_array_free(vals);
    ga_array_free(idx);
    return rc;
}

ga_array_t *ga_index_compress(ga_array_t *cond, ga_array_t *a, int axis, cm_error_t *err)
{
    if (ga_array_check(cond, err) || ga_array_check(a, err))
        return NULL;
    if (cond->ndim != 1) {
        CM_ERROR(err, GA_E_SHAPE, "the condition must be 1-d, not %d-d", cond->ndim);
        return NULL;
    }
    ga_array_t *idx = ga_index_argwhere(cond, 1, err);
    ga_array_t *r = idx ? ga_index_take(a, idx, axis, err) : NULL;
    ga_array_free(idx);
    return r;
}
