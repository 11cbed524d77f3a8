/* ga_backend: where array memory lives — the CPU backend (host memory)
 * or a GPU (backend/cuda/gpu_mem) — and the caching pool in front of both.
 *
 * The pool (one per device) keeps freed buffers by size class and hands
 * them out again without asking the driver: sizes round up to 512 bytes
 * below 1 MiB and to 2 MiB above. When the driver says out of memory, the
 * device's cache is given back and the allocation tried once more; an
 * error then says bytes asked, in use, cached and free. A limit caps what
 * the pool holds (in use + cached), as CuPy's set_limit.
 *
 * Device numbers: GA_CPU, or the GPU selected in backend/cuda/ (arrays on another
 * GPU are an error for now: one GPU at a time). */
#ifndef GA_BACKEND_H
#define GA_BACKEND_H

#include <stddef.h>

#include "cm_error.h"
#include "ga_array.h"

/* A new buffer of bytes on device (refs 0; ga_array_on takes one). NULL
 * with err set: GA_E_MEMORY (out of memory, in words), GA_E_DEVICE. */
ga_buffer_t *ga_buffer_new(int device, size_t bytes, cm_error_t *err);

/* A buffer over memory the user allocated (not owned: never freed). */
ga_buffer_t *ga_buffer_wrap(int device, void *ptr, size_t bytes);

/* Drops one reference; at none the memory goes back to the pool. */
void ga_buffer_release(ga_buffer_t *b);

/* Says that work queued on stream (a user's CUstream / cudaStream_t) uses
 * b, after that work was queued: the pool hands b's memory out again only
 * once the work is done, so an array freed while a kernel on a stream of
 * the user's still uses it is safe. The default stream (NULL or legacy)
 * needs nothing: gpuc's own work is ordered on it. */
void ga_buffer_used_on(ga_buffer_t *b, void *stream);

/* Raw copies of bytes on a device: zero dst, host -> device, device ->
 * host, device -> device (on GA_CPU all are memcpy/memset). */
int ga_mem_zero(int device, void *dst, size_t bytes, cm_error_t *err);
int ga_mem_to_device(int device, void *dst, const void *host, size_t bytes, cm_error_t *err);
int ga_mem_to_host(int device, void *host, const void *src, size_t bytes, cm_error_t *err);
int ga_mem_copy(int device, void *dst, const void *src, size_t bytes, cm_error_t *err);

/* What the pool of device holds. */
typedef struct ga_pool_stats {
    size_t in_use;     /* bytes of live buffers (size classes) */
    size_t cached;     /* bytes of freed buffers kept for reuse */
    size_t limit;      /* 0 = none */
    size_t allocs, hits; /* buffers handed out, and how many came from the cache */
} ga_pool_stats_t;

void ga_pool_stats(int device, ga_pool_stats_t *out);

/* Gives device's cached buffers back to the driver (%memory free).
 * Returns the bytes given back. */
size_t ga_pool_release(int device);

/* Caps what device's pool holds (0: no cap). */
void ga_pool_set_limit(int device, size_t bytes);

/* Free and total bytes of the device: the driver's for a GPU; for the CPU,
 * MemAvailable and MemTotal of /proc/meminfo. -1 with err when unknown. */
int ga_device_memory(int device, size_t *free_bytes, size_t *total_bytes, cm_error_t *err);

/* Where new arrays go: GA_CPU, or a GPU number. Starts as the GPU when
 * one is usable, else the CPU (decided at the first call). */
int ga_backend_device(void);
void ga_backend_set_device(int device);

#endif
