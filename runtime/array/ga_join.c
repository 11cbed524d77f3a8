/* ga_join: concatenate, stack, split, pad, repeat, tile, flip, roll (see
 * ga_join.h). */
#include "ga_join.h"

#include <stdio.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_eval.h"
#include "ga_expr.h"
#include "ga_kernel.h"

/* The flat roll in C: out[i] = a[(i - s) mod n], s in [0, n). */
static char *roll_source(void *ctx)
{
    int es = *(const int *)ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "typedef %s ga_e;\n", ga_kernel_bits(es));
    cm_buf_adds(&b,
        "GA_KERNEL ga_roll(ga_i64 n, ga_i64 s, const ga_e *a, ga_e *out)\n{\n"
        "    for (ga_i64 i = 0; i < n; i++) out[i] = a[i < s ? i + n - s : i - s];\n}\n");
    return cm_buf_steal(&b);
}

/* out = a contiguous a rolled by s of its n elements: 0 / -1 with err. A
 * device's memory: its two parts by two device copies, each at the
 * memory's copy speed whatever their alignment (a kernel indexing
 * (i - s) mod n reached 0.94x of CuPy's roll on an H200, one that moved
 * aligned vectors through shared memory 0.85x); C: one loop. */
static int roll_flat(ga_array_t *out, ga_array_t *a, int64_t s, cm_error_t *err)
{
    int es = (int)ga_dtype_size(a->dtype);
    long long n = a->size, ss = s;
    char *pa = ga_array_data(a), *po = ga_array_data(out);
    if (bk_lang(a->device) != BK_LANG_C)
        return bk_mem_copy(a->device, po + s * es, pa, (size_t)(n - s) * es, err) ||
                       (s && bk_mem_copy(a->device, po, pa + (n - s) * es, (size_t)s * es, err))
                   ? -1 : 0;
    char sig[32];
    snprintf(sig, sizeof sig, "roll|%d", es);
    void *fn = ga_kernel_get(a->device, sig, "ga_roll", roll_source, &es, err);
    if (!fn)
        return -1;
    ((void (*)(long long, long long, const void *, void *))fn)(n, ss, pa, po);
    return 0;
}

/* src seen with dst's shape (NumPy's broadcast_to: leading axes added,
 * axes of length 1 at stride 0): a view, or NULL with err. */
static ga_array_t *broadcast_to(ga_array_t *src, const ga_array_t *dst, cm_error_t *err)
{
    int nd = dst->ndim, lead = nd - src->ndim;
    int64_t shape[GA_MAX_DIMS] = {0};
    for (int k = 0; k < nd; k++)
        shape[k] = k < lead ? 1 : src->shape[k - lead];
    ga_array_t *v = lead >= 0 ? ga_array_reshape(src, nd, shape, err) : NULL;
    for (int k = 0; v && k < nd; k++) {
        if (v->shape[k] == dst->shape[k])
            continue;
        if (v->shape[k] != 1) {
            ga_array_free(v);
            v = NULL;
            break;
        }
        v->shape[k] = dst->shape[k];
        v->strides[k] = 0;
    }
    if (!v) {
        char s0[96], s1[96];
        ga_shape_text(src->ndim, src->shape, s0, sizeof s0);
        ga_shape_text(dst->ndim, dst->shape, s1, sizeof s1);
        CM_ERROR(err, GA_E_SHAPE, "shape %s does not broadcast to %s", s0, s1);
        return NULL;
    }
    v->size = dst->size;
    return v;
}

/* A complex array seen as its bits: a view of uint64 with one more axis
 * of the 1 (complex64) or 2 (complex128) words an element holds, so that
 * the copy kernel, which has no complex type, moves complex elements
 * unchanged. NULL with err. */
