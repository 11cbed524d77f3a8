/* ga_backend: host and GPU memory for arrays, and the caching pool (see
 * ga_backend.h). */
#include "ga_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

#define SMALL_UNIT 512u                 /* size classes below LARGE */
#define LARGE (1u << 20)
#define LARGE_UNIT (2u << 20)           /* size classes from LARGE on */
#define NSMALL (LARGE / SMALL_UNIT + 1) /* small free lists, by class */
#define NDEVICES (GPU_MAX_DEVICES + 1)  /* the CPU, then the GPUs */

typedef struct pool {
    ga_buffer_t *small[NSMALL]; /* free buffers of class i * SMALL_UNIT */
    ga_buffer_t *large;         /* free buffers of LARGE and more */
    ga_pool_stats_t stats;
} pool_t;

static pool_t pools[NDEVICES];
static int default_device = -2; /* -2: not decided yet */

static pool_t *pool_of(int device)
{
    return device >= GA_CPU && device < GPU_MAX_DEVICES ? &pools[device + 1] : NULL;
}

static size_t size_class(size_t bytes)
{
    if (bytes < LARGE)
        return bytes ? (bytes + SMALL_UNIT - 1) / SMALL_UNIT * SMALL_UNIT : SMALL_UNIT;
    return (bytes + LARGE_UNIT - 1) / LARGE_UNIT * LARGE_UNIT;
}

/* ---- raw memory ---------------------------------------------------------- */

static int raw_alloc(int device, size_t bytes, void **ptr, cm_error_t *err)
{
    if (device != GA_CPU)
        return gpu_mem_alloc(bytes, ptr, err);
    *ptr = gpu_sim_alloc(bytes); /* memory simulated kernels may use, in their own mapping */
    if (!*ptr) {
        CM_ERROR(err, GA_E_MEMORY, "host out of memory");
        return -1;
    }
    return 0;
}

static void raw_free(int device, void *ptr)
{
    if (device == GA_CPU) {
        gpu_sim_free(ptr);
    } else {
        gpu_mem_free(ptr);
    }
}

int ga_mem_zero(int device, void *dst, size_t bytes, cm_error_t *err)
{
    if (device != GA_CPU)
        return gpu_mem_zero(dst, bytes, err);
    memset(dst, 0, bytes);
    return 0;
}

int ga_mem_to_device(int device, void *dst, const void *host, size_t bytes, cm_error_t *err)
{
    if (device != GA_CPU)
        return gpu_mem_to_device(dst, host, bytes, err);
    memmove(dst, host, bytes);
    return 0;
}

int ga_mem_to_host(int device, void *host, const void *src, size_t bytes, cm_error_t *err)
{
    if (device != GA_CPU)
        return gpu_mem_to_host(host, src, bytes, err);
    memmove(host, src, bytes);
    return 0;
}

int ga_mem_copy(int device, void *dst, const void *src, size_t bytes, cm_error_t *err)
{
    if (device != GA_CPU)
        return gpu_mem_copy(dst, src, bytes, err);
    memmove(dst, src, bytes);
    return 0;
}

int ga_device_memory(int device, size_t *free_bytes, size_t *total_bytes, cm_error_t *err)
{
    if (device != GA_CPU)
        return gpu_mem_info(free_bytes, total_bytes, err);
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) {
        CM_ERROR(err, GA_E_MEMORY, "/proc/meminfo cannot be read");
        return -1;
    }
    char line[256];
    unsigned long long kb;
    *free_bytes = *total_bytes = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            *total_bytes = (size_t)kb * 1024;
        else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            *free_bytes = (size_t)kb * 1024;
    }
    fclose(f);
    return 0;
}

/* ---- work on the user's streams ----------------------------------------- */

#define LEGACY_STREAM ((void *)1) /* CU_STREAM_LEGACY: the default stream by name */

/* 1 while work on a user's stream that used b may still run; forgets the
 * streams whose work is done (their events are kept for reuse). */
static int busy(ga_buffer_t *b)
{
    int pending = 0;
    for (int i = 0; i < GA_USES; i++)
        if (b->uses[i].stream) {
            if (gpu_mem_mark_pending(b->uses[i].mark))
                pending = 1;
            else
                b->uses[i].stream = NULL;
        }
    return pending;
}

/* Waits for the work that used b and destroys its events: before its
 * memory goes back to the driver or its record is freed. */
static void settle(ga_buffer_t *b)
{
    for (int i = 0; i < GA_USES; i++) {
        gpu_mem_mark_drop(b->uses[i].mark);
        b->uses[i].stream = b->uses[i].mark = NULL;
    }
}

static struct ga_use *use_slot(ga_buffer_t *b, void *stream)
{
    for (int i = 0; i < GA_USES; i++)
        if (b->uses[i].stream == stream)
            return &b->uses[i];
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < GA_USES; i++)
            if (!b->uses[i].stream)
                return &b->uses[i];
        if (pass == 0)
            busy(b); /* frees the slots of streams whose work is done */
    }
    gpu_mem_mark_drop(b->uses[0].mark); /* a fifth stream: wait for the first's work */
    b->uses[0].mark = NULL;
    return &b->uses[0];
}

void ga_buffer_used_on(ga_buffer_t *b, void *stream)
{
    if (!b || b->device == GA_CPU || !stream || stream == LEGACY_STREAM)
        return;
    struct ga_use *u = use_slot(b, stream);
    u->stream = stream;
    u->mark = gpu_mem_mark(stream, u->mark);
}

