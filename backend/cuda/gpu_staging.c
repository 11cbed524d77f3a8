/* gpu_staging: copies between ordinary (pageable) host memory and the GPU
 * through pinned staging buffers, double-buffered: while the DMA engine
 * moves one chunk, worker threads copy the next one between the user's
 * memory and the other pinned buffer, several threads at once (one core's
 * memcpy is slower than the PCIe/NVLink link).
 *
 * Used by gpu_mem_to_device / gpu_mem_to_host for large copies. The
 * buffers and the stream are per device, made in its context (current
 * during the copy) on its first large copy. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_driver.h"
#include "gpu_internal.h"

#define MAX_WORKERS 16

/* Bytes per pinned buffer: 32 MiB, or GPUC_STAGING_MB (for tuning). */
static size_t chunk_bytes(void)
{
    static size_t bytes;
    if (!bytes) {
        const char *e = getenv("GPUC_STAGING_MB");
        long mb = e ? atol(e) : 0;
        bytes = (size_t)(mb >= 1 && mb <= 1024 ? mb : 32) << 20;
    }
    return bytes;
}
#define CHUNK chunk_bytes()

/* ---- parallel memcpy ----------------------------------------------------- */

typedef struct workers {
    pthread_t threads[MAX_WORKERS];
    int n;                       /* worker threads (the caller copies pieces too) */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned long round;         /* bumped for each copy */
    int pending;                 /* workers still copying this round */
    char *dst;
    const char *src;
    size_t bytes;
    atomic_size_t next;          /* the first byte no thread has taken yet */
} workers_t;

static workers_t pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
                         .go = PTHREAD_COND_INITIALIZER,
                         .done = PTHREAD_COND_INITIALIZER};

/* Threads take the copy in pieces of SLICE bytes as they come free, so a
 * thread the system delays (another process on its core) copies fewer
 * pieces instead of holding up a fixed share of the copy; a round still
 * ends only when every worker has woken and found no piece left. */
#define SLICE ((size_t)1 << 20)

/* Copies pieces of the current round until none is left. */
static void copy_pieces(char *dst, const char *src, size_t bytes)
{
    for (;;) {
        size_t from = atomic_fetch_add_explicit(&pool.next, SLICE, memory_order_relaxed);
        if (from >= bytes)
            return;
        memcpy(dst + from, src + from, bytes - from < SLICE ? bytes - from : SLICE);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool.lock);
        while (pool.round == seen)
            pthread_cond_wait(&pool.go, &pool.lock);
        seen = pool.round;
        char *dst = pool.dst;
        const char *src = pool.src;
        size_t bytes = pool.bytes;
        pthread_mutex_unlock(&pool.lock);
        copy_pieces(dst, src, bytes);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0)
            pthread_cond_signal(&pool.done);
        pthread_mutex_unlock(&pool.lock);
    }
    return NULL;
}

/* Starts the workers once: one per core besides the caller's (measured on
 * a 16-core H100 host: all cores reach 81% / 74% of pinned bandwidth,
 * half of them 74% / 65%), at most MAX_WORKERS - 1, none on a machine of
 * one or two cores. Their signals are blocked: interrupts and faults
 * belong to the executor's main thread. */
static void start_workers(void)
{
    static int started;
    if (started)
        return;
    started = 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cores > 2 ? (int)cores - 1 : 0;
    const char *e = getenv("GPUC_COPY_THREADS"); /* for tuning: threads in all */
    if (e && atoi(e) >= 1)
        want = atoi(e) - 1;
    if (want > MAX_WORKERS - 1)
        want = MAX_WORKERS - 1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < want; i++)
        if (pthread_create(&pool.threads[i], NULL, worker, NULL) == 0)
            pool.n++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* memcpy of bytes, shared among the workers and the calling thread. */
static void parallel_copy(void *dst, const void *src, size_t bytes)
{
    start_workers();
    if (!pool.n || bytes < (1u << 20)) {
        memcpy(dst, src, bytes);
        return;
    }
    pthread_mutex_lock(&pool.lock);
    while (pool.pending) /* a round the caller left (an interrupt jumped out of it) */
        pthread_cond_wait(&pool.done, &pool.lock);
    pool.dst = dst;
    pool.src = src;
    pool.bytes = bytes;
    atomic_store_explicit(&pool.next, 0, memory_order_relaxed);
    pool.pending = pool.n;
    pool.round++;
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.lock);
    copy_pieces(dst, src, bytes);
    pthread_mutex_lock(&pool.lock);
    while (pool.pending)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

/* ---- the user's memory ------------------------------------------------- */

/* 0 when host[0, bytes) is mapped memory; -1 with err set when a page of
 * it is not. The worker threads must not fault: a fault there cannot be
 * turned into the cell's error (only the main thread's can). */
static int check_mapped(const void *host, size_t bytes, cm_error_t *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)host & ~(uintptr_t)(page - 1);
    size_t len = (uintptr_t)host + bytes - start;
    size_t npages = (len + page - 1) / page;
    unsigned char *vec = malloc(npages ? npages : 1);
    if (!vec)
        abort();
    int rc = mincore((void *)start, len, vec);
    free(vec);
    if (rc != 0) {
        CM_ERROR(err, GPU_E_INVALID,
                 "the host memory at %p (%zu bytes) is not all mapped: a bad pointer or size",
                 host, bytes);
        return -1;
    }
    return 0;
}