static ga_array_t *as_words(ga_array_t *a, cm_error_t *err)
{
    int nd = a->ndim, w = (int)(ga_dtype_size(a->dtype) / 8);
    if (nd + 1 > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "a %d-d complex array cannot be copied here (at most %d-d)", nd,
                 GA_MAX_DIMS - 1);
        return NULL;
    }
    ga_array_t *v = ga_array_reshape(a, nd, a->shape, err);
    if (!v)
        return NULL;
    for (int k = 0; k < nd; k++) /* the view keeps a's strides (0 where broadcast) */
        v->strides[k] = a->strides[k] * w;
    v->shape[nd] = w;
    v->strides[nd] = 1;
    v->ndim = nd + 1;
    v->offset = a->offset * w;
    v->size = a->size * w;
    v->dtype = GA_U64;
    return v;
}

int ga_join_copy_into(ga_array_t *dst, ga_array_t *src, cm_error_t *err)
{
    if (!dst->size)
        return 0;
    ga_array_t *b = broadcast_to(src, dst, err), *db = NULL, *sb = NULL;
    int complex = ga_dtype_kind(dst->dtype) == GA_KIND_COMPLEX;
    if (b && complex && b->dtype != dst->dtype) {
        CM_ERROR(err, GA_E_DTYPE, "%s into %s: array math does not convert to or from complex",
                 ga_dtype_name(b->dtype), ga_dtype_name(dst->dtype));
        ga_array_free(b);
        return -1;
    }
    if (b && complex && (!(db = as_words(dst, err)) || !(sb = as_words(b, err)))) {
        ga_array_free(db);
        ga_array_free(b);
        return -1;
    }
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = complex ? sb : b};
    int rc = b && ga_eval("a", complex ? db : dst, 1, &arg, err) ? 0 : -1;
    ga_array_free(sb);
    ga_array_free(db);
    ga_array_free(b);
    return rc;
}

/* axis in [-ndim, ndim) into [0, ndim), or -1 with err. */
static int axis_of(int axis, int ndim, cm_error_t *err)
{
    if (axis < -ndim || axis >= ndim) {
        CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for a %d-d array", axis, ndim);
        return -1;
    }
    return axis < 0 ? axis + ndim : axis;
}

/* a as a 1-d view (a contiguous copy first where the layout needs one):
 * NumPy's ravel. */
static ga_array_t *flat(ga_array_t *a, cm_error_t *err)
{
    int64_t n = a->size;
    ga_array_t *c = ga_copy_contiguous(a, err);
    ga_array_t *v = c ? ga_array_reshape(c, 1, &n, err) : NULL;
    ga_array_free(c);
    return v;
}

/* What an operation along *axis works on: a itself, or for GA_AXIS_ALL
 * the flattened a (*flat, the caller's to free; *axis becomes 0); NULL
 * with err for an axis out of range. *axis comes back in [0, ndim). */
static ga_array_t *along(ga_array_t *a, int *axis, ga_array_t **flat_, cm_error_t *err)
{
    ga_array_t *src = a;
    if (*axis == GA_AXIS_ALL) {
        if (!(*flat_ = flat(a, err)))
            return NULL;
        src = *flat_;
        *axis = 0;
    }
    int ax = src->ndim ? axis_of(*axis, src->ndim, err) : -1;
    if (ax < 0) {
        if (!src->ndim)
            CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for a 0-d array", *axis);
        ga_array_free(*flat_);
        *flat_ = NULL;
        return NULL;
    }
    *axis = ax;
    return src;
}

/* out[..., start:stop, ...] along axis: a view, or NULL with err. */
static ga_array_t *part(ga_array_t *out, int axis, int64_t start, int64_t stop, int64_t step,
                        cm_error_t *err)
{
    return ga_array_slice(out, axis, start, stop, step, err);
}

/* src into out[..., start:stop:step, ...]. */
static int copy_to_part(ga_array_t *out, int axis, int64_t start, int64_t stop, int64_t step,
                        ga_array_t *src, cm_error_t *err)
{
    if (start == stop)
        return 0;
    ga_array_t *v = part(out, axis, start, stop, step, err);
    int rc = v ? ga_join_copy_into(v, src, err) : -1;
    ga_array_free(v);
    return rc;
}