/* ---- the pool ------------------------------------------------------------ */

static ga_buffer_t **free_list(pool_t *p, size_t cls)
{
    return cls < LARGE ? &p->small[cls / SMALL_UNIT] : &p->large;
}

/* A cached buffer of class cls that no work on a user's stream still
 * uses, or NULL. */
static ga_buffer_t *take_cached(pool_t *p, size_t cls)
{
    for (ga_buffer_t **link = free_list(p, cls); *link; link = &(*link)->next)
        if ((*link)->capacity == cls && !busy(*link)) {
            ga_buffer_t *b = *link;
            *link = b->next;
            b->next = NULL;
            p->stats.cached -= cls;
            return b;
        }
    return NULL;
}

/* Gives b's memory back to the driver (or the C library) once no work
 * uses it, and frees its record. */
static void discard(ga_buffer_t *b)
{
    settle(b);
    if (b->device != GA_CPU)
        gpu_track_free(b->ptr);
    raw_free(b->device, b->ptr);
    free(b);
}

size_t ga_pool_release(int device)
{
    pool_t *p = pool_of(device);
    if (!p)
        return 0;
    size_t given = 0;
    for (size_t i = 0; i <= NSMALL; i++) {
        ga_buffer_t **list = i < NSMALL ? &p->small[i] : &p->large;
        while (*list) {
            ga_buffer_t *b = *list;
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
static void out_of_memory(int device, size_t bytes, const char *why, cm_error_t *err)
{
    pool_t *p = pool_of(device);
    char asked[32], used[32], cached[32], avail[32] = "?", dev[16];
    ga_bytes_text(bytes, asked, sizeof asked);
    ga_bytes_text(p->stats.in_use, used, sizeof used);
    ga_bytes_text(p->stats.cached, cached, sizeof cached);
    size_t fb, tb;
    if (ga_device_memory(device, &fb, &tb, NULL) == 0)
        ga_bytes_text(fb, avail, sizeof avail);
    ga_device_text(device, dev, sizeof dev);
    CM_ERROR(err, GA_E_MEMORY,
             "%s out of memory%s: asked for %s (%zu bytes); arrays use %s, the pool caches %s "
             "(given back before this retry), %s free on the device; nothing was lost",
             dev, why, asked, bytes, used, cached, avail);
}

ga_buffer_t *ga_buffer_new(int device, size_t bytes, cm_error_t *err)
{
    pool_t *p = pool_of(device);
    if (!p) {
        CM_ERROR(err, GA_E_DEVICE, "device %d does not exist", device);
        return NULL;
    }
    size_t cls = size_class(bytes);
    p->stats.allocs++;
    ga_buffer_t *b = take_cached(p, cls);
    if (b) {
        p->stats.hits++;
    } else {
        if (p->stats.limit && p->stats.in_use + p->stats.cached + cls > p->stats.limit)
            ga_pool_release(device);
        if (p->stats.limit && p->stats.in_use + cls > p->stats.limit) {
            char lim[32];
            ga_bytes_text(p->stats.limit, lim, sizeof lim);
            char why[64];
            snprintf(why, sizeof why, " (the pool's limit is %s)", lim);
            out_of_memory(device, cls, why, err);
            return NULL;
        }
        void *ptr;
        cm_error_t e = {0};
        if (raw_alloc(device, cls, &ptr, &e) != 0) {
            if (e.code != 2 && e.code != GA_E_MEMORY) { /* not out of memory: no GPU, say */
                CM_ERROR(err, e.code == GPU_E_NO_GPU || e.code == GPU_E_NO_LIBRARY ? GA_E_DEVICE
                                                                                    : e.code,
                         "%s", e.text);
                return NULL;
            }
            ga_pool_release(device);
            memset(&e, 0, sizeof e);
            if (raw_alloc(device, cls, &ptr, &e) != 0) {
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
        if (device != GA_CPU)
            gpu_track_alloc(ptr, cls, "a device array");
    }
    b->bytes = bytes;
    b->refs = 0;
    p->stats.in_use += cls;
    return b;
}

ga_buffer_t *ga_buffer_wrap(int device, void *ptr, size_t bytes)
{
    ga_buffer_t *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    b->ptr = ptr;
    b->bytes = bytes;
    b->device = device;
    return b;
}

void ga_buffer_release(ga_buffer_t *b)
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
    ga_buffer_t **list = free_list(p, b->capacity);
    b->next = *list;
    *list = b;
    p->stats.cached += b->capacity;
}

void ga_pool_stats(int device, ga_pool_stats_t *out)
{
    pool_t *p = pool_of(device);
    if (p)
        *out = p->stats;
    else
        memset(out, 0, sizeof *out);
}

void ga_pool_set_limit(int device, size_t bytes)
{
    pool_t *p = pool_of(device);
    if (!p)
        return;
    p->stats.limit = bytes;
    if (bytes && p->stats.in_use + p->stats.cached > bytes)
        ga_pool_release(device);
}

int ga_backend_device(void)
{
    if (default_device == -2) {
        gpu_info_t info;
        default_device = gpu_probe(&info) && info.selected >= 0 ? info.selected : GA_CPU;
    }
    return default_device;
}

void ga_backend_set_device(int device)
{
    default_device = device;
}
