/* ga_sort: sort, argsort, partition, unique, searchsorted, histogram (see
 * ga_sort.h). */
#include "ga_sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_eval.h"
#include "ga_expr.h"
#include "ga_index.h"
#include "ga_join.h"
#include "ga_kernel.h"

#define TILE_THREADS 256
#define TILE 1024 /* a GPU block's tile: 4 elements a thread */
#define RUN 16    /* the CPU's insertion-sorted runs */

typedef struct plan {
    ga_dtype_t d;
    int idx; /* argsort: indices move with the keys */
    int gpu;
} plan_t;

/* NumPy's order: NaN after everything, then by value. */
static void order(cm_buf_t *b, ga_dtype_t d)
{
    cm_buf_addf(b, "typedef %s ga_k;\n", ga_expr_stype(d));
    char k = ga_dtype_kind(d);
    if (k != GA_KIND_FLOAT) {
        cm_buf_adds(b, "GA_FN int ga_lt(ga_k a, ga_k b) { return a < b; }\n"
                       "GA_FN double ga_val(ga_k a) { return (double)a; }\n");
        return;
    }
    if (d == GA_F16)
        cm_buf_adds(b, "GA_FN int ga_lt(ga_k p, ga_k q) { float a = ga_h2f(p), b = ga_h2f(q);"
                       " return a < b || (b != b && a == a); }\n"
                       "GA_FN double ga_val(ga_k a) { return (double)ga_h2f(a); }\n");
    else
        cm_buf_adds(b, "GA_FN int ga_lt(ga_k a, ga_k b) { return a < b || (b != b && a == a); }\n"
                       "GA_FN double ga_val(ga_k a) { return (double)a; }\n");
}

/* Searching a sorted run, and an element's place in the merge of its run
 * pair: both languages. */
static const char searching[] =
    /* how many of s[0, n) are below x / at most x */
    "GA_FN ga_i64 ga_lower(const ga_k *s, ga_i64 n, ga_k x)\n{\n"
    "    ga_i64 lo = 0, hi = n;\n"
    "    while (lo < hi) { ga_i64 mid = (lo + hi) >> 1; if (ga_lt(s[mid], x)) lo = mid + 1; else hi = mid; }\n"
    "    return lo;\n}\n"
    "GA_FN ga_i64 ga_upper(const ga_k *s, ga_i64 n, ga_k x)\n{\n"
    "    ga_i64 lo = 0, hi = n;\n"
    "    while (lo < hi) { ga_i64 mid = (lo + hi) >> 1; if (!ga_lt(x, s[mid])) lo = mid + 1; else hi = mid; }\n"
    "    return lo;\n}\n"
    /* element p of a line of n: its place once the runs of width w pair up
     * (the left run's elements before the right's equal ones: stable) */
    "GA_FN ga_i64 ga_dest(const ga_k *s, ga_i64 n, ga_i64 w, ga_i64 p)\n{\n"
    "    ga_i64 base = p - p % (2 * w), mid = base + w < n ? base + w : n;\n"
    "    ga_i64 end = base + 2 * w < n ? base + 2 * w : n;\n"
    "    if (p < mid) return p + ga_lower(s + mid, end - mid, s[p]);\n"
    "    return base + (p - mid) + ga_upper(s + base, mid - base, s[p]);\n}\n"
    "GA_KERNEL ga_searchsorted(ga_i64 n, const ga_k *a, ga_i64 m, const ga_k *v, ga_i64 *out, int right)\n{\n"
    "    GA_LOOP(q, m) out[q] = right ? ga_upper(a, n, v[q]) : ga_lower(a, n, v[q]);\n}\n"
    /* bins over [edges[0], edges[bins]], as NumPy finds them: scaled, then
     * moved by one where the edges say otherwise */
    "GA_KERNEL ga_histogram(ga_i64 n, const ga_k *a, ga_i64 bins, const double *edges, ga_u64 *counts)\n{\n"
    "    double lo = edges[0], hi = edges[bins];\n"
    "    GA_LOOP(q, n) {\n"
    "        double x = ga_val(a[q]);\n"
    "        if (!(x >= lo && x <= hi)) continue;\n"
    "        ga_i64 i = (ga_i64)((x - lo) / (hi - lo) * (double)bins);\n"
    "        if (i >= bins) i = bins - 1;\n        if (i < 0) i = 0;\n"
    "        if (i > 0 && x < edges[i]) i--;\n"
    "        else if (i < bins - 1 && x >= edges[i + 1]) i++;\n"
    "#ifdef __CUDACC__\n        atomicAdd((unsigned long long *)&counts[i], 1ULL);\n"
    "#else\n        counts[i]++;\n#endif\n    }\n}\n";

