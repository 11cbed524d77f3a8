/* ga_api_rearrange: joining, indexing by data, sorting for cells (see
 * ga_api_rearrange.h). */
#include "ga_api_rearrange.h"

#include <string.h>

#include "ga_api.h"
#include "ga_copy.h"
#include "ga_expr.h"
#include "ga_index.h"
#include "ga_join.h"
#include "ga_sort.h"

static ga_array_t *made(const char *fn, ga_array_t *a, const cm_error_t *err)
{
    if (!a)
        ga_api_fail(fn, err);
    return a;
}

static int done(const char *fn, int rc, const cm_error_t *err)
{
    if (rc < 0)
        ga_api_fail(fn, err);
    return rc;
}

/* ---- joining and splitting ---- */

ga_array_t *ga_api_concatenate(int n, ga_array_t *const *arrays, int axis)
{
    cm_error_t err = {0};
    return made("ga_concatenate", ga_join_concatenate(n, arrays, axis, 0, &err), &err);
}

ga_array_t *ga_api_stack(int n, ga_array_t *const *arrays, int axis)
{
    cm_error_t err = {0};
    return made("ga_stack", ga_join_concatenate(n, arrays, axis, 1, &err), &err);
}

int ga_api_split(ga_array_t *a, long long sections, int axis, int nidx, const long long *idx,
                 ga_array_t **parts)
{
    cm_error_t err = {0};
    const char *fn = nidx < 0 ? "ga_split" : "ga_split_at";
    if (!parts) {
        ga_api_failf(fn, GA_E_VALUE, "parts is NULL: pass an array of ga_t to hold the parts");
        return -1;
    }
    int64_t at[64];
    if (nidx > 64) {
        ga_api_failf(fn, GA_E_VALUE, "%d cuts (at most 64)", nidx);
        return -1;
    }
    for (int i = 0; i < nidx; i++)
        at[i] = idx[i];
    return done(fn, ga_join_split(a, sections, nidx, at, axis, parts, &err), &err);
}

ga_array_t *ga_api_pad(ga_array_t *a, const char *mode, double value, int nwidths,
                       const long long *widths)
{
    cm_error_t err = {0};
    int m = ga_join_pad_mode(mode);
    if (m < 0) {
        ga_api_failf("ga_pad", GA_E_VALUE,
                     "mode \"%s\" is not one of constant, edge, reflect, symmetric, wrap",
                     mode ? mode : "(null)");
        return NULL;
    }
    if (ga_array_check(a, &err))
        return made("ga_pad", NULL, &err);
    int64_t w[2 * GA_MAX_DIMS];
    if (nwidths != 1 && nwidths != 2 && nwidths != 2 * a->ndim) {
        ga_api_failf("ga_pad", GA_E_VALUE,
                     "%d widths for a %d-d array: give 1 (every side), 2 (before, after) or %d "
                     "(before, after of each axis)", nwidths, a->ndim, 2 * a->ndim);
        return NULL;
    }
    for (int k = 0; k < 2 * a->ndim; k++)
        w[k] = nwidths == 1 ? widths[0] : nwidths == 2 ? widths[k % 2] : widths[k];
    return made("ga_pad", ga_join_pad(a, w, (ga_pad_mode_t)m, value, &err), &err);
}

ga_array_t *ga_api_repeat(ga_array_t *a, long long repeats, int axis)
{
    cm_error_t err = {0};
    return made("ga_repeat", ga_join_repeat(a, repeats, axis, &err), &err);
}

ga_array_t *ga_api_tile(ga_array_t *a, int nreps, const long long *reps)
{
    cm_error_t err = {0};
    int64_t r[GA_MAX_DIMS];
    for (int k = 0; k < nreps && k < GA_MAX_DIMS; k++)
        r[k] = reps[k];
    return made("ga_tile", ga_join_tile(a, nreps, r, &err), &err);
}

ga_array_t *ga_api_flip(ga_array_t *a, int axis)
{
    cm_error_t err = {0};
    return made("ga_flip", ga_join_flip(a, axis, &err), &err);
}

ga_array_t *ga_api_roll(ga_array_t *a, long long shift, int axis)
{
    cm_error_t err = {0};
    return made("ga_roll", ga_join_roll(a, shift, axis, &err), &err);
}

/* ---- indexing by data ---- */

ga_array_t *ga_api_take(ga_array_t *a, ga_array_t *idx, int axis)
{
    cm_error_t err = {0};
    return made("ga_take", ga_index_take(a, idx, axis, GA_MODE_RAISE, &err), &err);
}

ga_array_t *ga_api_take_mode(ga_array_t *a, ga_array_t *idx, int axis, const char *mode)
{
    cm_error_t err = {0};
    ga_index_mode_t m;
    ga_array_t *r = ga_index_mode(mode, &m, &err) ? NULL : ga_index_take(a, idx, axis, m, &err);
    return made("ga_take_mode", r, &err);
}

void ga_api_put(ga_array_t *a, ga_array_t *idx, const ga_arg_t *v)
{
    cm_error_t err = {0};
    done("ga_put", ga_index_put(a, idx, v, GA_MODE_RAISE, &err), &err);
}

