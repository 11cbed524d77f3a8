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
