/* ga_fft: numpy.fft through the floor's bk_fft (see ga_fft.h). Complex
 * arrays are handled here as views of their floats, (..., 2) with the
 * complex strides doubled, so that array math (which has no complex
 * dtype) converts, copies and scales them with its ordinary kernels. */
#include "ga_fft.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_api.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_kernel.h"
#include "ga_map.h"

static ga_arg_t arr(ga_array_t *a)
{
    return (ga_arg_t){.kind = GA_ARG_ARRAY, .a = a};
}

static int is_complex(ga_dtype_t d)
{
    return ga_dtype_kind(d) == GA_KIND_COMPLEX;
}

/* The float dtype of a complex one's parts, or a real one itself. */
static ga_dtype_t part(ga_dtype_t d)
{
    return d == GA_C64 ? GA_F32 : d == GA_C128 ? GA_F64 : d;
}

/* The complex array c (any strides) as a view of its floats, (..., 2).
 * NULL with err. */
static ga_array_t *floats(ga_array_t *c, cm_error_t *err)
{
    int64_t shape[GA_MAX_DIMS];
    if (c->ndim == GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "a %d-d complex array: at most %d dimensions here",
                 c->ndim, GA_MAX_DIMS - 1);
        return NULL;
    }
    memcpy(shape, c->shape, (size_t)c->ndim * sizeof *shape);
    shape[c->ndim] = 2;
    ga_array_t *v = ga_array_on(c->buf, part(c->dtype), c->ndim + 1, shape, err);
    if (!v)
        return NULL;
    for (int d = 0; d < c->ndim; d++)
        v->strides[d] = 2 * c->strides[d];
    v->strides[c->ndim] = 1;
    v->offset = 2 * c->offset;
    return v;
}

/* ga_map of expr over args into out; 0 / -1 with err. */
static int map_into(const char *expr, ga_array_t *out, int nargs, ga_arg_t *args,
                    cm_error_t *err)
{
    return out->size == 0 || ga_map_eval(expr, out, nargs, args, err) ? 0 : -1;
}

/* The kernels of real input, each over rows lines of n elements:
 * widen, real a to complex out with imaginary parts 0 in one pass, each
 * complex element one aligned store (CuPy's astype(complex64) before a
 * C2C); mirror, the upper half of each line of out filled from the lower
 * one that an R2C wrote (X[n - j] = conj(X[j]) for real input; a unused). */
static char *kernels_source(void *ctx)
{
    (void)ctx;
    cm_buf_t b = {0};
    cm_buf_adds(&b, "#ifdef __CUDACC__\n#define GA_FFT_CX(T) struct __align__(2 * sizeof(T))\n"
                    "#else\n#define GA_FFT_CX(T) struct\n#endif\n");
    static const char *const types[2][3] = {{"float", "ga_fft_c64", "f32"},
                                            {"double", "ga_fft_c128", "f64"}};
    for (int t = 0; t < 2; t++) {
        const char *real = types[t][0], *cx = types[t][1], *sfx = types[t][2];
        cm_buf_addf(&b, "typedef GA_FFT_CX(%s) { %s re, im; } %s;\n", real, real, cx);
        cm_buf_addf(&b, "GA_KERNEL ga_widen_%s(ga_i64 rows, ga_i64 n, const %s *a, %s *out)\n"
                        "{\n    GA_LOOP(i, rows * n) { %s c; c.re = a[i]; c.im = 0; out[i] = c; }\n}\n",
                    sfx, real, cx, cx);
        cm_buf_addf(&b, "GA_KERNEL ga_mirror_%s(ga_i64 rows, ga_i64 n, const %s *a, %s *out)\n{\n"
                        "    ga_i64 h = n - n / 2 - 1;\n"
                        "    GA_LOOP(q, rows * h) {\n"
                        "        ga_i64 r = q / h, j = n / 2 + 1 + (q - r * h);\n"
                        "        %s c = out[r * n + (n - j)];\n"
                        "        c.im = -c.im;\n        out[r * n + j] = c;\n    }\n}\n",
                    sfx, real, cx, cx);
    }
    return cm_buf_steal(&b);
}

char *ga_fft_kernel_source(void)
{
    return ga_kernel_source(kernels_source, NULL);
}

/* Kernel name ("ga_widen", "ga_mirror") for out's part dtype over rows
 * lines of n, work items in all. 0 / -1 with err. */