void ga_api_put_mode(ga_array_t *a, ga_array_t *idx, const ga_arg_t *v, const char *mode)
{
    cm_error_t err = {0};
    ga_index_mode_t m;
    done("ga_put_mode", ga_index_mode(mode, &m, &err) ? -1 : ga_index_put(a, idx, v, m, &err), &err);
}

int ga_api_nonzero(ga_array_t *a, ga_array_t **out)
{
    cm_error_t err = {0};
    if (!out) {
        ga_api_failf("ga_nonzero", GA_E_VALUE, "out is NULL: pass an array of ga_t, one per axis");
        return -1;
    }
    ga_array_t *w = ga_index_argwhere(a, 0, &err);
    if (!w)
        return done("ga_nonzero", -1, &err);
    int nd = (int)w->shape[1];
    for (int k = 0; k < nd; k++) { /* column k, contiguous */
        ga_array_t *col = ga_array_slice(w, 1, k, k + 1, 1, &err);
        int64_t n = w->shape[0];
        ga_array_t *v = col ? ga_array_reshape(col, 1, &n, &err) : NULL;
        ga_array_free(col);
        out[k] = v ? ga_copy_array(v, v->device, &err) : NULL;
        ga_array_free(v);
        if (!out[k]) {
            while (k)
                ga_array_free(out[--k]);
            ga_array_free(w);
            return done("ga_nonzero", -1, &err);
        }
    }
    ga_array_free(w);
    return nd;
}

ga_array_t *ga_api_argwhere(ga_array_t *a)
{
    cm_error_t err = {0};
    return made("ga_argwhere", ga_index_argwhere(a, 0, &err), &err);
}

ga_array_t *ga_api_flatnonzero(ga_array_t *a)
{
    cm_error_t err = {0};
    return made("ga_flatnonzero", ga_index_argwhere(a, 1, &err), &err);
}

ga_array_t *ga_api_mask_select(ga_array_t *a, ga_array_t *mask)
{
    cm_error_t err = {0};
    return made("ga_mask_select", ga_index_mask_select(a, mask, &err), &err);
}

void ga_api_mask_assign(ga_array_t *a, ga_array_t *mask, const ga_arg_t *v)
{
    cm_error_t err = {0};
    done("ga_mask_assign", ga_index_mask_assign(a, mask, v, &err), &err);
}

ga_array_t *ga_api_compress(ga_array_t *cond, ga_array_t *a, int axis)
{
    cm_error_t err = {0};
    return made("ga_compress", ga_index_compress(cond, a, axis, &err), &err);
}

/* ---- sorting and searching ---- */

ga_array_t *ga_api_sort(ga_array_t *a, int axis)
{
    cm_error_t err = {0};
    return made("ga_sort", ga_sort_array(a, axis, 0, &err), &err);
}

ga_array_t *ga_api_argsort(ga_array_t *a, int axis)
{
    cm_error_t err = {0};
    return made("ga_argsort", ga_sort_array(a, axis, 1, &err), &err);
}

/* kth checked against the axis; then a sort (a sorted line is a partition). */
static ga_array_t *partition(const char *fn, ga_array_t *a, long long kth, int axis, int indices)
{
    cm_error_t err = {0};
    if (ga_array_check(a, &err))
        return made(fn, NULL, &err);
    int64_t n = a->size;
    if (axis != GA_AXIS_ALL && axis >= -a->ndim && axis < a->ndim)
        n = a->shape[axis < 0 ? axis + a->ndim : axis];
    if (kth < -n || kth >= n) {
        ga_api_failf(fn, GA_E_SHAPE, "kth %lld is out of bounds for an axis of length %lld", kth,
                     (long long)n);
        return NULL;
    }
    return made(fn, ga_sort_array(a, axis, indices, &err), &err);
}

ga_array_t *ga_api_partition(ga_array_t *a, long long kth, int axis)
{
    return partition("ga_partition", a, kth, axis, 0);
}

ga_array_t *ga_api_argpartition(ga_array_t *a, long long kth, int axis)
{
    return partition("ga_argpartition", a, kth, axis, 1);
}

ga_array_t *ga_api_unique(ga_array_t *a)
{
    cm_error_t err = {0};
    return made("ga_unique", ga_sort_unique(a, NULL, &err), &err);
}

ga_array_t *ga_api_unique_counts(ga_array_t *a, ga_array_t **counts)
{
    cm_error_t err = {0};
    ga_array_t *c = NULL, *u = ga_sort_unique(a, &c, &err);
    if (u && counts)
        *counts = c;
    else
        ga_array_free(c);
    return made("ga_unique_counts", u, &err);
}

ga_array_t *ga_api_searchsorted(ga_array_t *a, ga_array_t *v, const char *side)
{
    cm_error_t err = {0};
    int right = side && !strcmp(side, "right");
    if (!side || (!right && strcmp(side, "left"))) {
        ga_api_failf("ga_searchsorted", GA_E_VALUE, "side must be \"left\" or \"right\", not %s%s%s",
                     side ? "\"" : "", side ? side : "NULL", side ? "\"" : "");
        return NULL;
    }
    return made("ga_searchsorted", ga_sort_searchsorted(a, v, right, &err), &err);
}

ga_array_t *ga_api_histogram(ga_array_t *a, long long bins, double lo, double hi,
                             ga_array_t **edges)
{
    cm_error_t err = {0};
    return made("ga_histogram", ga_sort_histogram(a, bins, lo, hi, edges, &err), &err);
}
