/* gpu_mem: device memory for the array library (see gpu.h). The pool and
 * the policy of what to cache are runtime/array's; these are the calls. */
#include "gpu.h"

#include <stdint.h>

#include "gpu_driver.h"
#include "gpu_internal.h"

/* The driver with the selected device's context current, or NULL. */
static const gpu_driver_t *ready(cm_error_t *err)
{
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d || gpu_context_ensure(err) != 0)
        return NULL;
    return d;
}

int gpu_mem_alloc(size_t bytes, void **ptr, cm_error_t *err)
{
    const gpu_driver_t *d = ready(err);
    gpu_cudeviceptr_t p = 0;
    if (!d || GPU_CU_CHECK(d->cuMemAlloc(&p, bytes ? bytes : 1), err) != 0)
        return -1;
    *ptr = (void *)(uintptr_t)p;
    return 0;
}

void gpu_mem_free(void *ptr)
{
    const gpu_driver_t *d = gpu_driver_loaded();
    if (d && ptr)
        d->cuMemFree((gpu_cudeviceptr_t)(uintptr_t)ptr);
}

int gpu_mem_zero(void *dst, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(err);
    if (!d)
        return -1;
    return bytes ? GPU_CU_CHECK(d->cuMemsetD8((gpu_cudeviceptr_t)(uintptr_t)dst, 0, bytes), err)
                 : 0;
}

#define STAGED_FROM (8u << 20) /* bytes from which copies go through pinned staging */

int gpu_mem_to_device(void *dst, const void *host, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(err);
    if (!d)
        return -1;
    if (bytes >= STAGED_FROM) {
        int rc = gpu_staging_to_device(d, dst, host, bytes, err);
        if (rc <= 0)
            return rc;
    }
    return bytes ? GPU_CU_CHECK(d->cuMemcpyHtoD((gpu_cudeviceptr_t)(uintptr_t)dst, host, bytes),
                                err)
                 : 0;
}

int gpu_mem_to_host(void *host, const void *src, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(err);
    if (!d)
        return -1;
    if (bytes >= STAGED_FROM) {
        int rc = gpu_staging_to_host(d, host, src, bytes, err);
        if (rc <= 0)
            return rc;
    }
    return bytes ? GPU_CU_CHECK(d->cuMemcpyDtoH(host, (gpu_cudeviceptr_t)(uintptr_t)src, bytes),
                                err)
                 : 0;
}

int gpu_mem_copy(void *dst, const void *src, size_t bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(err);
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

int gpu_mem_info(size_t *free_bytes, size_t *total_bytes, cm_error_t *err)
{
    const gpu_driver_t *d = ready(err);
    if (!d)
        return -1;
    return GPU_CU_CHECK(d->cuMemGetInfo(free_bytes, total_bytes), err);
}