static int run_kernel(const char *name, long long rows, long long n, long long work,
                      const ga_array_t *a, ga_array_t *out, cm_error_t *err)
{
    char full[32];
    snprintf(full, sizeof full, "%s_%s", name, part(out->dtype) == GA_F32 ? "f32" : "f64");
    void *fn = ga_kernel_get(out->device, "fft|kernels", full, kernels_source, NULL, err);
    if (!fn)
        return -1;
    void *pa = a ? ga_array_data(a) : NULL, *po = ga_array_data(out);
    if (work == 0)
        return 0;
    if (bk_lang(out->device) == BK_LANG_C) {
        ((void (*)(long long, long long, const void *, void *))fn)(rows, n, pa, po);
        return 0;
    }
    void *args[4] = {&rows, &n, &pa, &po};
    return ga_kernel_launch(out->device, fn, work, args, full, err);
}

/* dst (complex, dense) = src (its part dtype, dense, as many elements)
 * with imaginary parts 0. 1 done, 0 not (another layout or dtype), -1
 * with err. */
static int widen(ga_array_t *dst, ga_array_t *src, cm_error_t *err)
{
    if (src->dtype != part(dst->dtype) || !ga_array_is_contiguous(src) ||
        !ga_array_is_contiguous(dst) || src->size != dst->size)
        return 0;
    return run_kernel("ga_widen", 1, dst->size, dst->size, src, dst, err) == 0 ? 1 : -1;
}

/* The upper halves of r's lines (dense complex (..., n)) from the lower. */
static int mirror(ga_array_t *r, cm_error_t *err)
{
    long long n = r->shape[r->ndim - 1], rows = n ? r->size / n : 0;
    return run_kernel("ga_mirror", rows, n, rows * (n - n / 2 - 1), NULL, r, err);
}

/* src's values into dst of the same shape (dst real: src real; dst
 * complex: src either, a real one giving imaginary parts 0). */
static int fill_into(ga_array_t *dst, ga_array_t *src, cm_error_t *err)
{
    char expr[64];
    ga_dtype_t p = part(dst->dtype);
    int done = is_complex(dst->dtype) && !is_complex(src->dtype) ? widen(dst, src, err) : 0;
    if (done)
        return done > 0 ? 0 : -1;
    if (!is_complex(dst->dtype)) {
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(p));
        ga_arg_t arg = arr(src);
        return map_into(expr, dst, 1, &arg, err);
    }
    int rc = -1;
    ga_array_t *fd = floats(dst, err), *fs = NULL, *k = NULL;
    if (fd && is_complex(src->dtype)) {
        fs = floats(src, err);
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(p));
        ga_arg_t arg = arr(fs);
        rc = fs ? map_into(expr, fd, 1, &arg, err) : -1;
    } else if (fd) { /* (re, im) = (a, 0): a as (..., 1) against k = [0, 1] */
        int64_t shape[GA_MAX_DIMS];
        memcpy(shape, src->shape, (size_t)src->ndim * sizeof *shape);
        shape[src->ndim] = 1;
        fs = ga_array_reshape(src, src->ndim + 1, shape, err);
        k = fs ? ga_create_arange(dst->device, GA_I8, 0, 2, 1, err) : NULL;
        snprintf(expr, sizeof expr, "a, b: where(b == 0, %s(a), 0)", ga_dtype_name(p));
        ga_arg_t args[2] = {arr(fs), arr(k)};
        rc = k ? map_into(expr, fd, 2, args, err) : -1;
    }
    ga_array_free(fd);
    ga_array_free(fs);
    ga_array_free(k);
    return rc;
}

/* The dtypes of a transform of a src array: what the library reads (in)
 * and writes (out). -1 with err. */
static int dtypes(ga_fft_kind_t kind, ga_dtype_t src, ga_dtype_t *in, ga_dtype_t *out,
                  cm_error_t *err)
{
    int single = src == GA_C64 || src == GA_F32 || src == GA_F16;
    ga_dtype_t c = single ? GA_C64 : GA_C128, r = single ? GA_F32 : GA_F64;
    switch (kind) {
    case GA_FFT_FORWARD:
    case GA_FFT_INVERSE: *in = *out = c; break;
    case GA_FFT_REAL:
        if (is_complex(src)) {
            CM_ERROR(err, GA_E_DTYPE, "rfft of %s: the input must be real (use fft for complex "
                     "input)", ga_dtype_name(src));
            return -1;
        }
        *in = r;
        *out = c;
        break;
    case GA_FFT_REAL_INVERSE:
        *in = c;
        *out = r;
        break;
    }
    return 0;
}

/* The factor norm asks for over a transform of size total (the
 * real-side elements), or NAN with err. */