ga_array_t *ga_join_concatenate(int n, ga_array_t *const *arrays, int axis, int stack,
                                cm_error_t *err)
{
    if (n < 1 || !arrays) {
        CM_ERROR(err, GA_E_VALUE, "needs at least one array to %s", stack ? "stack" : "concatenate");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (ga_array_check(arrays[i], err))
            return NULL;
    const ga_array_t *a0 = arrays[0];
    ga_dtype_t dt = a0->dtype;
    for (int i = 1; i < n; i++) {
        if (arrays[i]->device != a0->device) {
            CM_ERROR(err, GA_E_DEVICE, "array %d is on another device than array 0 (move it with ga_to_device)", i);
            return NULL;
        }
        if (arrays[i]->ndim != a0->ndim) {
            CM_ERROR(err, GA_E_SHAPE, "array %d has %d dimension%s, array 0 has %d", i,
                     arrays[i]->ndim, arrays[i]->ndim == 1 ? "" : "s", a0->ndim);
            return NULL;
        }
        dt = ga_dtype_promote(dt, arrays[i]->dtype);
    }
    int nd = a0->ndim + (stack != 0);
    if (!stack && a0->ndim == 0) {
        CM_ERROR(err, GA_E_SHAPE, "0-d arrays cannot be concatenated (ga_stack joins them)");
        return NULL;
    }
    int ax = axis_of(axis, nd, err);
    if (ax < 0)
        return NULL;
    int64_t shape[GA_MAX_DIMS + 1];
    if (nd > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "stacking %d-d arrays makes more than %d dimensions", a0->ndim,
                 GA_MAX_DIMS);
        return NULL;
    }
    for (int k = 0, j = 0; k < nd; k++)
        shape[k] = stack && k == ax ? n : a0->shape[j++];
    if (!stack)
        shape[ax] = 0;
    for (int i = 0; i < n; i++) {
        const ga_array_t *a = arrays[i];
        for (int k = 0; k < a0->ndim; k++) {
            int same = stack || k != ax;
            if (same && a->shape[k] != a0->shape[k]) {
                char s0[96], s1[96];
                ga_shape_text(a0->ndim, a0->shape, s0, sizeof s0);
                ga_shape_text(a->ndim, a->shape, s1, sizeof s1);
                CM_ERROR(err, GA_E_SHAPE, "array %d of shape %s does not %s array 0 of shape %s%s", i,
                         s1, stack ? "stack with" : "join", s0,
                         stack ? " (all must have one shape)" : "");
                return NULL;
            }
        }
        if (!stack)
            shape[ax] += a->shape[ax];
    }
    for (int i = 0; i < n && ga_dtype_kind(dt) == GA_KIND_COMPLEX; i++)
        if (arrays[i]->dtype != dt) { /* complex moves as bits: one dtype throughout */
            CM_ERROR(err, GA_E_DTYPE, "joining %s with %s: array math does not convert to %s",
                     ga_dtype_name(arrays[i]->dtype), ga_dtype_name(dt), ga_dtype_name(dt));
            return NULL;
        }
    ga_array_t *out = ga_array_new(a0->device, dt, nd, shape, err);
    if (!out)
        return NULL;
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        int64_t len = stack ? 1 : arrays[i]->shape[ax];
        ga_array_t *src = arrays[i], *v = NULL;
        if (stack) { /* the array with its new axis of length 1 */
            int64_t s1[GA_MAX_DIMS];
            for (int k = 0, j = 0; k < nd; k++)
                s1[k] = k == ax ? 1 : src->shape[j++];
            if (!(v = ga_array_reshape(src, nd, s1, err)))
                goto fail;
            src = v;
        }
        int rc = copy_to_part(out, ax, at, at + len, 1, src, err);
        ga_array_free(v);
        if (rc)
            goto fail;
        at += len;
    }
    return out;
fail:
    ga_array_free(out);
    return NULL;
}

