/* bk_pool: array memory on every device, and the caching pool in front
 * of it (see bk.h). The backends' tables give the raw calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk_internal.h"

#define SMALL_UNIT 512u                 /* size classes below LARGE */
#define LARGE (1u << 20)
#define LARGE_UNIT (2u << 20)           /* size classes from LARGE on */
#define NSMALL (LARGE / SMALL_UNIT + 1) /* small free lists, by class */

typedef struct pool {
    bk_buffer_t *small[NSMALL]; /* free buffers of class i * SMALL_UNIT */
    bk_buffer_t *large;         /* free buffers of LARGE and more */
    bk_pool_stats_t stats;
} pool_t;

static pool_t pools[BK_NBACKENDS][BK_MAX_ORDINALS];

static pool_t *pool_of(bk_device_t d)
{
    int b = bk_backend(d);
    return b < 0 ? NULL : &pools[b][bk_ordinal(d)];
}

static size_t size_class(size_t bytes)
{
    if (bytes < LARGE)
        return bytes ? (bytes + SMALL_UNIT - 1) / SMALL_UNIT * SMALL_UNIT : SMALL_UNIT;
    return (bytes + LARGE_UNIT - 1) / LARGE_UNIT * LARGE_UNIT;
}

/* ---- work on the user's streams ----------------------------------------- */

#define LEGACY_STREAM ((void *)1) /* CU_STREAM_LEGACY: the default stream by name */

/* 1 while work on a user's stream that used b may still run; forgets the
 * streams whose work is done (their events are kept for reuse). */
static int busy(bk_buffer_t *b)
{
    int pending = 0, ord;
    const bk_ops_t *o = bk_ops_of(b->device, &ord, NULL);
    for (int i = 0; i < BK_USES; i++)
        if (b->uses[i].stream) {
            if (o->mark_pending(b->uses[i].mark))
                pending = 1;
            else
                b->uses[i].stream = NULL;
        }
    return pending;
}

/* Waits for the work that used b and destroys its events: before its
 * memory goes back to the driver or its record is freed. */
static void settle(bk_buffer_t *b)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(b->device, &ord, NULL);
    for (int i = 0; i < BK_USES; i++) {
        if (b->uses[i].mark)
            o->mark_drop(b->uses[i].mark);
        b->uses[i].stream = b->uses[i].mark = NULL;
    }
}

static struct bk_use *use_slot(const bk_ops_t *o, bk_buffer_t *b, void *stream)
{
    for (int i = 0; i < BK_USES; i++)
        if (b->uses[i].stream == stream)
            return &b->uses[i];
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < BK_USES; i++)
            if (!b->uses[i].stream)
                return &b->uses[i];
        if (pass == 0)
            busy(b); /* frees the slots of streams whose work is done */
    }
    o->mark_drop(b->uses[0].mark); /* a fifth stream: wait for the first's work */
    b->uses[0].mark = NULL;
    return &b->uses[0];
}

void bk_buffer_used_on(bk_buffer_t *b, void *stream)
{
    int ord;
    const bk_ops_t *o = b ? bk_ops_of(b->device, &ord, NULL) : NULL;
    if (!o || !o->mark || !stream || stream == LEGACY_STREAM)
        return;
    struct bk_use *u = use_slot(o, b, stream);
    u->stream = stream;
    u->mark = o->mark(stream, u->mark);
}

/* ---- the pool ------------------------------------------------------------ */

static bk_buffer_t **free_list(pool_t *p, size_t cls)
{
    return cls < LARGE ? &p->small[cls / SMALL_UNIT] : &p->large;
}

/* A cached buffer of class cls that no work on a user's stream still
 * uses, or NULL. */
static bk_buffer_t *take_cached(pool_t *p, size_t cls)
{
    for (bk_buffer_t **link = free_list(p, cls); *link; link = &(*link)->next)
        if ((*link)->capacity == cls && !busy(*link)) {
            bk_buffer_t *b = *link;
            *link = b->next;
            b->next = NULL;
            p->stats.cached -= cls;
            return b;
        }
    return NULL;
}

/* Gives b's memory back to the driver (or the C library) once no work
 * uses it, and frees its record. */
static void discard(bk_buffer_t *b)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(b->device, &ord, NULL);
    settle(b);
    o->free(ord, b->ptr);
    free(b);
}

size_t bk_pool_release(bk_device_t device)
{
    pool_t *p = pool_of(device);
    if (!p)
        return 0;
    size_t given = 0;
    for (size_t i = 0; i <= NSMALL; i++) {
        bk_buffer_t **list = i < NSMALL ? &p->small[i] : &p->large;
        while (*list) {
            bk_buffer_t *b = *list;
            *list = b->next;
            given += b->capacity;
            discard(b);
        }
    }
    p->stats.cached = 0;
    return given;
}

/* The out-of-memory error: what was asked, what the pool holds, what is
 * free; nothing is lost. */
