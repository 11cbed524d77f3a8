/* ga_api_math: array math for cells (see ga_api_math.h). */
#include "ga_api_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ga_api.h"
#include "ga_copy.h"
#include "ga_eval.h"
#include "ga_expr.h"
#include "ga_scan.h"

ga_array_t *ga_api_eval(const char *fn, const char *expr, ga_array_t *out, int nargs,
                        const ga_arg_t *args)
{
    cm_error_t err = {0};
    if (nargs < 0 || nargs > GA_EXPR_MAX_VARS || (nargs && !args)) {
        ga_api_failf(fn, GA_E_EXPR, "%d operands (at most %d)", nargs, GA_EXPR_MAX_VARS);
        return NULL;
    }
    ga_array_t *r = ga_eval(expr, out, nargs, args, &err);
    if (!r)
        ga_api_fail(fn, &err);
    return r;
}

ga_array_t *ga_api_reduce_axis(const char *fn, const char *op, ga_array_t *a, int axis,
                               int keepdims)
{
    cm_error_t err = {0};
    char expr[96];
    if (ga_array_check(a, &err)) {
        ga_api_fail(fn, &err);
        return NULL;
    }
    int ax = axis;
    if (axis != GA_AXIS_ALL) {
        if (ax < -a->ndim || ax >= a->ndim || a->ndim == 0) {
            ga_api_failf(fn, GA_E_SHAPE, "axis %d is out of range for a %d-d array", axis, a->ndim);
            return NULL;
        }
        ax = ax < 0 ? ax + a->ndim : ax;
        snprintf(expr, sizeof expr, "%s(a, %d)", op, ax);
    } else {
        snprintf(expr, sizeof expr, "%s(a)", op);
    }
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = a};
    ga_array_t *r = ga_eval(expr, NULL, 1, &arg, &err);
    if (!r) {
        ga_api_fail(fn, &err);
        return NULL;
    }
    if (!keepdims)
        return r;
    int64_t shape[GA_MAX_DIMS];
    for (int k = 0; k < a->ndim; k++)
        shape[k] = axis == GA_AXIS_ALL || k == ax ? 1 : a->shape[k];
    ga_array_t *v = ga_array_reshape(r, a->ndim, shape, &err);
    ga_array_free(r); /* the view holds the buffer */
    if (!v)
        ga_api_fail(fn, &err);
    return v;
}

double ga_api_reduce_all(const char *fn, const char *op, ga_array_t *a)
{
    ga_array_t *r = ga_api_reduce_axis(fn, op, a, GA_AXIS_ALL, 0);
    if (!r)
        return NAN;
    cm_error_t err = {0};
    double x = NAN;
    int rc = ga_copy_scalar(r, &x, &err);
    ga_array_free(r);
    if (rc) {
        ga_api_fail(fn, &err);
        return NAN;
    }
    return x;
}

long long ga_api_reduce_all_i64(const char *fn, const char *op, ga_array_t *a)
{
    ga_array_t *r = ga_api_reduce_axis(fn, op, a, GA_AXIS_ALL, 0);
    if (!r)
        return 0;
    cm_error_t err = {0};
    long long x = 0;
    int rc = ga_copy_scalar_i64(r, &x, &err);
    ga_array_free(r);
    if (rc)
        ga_api_fail(fn, &err);
    return rc ? 0 : x;
}

ga_array_t *ga_api_astype(ga_array_t *a, ga_cell_dtype_t dt)
{
    int dtype = dt.code;
    if (!ga_dtype_valid(dtype) || dtype == GA_C64 || dtype == GA_C128) {
        ga_api_failf("ga_astype", GA_E_DTYPE, "%d is not a dtype array math supports", dtype);
        return NULL;
    }
    char expr[64];
    snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name((ga_dtype_t)dtype));
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = a};
    return ga_api_eval("ga_astype", expr, NULL, 1, &arg);
}

static ga_array_t *scan(const char *fn, ga_scan_op_t op, ga_array_t *a, int axis)
{
    cm_error_t err = {0};
    ga_array_t *r = ga_scan(op, a, axis, &err);
    if (!r)
        ga_api_fail(fn, &err);
    return r;
}

ga_array_t *ga_api_cumsum(ga_array_t *a, int axis)
{
    return scan("ga_cumsum", GA_SCAN_SUM, a, axis);
}

ga_array_t *ga_api_cumprod(ga_array_t *a, int axis)
{
    return scan("ga_cumprod", GA_SCAN_PROD, a, axis);
}

/* r (var or std over n elements each, divided by n) divided by n - ddof
 * instead, in place: NumPy's ddof (n - ddof <= 0 divides by 0). */
static int apply_ddof(ga_array_t *r, const char *op, int64_t n, double ddof, cm_error_t *err)
{
    if (ddof == 0)
        return 0;
    double f = n - ddof > 0 ? (double)n / ((double)n - ddof) : INFINITY;
    if (!strcmp(op, "std"))
        f = sqrt(f);
    ga_arg_t args[2] = {{.kind = GA_ARG_ARRAY, .a = r}, {.kind = GA_ARG_FLOAT, .f = f}};
    return ga_eval("a * f", r, 2, args, err) ? 0 : -1;
}

