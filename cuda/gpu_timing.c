/* gpu_timing: GPU time between two CUDA events on the default stream, for
 * the timing magics (see gpu.h). Policy only; the events are
 * gpu_driver's thin bindings. */
#include <stdlib.h>

#include "gpu.h"
#include "gpu_driver.h"

struct gpu_timer {
    const gpu_driver_t *d;
    gpu_cuevent_t start, stop;
};

gpu_timer_t *gpu_timer_new(void)
{
    const gpu_driver_t *d = gpu_driver_loaded();
    gpu_cucontext_t ctx = NULL;
    if (!d || !d->cuEventCreate || !d->cuEventRecord || !d->cuEventSynchronize ||
        !d->cuEventElapsedTime || !d->cuEventDestroy ||
        d->cuCtxGetCurrent(&ctx) != GPU_CU_SUCCESS || !ctx)
        return NULL;
    gpu_timer_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->d = d;
    if (d->cuEventCreate(&t->start, 0) != GPU_CU_SUCCESS ||
        d->cuEventCreate(&t->stop, 0) != GPU_CU_SUCCESS) {
        gpu_timer_free(t);
        return NULL;
    }
    return t;
}

int gpu_timer_start(gpu_timer_t *t, cm_error_t *err)
{
    return GPU_CU_CHECK(t->d->cuEventRecord(t->start, NULL), err);
}

int gpu_timer_stop(gpu_timer_t *t, double *seconds, cm_error_t *err)
{
    float ms = 0;
    if (GPU_CU_CHECK(t->d->cuEventRecord(t->stop, NULL), err) ||
        GPU_CU_CHECK(t->d->cuEventSynchronize(t->stop), err) ||
        GPU_CU_CHECK(t->d->cuEventElapsedTime(&ms, t->start, t->stop), err))
        return -1;
    *seconds = ms / 1e3;
    return 0;
}

void gpu_timer_free(gpu_timer_t *t)
{
    if (!t)
        return;
    if (t->start)
        t->d->cuEventDestroy(t->start);
    if (t->stop)
        t->d->cuEventDestroy(t->stop);
    free(t);
}