static double scale_of(ga_fft_kind_t kind, const char *norm, double total, cm_error_t *err)
{
    int inverse = kind == GA_FFT_INVERSE || kind == GA_FFT_REAL_INVERSE;
    if (!norm || !strcmp(norm, "backward"))
        return inverse ? 1 / total : 1;
    if (!strcmp(norm, "ortho"))
        return 1 / sqrt(total);
    if (!strcmp(norm, "forward"))
        return inverse ? 1 : 1 / total;
    CM_ERROR(err, GA_E_VALUE, "norm \"%s\": NumPy's are \"backward\" (the default), \"ortho\" "
             "and \"forward\"", norm);
    return NAN;
}

/* Multiplies the dense array r's elements by s in place. */
static int scale_by(ga_array_t *r, double s, cm_error_t *err)
{
    if (s == 1 || r->size == 0)
        return 0;
    ga_array_t *v = is_complex(r->dtype) ? floats(r, err) : r;
    if (!v)
        return -1;
    ga_arg_t args[2] = {arr(v), {.kind = GA_ARG_FLOAT, .f = s}};
    int rc = map_into("a * b", v, 2, args, err);
    if (v != r)
        ga_array_free(v);
    return rc;
}

/* Whether v's last axis and its batch (the axes before, those longer
 * than 1) are the advanced layout of cuFFT and FFTW: the batch axes one
 * uniform run (transform i at i * *dist), every stride positive, and every
 * element's index an int. Then the last axis's stride in *stride; both
 * untouched when not. */
static int strided(const ga_array_t *v, long long *stride, long long *dist)
{
    int last = v->ndim - 1;
    int64_t run = 0, first = 1, step = v->strides[last];
    int64_t span = step * (v->shape[last] - 1);
    for (int d = last - 1; d >= 0; d--) {
        if (v->shape[d] == 1)
            continue;
        if (v->strides[d] <= 0 || (run && v->strides[d] != run))
            return 0;
        if (!run)
            first = v->strides[d];
        run = v->strides[d] * v->shape[d];
        span += v->strides[d] * (v->shape[d] - 1);
    }
    if (step <= 0 || span > 0x7fffffff)
        return 0;
    *stride = step;
    *dist = first;
    return 1;
}