/* Whether op over several axes is op over each in turn (exactly, or as
 * float sums are in another order); float16 sums are not rounded twice. */
static int composes(const char *op, ga_dtype_t d)
{
    static const char *const ops[] = {"sum", "prod", "min", "max", "any", "all", "count_nonzero"};
    if (d == GA_F16 && (!strcmp(op, "sum") || !strcmp(op, "prod")))
        return 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(op, ops[i]))
            return 1;
    return 0;
}

/* op of a over the axes marked in reduced, one axis at a time from the
 * last (contiguous reads first, then smaller arrays); count_nonzero is
 * a count, then sums. Where the axes do not merge without a copy. */
static ga_array_t *one_by_one(const char *op, ga_array_t *a, const int *reduced, cm_error_t *err)
{
    ga_array_t *cur = a, *next = NULL;
    for (int k = a->ndim - 1; k >= 0; k--) {
        if (!reduced[k])
            continue;
        char expr[96];
        snprintf(expr, sizeof expr, "%s(a, %d)", cur != a && !strcmp(op, "count_nonzero") ? "sum" : op, k);
        ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = cur};
        next = ga_eval(expr, NULL, 1, &arg, err);
        if (cur != a)
            ga_array_free(cur);
        if (!next)
            return NULL;
        cur = next;
    }
    return cur;
}

ga_array_t *ga_api_reduce_axes(const char *fn, const char *op, ga_array_t *a, int naxes,
                               const long long *axes, int keepdims, double ddof)
{
    cm_error_t err = {0};
    if (ga_array_check(a, &err)) {
        ga_api_fail(fn, &err);
        return NULL;
    }
    int reduced[GA_MAX_DIMS] = {0}, all = naxes == 1 && axes[0] == GA_AXIS_ALL, count = 0;
    if (naxes < 1 || !axes) {
        ga_api_failf(fn, GA_E_VALUE, "give at least one axis (GA_ALL: every one)");
        return NULL;
    }
    for (int i = 0; !all && i < naxes; i++) {
        long long ax = axes[i];
        if (ax < -a->ndim || ax >= a->ndim) {
            ga_api_failf(fn, GA_E_SHAPE, "axis %lld is out of range for a %d-d array", ax, a->ndim);
            return NULL;
        }
        ax = ax < 0 ? ax + a->ndim : ax;
        if (reduced[ax]) {
            ga_api_failf(fn, GA_E_SHAPE, "axis %lld is given twice", axes[i]);
            return NULL;
        }
        reduced[ax] = 1;
        count++;
    }
    if (all)
        for (int k = 0; k < a->ndim; k++)
            reduced[k] = 1, count++;
    if (!strncmp(op, "arg", 3) && count > 1) {
        ga_api_failf(fn, GA_E_VALUE, "%s takes one axis (or GA_ALL), not %d", op, count);
        return NULL;
    }
    /* the kept axes in order, then the reduced ones: a view, merged into
     * one last axis (a copy first where the layout does not merge) */
    int perm[GA_MAX_DIMS], nk = 0;
    int64_t shape[GA_MAX_DIMS], n = 1;
    for (int k = 0; k < a->ndim; k++)
        if (!reduced[k]) {
            perm[nk] = k;
            shape[nk++] = a->shape[k];
        }
    for (int k = 0, j = nk; k < a->ndim; k++)
        if (reduced[k]) {
            perm[j++] = k;
            n *= a->shape[k];
        }
    shape[nk] = n;
    ga_array_t *p = ga_array_permute(a, perm, &err), *m = NULL, *c = NULL, *r = NULL;
    if (p && !(m = ga_array_reshape(p, nk + 1, shape, &err))) {
        cm_error_clear(&err); /* the layout needs a copy: not an error */
        if (composes(op, a->dtype)) { /* or one axis at a time, the last first */
            r = one_by_one(op, a, reduced, &err);
            goto reduced_;
        }
        c = ga_copy_array(p, p->device, &err);
        m = c ? ga_array_reshape(c, nk + 1, shape, &err) : NULL;
    }
    if (m) {
        char expr[96];
        snprintf(expr, sizeof expr, "%s(a, %d)", op, nk);
        ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = m};
        r = ga_eval(expr, NULL, 1, &arg, &err);
    }
reduced_:
    if (r && apply_ddof(r, op, n, ddof, &err)) {
        ga_array_free(r);
        r = NULL;
    }
    if (r && keepdims) {
        for (int k = 0; k < a->ndim; k++)
            shape[k] = reduced[k] ? 1 : a->shape[k];
        ga_array_t *v = ga_array_reshape(r, a->ndim, shape, &err);
        ga_array_free(r); /* the view holds the buffer */
        r = v;
    }
    ga_array_free(m);
    ga_array_free(c);
    ga_array_free(p);
    if (!r)
        ga_api_fail(fn, &err);
    return r;
}