int ga_join_split(ga_array_t *a, int64_t sections, int nidx, const int64_t *idx, int axis,
                  ga_array_t **parts, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return -1;
    if (a->ndim == 0) {
        CM_ERROR(err, GA_E_SHAPE, "a 0-d array cannot be split");
        return -1;
    }
    int ax = axis_of(axis, a->ndim, err);
    if (ax < 0)
        return -1;
    int64_t len = a->shape[ax];
    int count = nidx < 0 ? (int)sections : nidx + 1;
    if (nidx < 0 && (sections < 1 || sections > 1 << 20 || len % sections)) {
        CM_ERROR(err, GA_E_VALUE, "%lld sections do not divide an axis of length %lld equally",
                 (long long)sections, (long long)len);
        return -1;
    }
    int made = 0;
    for (int i = 0; i < count; i++) {
        int64_t lo, hi;
        if (nidx < 0) {
            lo = len / sections * i;
            hi = lo + len / sections;
        } else { /* NumPy's indices: clipped to the axis, an empty part past the end */
            lo = i == 0 ? 0 : idx[i - 1];
            hi = i == nidx ? len : idx[i];
            lo = lo < 0 ? (lo + len < 0 ? 0 : lo + len) : lo > len ? len : lo;
            hi = hi < 0 ? (hi + len < 0 ? 0 : hi + len) : hi > len ? len : hi;
            if (hi < lo)
                hi = lo;
        }
        if (!(parts[i] = part(a, ax, lo, hi, 1, err))) {
            while (made)
                ga_array_free(parts[--made]);
            return -1;
        }
        made++;
    }
    return count;
}

static const char *const pad_modes[] = {
    [GA_PAD_CONSTANT] = "constant", [GA_PAD_EDGE] = "edge", [GA_PAD_REFLECT] = "reflect",
    [GA_PAD_SYMMETRIC] = "symmetric", [GA_PAD_WRAP] = "wrap",
};

int ga_join_pad_mode(const char *text)
{
    for (int m = 0; text && m < (int)(sizeof pad_modes / sizeof *pad_modes); m++)
        if (!strcmp(text, pad_modes[m]))
            return m;
    return -1;
}

/* The before (side 0) or after (side 1) border of axis k of out, whose
 * middle [w0, w0 + n) holds the data, by mode. */
static int pad_side(ga_array_t *out, int k, int64_t w0, int64_t n, int64_t w, int side,
                    ga_pad_mode_t mode, cm_error_t *err)
{
    if (!w)
        return 0;
    int64_t lo = side ? w0 + n : 0, hi = lo + w; /* the border in out */
    int64_t s0, s1, step;                        /* its source in out's middle */
    switch (mode) {
    case GA_PAD_EDGE: { /* the edge element, broadcast along the axis */
        ga_array_t *e = part(out, k, side ? w0 + n - 1 : w0, side ? w0 + n : w0 + 1, 1, err);
        int rc = e ? copy_to_part(out, k, lo, hi, 1, e, err) : -1;
        ga_array_free(e);
        return rc;
    }
    case GA_PAD_REFLECT: /* mirrored about the edge element, which is not repeated */
        s0 = side ? w0 + n - 2 : w0 + w, s1 = s0 - w, step = -1;
        break;
    case GA_PAD_SYMMETRIC: /* mirrored, the edge element repeated */
        s0 = side ? w0 + n - 1 : w0 + w - 1, s1 = s0 - w, step = -1;
        break;
    case GA_PAD_WRAP: /* the other end's elements */
        s0 = side ? w0 : w0 + n - w, s1 = s0 + w, step = 1;
        break;
    default:
        return 0;
    }
    if (w > n - (mode == GA_PAD_REFLECT)) {
        CM_ERROR(err, GA_E_VALUE, "a %s pad of %lld is wider than axis %d of length %lld allows",
                 pad_modes[mode], (long long)w, k, (long long)n);
        return -1;
    }
    ga_array_t *src = part(out, k, s0, s1 < 0 ? GA_END : s1, step, err);
    int rc = src ? copy_to_part(out, k, lo, hi, 1, src, err) : -1;
    ga_array_free(src);
    return rc;
}

