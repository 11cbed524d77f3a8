/* bk_flag: a device's flag, two int64 its kernels set and the host reads
 * (see bk.h). A GPU's is pinned host memory its kernels write through the
 * bus (the table's mapped); a device whose memory is the host's takes its
 * own allocation, which serves the host and its kernels alike. */
#include "bk_internal.h"

#include <string.h>

typedef struct flag {
    long long *host;
    void *dev;
} flag_t;

static flag_t flags[BK_NBACKENDS][BK_MAX_ORDINALS];

long long *bk_flag(bk_device_t d, void **dev, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    if (!o)
        return NULL;
    flag_t *f = &flags[bk_backend(d)][ord];
    if (!f->host) {
        void *host = NULL, *at = NULL;
        int rc = o->mapped ? o->mapped(ord, 2 * sizeof *f->host, &host, &at, err)
                           : o->alloc(ord, 2 * sizeof *f->host, &host, err);
        if (rc)
            return NULL;
        f->host = host;
        f->dev = o->mapped ? at : host;
    }
    memset(f->host, 0, 2 * sizeof *f->host);
    *dev = f->dev;
    return f->host;
}

int bk_flag_wait(bk_device_t d, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    if (!o)
        return -1;
    return o->wait ? o->wait(ord, err) : 0;
}
