/* ga_array: the array type, its handles and lifetime, and views (see
 * ga_array.h). Memory comes and goes through the backend floor (bk.h). */
#include "ga_array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"

/* ---- the live list and its index ----------------------------------------- */

static ga_array_t *live_first, *live_last;
static ga_array_t *dead; /* freed handles, kept (and reachable) so a later use is found */
static unsigned long next_id = 1;
static int current_cell;

/* Handles of live arrays, open addressing on the pointer; a tombstone
 * (TOMB) keeps probe chains intact after a removal. */
#define TOMB ((const void *)1)
static const void **index_slots;
static size_t index_cap, index_used; /* used: live + tombstones */

static size_t slot_of(const void *p, size_t cap)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static void index_put(const void *p);

static void index_grow(void)
{
    const void **old = index_slots;
    size_t old_cap = index_cap;
    index_cap = index_cap ? index_cap * 2 : 256;
    index_slots = calloc(index_cap, sizeof *index_slots);
    if (!index_slots)
        abort();
    index_used = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i] && old[i] != TOMB)
            index_put(old[i]);
    free(old);
}

static void index_put(const void *p)
{
    if (2 * (index_used + 1) > index_cap)
        index_grow();
    size_t k = slot_of(p, index_cap);
    while (index_slots[k] && index_slots[k] != TOMB)
        k = (k + 1) & (index_cap - 1);
    if (!index_slots[k])
        index_used++;
    index_slots[k] = p;
}

static void index_remove(const void *p)
{
    if (!index_cap)
        return;
    for (size_t k = slot_of(p, index_cap); index_slots[k]; k = (k + 1) & (index_cap - 1))
        if (index_slots[k] == p) {
            index_slots[k] = TOMB;
            return;
        }
}

int ga_array_is_live(const void *p)
{
    if (!index_cap || !p || p == TOMB)
        return 0;
    for (size_t k = slot_of(p, index_cap); index_slots[k]; k = (k + 1) & (index_cap - 1))
        if (index_slots[k] == p)
            return 1;
    return 0;
}

void ga_array_set_cell(int cell)
{
    current_cell = cell;
}

/* ---- making and freeing ---------------------------------------------------- */

int64_t ga_shape_size(int ndim, const int64_t *shape, size_t elsize, cm_error_t *err)
{
    if (ndim < 0 || ndim > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "%d dimensions: an array has 0 to %d", ndim, GA_MAX_DIMS);
        return -1;
    }
    int64_t n = 1;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] < 0) {
            CM_ERROR(err, GA_E_SHAPE, "dimension %d is %lld: sizes cannot be negative", k,
                     (long long)shape[k]);
            return -1;
        }
        if (shape[k] && n > INT64_MAX / shape[k]) {
            CM_ERROR(err, GA_E_SHAPE, "the shape is too large: its size overflows 64 bits");
            return -1;
        }
        n *= shape[k];
    }
    if (elsize && (uint64_t)n > SIZE_MAX / elsize) {
        CM_ERROR(err, GA_E_SHAPE, "the shape is too large: %lld elements of %zu bytes overflow",
                 (long long)n, elsize);
        return -1;
    }
    return n;
}

/* C-order strides of a's shape. */
static void contiguous_strides(ga_array_t *a)
{
    int64_t s = 1;
    for (int k = a->ndim - 1; k >= 0; k--) {
        a->strides[k] = s;
        s *= a->shape[k] ? a->shape[k] : 1;
    }
}

/* A new live array on buf (refs taken) with a's dtype/device; layout unset. */
static ga_array_t *new_array(ga_buffer_t *buf, ga_dtype_t dtype)
{
    ga_array_t *a = calloc(1, sizeof *a);
    if (!a)
        abort();
    a->magic = GA_MAGIC;
    a->dtype = dtype;
    a->device = buf->device;
    a->buf = buf;
    buf->refs++;
    a->id = next_id++;
    a->cell = current_cell;
    a->prev = live_last;
    if (live_last)
        live_last->next = a;
    else
        live_first = a;
    live_last = a;
    index_put(a);
    return a;
}

int64_t ga_array_count(ga_dtype_t dtype, int ndim, const int64_t *shape, cm_error_t *err)
{
    if (!ga_dtype_valid(dtype)) {
        CM_ERROR(err, GA_E_DTYPE, "%d is not a dtype (GA_BOOL ... GA_C128)", (int)dtype);
        return -1;
    }
    return ga_shape_size(ndim, shape, ga_dtype_size(dtype), err);
}