/* ---- the staging buffers ---------------------------------------------- */

/* One set per device, made in its context and kept with it (contexts are
 * kept for the process: gpu_context_use). */
typedef struct stage {
    void *buf[2];
    gpu_cuevent_t event[2]; /* the last DMA of each buffer */
    int busy[2];            /* event[i] recorded and not waited for */
    gpu_custream_t stream;
    int ready;
} stage_t;

static stage_t stages[GPU_MAX_DEVICES];

static void drop(stage_t *s)
{
    const gpu_driver_t *d = gpu_driver_loaded();
    if (d && s->ready) {
        for (int i = 0; i < 2; i++) {
            d->cuMemFreeHost(s->buf[i]);
            if (d->cuEventDestroy)
                d->cuEventDestroy(s->event[i]);
        }
    }
    s->buf[0] = s->buf[1] = NULL;
    s->stream = NULL; /* the stream goes with its context */
    s->ready = 0;
}

/* The buffers, made on first use in the current context; 0 when they
 * cannot be (no events, no pinned memory): then the caller copies
 * directly. */
static int ensure(const gpu_driver_t *d, stage_t *s)
{
    if (s->ready)
        return 1;
    if (!d->cuEventCreate || !d->cuEventRecord || !d->cuEventSynchronize)
        return 0;
    if (d->cuStreamCreate(&s->stream, 0) != GPU_CU_SUCCESS)
        return 0;
    for (int i = 0; i < 2; i++)
        if (d->cuMemAllocHost(&s->buf[i], CHUNK) != GPU_CU_SUCCESS ||
            d->cuEventCreate(&s->event[i], 2 /* CU_EVENT_DISABLE_TIMING */) != GPU_CU_SUCCESS) {
            s->ready = 1; /* so that drop frees what was made */
            drop(s);
            return 0;
        }
    s->busy[0] = s->busy[1] = 0;
    s->ready = 1;
    return 1;
}

/* Waits until buffer i's last DMA is done. */
static int wait_buffer(const gpu_driver_t *d, stage_t *s, int i, cm_error_t *err)
{
    if (!s->busy[i])
        return 0;
    s->busy[i] = 0;
    return GPU_CU_CHECK(d->cuEventSynchronize(s->event[i]), err);
}

int gpu_staging_to_device(const gpu_driver_t *d, int device, void *dst, const void *host,
                          size_t bytes, cm_error_t *err)
{
    stage_t *s = &stages[device];
    if (!ensure(d, s))
        return 1;
    if (check_mapped(host, bytes, err) != 0)
        return -1;
    const char *src = host;
    gpu_cudeviceptr_t to = (gpu_cudeviceptr_t)(uintptr_t)dst;
    int b = 0;
    for (size_t off = 0; off < bytes; off += CHUNK, b ^= 1) {
        size_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
        if (wait_buffer(d, s, b, err) != 0)
            return -1;
        parallel_copy(s->buf[b], src + off, n);
        if (GPU_CU_CHECK(d->cuMemcpyHtoDAsync(to + off, s->buf[b], n, s->stream), err) != 0 ||
            GPU_CU_CHECK(d->cuEventRecord(s->event[b], s->stream), err) != 0)
            return -1;
        s->busy[b] = 1;
    }
    s->busy[0] = s->busy[1] = 0;
    return GPU_CU_CHECK(d->cuStreamSynchronize(s->stream), err);
}

int gpu_staging_to_host(const gpu_driver_t *d, int device, void *host, const void *src,
                        size_t bytes, cm_error_t *err)
{
    stage_t *s = &stages[device];
    if (!ensure(d, s))
        return 1;
    if (check_mapped(host, bytes, err) != 0)
        return -1;
    char *dst = host;
    gpu_cudeviceptr_t from = (gpu_cudeviceptr_t)(uintptr_t)src;
    size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
    /* chunk k goes to buffer k % 2: start the first, then each step starts
     * the next DMA before copying the finished chunk out */
    for (size_t k = 0; k <= nchunks; k++) {
        if (k < nchunks) {
            size_t off = k * CHUNK, n = bytes - off < CHUNK ? bytes - off : CHUNK;
            int b = (int)(k & 1);
            if (wait_buffer(d, s, b, err) != 0 ||
                GPU_CU_CHECK(d->cuMemcpyDtoHAsync(s->buf[b], from + off, n, s->stream), err) ||
                GPU_CU_CHECK(d->cuEventRecord(s->event[b], s->stream), err))
                return -1;
            s->busy[b] = 1;
        }
        if (k > 0) {
            size_t j = k - 1, off = j * CHUNK, n = bytes - off < CHUNK ? bytes - off : CHUNK;
            int b = (int)(j & 1);
            if (wait_buffer(d, s, b, err) != 0)
                return -1;
            parallel_copy(dst + off, s->buf[b], n);
        }
    }
    return 0;
}