static void cpu_source(cm_buf_t *b)
{
    cm_buf_addf(b, "#define RUN %d\n", RUN);
    cm_buf_adds(b,
        /* each line of m: runs of RUN by insertion, then merges into tk/ti and back */
        "void ga_sort_lines(ga_i64 lines, ga_i64 m, ga_k *keys, ga_i64 *ix, ga_k *tk, ga_i64 *ti)\n{\n"
        "    for (ga_i64 l = 0; l < lines; l++) {\n"
        "        ga_k *a = keys + l * m, *b = tk + l * m;\n"
        "        ga_i64 *ia = GA_IDX ? ix + l * m : 0, *ib = GA_IDX ? ti + l * m : 0;\n"
        "        if (GA_IDX) for (ga_i64 p = 0; p < m; p++) ia[p] = p;\n"
        "        for (ga_i64 lo = 0; lo < m; lo += RUN) {\n"
        "            ga_i64 hi = lo + RUN < m ? lo + RUN : m;\n"
        "            for (ga_i64 p = lo + 1; p < hi; p++) {\n"
        "                ga_k x = a[p]; ga_i64 xi = GA_IDX ? ia[p] : 0, q = p;\n"
        "                while (q > lo && ga_lt(x, a[q - 1])) { a[q] = a[q - 1]; if (GA_IDX) ia[q] = ia[q - 1]; q--; }\n"
        "                a[q] = x; if (GA_IDX) ia[q] = xi;\n            }\n        }\n"
        "        for (ga_i64 w = RUN; w < m; w *= 2) {\n"
        "            for (ga_i64 lo = 0; lo < m; lo += 2 * w) {\n"
        "                ga_i64 mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;\n"
        "                ga_i64 i = lo, j = mid, o = lo;\n"
        "                while (i < mid && j < hi) {\n"
        "                    if (ga_lt(a[j], a[i])) { b[o] = a[j]; if (GA_IDX) ib[o] = ia[j]; j++; }\n"
        "                    else { b[o] = a[i]; if (GA_IDX) ib[o] = ia[i]; i++; }\n"
        "                    o++;\n                }\n"
        "                for (; i < mid; i++, o++) { b[o] = a[i]; if (GA_IDX) ib[o] = ia[i]; }\n"
        "                for (; j < hi; j++, o++) { b[o] = a[j]; if (GA_IDX) ib[o] = ia[j]; }\n"
        "            }\n"
        "            ga_k *t = a; a = b; b = t;\n            ga_i64 *u = ia; ia = ib; ib = u;\n"
        "        }\n"
        "        if (a != keys + l * m) {\n"
        "            memcpy(keys + l * m, a, (size_t)m * sizeof *a);\n"
        "            if (GA_IDX) memcpy(ix + l * m, ia, (size_t)m * sizeof *ia);\n        }\n"
        "    }\n}\n");
}

