/* gpu_mem: device memory for the array library (see gpu.h). The pool and
 * the policy of what to cache are the backend floor's; these are the
 * calls, each in its device's context (gpu_context_use): the caller
 * (backend/bk_cuda.c) makes the selected device's context current again
 * afterwards (gpu_context_back). */
#include "gpu.h"

#include <stdint.h>

#include "gpu_driver.h"
#include "gpu_internal.h"

/* The driver with device's context current, or NULL. */
static const gpu_driver_t *ready(int device, cm_error_t *err)
{
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d || gpu_context_use(device, err) != 0)
        return NULL;
    return d;
}

int gpu_mem_alloc(int device, size_t bytes, void **ptr, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    gpu_cudeviceptr_t p = 0;
    if (!d || GPU_CU_CHECK(d->cuMemAlloc(&p, bytes ? bytes : 1), err) != 0)
        return -1;
    *ptr = (void *)(uintptr_t)p;
    return 0;
}

void gpu_mem_free(int device, void *ptr)
{
    const gpu_driver_t *d = gpu_driver_loaded();
    if (d && ptr && gpu_context_use(device, NULL) == 0)
        d->cuMemFree((gpu_cudeviceptr_t)(uintptr_t)ptr);
}

int gpu_mem_zero(int device, void *dst, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    if (!d)
        return -1;
    return bytes ? GPU_CU_CHECK(d->cuMemsetD8((gpu_cudeviceptr_t)(uintptr_t)dst, 0, bytes), err)
                 : 0;
}

#define STAGED_FROM (8u << 20) /* bytes from which copies go through pinned staging */

int gpu_mem_to_device(int device, void *dst, const void *host, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    if (!d)
        return -1;
    if (bytes >= STAGED_FROM) {
        int rc = gpu_staging_to_device(d, device, dst, host, bytes, err);
        if (rc <= 0)
            return rc;
    }
    return bytes ? GPU_CU_CHECK(d->cuMemcpyHtoD((gpu_cudeviceptr_t)(uintptr_t)dst, host, bytes),
                                err)
                 : 0;
}

int gpu_mem_to_host(int device, void *host, const void *src, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    if (!d)
        return -1;
    if (bytes >= STAGED_FROM) {
        int rc = gpu_staging_to_host(d, device, host, src, bytes, err);
        if (rc <= 0)
            return rc;
    }
    return bytes ? GPU_CU_CHECK(d->cuMemcpyDtoH(host, (gpu_cudeviceptr_t)(uintptr_t)src, bytes),
                                err)
                 : 0;
}

int gpu_mem_copy(int device, void *dst, const void *src, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    if (!d)
        return -1;
    return bytes ? GPU_CU_CHECK(d->cuMemcpyDtoD((gpu_cudeviceptr_t)(uintptr_t)dst,
                                                (gpu_cudeviceptr_t)(uintptr_t)src, bytes),
                                err)
                 : 0;
}

void *gpu_mem_mark(void *stream, void *mark)
{
    const gpu_driver_t *d = gpu_driver_loaded();
    if (!d)
        return mark;
    gpu_cuevent_t ev = mark;
    /* flags 2: CU_EVENT_DISABLE_TIMING, the cheap kind */
    if (d->cuEventRecord && d->cuEventQuery && (ev || (d->cuEventCreate && d->cuEventCreate(&ev, 2) == 0)) &&
        d->cuEventRecord(ev, stream) == 0)
        return ev;
    d->cuStreamSynchronize(stream); /* no event: the work is done when this returns */
    return ev;
}

int gpu_mem_mark_pending(void *mark)
{
    const gpu_driver_t *d = gpu_driver_loaded();
    return d && mark && d->cuEventQuery && d->cuEventQuery(mark) == 600; /* NOT_READY */
}

void gpu_mem_mark_drop(void *mark)
{
    const gpu_driver_t *d = gpu_driver_loaded();
    if (!d || !mark)
        return;
    d->cuEventSynchronize(mark);
    d->cuEventDestroy(mark);
}