ga_array_t *ga_array_on(ga_buffer_t *buf, ga_dtype_t dtype, int ndim, const int64_t *shape,
                        cm_error_t *err)
{
    int64_t n = ga_array_count(dtype, ndim, shape, err);
    if (n < 0)
        return NULL;
    ga_array_t *a = new_array(buf, dtype);
    a->ndim = ndim;
    if (ndim) /* a 0-d array may come with no shape at all */
        memcpy(a->shape, shape, (size_t)ndim * sizeof *shape);
    a->size = n;
    contiguous_strides(a);
    return a;
}

ga_array_t *ga_array_new(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                         cm_error_t *err)
{
    int64_t n = ga_array_count(dtype, ndim, shape, err);
    if (n < 0)
        return NULL;
    ga_buffer_t *b = bk_buffer_new(device, (size_t)n * ga_dtype_size(dtype), err);
    return b ? ga_array_on(b, dtype, ndim, shape, err) : NULL; /* checked: cannot fail */
}

void ga_array_free(ga_array_t *a)
{
    if (!a || a->magic != GA_MAGIC)
        return;
    a->magic = GA_DEAD;
    index_remove(a);
    if (a->prev)
        a->prev->next = a->next;
    else
        live_first = a->next;
    if (a->next)
        a->next->prev = a->prev;
    else
        live_last = a->prev;
    a->prev = a->next = NULL;
    bk_buffer_release(a->buf);
    a->buf = NULL;
    /* the handle itself stays allocated: a later use finds GA_DEAD */
    a->next = dead;
    dead = a;
}

int ga_array_check(const ga_array_t *a, cm_error_t *err)
{
    if (a && ga_array_is_live(a))
        return 0;
    if (!a)
        CM_ERROR(err, GA_E_FREED, "the array is NULL (not made, or made by a call that failed)");
    else
        CM_ERROR(err, GA_E_FREED,
                 "the array was freed (ga_free, %%reset, or the end of the cell that made it: "
                 "keep it in a variable, or ga_keep it) or is not an array");
    return -1;
}

void ga_array_keep(ga_array_t *a, int keep)
{
    if (a && a->magic == GA_MAGIC)
        a->kept = keep != 0;
}

size_t ga_array_sweep(const void *const *roots, const size_t *root_bytes, size_t nroots)
{
    for (ga_array_t *a = live_first; a; a = a->next)
        a->marked = 0;
    for (size_t r = 0; r < nroots; r++) {
        const char *p = roots[r];
        for (size_t off = 0; off + sizeof(void *) <= root_bytes[r]; off += sizeof(void *)) {
            void *word;
            memcpy(&word, p + off, sizeof word);
            if (ga_array_is_live(word))
                ((ga_array_t *)word)->marked = 1;
        }
    }
    size_t freed = 0;
    for (ga_array_t *a = live_first, *next; a; a = next) {
        next = a->next;
        if (!a->marked && !a->kept) {
            ga_array_free(a);
            freed++;
        }
    }
    return freed;
}

ga_array_t *ga_array_first(void)
{
    return live_first;
}

void ga_array_free_all(void)
{
    while (live_first)
        ga_array_free(live_first);
}

/* ---- reading the layout ------------------------------------------------------ */

void *ga_array_data(const ga_array_t *a)
{
    return (char *)a->buf->ptr + a->offset * (int64_t)ga_dtype_size(a->dtype);
}

int ga_array_is_contiguous(const ga_array_t *a)
{
    int64_t s = 1;
    for (int k = a->ndim - 1; k >= 0; k--) {
        if (a->shape[k] != 1 && a->strides[k] != s)
            return 0;
        s *= a->shape[k];
    }
    return 1;
}

void ga_shape_text(int ndim, const int64_t *shape, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "(");
    for (int k = 0; k < ndim && n < len; k++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", k ? ", " : "", (long long)shape[k]);
    if (n < len)
        snprintf(buf + n, len - n, ndim == 1 ? ",)" : ")");
}

/* the floor's errors reach cells with the array library's codes */
_Static_assert((int)BK_E_MEMORY == (int)GA_E_MEMORY && (int)BK_E_DEVICE == (int)GA_E_DEVICE,
               "error codes");