ga_array_t *ga_join_pad(ga_array_t *a, const int64_t *width, ga_pad_mode_t mode, double value,
                        cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    int64_t shape[GA_MAX_DIMS];
    for (int k = 0; k < a->ndim; k++) {
        if (width[2 * k] < 0 || width[2 * k + 1] < 0) {
            CM_ERROR(err, GA_E_VALUE, "pad widths must be >= 0, not %lld on axis %d",
                     (long long)(width[2 * k] < 0 ? width[2 * k] : width[2 * k + 1]), k);
            return NULL;
        }
        if (mode != GA_PAD_CONSTANT && a->shape[k] == 0 && width[2 * k] + width[2 * k + 1]) {
            CM_ERROR(err, GA_E_VALUE, "an empty axis (%d) can only be padded with a constant", k);
            return NULL;
        }
        shape[k] = a->shape[k] + width[2 * k] + width[2 * k + 1];
    }
    ga_array_t *out = ga_array_new(a->device, a->dtype, a->ndim, shape, err);
    if (!out)
        return NULL;
    /* the middle first; then axis by axis, each border read from what is
     * already written, so the corners come out as NumPy's */
    ga_array_t *mid = NULL, *v = out;
    int rc = 0;
    if (mode == GA_PAD_CONSTANT)
        rc = ga_copy_fill(out, value, err);
    for (int k = 0; rc == 0 && k < a->ndim; k++) {
        ga_array_t *next = part(v, k, width[2 * k], width[2 * k] + a->shape[k], 1, err);
        if (v != out)
            ga_array_free(v);
        if (!(v = next))
            rc = -1;
    }
    mid = v;
    if (rc == 0)
        rc = ga_join_copy_into(mid, a, err);
    if (mid != out)
        ga_array_free(mid);
    if (rc == 0 && mode != GA_PAD_CONSTANT) {
        /* axis k's borders over the axes before it padded, after it not yet */
        for (int k = 0; rc == 0 && k < a->ndim; k++) {
            ga_array_t *w = out, *nw;
            for (int j = k + 1; rc == 0 && j < a->ndim; j++) {
                nw = part(w, j, width[2 * j], width[2 * j] + a->shape[j], 1, err);
                if (w != out)
                    ga_array_free(w);
                if (!(w = nw))
                    rc = -1;
            }
            for (int side = 0; rc == 0 && side < 2; side++)
                rc = pad_side(w, k, width[2 * k], a->shape[k], width[2 * k + side], side, mode, err);
            if (w && w != out)
                ga_array_free(w);
        }
    }
    if (rc) {
        ga_array_free(out);
        return NULL;
    }
    return out;
}

ga_array_t *ga_join_repeat(ga_array_t *a, int64_t repeats, int axis, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    if (repeats < 0) {
        CM_ERROR(err, GA_E_VALUE, "repeats must be >= 0, not %lld", (long long)repeats);
        return NULL;
    }
    ga_array_t *f = NULL, *src = along(a, &axis, &f, err), *out = NULL, *ov = NULL, *iv = NULL;
    int ax = axis;
    if (!src)
        return NULL;
    if (src->ndim == GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "repeat needs one dimension more than %d", GA_MAX_DIMS);
        goto done;
    }
    /* out (..., n * r, ...) seen as (..., n, r, ...); the source as (..., n, 1, ...) */
    int64_t shape[GA_MAX_DIMS], s_out[GA_MAX_DIMS], s_in[GA_MAX_DIMS];
    int nd = src->ndim;
    for (int k = 0, j = 0; k < nd; k++) {
        shape[k] = src->shape[k] * (k == ax ? repeats : 1);
        s_out[j] = s_in[j] = src->shape[k];
        j++;
        if (k == ax) {
            s_out[j] = repeats;
            s_in[j++] = 1;
        }
    }
    if (!(out = ga_array_new(src->device, src->dtype, nd, shape, err)))
        goto done;
    if (!out->size)
        goto done;
    if (!(ov = ga_array_reshape(out, nd + 1, s_out, err)) ||
        !(iv = ga_array_reshape(src, nd + 1, s_in, err)) || ga_join_copy_into(ov, iv, err)) {
        ga_array_free(out);
        out = NULL;
    }
done:
    ga_array_free(ov);
    ga_array_free(iv);
    ga_array_free(f);
    return out;
}

