/* bk_time: timers, the kernel clock and waits of a device, through its
 * table (see bk.h). A timer remembers its backend's table, so that it is
 * started, stopped and freed by the code that made it. */
#include <stdlib.h>

#include "bk_internal.h"

struct bk_timer {
    const bk_ops_t *ops;
    void *impl; /* the backend's timer */
};

bk_timer_t *bk_timer_new(bk_device_t d)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, NULL);
    void *impl = o && o->timer_new ? o->timer_new() : NULL;
    if (!impl)
        return NULL;
    bk_timer_t *t = malloc(sizeof *t);
    if (!t) {
        o->timer_free(impl);
        return NULL;
    }
    t->ops = o;
    t->impl = impl;
    return t;
}

int bk_timer_start(bk_timer_t *t, cm_error_t *err)
{
    return t->ops->timer_start(t->impl, err);
}

int bk_timer_stop(bk_timer_t *t, double *seconds, cm_error_t *err)
{
    return t->ops->timer_stop(t->impl, seconds, err);
}

void bk_timer_free(bk_timer_t *t)
{
    if (!t)
        return;
    t->ops->timer_free(t->impl);
    free(t);
}

int bk_kernel_clock_start(bk_device_t d)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, NULL);
    return o && o->clock_start ? o->clock_start() : -1;
}

int bk_kernel_clock_stop(bk_device_t d, double *seconds)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, NULL);
    return o && o->clock_stop ? o->clock_stop(seconds) : -1;
}

int bk_synchronize(bk_device_t d, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    if (!o)
        return -1;
    return o->synchronize ? o->synchronize(ord, err) : 0; /* host devices: done at the call */
}