void ga_device_text(int device, char *buf, size_t len)
{
    bk_device_text(device, buf, len);
}

void ga_bytes_text(size_t bytes, char *buf, size_t len)
{
    bk_bytes_text(bytes, buf, len);
}

void ga_array_describe(const ga_array_t *a, char *buf, size_t len)
{
    if (!ga_array_is_live(a)) {
        snprintf(buf, len, "a freed array");
        return;
    }
    char shape[160], bytes[32], dev[16];
    ga_shape_text(a->ndim, a->shape, shape, sizeof shape);
    ga_bytes_text((size_t)a->size * ga_dtype_size(a->dtype), bytes, sizeof bytes);
    ga_device_text(a->device, dev, sizeof dev);
    snprintf(buf, len, "%s %s, %s, %s%s", ga_dtype_name(a->dtype), shape, bytes, dev,
             a->buf->owned ? "" : " (not owned)");
}

/* ---- views ----------------------------------------------------------------- */

/* A view of a: same buffer, dtype and device, layout copied. */
static ga_array_t *view_of(ga_array_t *a)
{
    ga_array_t *v = new_array(a->buf, a->dtype);
    v->ndim = a->ndim;
    memcpy(v->shape, a->shape, sizeof v->shape);
    memcpy(v->strides, a->strides, sizeof v->strides);
    v->offset = a->offset;
    v->size = a->size;
    return v;
}

static int check_axis(const ga_array_t *a, int *axis, cm_error_t *err)
{
    int ax = *axis < 0 ? *axis + a->ndim : *axis;
    if (ax < 0 || ax >= a->ndim) {
        CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for an array of %d dimension%s",
                 *axis, a->ndim, a->ndim == 1 ? "" : "s");
        return -1;
    }
    *axis = ax;
    return 0;
}

/* Strides that lay dims[0, ndim) over a's elements without a copy, as
 * NumPy finds them: a's axes of size 1 dropped, then each group of old
 * axes that makes a group of new axes must be C-contiguous within itself.
 * 0 when there are none. */
static int new_strides(const ga_array_t *a, int ndim, const int64_t *dims, int64_t *strides)
{
    if (a->size == 0) {
        int64_t s = 1;
        for (int k = ndim - 1; k >= 0; k--) {
            strides[k] = s;
            s *= dims[k] ? dims[k] : 1;
        }
        return 1;
    }
    int64_t od[GA_MAX_DIMS], os[GA_MAX_DIMS];
    int on = 0;
    for (int k = 0; k < a->ndim; k++)
        if (a->shape[k] != 1) {
            od[on] = a->shape[k];
            os[on++] = a->strides[k];
        }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < ndim && oi < on) {
        int64_t np = dims[ni], op = od[oi];
        while (np != op) {
            if (np < op)
                np *= dims[nj++];
            else
                op *= od[oj++];
        }
        for (int k = oi; k < oj - 1; k++)
            if (os[k] != od[k + 1] * os[k + 1])
                return 0;
        strides[nj - 1] = os[oj - 1];
        for (int k = nj - 1; k > ni; k--)
            strides[k - 1] = strides[k] * dims[k];
        ni = nj++;
        oi = oj++;
    }
    int64_t last = ni >= 1 ? strides[ni - 1] : 1;
    for (int k = ni; k < ndim; k++)
        strides[k] = last;
    return 1;
}