int gpu_mem_mapped(int device, size_t bytes, void **host, void **dev, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    if (!d || GPU_CU_CHECK(d->cuMemAllocHost(host, bytes ? bytes : 1), err) != 0)
        return -1;
    gpu_cudeviceptr_t p = (gpu_cudeviceptr_t)(uintptr_t)*host; /* unified addressing: the same */
    if (d->cuMemHostGetDevicePointer &&
        GPU_CU_CHECK(d->cuMemHostGetDevicePointer(&p, *host, 0), err) != 0) {
        d->cuMemFreeHost(*host);
        *host = NULL;
        return -1;
    }
    *dev = (void *)(uintptr_t)p;
    return 0;
}

int gpu_mem_wait(int device, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    return d ? GPU_CU_CHECK(d->cuStreamSynchronize(NULL), err) : -1;
}

int gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(device, err);
    if (!d)
        return -1;
    return GPU_CU_CHECK(d->cuMemGetInfo(free_bytes, total_bytes), err);
}

/* ---- between GPUs ------------------------------------------------------ */

static signed char can_peer[GPU_MAX_DEVICES][GPU_MAX_DEVICES];  /* 0 unknown, 1 yes, -1 no */
static signed char peer_on[GPU_MAX_DEVICES][GPU_MAX_DEVICES];   /* enabled both ways */

int gpu_mem_peer_link(int a, int b)
{
    if (a < 0 || b < 0 || a >= GPU_MAX_DEVICES || b >= GPU_MAX_DEVICES || a == b)
        return a == b;
    if (!can_peer[a][b]) {
        const gpu_driver_t *d = gpu_driver_get(NULL);
        int ab = 0, ba = 0;
        gpu_cudevice_t ha, hb;
        int yes = d && d->cuDeviceCanAccessPeer && d->cuCtxEnablePeerAccess &&
                  d->cuDeviceGet(&ha, a) == GPU_CU_SUCCESS &&
                  d->cuDeviceGet(&hb, b) == GPU_CU_SUCCESS &&
                  d->cuDeviceCanAccessPeer(&ab, ha, hb) == GPU_CU_SUCCESS &&
                  d->cuDeviceCanAccessPeer(&ba, hb, ha) == GPU_CU_SUCCESS && ab && ba;
        can_peer[a][b] = can_peer[b][a] = yes ? 1 : -1;
    }
    return can_peer[a][b] > 0;
}

/* Enables peer access between a and b both ways, once (each context may
 * then read and write the other's memory: cuMemcpyPeer goes direct). */
static void enable_peer(const gpu_driver_t *d, int a, int b)
{
    if (peer_on[a][b] || !gpu_mem_peer_link(a, b))
        return;
    for (int k = 0; k < 2; k++) {
        int from = k ? b : a, to = k ? a : b;
        gpu_curesult_t rc = -1;
        if (gpu_context_use(to, NULL) == 0 && gpu_context_use(from, NULL) == 0)
            rc = d->cuCtxEnablePeerAccess(gpu_context_handle(to), 0);
        if (rc != GPU_CU_SUCCESS && rc != 704) /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
            return; /* copies still work, staged by the driver */
    }
    peer_on[a][b] = peer_on[b][a] = 1;
}

int gpu_mem_peer(int dst_device, void *dst, int src_device, const void *src, size_t bytes,
                 cm_error_t *err)
{
    const gpu_driver_t *d = ready(src_device, err);
    if (!d)
        return -1;
    if (!bytes)
        return 0;
    /* both devices' queued work (which may write src or read dst) is done
     * first; the copy itself is synchronous */
    if (GPU_CU_CHECK(d->cuCtxSynchronize(), err))
        return -1;
    if (dst_device >= 0 && dst_device < GPU_MAX_DEVICES && src_device >= 0 &&
        src_device < GPU_MAX_DEVICES)
        enable_peer(d, dst_device, src_device); /* direct where the GPUs can */
    if (!d->cuMemcpyPeer)
        return 1;
    if (!ready(dst_device, err) || GPU_CU_CHECK(d->cuCtxSynchronize(), err))
        return -1;
    return GPU_CU_CHECK(d->cuMemcpyPeer((gpu_cudeviceptr_t)(uintptr_t)dst,
                                        gpu_context_handle(dst_device),
                                        (gpu_cudeviceptr_t)(uintptr_t)src,
                                        gpu_context_handle(src_device), bytes),
                        err);
}