static void out_of_memory(bk_device_t device, size_t bytes, const char *why, cm_error_t *err)
{
    pool_t *p = pool_of(device);
    char asked[32], used[32], cached[32], avail[32] = "?", dev[16];
    bk_bytes_text(bytes, asked, sizeof asked);
    bk_bytes_text(p->stats.in_use, used, sizeof used);
    bk_bytes_text(p->stats.cached, cached, sizeof cached);
    size_t fb, tb;
    if (bk_mem_info(device, &fb, &tb, NULL) == 0)
        bk_bytes_text(fb, avail, sizeof avail);
    bk_device_text(device, dev, sizeof dev);
    CM_ERROR(err, BK_E_MEMORY,
             "%s out of memory%s: asked for %s (%zu bytes); arrays use %s, the pool caches %s "
             "(given back before this retry), %s free on the device; nothing was lost",
             dev, why, asked, bytes, used, cached, avail);
}

bk_buffer_t *bk_buffer_new(bk_device_t device, size_t bytes, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(device, &ord, err);
    if (!o)
        return NULL;
    pool_t *p = pool_of(device);
    size_t cls = size_class(bytes);
    p->stats.allocs++;
    bk_buffer_t *b = take_cached(p, cls);
    if (b) {
        p->stats.hits++;
    } else {
        if (p->stats.limit && p->stats.in_use + p->stats.cached + cls > p->stats.limit)
            bk_pool_release(device);
        if (p->stats.limit && p->stats.in_use + cls > p->stats.limit) {
            char lim[32];
            bk_bytes_text(p->stats.limit, lim, sizeof lim);
            char why[64];
            snprintf(why, sizeof why, " (the pool's limit is %s)", lim);
            out_of_memory(device, cls, why, err);
            return NULL;
        }
        void *ptr;
        cm_error_t e = {0};
        if (o->alloc(ord, cls, &ptr, &e) != 0) {
            if (e.code != BK_E_MEMORY) { /* not out of memory: no GPU, say */
                CM_ERROR(err, e.code, "%s", e.text);
                return NULL;
            }
            bk_pool_release(device);
            memset(&e, 0, sizeof e);
            if (o->alloc(ord, cls, &ptr, &e) != 0) {
                out_of_memory(device, bytes, "", err);
                return NULL;
            }
        }
        b = calloc(1, sizeof *b);
        if (!b)
            abort();
        b->ptr = ptr;
        b->capacity = cls;
        b->device = device;
        b->owned = 1;
    }
    b->bytes = bytes;
    b->refs = 0;
    p->stats.in_use += cls;
    return b;
}

bk_buffer_t *bk_buffer_wrap(bk_device_t device, void *ptr, size_t bytes)
{
    bk_buffer_t *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    b->ptr = ptr;
    b->bytes = bytes;
    b->device = device;
    return b;
}

void bk_buffer_release(bk_buffer_t *b)
{
    if (!b || --b->refs > 0)
        return;
    if (!b->owned) {
        settle(b);
        free(b);
        return;
    }
    pool_t *p = pool_of(b->device);
    p->stats.in_use -= b->capacity;
    if (p->stats.limit && p->stats.in_use + p->stats.cached + b->capacity > p->stats.limit) {
        discard(b);
        return;
    }
    bk_buffer_t **list = free_list(p, b->capacity);
    b->next = *list;
    *list = b;
    p->stats.cached += b->capacity;
}

void bk_pool_stats(bk_device_t device, bk_pool_stats_t *out)
{
    pool_t *p = pool_of(device);
    if (p)
        *out = p->stats;
    else
        memset(out, 0, sizeof *out);
}

void bk_pool_set_limit(bk_device_t device, size_t bytes)
{
    pool_t *p = pool_of(device);
    if (!p)
        return;
    p->stats.limit = bytes;
    if (bytes && p->stats.in_use + p->stats.cached > bytes)
        bk_pool_release(device);
}

void bk_pool_set_limit_all(size_t bytes)
{
    for (int b = 0; b < BK_NBACKENDS; b++)
        for (int o = 0; o < BK_MAX_ORDINALS; o++)
            pools[b][o].stats.limit = bytes; /* nothing is cached before the first use */
}

/* ---- raw copies ------------------------------------------------------------ */

/* a copy: a row of %%profile's (bk_profile.c) while one is on, with the
 * bytes it reads and writes in device memory */
#define RAW(call, what, read, written, ...)                                                        \
    int ord;                                                                                       \
    const bk_ops_t *o = bk_ops_of(d, &ord, err);                                                   \
    if (!o)                                                                                        \
        return -1;                                                                                 \
    int token = bk_profiling() ? bk_profile_begin(d, BK_PROF_COPY, what, NULL, (double)(read),     \
                                                  (double)(written), NULL) : 0;                    \
    int rc = o->call(ord, __VA_ARGS__, err);                                                       \
    bk_profile_end(token);                                                                         \
    return rc