/* One transform of up to 3 axes (axes normalised, distinct). */
static ga_array_t *transform(ga_fft_kind_t kind, ga_array_t *a, int naxes, const int *axes,
                             long long n, const char *norm, cm_error_t *err)
{
    ga_dtype_t in_t = GA_C128, out_t = GA_C128;
    if (dtypes(kind, a->dtype, &in_t, &out_t, err) != 0)
        return NULL;
    /* the transformed axes last, in their order */
    int perm[GA_MAX_DIMS], inv[GA_MAX_DIMS], np = 0;
    for (int d = 0; d < a->ndim; d++) {
        int in = 0;
        for (int k = 0; k < naxes; k++)
            in |= axes[k] == d;
        if (!in)
            perm[np++] = d;
    }
    for (int k = 0; k < naxes; k++)
        perm[np++] = axes[k];
    for (int d = 0; d < a->ndim; d++)
        inv[perm[d]] = d;
    int nd = a->ndim, last = nd - 1;
    ga_array_t *v = ga_array_permute(a, perm, err);
    if (!v)
        return NULL;
    /* the lengths: m the input's last, real the real side's, want the input's */
    int64_t m = v->shape[last], real = m, want = m;
    if (kind == GA_FFT_REAL_INVERSE) {
        real = n > 0 ? n : 2 * (m - 1);
        want = real / 2 + 1;
    } else if (n > 0) {
        real = want = n;
    }
    ga_array_t *w = NULL, *r = NULL;
    int fail = 0;
    if (real < 1) {
        CM_ERROR(err, GA_E_SHAPE, "invalid number of data points (%lld) along axis %d",
                 (long long)real, axes[naxes - 1]);
        fail = 1;
    }
    for (int k = 0; !fail && k < naxes - 1; k++)
        if (v->shape[nd - naxes + k] < 1 || v->shape[nd - naxes + k] > 0x7fffffff) {
            CM_ERROR(err, GA_E_SHAPE, "invalid number of data points (%lld) along axis %d",
                     (long long)v->shape[nd - naxes + k], axes[k]);
            fail = 1;
        }
    if (!fail && real > 0x7fffffff) {
        CM_ERROR(err, GA_E_SHAPE, "%lld data points along an axis: at most 2^31 - 1",
                 (long long)real);
        fail = 1;
    }
    /* one axis that is not dense (a non-last axis): the library reads it
     * in place with strides and writes r0, a dense result in a's order */
    ga_array_t *r0 = NULL;
    long long is = 0, id = 0, os = 0, od = 0;
    if (!fail && naxes == 1 && kind != GA_FFT_REAL_INVERSE && v->dtype == in_t && want == m &&
        !ga_array_is_contiguous(v) && strided(v, &is, &id)) {
        int64_t ashape[GA_MAX_DIMS];
        for (int d = 0; d < nd; d++)
            ashape[perm[d]] = d == last && kind == GA_FFT_REAL ? real / 2 + 1 : v->shape[d];
        r0 = ga_array_new(a->device, out_t, nd, ashape, err);
        r = r0 ? ga_array_permute(r0, perm, err) : NULL;
        fail = !r;
        if (r && !strided(r, &os, &od)) { /* the result's batch axes are apart: copy, as dense */
            ga_array_free(r);
            ga_array_free(r0);
            r = r0 = NULL;
            is = id = 0;
        }
    }
    /* fft of dense real data along the last axis: an R2C into the whole
     * length (a dense layout, odist n), the other half mirrored — half
     * the transform and no widened copy of the input */
    int halves = !fail && !is && kind == GA_FFT_FORWARD && naxes == 1 &&
                 v->dtype == part(in_t) && want == m && ga_array_is_contiguous(v);
    if (halves)
        is = os = 1, id = od = real;
    /* else the input as the library reads it: dense, of in_t, want long */
    int64_t shape[GA_MAX_DIMS];
    memcpy(shape, v->shape, (size_t)nd * sizeof *shape);
    shape[last] = want;
    if (!fail && !is && (kind == GA_FFT_REAL_INVERSE || v->dtype != in_t || want != m ||
                         !ga_array_is_contiguous(v))) {
        int64_t common = want < m ? want : m;
        w = ga_array_new(a->device, in_t, nd, shape, err);
        ga_array_t *dst = w ? ga_array_slice(w, last, 0, common, 1, err) : NULL;
        ga_array_t *src = dst ? ga_array_slice(v, last, 0, common, 1, err) : NULL;
        fail = !src || (want > m && ga_copy_fill(w, 0, err) != 0) ||
               fill_into(dst, src, err) != 0;
        ga_array_free(dst);
        ga_array_free(src);
    }
    const ga_array_t *input = w ? w : v;
    /* the output and the transform */
    shape[last] = kind == GA_FFT_REAL ? real / 2 + 1 : real;
    if (!r && !fail)
        r = ga_array_new(a->device, out_t, nd, shape, err);
    if (r) {
        cm_fft_t f = {.kind = kind == GA_FFT_REAL || halves ? CM_FFT_R2C
                              : kind == GA_FFT_REAL_INVERSE ? CM_FFT_C2R : CM_FFT_C2C,
                      .type = part(out_t) == GA_F64 ? CM_LA_F64 : CM_LA_F32,
                      .inverse = kind == GA_FFT_INVERSE, .rank = naxes, .batch = 1,
                      .in = ga_array_data(input), .out = ga_array_data(r),
                      .istride = is, .idist = id, .ostride = os, .odist = od};
        double total = 1;
        for (int k = 0; k < naxes; k++) {
            f.n[k] = (int)(k == naxes - 1 ? real : v->shape[nd - naxes + k]);
            total *= f.n[k];
        }
        for (int d = 0; d < nd - naxes; d++)
            f.batch *= v->shape[d];
        double s = scale_of(kind, norm, total, err);
        cm_error_t e = {0};
        if (isnan(s))
            fail = 1;
        else if (f.batch > 0 && bk_fft(a->device, &f, &e) != 0) {
            CM_ERROR(err, e.code == BK_E_MEMORY ? GA_E_MEMORY : GA_E_DEVICE, "%s", e.text);
            fail = 1;
        }
        fail = fail || (halves && mirror(r, err) != 0) || scale_by(r0 ? r0 : r, s, err) != 0;
    }
    ga_array_t *result = NULL;
    if (r && !fail)
        result = ga_array_permute(r, inv, err);
    ga_array_free(r);
    ga_array_free(r0);
    ga_array_free(w);
    ga_array_free(v);
    return result;
}