static void gpu_source(cm_buf_t *b)
{
    cm_buf_addf(b, "#define TT %d\n#define TILE %d\n", TILE_THREADS, TILE);
    cm_buf_adds(b,
        /* one block: the tile `blockIdx.x % tiles` of line `blockIdx.x / tiles`, in shared memory */
        "extern \"C\" __global__ void ga_tile_sort(ga_i64 m, ga_i64 tiles, ga_k *keys, ga_i64 *ix)\n{\n"
        "    __shared__ ga_k sk[2][TILE];\n"
        "#if GA_IDX\n    __shared__ ga_i64 si[2][TILE];\n#endif\n"
        "    ga_i64 line = blockIdx.x / tiles, start = (blockIdx.x % tiles) * (ga_i64)TILE;\n"
        "    int n = m - start < TILE ? (int)(m - start) : TILE;\n"
        "    ga_k *src = keys + line * m + start;\n"
        "    for (int e = threadIdx.x; e < n; e += TT) {\n        sk[0][e] = src[e];\n"
        "#if GA_IDX\n        si[0][e] = start + e;\n#endif\n    }\n"
        "    __syncthreads();\n    int cur = 0;\n"
        "    for (int w = 1; w < n; w *= 2) {\n"
        "        for (int e = threadIdx.x; e < n; e += TT) {\n"
        "            ga_i64 d = ga_dest(sk[cur], n, w, e);\n            sk[cur ^ 1][d] = sk[cur][e];\n"
        "#if GA_IDX\n            si[cur ^ 1][d] = si[cur][e];\n#endif\n        }\n"
        "        __syncthreads();\n        cur ^= 1;\n    }\n"
        "    for (int e = threadIdx.x; e < n; e += TT) {\n        src[e] = sk[cur][e];\n"
        "#if GA_IDX\n        ix[line * m + start + e] = si[cur][e];\n#endif\n    }\n}\n"
        /* one pass: runs of w merged pairwise, from (ki, ii) into (ko, io) */
        "extern \"C\" __global__ void ga_merge_pass(ga_i64 lines, ga_i64 m, ga_i64 w, const ga_k *ki,\n"
        "        const ga_i64 *ii, ga_k *ko, ga_i64 *io)\n{\n"
        "    GA_LOOP(q, lines * m) {\n"
        "        ga_i64 l = q / m, p = q - l * m;\n"
        "        ga_i64 d = l * m + ga_dest(ki + l * m, m, w, p);\n"
        "        ko[d] = ki[q];\n"
        "#if GA_IDX\n        io[d] = ii[q];\n#endif\n    }\n}\n");
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "/* sorting %s%s */\n#define GA_IDX %d\n", ga_dtype_name(p->d),
                p->idx ? " with indices" : "", p->idx);
    order(&b, p->d);
    cm_buf_adds(&b, searching);
    if (p->gpu)
        gpu_source(&b);
    else
        cpu_source(&b);
    return cm_buf_steal(&b);
}

char *ga_sort_source(ga_dtype_t d, int indices, int gpu)
{
    plan_t p = {d, indices != 0, gpu != 0};
    return ga_kernel_source(make_source, &p);
}

static void *kernel(ga_dtype_t d, int idx, int device, const char *name, cm_error_t *err)
{
    plan_t p = {d, idx, bk_lang(device) == BK_LANG_CUDA};
    char sig[32];
    snprintf(sig, sizeof sig, "sort|%d|%d", (int)d, idx);
    return ga_kernel_get(device, sig, name, make_source, &p, err);
}

static int sortable(const ga_array_t *a, cm_error_t *err)
{
    if (ga_dtype_kind(a->dtype) != GA_KIND_COMPLEX)
        return 0;
    CM_ERROR(err, GA_E_DTYPE, "sorting %s is not supported", ga_dtype_name(a->dtype));
    return -1;
}

/* Sorts each of `lines` lines of m of *keys (contiguous; with *ix, an
 * int64 array of its shape, when indices are wanted); a GPU may leave the
 * answer in new arrays, put in their place. */
static int sort_lines(ga_array_t **keys, ga_array_t **ix, int64_t lines, int64_t m, cm_error_t *err)
{
    ga_array_t *k = *keys, *i = ix ? *ix : NULL;
    int dev = k->device, idx = i != NULL;
    if (!k->size || m < 2) {
        if (i) { /* every line's index is 0 */
            return ga_copy_fill(i, 0, err);
        }
        return 0;
    }
    ga_array_t *tk = ga_array_new(dev, k->dtype, k->ndim, k->shape, err);
    ga_array_t *ti = idx && tk ? ga_array_new(dev, GA_I64, k->ndim, k->shape, err) : NULL;
    if (!tk || (idx && !ti)) {
        ga_array_free(tk);
        return -1;
    }
    void *pk = ga_array_data(k), *pi = i ? ga_array_data(i) : NULL;
    void *ptk = ga_array_data(tk), *pti = ti ? ga_array_data(ti) : NULL;
    long long nl = lines, nm = m;
    int rc = -1;
    if (bk_lang(dev) == BK_LANG_C) {
        void *fn = kernel(k->dtype, idx, dev, "ga_sort_lines", err);
        if (fn) {
            ((void (*)(long long, long long, void *, void *, void *, void *))fn)(nl, nm, pk, pi, ptk, pti);
            rc = 0;
        }
        goto done;
    }
    void *tile_fn = kernel(k->dtype, idx, dev, "ga_tile_sort", err);
    void *merge_fn = tile_fn ? kernel(k->dtype, idx, dev, "ga_merge_pass", err) : NULL;
    if (!merge_fn)
        goto done;
    long long tiles = (m + TILE - 1) / TILE;
    unsigned grid[3] = {(unsigned)(lines * tiles), 1, 1}, block[3] = {TILE_THREADS, 1, 1};
    void *a1[4] = {&nm, &tiles, &pk, &pi};
    rc = ga_kernel_launch_grid(dev, tile_fn, grid, block, 0, a1, "ga_sort", err);
    for (long long w = TILE; rc == 0 && w < m; w *= 2) {
        void *a2[7] = {&nl, &nm, &w, &pk, &pi, &ptk, &pti};
        rc = ga_kernel_launch(dev, merge_fn, lines * m, a2, "ga_sort", err);
        void *t = pk; pk = ptk; ptk = t;
        t = pi; pi = pti; pti = t;
    }
    if (rc == 0 && pk != ga_array_data(k)) { /* the answer is in the temporaries */
        ga_array_t *t = k; k = tk; tk = t;
        t = i; i = ti; ti = t;
        *keys = k;
        if (ix)
            *ix = i;
    }
done:
    ga_array_free(tk);
    ga_array_free(ti);
    return rc;
}

