/* A stand-in libcupti for test_gpu_cupti (loaded through GPUC_CUPTI): the
 * Activity API as gpu_cupti.c uses it, acted out without a GPU. fake_launch
 * plays a launch as CUPTI records it: an API record only while the driver's
 * API records are on, preceded by an external correlation record when an id
 * is pushed (unless fake_no_external), and the kernel's record, its start
 * later than the launch's; fake_copy and fake_memset a copy's and a
 * memset's record on stream 7 of device 0. Records lie in the buffer
 * behind a size_t of their length. */
#include <cupti_activity.h>
#include <stdint.h>
#include <string.h>

int fake_no_external, fake_dirty, fake_api_records;
uint8_t fake_zeroed_attr;

static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static int enabled[64];
static uint64_t pushed[8], now = 1000;
static int depth;
static uint32_t next_corr = 1;
static uint8_t *buf;
static size_t size, used;

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                           CUpti_BuffersCallbackCompleteFunc c)
{
    requested = r;
    completed = c;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
    enabled[k & 63] = 1;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind k)
{
    enabled[k & 63] = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *len, void *v)
{
    if (a == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER && *len == 1)
        fake_zeroed_attr = *(uint8_t *)v;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t *t)
{
    *t = now += 10;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t id)
{
    (void)k;
    pushed[depth++] = id;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t *last)
{
    (void)k;
    if (!depth)
        return CUPTI_ERROR_QUEUE_EMPTY;
    *last = pushed[--depth];
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    (void)r;
    *s = "fake CUPTI";
    return CUPTI_SUCCESS;
}

/* room for a record of len bytes in the buffer (asked for at the first) */
static void *put(size_t len)
{
    if (!buf) {
        size_t max;
        requested(&buf, &size, &max);
        for (size_t i = 0; i < size; i++)
            fake_dirty |= buf[i] != 0;
        used = 0;
    }
    memcpy(buf + used, &len, sizeof len);
    void *p = buf + used + sizeof len;
    used += sizeof len + len;
    return p;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **rec)
{
    uint8_t *p = buffer;
    if (*rec) {
        size_t len;
        memcpy(&len, (uint8_t *)*rec - sizeof len, sizeof len);
        p = (uint8_t *)*rec + len;
    }
    if ((size_t)(p - buffer) >= valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)(p + sizeof(size_t));
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    if (buf)
        completed(NULL, 0, buf, size, used);
    buf = NULL;
    return CUPTI_SUCCESS;
}

void fake_launch(const char *name)
{
    uint32_t corr = next_corr++;
    uint64_t t = now += 10;
    if (enabled[CUPTI_ACTIVITY_KIND_DRIVER]) {
        if (depth && enabled[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION] && !fake_no_external) {
            CUpti_ActivityExternalCorrelation *e = put(sizeof *e);
            e->kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
            e->externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
            e->externalId = pushed[depth - 1];
            e->correlationId = corr;
        }
        CUpti_ActivityAPI *a = put(sizeof *a);
        a->kind = CUPTI_ACTIVITY_KIND_DRIVER;
        a->start = t;
        a->end = t + 5;
        a->correlationId = corr;
        fake_api_records++;
    }
    if (enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]) {
        CUpti_ActivityKernel10 *k = put(sizeof *k);
        k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        k->name = name;
        k->start = t + 100000; /* on the GPU, long after the host's call */
        k->end = t + 100500;
        k->gridX = k->gridY = k->gridZ = k->blockX = k->blockY = k->blockZ = 1;
        k->correlationId = corr;
    }
}

void fake_copy(int copy_kind, uint64_t bytes)
{
    uint64_t t = now += 10;
    if (enabled[CUPTI_ACTIVITY_KIND_MEMCPY]) {
        CUpti_ActivityMemcpy6 *m = put(sizeof *m);
        m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        m->copyKind = (uint8_t)copy_kind;
        m->bytes = bytes;
        m->start = t;
        m->end = t + 200;
        m->deviceId = 0;
        m->streamId = 7;
        m->correlationId = next_corr++;
    }
}

void fake_memset(uint64_t bytes)
{
    uint64_t t = now += 10;
    if (enabled[CUPTI_ACTIVITY_KIND_MEMSET]) {
        CUpti_ActivityMemset4 *m = put(sizeof *m);
        m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
        m->bytes = bytes;
        m->start = t;
        m->end = t + 50;
        m->deviceId = 0;
        m->streamId = 7;
        m->correlationId = next_corr++;
    }
}