int bk_mem_zero(bk_device_t d, void *dst, size_t bytes, cm_error_t *err)
{
    RAW(zero, "memset", 0, bytes, dst, bytes);
}

int bk_mem_to_device(bk_device_t d, void *dst, const void *host, size_t bytes, cm_error_t *err)
{
    RAW(to_device, "copy HtoD", 0, bytes, dst, host, bytes);
}

int bk_mem_to_host(bk_device_t d, void *host, const void *src, size_t bytes, cm_error_t *err)
{
    RAW(to_host, "copy DtoH", bytes, 0, host, src, bytes);
}

int bk_mem_copy(bk_device_t d, void *dst, const void *src, size_t bytes, cm_error_t *err)
{
    RAW(copy, "copy DtoD", bytes, bytes, dst, src, bytes);
}

int bk_mem_peer(bk_device_t dst_dev, void *dst, bk_device_t src_dev, const void *src,
                size_t bytes, cm_error_t *err)
{
    if (dst_dev == src_dev)
        return bk_mem_copy(dst_dev, dst, src, bytes, err);
    int dst_ord, src_ord;
    const bk_ops_t *o = bk_ops_of(dst_dev, &dst_ord, err);
    if (!o || !bk_ops_of(src_dev, &src_ord, err))
        return -1;
    if (bk_backend(dst_dev) == bk_backend(src_dev) && o->peer) {
        int rc = o->peer(dst_ord, dst, src_ord, src, bytes, err);
        if (rc <= 0)
            return rc;
    }
    if (bk_host_memory(src_dev))
        return bk_mem_to_device(dst_dev, dst, src, bytes, err);
    if (bk_host_memory(dst_dev))
        return bk_mem_to_host(src_dev, dst, src, bytes, err);
    /* two GPUs the driver cannot copy between: through the host */
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp) {
        CM_ERROR(err, BK_E_MEMORY, "host out of memory for a copy between devices");
        return -1;
    }
    int rc = bk_mem_to_host(src_dev, tmp, src, bytes, err) == 0 &&
                     bk_mem_to_device(dst_dev, dst, tmp, bytes, err) == 0
                 ? 0
                 : -1;
    free(tmp);
    return rc;
}

int bk_peer_link(bk_device_t a, bk_device_t b)
{
    int oa, ob;
    const bk_ops_t *o = bk_ops_of(a, &oa, NULL);
    if (!o || !bk_ops_of(b, &ob, NULL))
        return 0;
    if (a == b || (bk_host_memory(a) && bk_host_memory(b)))
        return 1;
    return bk_backend(a) == bk_backend(b) && o->peer_link && o->peer_link(oa, ob);
}

int bk_allreduce(int n, const bk_device_t *devices, void *const *bufs, size_t count, int type,
                 int op, cm_error_t *err)
{
    int ords[BK_MAX_ORDINALS], ord;
    if (n < 1 || n > BK_MAX_ORDINALS)
        return 1;
    const bk_ops_t *o = bk_ops_of(devices[0], &ord, err);
    if (!o)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!bk_ops_of(devices[i], &ords[i], err))
            return -1;
        if (bk_backend(devices[i]) != bk_backend(devices[0]))
            return 1;
    }
    return o->allreduce ? o->allreduce(n, ords, bufs, count, type, op, err) : 1;
}

const char *bk_allreduce_library(bk_device_t d)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, NULL);
    return o && o->allreduce_library ? o->allreduce_library() : NULL;
}

/* Simulated devices come and go with their pools (bk.h): the count itself
 * is bk_sim.c's; a device that would go must hold no arrays, and its cached
 * memory goes with it. */
int bk_sim_set_device_count(int n, cm_error_t *err)
{
    if (n < 1 || n > BK_MAX_ORDINALS) {
        CM_ERROR(err, BK_E_DEVICE, "the simulator presents 1 to %d devices, not %d",
                 BK_MAX_ORDINALS, n);
        return -1;
    }
    for (int k = n; k < bk_sim_device_count(); k++) {
        bk_pool_stats_t st;
        bk_pool_stats(bk_device(BK_SIM, k), &st);
        if (st.in_use) {
            char bytes[32];
            bk_bytes_text(st.in_use, bytes, sizeof bytes);
            CM_ERROR(err, BK_E_DEVICE, "sim%d still holds arrays (%s): free them first", k,
                     bytes);
            return -1;
        }
    }
    for (int k = n; k < bk_sim_device_count(); k++)
        bk_pool_release(bk_device(BK_SIM, k));
    bk_sim_count_set(n);
    if (bk_backend(bk_default_device()) == BK_SIM &&
        bk_ordinal(bk_default_device()) >= n)
        bk_set_default_device(bk_device(BK_SIM, 0));
    return 0;
}