ga_array_t *ga_sort(ga_array_t *a, int axis, int indices, cm_error_t *err)
{
    if (ga_array_check(a, err) || sortable(a, err))
        return NULL;
    int nd = a->ndim, ax = nd - 1, perm[GA_MAX_DIMS];
    ga_array_t *v = NULL, *k = NULL, *ix = NULL, *r = NULL;
    if (axis == GA_AXIS_ALL) {
        int64_t n = a->size;
        ga_array_t *c = ga_array_is_contiguous(a) ? NULL : ga_copy_array(a, a->device, err);
        if (!ga_array_is_contiguous(a) && !c)
            return NULL;
        v = ga_array_reshape(c ? c : a, 1, &n, err);
        ga_array_free(c);
        nd = 1, ax = 0;
    } else if (axis < -nd || axis >= nd) {
        CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for a %d-d array", axis, nd);
        return NULL;
    } else {
        ax = axis < 0 ? axis + nd : axis;
        for (int j = 0, q = 0; j < nd; j++) /* the axis last */
            if (j != ax)
                perm[q++] = j;
        perm[nd - 1] = ax;
        v = ga_array_permute(a, perm, err);
    }
    if (!v)
        return NULL;
    k = ga_copy_array(v, v->device, err);
    ga_array_free(v);
    if (!k)
        return NULL;
    int64_t m = nd ? k->shape[nd - 1] : 1, lines = m ? k->size / m : 0;
    if (indices && !(ix = ga_array_new(k->device, GA_I64, k->ndim, k->shape, err)))
        goto done;
    if (sort_lines(&k, indices ? &ix : NULL, lines, m, err))
        goto done;
    r = indices ? ix : k;
    if (indices)
        ix = NULL; /* r holds it */
    else
        k = NULL;
    if (axis != GA_AXIS_ALL && ax != nd - 1) { /* back to a's axes, C order */
        int inv[GA_MAX_DIMS];
        for (int j = 0; j < nd; j++)
            inv[perm[j]] = j;
        ga_array_t *back = ga_array_permute(r, inv, err);
        ga_array_t *c = back ? ga_copy_array(back, back->device, err) : NULL;
        ga_array_free(back);
        ga_array_free(r);
        r = c;
    }
done:
    ga_array_free(k);
    ga_array_free(ix);
    return r;
}

/* a and b cast to one dtype (promoted), contiguous: new arrays. */
static int common(ga_array_t *a, ga_array_t *b, ga_array_t **ca, ga_array_t **cb, cm_error_t *err)
{
    ga_dtype_t d = ga_dtype_promote(a->dtype, b->dtype);
    char expr[32];
    snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(d));
    ga_arg_t x = {.kind = GA_ARG_ARRAY, .a = a}, y = {.kind = GA_ARG_ARRAY, .a = b};
    *ca = ga_eval(expr, NULL, 1, &x, err);
    *cb = *ca ? ga_eval(expr, NULL, 1, &y, err) : NULL;
    if (*cb)
        return 0;
    ga_array_free(*ca);
    return -1;
}

