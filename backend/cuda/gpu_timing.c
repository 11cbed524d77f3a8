/* gpu_timing: GPU time between two CUDA events on the default stream, for
 * the timing magics (see gpu.h). Policy only; the events are
 * gpu_driver's thin bindings. */
#include <stdlib.h>
#include <time.h>

#include "gpu.h"
#include "gpu_driver.h"
#include "gpu_internal.h"
#include "sim.h"

/* On the simulator (d NULL) a timer reads the seconds simulated kernels
 * ran (sim_kernel_seconds): kernels run as they are launched, so the
 * difference is the kernel time between start and stop. */
struct gpu_timer {
    const gpu_driver_t *d;
    gpu_cuevent_t start, stop;
    double sim_start;
};

gpu_timer_t *gpu_timer_new(void)
{
    if (gpu_simulating())
        return calloc(1, sizeof(gpu_timer_t));
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
    if (!t->d) {
        t->sim_start = sim_kernel_seconds();
        return 0;
    }
    return GPU_CU_CHECK(t->d->cuEventRecord(t->start, NULL), err);
}

int gpu_timer_stop(gpu_timer_t *t, double *seconds, cm_error_t *err)
{
    float ms = 0;
    if (!t->d) {
        *seconds = sim_kernel_seconds() - t->sim_start;
        return 0;
    }
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
    if (t->d && t->start)
        t->d->cuEventDestroy(t->start);
    if (t->d && t->stop)
        t->d->cuEventDestroy(t->stop);
    free(t);
}

/* ---- the kernel clock ---------------------------------------------------- */

#define PAIRS 1024 /* event pairs in flight; then they are summed and reused */

/* The events of one context (a device), made at its first timing and kept. */
typedef struct clock_events {
    gpu_cucontext_t ctx;
    gpu_cuevent_t start[PAIRS], stop[PAIRS];
} clock_events_t;

static clock_events_t clock_sets[GPU_MAX_DEVICES];

static struct {
    const gpu_driver_t *d;
    int on, used;
    gpu_cuevent_t *start, *stop; /* the timed context's (clock_sets) */
    double total_ms;
    int sim;                   /* on for the simulator: sim_start is the reading */
    double sim_start;
    gpu_cucontext_t ctx;       /* the context timed: launches on others go untimed */
} kc;

/* The events of ctx, made on first use; NULL when they cannot be. */
static clock_events_t *events_of(const gpu_driver_t *d, gpu_cucontext_t ctx)
{
    int i = 0;
    while (i < GPU_MAX_DEVICES && clock_sets[i].ctx && clock_sets[i].ctx != ctx)
        i++;
    if (i == GPU_MAX_DEVICES)
        return NULL;
    clock_events_t *e = &clock_sets[i];
    if (!e->ctx) {
        for (int k = 0; k < PAIRS; k++)
            if (d->cuEventCreate(&e->start[k], 0) != GPU_CU_SUCCESS ||
                d->cuEventCreate(&e->stop[k], 0) != GPU_CU_SUCCESS)
                return NULL; /* made again, in full, next time */
        e->ctx = ctx;
    }
    return e;
}

/* Sums the pairs recorded so far (waiting for the last one) and frees them. */
static void drain(void)
{
    if (!kc.used)
        return;
    kc.d->cuEventSynchronize(kc.stop[kc.used - 1]);
    for (int i = 0; i < kc.used; i++) {
        float ms = 0;
        if (kc.d->cuEventElapsedTime(&ms, kc.start[i], kc.stop[i]) == GPU_CU_SUCCESS)
            kc.total_ms += ms;
    }
    kc.used = 0;
}

int gpu_kernel_clock_start(void)
{
    if (gpu_simulating()) {
        kc.sim = 1;
        kc.sim_start = sim_kernel_seconds();
        return 0;
    }
    const gpu_driver_t *d = gpu_driver_loaded();
    gpu_cucontext_t ctx = NULL;
    if (!d || !d->cuEventCreate || !d->cuEventRecord || !d->cuEventSynchronize ||
        !d->cuEventElapsedTime || d->cuCtxGetCurrent(&ctx) != GPU_CU_SUCCESS || !ctx)
        return -1;
    clock_events_t *e = events_of(d, ctx);
    if (!e)
        return -1;
    kc.d = d;
    kc.ctx = ctx; /* the selected device's: other devices' launches go untimed */
    kc.start = e->start;
    kc.stop = e->stop;
    kc.total_ms = 0;
    kc.used = 0;
    kc.on = 1;
    return 0;
}

int gpu_kernel_clock_stop(double *seconds)
{
    *seconds = 0;
    if (kc.sim) {
        kc.sim = 0;
        *seconds = sim_kernel_seconds() - kc.sim_start;
        return 0;
    }
    if (!kc.on)
        return -1;
    drain();
    kc.on = 0;
    *seconds = kc.total_ms / 1e3;
    return 0;
}

/* 1 when the current context is the clock's (its events can be recorded). */
static int clock_context(void)
{
    gpu_cucontext_t ctx = NULL;
    return kc.d->cuCtxGetCurrent(&ctx) == GPU_CU_SUCCESS && ctx == kc.ctx;
}

void gpu_kernel_clock_before(void *stream)
{
    if (!kc.on || !clock_context())
        return;
    if (kc.used == PAIRS)
        drain();
    kc.d->cuEventRecord(kc.start[kc.used], (gpu_custream_t)stream);
}

void gpu_kernel_clock_after(void *stream)
{
    if (!kc.on || !clock_context())
        return;
    kc.d->cuEventRecord(kc.stop[kc.used], (gpu_custream_t)stream);
    kc.used++;
}