ga_array_t *ga_fft_run(ga_fft_kind_t kind, ga_array_t *a, int naxes, const int *axes,
                       long long n, const char *norm, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return NULL;
    int ax[GA_MAX_DIMS];
    if (naxes < 1 || naxes > a->ndim) {
        CM_ERROR(err, GA_E_SHAPE, "%d axes of a %d-d array", naxes, a->ndim);
        return NULL;
    }
    for (int k = 0; k < naxes; k++) {
        ax[k] = axes[k] < 0 ? axes[k] + a->ndim : axes[k];
        int again = 0;
        for (int j = 0; j < k; j++)
            again |= ax[j] == ax[k];
        if (ax[k] < 0 || ax[k] >= a->ndim || again) {
            CM_ERROR(err, GA_E_SHAPE, "axis %d is %s for a %d-d array", axes[k],
                     again ? "repeated" : "out of range", a->ndim);
            return NULL;
        }
    }
    if (naxes <= 3)
        return transform(kind, a, naxes, ax, n, norm, err);
    /* the last three axes in one transform, the others in another: a real
     * transform's real axis is the last (forward first, inverse last) */
    int rest = naxes - 3;
    ga_array_t *mid, *r;
    if (kind == GA_FFT_REAL_INVERSE) {
        mid = transform(GA_FFT_INVERSE, a, rest, ax, 0, norm, err);
        r = mid ? ga_fft_run(kind, mid, 3, ax + rest, n, norm, err) : NULL;
    } else {
        mid = transform(kind, a, 3, ax + rest, n, norm, err);
        ga_fft_kind_t then = kind == GA_FFT_REAL ? GA_FFT_FORWARD : kind;
        r = mid ? ga_fft_run(then, mid, rest, ax, 0, norm, err) : NULL;
    }
    ga_array_free(mid);
    return r;
}

/* ---- what cells call ------------------------------------------------------- */

static ga_array_t *one_axis(const char *fn, ga_fft_kind_t kind, ga_array_t *a, long long n,
                            int axis, const char *norm)
{
    cm_error_t err = {0};
    ga_array_t *r = ga_fft_run(kind, a, 1, &axis, n, norm, &err);
    if (!r)
        ga_api_fail(fn, &err);
    return r;
}

/* The last two axes (two) or all of them. */
static ga_array_t *many_axes(const char *fn, ga_fft_kind_t kind, ga_array_t *a, int two,
                             const char *norm)
{
    cm_error_t err = {0};
    int axes[GA_MAX_DIMS] = {-2, -1};
    int naxes = 2;
    if (!two && ga_array_check(a, &err) == 0) {
        naxes = a->ndim;
        for (int d = 0; d < naxes; d++)
            axes[d] = d;
    }
    ga_array_t *r = err.code ? NULL : ga_fft_run(kind, a, naxes, axes, 0, norm, &err);
    if (!r)
        ga_api_fail(fn, &err);
    return r;
}

ga_array_t *ga_api_fft(ga_array_t *a, long long n, int axis, const char *norm)
{
    return one_axis("ga_fft", GA_FFT_FORWARD, a, n, axis, norm);
}

ga_array_t *ga_api_ifft(ga_array_t *a, long long n, int axis, const char *norm)
{
    return one_axis("ga_ifft", GA_FFT_INVERSE, a, n, axis, norm);
}

ga_array_t *ga_api_rfft(ga_array_t *a, long long n, int axis, const char *norm)
{
    return one_axis("ga_rfft", GA_FFT_REAL, a, n, axis, norm);
}

ga_array_t *ga_api_irfft(ga_array_t *a, long long n, int axis, const char *norm)
{
    return one_axis("ga_irfft", GA_FFT_REAL_INVERSE, a, n, axis, norm);
}

ga_array_t *ga_api_fft2(ga_array_t *a, const char *norm)
{
    return many_axes("ga_fft2", GA_FFT_FORWARD, a, 1, norm);
}

ga_array_t *ga_api_ifft2(ga_array_t *a, const char *norm)
{
    return many_axes("ga_ifft2", GA_FFT_INVERSE, a, 1, norm);
}

ga_array_t *ga_api_rfft2(ga_array_t *a, const char *norm)
{
    return many_axes("ga_rfft2", GA_FFT_REAL, a, 1, norm);
}

ga_array_t *ga_api_irfft2(ga_array_t *a, const char *norm)
{
    return many_axes("ga_irfft2", GA_FFT_REAL_INVERSE, a, 1, norm);
}

ga_array_t *ga_api_fftn(ga_array_t *a, const char *norm)
{
    return many_axes("ga_fftn", GA_FFT_FORWARD, a, 0, norm);
}

ga_array_t *ga_api_ifftn(ga_array_t *a, const char *norm)
{
    return many_axes("ga_ifftn", GA_FFT_INVERSE, a, 0, norm);
}

ga_array_t *ga_api_rfftn(ga_array_t *a, const char *norm)
{
    return many_axes("ga_rfftn", GA_FFT_REAL, a, 0, norm);
}

ga_array_t *ga_api_irfftn(ga_array_t *a, const char *norm)
{
    return many_axes("ga_irfftn", GA_FFT_REAL_INVERSE, a, 0, norm);
}