ga_array_t *ga_sort_searchsorted(ga_array_t *a, ga_array_t *v, int right, cm_error_t *err)
{
    if (ga_array_check(a, err) || ga_array_check(v, err) || sortable(a, err) || sortable(v, err))
        return NULL;
    if (a->ndim != 1) {
        CM_ERROR(err, GA_E_SHAPE, "the sorted array must be 1-d, not %d-d", a->ndim);
        return NULL;
    }
    if (a->device != v->device) {
        CM_ERROR(err, GA_E_DEVICE, "the values are on another device than the sorted array");
        return NULL;
    }
    ga_array_t *ca, *cv;
    if (common(a, v, &ca, &cv, err))
        return NULL;
    ga_array_t *out = ga_array_new(v->device, GA_I64, v->ndim, v->shape, err);
    long long n = ca->size, m = cv->size;
    void *fn = out && m ? kernel(ca->dtype, 0, ca->device, "ga_searchsorted", err) : NULL;
    if (fn) {
        void *pa = ga_array_data(ca), *pv = ga_array_data(cv), *po = ga_array_data(out);
        int rc = 0;
        if (bk_lang(ca->device) == BK_LANG_C)
            ((void (*)(long long, const void *, long long, const void *, void *, int))fn)(n, pa, m, pv,
                                                                                        po, right);
        else {
            void *args[6] = {&n, &pa, &m, &pv, &po, &right};
            rc = ga_kernel_launch(ca->device, fn, m, args, "ga_searchsorted", err);
        }
        if (rc) {
            ga_array_free(out);
            out = NULL;
        }
    } else if (out && m) {
        ga_array_free(out);
        out = NULL;
    }
    ga_array_free(ca);
    ga_array_free(cv);
    return out;
}

/* The value of the reduction expr over a, as a double (NaN on error). */
static double reduce_value(const char *expr, ga_array_t *a, cm_error_t *err)
{
    ga_arg_t x = {.kind = GA_ARG_ARRAY, .a = a};
    ga_array_t *r = ga_eval(expr, NULL, 1, &x, err);
    double v = NAN;
    if (r)
        ga_copy_scalar(r, &v, err);
    ga_array_free(r);
    return v;
}

ga_array_t *ga_sort_histogram(ga_array_t *a, int64_t bins, double lo, double hi,
                              ga_array_t **edges, cm_error_t *err)
{
    if (edges)
        *edges = NULL;
    if (ga_array_check(a, err) || sortable(a, err))
        return NULL;
    if (bins < 1 || bins > (1LL << 30)) {
        CM_ERROR(err, GA_E_VALUE, "bins must be in [1, 2^30], not %lld", (long long)bins);
        return NULL;
    }
    if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi)) {
        CM_ERROR(err, GA_E_VALUE, "the range [%g, %g] is not a finite range with lo <= hi", lo, hi);
        return NULL;
    }
    if (lo == hi && a->size) { /* the data's range (NaNs left out, as the counts do) */
        lo = reduce_value("min(where(a == a, float64(a), 1e308))", a, err);
        hi = reduce_value("max(where(a == a, float64(a), -1e308))", a, err);
        if (err->code)
            return NULL;
        if (!isfinite(lo) || !isfinite(hi) || !(lo <= hi)) {
            CM_ERROR(err, GA_E_VALUE, "the range of the data is not finite: give lo and hi");
            return NULL;
        }
    }
    if (lo == hi)
        lo -= 0.5, hi += 0.5;
    /* the edges as NumPy's linspace makes them, in NumPy's dtype (float32
     * data: float32; float16: float16; else float64) */
    ga_dtype_t ed = a->dtype == GA_F32 || a->dtype == GA_F16 ? a->dtype : GA_F64;
    double *e = malloc((size_t)(bins + 1) * sizeof *e);
    if (!e) {
        CM_ERROR(err, GA_E_MEMORY, "no host memory for %lld edges", (long long)bins + 1);
        return NULL;
    }
    double step = (hi - lo) / (double)bins;
    for (int64_t i = 0; i <= bins; i++)
        e[i] = i == bins ? hi : lo + (double)i * step;
    if (ed != GA_F64)
        for (int64_t i = 0; i <= bins; i++)
            e[i] = ed == GA_F32 ? (double)(float)e[i] : (double)(_Float16)e[i];
    int64_t ne = bins + 1;
    ga_array_t *de = ga_create_from_host(a->device, GA_F64, 1, &ne, e, err);
    free(e);
    ga_array_t *src = de ? ga_copy_array(a, a->device, err) : NULL;
    ga_array_t *counts = src ? ga_create_full(a->device, GA_I64, 1, &bins, 0, err) : NULL;
    void *fn = counts && src->size ? kernel(a->dtype, 0, a->device, "ga_histogram", err) : NULL;
    int rc = counts ? 0 : -1;
    if (fn) {
        long long n = src->size, nb = bins;
        void *ps = ga_array_data(src), *pe = ga_array_data(de), *pc = ga_array_data(counts);
        if (bk_lang(a->device) == BK_LANG_C)
            ((void (*)(long long, const void *, long long, const void *, void *))fn)(n, ps, nb, pe, pc);
        else {
            void *args[5] = {&n, &ps, &nb, &pe, &pc};
            rc = ga_kernel_launch(a->device, fn, n, args, "ga_histogram", err);
        }
    } else if (counts && src->size) {
        rc = -1;
    }
    if (rc == 0 && edges) {
        char expr[32];
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(ed));
        ga_arg_t x = {.kind = GA_ARG_ARRAY, .a = de};
        if (!(*edges = ga_eval(expr, NULL, 1, &x, err)))
            rc = -1;
    }
    ga_array_free(src);
    ga_array_free(de);
    if (rc) {
        ga_array_free(counts);
        return NULL;
    }
    return counts;
}