ga_array_t *ga_array_reshape(ga_array_t *a, int ndim, const int64_t *shape, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return NULL;
    if (ndim < 0 || ndim > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "%d dimensions: an array has 0 to %d", ndim, GA_MAX_DIMS);
        return NULL;
    }
    int64_t dims[GA_MAX_DIMS], known = 1;
    int infer = -1;
    for (int k = 0; k < ndim; k++) {
        dims[k] = shape[k];
        if (shape[k] == -1 && infer < 0) {
            infer = k;
            continue;
        }
        if (shape[k] < 0) {
            CM_ERROR(err, GA_E_SHAPE, "reshape: dimension %d is %lld (only one may be -1)", k,
                     (long long)shape[k]);
            return NULL;
        }
        if (shape[k] && known > INT64_MAX / shape[k]) {
            CM_ERROR(err, GA_E_SHAPE, "reshape: the shape's size overflows 64 bits");
            return NULL;
        }
        known *= shape[k];
    }
    if (infer >= 0)
        dims[infer] = known ? a->size / known : 0;
    char from[128], to[128];
    ga_shape_text(a->ndim, a->shape, from, sizeof from);
    if (ga_shape_size(ndim, dims, 0, err) != a->size ||
        (infer >= 0 && known && a->size % known)) {
        ga_shape_text(ndim, shape, to, sizeof to);
        CM_ERROR(err, GA_E_SHAPE, "cannot reshape an array of shape %s (%lld elements) into %s",
                 from, (long long)a->size, to);
        return NULL;
    }
    int64_t strides[GA_MAX_DIMS];
    if (!new_strides(a, ndim, dims, strides)) {
        ga_shape_text(ndim, dims, to, sizeof to);
        CM_ERROR(err, GA_E_SHAPE,
                 "cannot reshape this view of shape %s into %s without a copy: ga_copy it first",
                 from, to);
        return NULL;
    }
    ga_array_t *v = view_of(a);
    v->ndim = ndim;
    memcpy(v->shape, dims, (size_t)ndim * sizeof *dims);
    memcpy(v->strides, strides, (size_t)ndim * sizeof *strides);
    return v;
}

ga_array_t *ga_array_slice(ga_array_t *a, int axis, int64_t start, int64_t stop, int64_t step,
                           cm_error_t *err)
{
    if (ga_array_check(a, err) != 0 || check_axis(a, &axis, err) != 0)
        return NULL;
    if (step == 0) {
        CM_ERROR(err, GA_E_SHAPE, "a slice's step cannot be 0");
        return NULL;
    }
    int64_t n = a->shape[axis];
    /* Python's slice.indices */
    int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
    if (start == GA_END) /* Python's None */
        start = step > 0 ? 0 : n - 1;
    else if (start < 0)
        start = start + n < lo ? lo : start + n;
    else if (start > hi)
        start = hi;
    if (stop == GA_END)
        stop = step > 0 ? n : -1;
    else if (stop < 0)
        stop = stop + n < lo ? lo : stop + n;
    else if (stop > hi)
        stop = hi;
    int64_t len = 0;
    if (step > 0 && stop > start)
        len = (stop - start + step - 1) / step;
    else if (step < 0 && start > stop)
        len = (start - stop + (-step) - 1) / (-step);
    ga_array_t *v = view_of(a);
    if (len > 0)
        v->offset += start * a->strides[axis];
    v->shape[axis] = len;
    v->strides[axis] = a->strides[axis] * step;
    v->size = ga_shape_size(v->ndim, v->shape, 0, NULL);
    return v;
}

ga_array_t *ga_array_index(ga_array_t *a, int axis, int64_t i, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0 || check_axis(a, &axis, err) != 0)
        return NULL;
    int64_t n = a->shape[axis];
    if (i < -n || i >= n) {
        CM_ERROR(err, GA_E_SHAPE, "index %lld is out of bounds for axis %d of size %lld",
                 (long long)i, axis, (long long)n);
        return NULL;
    }
    if (i < 0)
        i += n;
    ga_array_t *v = view_of(a);
    v->offset += i * a->strides[axis];
    for (int k = axis; k + 1 < a->ndim; k++) {
        v->shape[k] = a->shape[k + 1];
        v->strides[k] = a->strides[k + 1];
    }
    v->ndim--;
    v->size = ga_shape_size(v->ndim, v->shape, 0, NULL);
    return v;
}

ga_array_t *ga_array_permute(ga_array_t *a, const int *axes, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return NULL;
    int order[GA_MAX_DIMS], seen[GA_MAX_DIMS] = {0};
    for (int k = 0; k < a->ndim; k++) {
        int ax = axes ? axes[k] : a->ndim - 1 - k;
        if (axes && check_axis(a, &ax, err) != 0)
            return NULL;
        if (seen[ax]++) {
            CM_ERROR(err, GA_E_SHAPE, "axis %d appears twice in the permutation", ax);
            return NULL;
        }
        order[k] = ax;
    }
    ga_array_t *v = view_of(a);
    for (int k = 0; k < a->ndim; k++) {
        v->shape[k] = a->shape[order[k]];
        v->strides[k] = a->strides[order[k]];
    }
    return v;
}