ga_array_t *ga_join_tile(ga_array_t *a, int nreps, const int64_t *reps, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    if (nreps < 0 || nreps > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "%d repetitions (at most %d)", nreps, GA_MAX_DIMS);
        return NULL;
    }
    int nd = a->ndim > nreps ? a->ndim : nreps;
    int64_t r[GA_MAX_DIMS], s[GA_MAX_DIMS], shape[GA_MAX_DIMS];
    for (int k = 0; k < nd; k++) {
        int kr = k - (nd - nreps), ka = k - (nd - a->ndim);
        r[k] = kr >= 0 ? reps[kr] : 1;
        s[k] = ka >= 0 ? a->shape[ka] : 1;
        if (r[k] < 0) {
            CM_ERROR(err, GA_E_VALUE, "repetitions must be >= 0, not %lld", (long long)r[k]);
            return NULL;
        }
        shape[k] = r[k] * s[k];
    }
    /* out seen as (r0, s0, r1, s1, ...) for the axes repeated; a as (1, s0, 1, s1, ...) */
    int64_t s_out[2 * GA_MAX_DIMS], s_in[2 * GA_MAX_DIMS];
    int m = 0;
    for (int k = 0; k < nd; k++) {
        if (r[k] != 1) {
            s_out[m] = r[k];
            s_in[m++] = 1;
        }
        s_out[m] = s_in[m] = s[k];
        m++;
    }
    if (m > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "tiling %d axes of a %d-d array needs %d dimensions (at most %d)",
                 m - nd, nd, m, GA_MAX_DIMS);
        return NULL;
    }
    ga_array_t *out = ga_array_new(a->device, a->dtype, nd, shape, err), *ov = NULL, *iv = NULL;
    if (out && out->size &&
        (!(ov = ga_array_reshape(out, m, s_out, err)) || !(iv = ga_array_reshape(a, m, s_in, err)) ||
         ga_join_copy_into(ov, iv, err))) {
        ga_array_free(out);
        out = NULL;
    }
    ga_array_free(ov);
    ga_array_free(iv);
    return out;
}

ga_array_t *ga_join_flip(ga_array_t *a, int axis, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    if (axis != GA_AXIS_ALL) {
        int ax = axis_of(axis, a->ndim, err);
        return ax < 0 ? NULL : ga_array_slice(a, ax, GA_END, GA_END, -1, err);
    }
    if (!a->ndim) /* nothing to reverse: the view of a itself */
        return ga_array_reshape(a, 0, NULL, err);
    ga_array_t *v = ga_array_slice(a, 0, GA_END, GA_END, -1, err);
    for (int k = 1; v && k < a->ndim; k++) {
        ga_array_t *w = ga_array_slice(v, k, GA_END, GA_END, -1, err);
        ga_array_free(v);
        v = w;
    }
    return v;
}

ga_array_t *ga_join_roll(ga_array_t *a, int64_t shift, int axis, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    ga_array_t *f = NULL, *src = along(a, &axis, &f, err), *out = NULL;
    int ax = axis;
    if (!src)
        return NULL;
    int64_t n = src->shape[ax], s = n ? ((shift % n) + n) % n : 0;
    if (!(out = ga_array_new(src->device, src->dtype, src->ndim, src->shape, err)))
        goto done;
    int rc;
    if (ax == 0 && ga_array_is_contiguous(src) && src->size) {
        /* along the first axis of a contiguous array: a flat roll by s rows */
        rc = roll_flat(out, src, s * (src->size / n), err);
    } else {
        ga_array_t *head = part(src, ax, n - s, n, 1, err);
        ga_array_t *tail = head ? part(src, ax, 0, n - s, 1, err) : NULL;
        rc = tail ? copy_to_part(out, ax, 0, s, 1, head, err) : -1;
        if (rc == 0)
            rc = copy_to_part(out, ax, s, n, 1, tail, err);
        ga_array_free(head);
        ga_array_free(tail);
    }
    if (rc == 0 && f) { /* back to a's shape */
        ga_array_t *r = ga_array_reshape(out, a->ndim, a->shape, err);
        ga_array_free(out);
        out = r;
    } else if (rc) {
        ga_array_free(out);
        out = NULL;
    }
done:
    ga_array_free(f);
    return out;
}