/* x[lo:hi] of a 1-d array: a view. */
static ga_array_t *range_of(ga_array_t *x, int64_t lo, int64_t hi, cm_error_t *err)
{
    return ga_array_slice(x, 0, lo, hi, 1, err);
}

ga_array_t *ga_sort_unique(ga_array_t *a, ga_array_t **counts, cm_error_t *err)
{
    if (counts)
        *counts = NULL;
    ga_array_t *s = ga_sort(a, GA_AXIS_ALL, 0, err);
    if (!s)
        return NULL;
    int64_t n = s->size;
    ga_array_t *first = NULL, *idx = NULL, *u = NULL, *ends = NULL, *c = NULL;
    /* first[i]: s[i] starts a new value (NaNs are one value, as NumPy 2's) */
    if (!(first = ga_array_new(s->device, GA_BOOL, 1, &n, err)))
        goto done;
    if (n) {
        ga_array_t *f0 = range_of(first, 0, 1, err);
        int rc = f0 ? ga_copy_fill(f0, 1, err) : -1;
        ga_array_free(f0);
        if (rc)
            goto done;
    }
    if (n > 1) {
        ga_array_t *rest = range_of(first, 1, n, err), *x = range_of(s, 1, n, err),
                   *y = range_of(s, 0, n - 1, err);
        ga_arg_t args[2] = {{.kind = GA_ARG_ARRAY, .a = x}, {.kind = GA_ARG_ARRAY, .a = y}};
        ga_array_t *r = rest && x && y ? ga_eval("x, y: x != y && !(isnan(x) && isnan(y))", rest, 2,
                                                 args, err)
                                       : NULL;
        ga_array_free(rest);
        ga_array_free(x);
        ga_array_free(y);
        if (!r)
            goto done;
    }
    if (!(idx = ga_index_argwhere(first, 1, err)) || !(u = ga_index_take(s, idx, 0, err)))
        goto done;
    if (counts) { /* the next start (n after the last) minus each start */
        int64_t k = idx->size, k1 = k + 1;
        if (!(ends = ga_array_new(s->device, GA_I64, 1, &k1, err)))
            goto done;
        ga_array_t *head = range_of(ends, 0, k, err), *tail = range_of(ends, k, k1, err);
        int rc = head && tail ? ga_join_copy_into(head, idx, err) : -1;
        if (rc == 0)
            rc = ga_copy_fill(tail, (double)n, err);
        ga_array_free(head);
        ga_array_free(tail);
        ga_array_t *x = rc ? NULL : range_of(ends, 1, k1, err), *y = rc ? NULL : range_of(ends, 0, k, err);
        ga_arg_t args[2] = {{.kind = GA_ARG_ARRAY, .a = x}, {.kind = GA_ARG_ARRAY, .a = y}};
        c = x && y ? ga_eval("x, y: x - y", NULL, 2, args, err) : NULL;
        ga_array_free(x);
        ga_array_free(y);
        if (!c) {
            ga_array_free(u);
            u = NULL;
            goto done;
        }
        *counts = c;
    }
done:
    ga_array_free(ends);
    ga_array_free(idx);
    ga_array_free(first);
    ga_array_free(s);
    return u;
}
