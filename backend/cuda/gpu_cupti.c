/* gpu_cupti: CUPTI's Activity API, loaded with dlopen (see gpu_cupti.h).
 *
 * What runs per launch is CUPTI's alone: kernels are recorded as
 * CONCURRENT_KERNEL (KERNEL would serialise them), with copies and memsets;
 * no API records, no callbacks. Buffers of 4 MiB come from a pool zeroed
 * off the critical path (CUPTI is told they are zeroed, so it does not
 * clear 4 MiB on the launching thread at the cell's first launch) and are
 * read when CUPTI gives them back (when full, on its thread, or at the one
 * flush after the cell; the records are kept under a lock). The start
 * launches one empty kernel and waits for it, so that CUPTI's set-up of
 * the context happens before the cell, not in it.
 *
 * The floor's labels (gpu_cupti_push / _pop around an array kernel or a
 * BLAS call): CUPTI writes an external correlation record only before an
 * API record, so the driver's and the runtime's API records are on from
 * push to pop and off again: a label costs its call two enables and two
 * disables, a kernel cell's launch nothing. A kernel is the label's whose
 * launch (its correlation id) has an external correlation record with the
 * label's id; failing that, whose API record began between the label's
 * push and pop (CUPTI's clock) — cuBLAS launching from its own static
 * runtime, or through cuLaunchKernelEx, is caught by either. */
#include "gpu_cupti.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_dl.h"
#include "gpu_driver.h"
#include "gpu_internal.h"

#ifdef GPUC_HAVE_CUPTI
#include <cupti_activity.h>
#include <cupti_result.h>

#define BUFFER_BYTES (4u << 20)
#define POOL 8        /* zeroed buffers kept for CUPTI */
#define POOL_READY 3  /* made at the start: the cell's thread, CUPTI's, one spare */
#define WARMUP "gpuc_profile_warmup"

static struct {
    void *lib;
    char path[700];
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*push)(CUpti_ExternalCorrelationKind, uint64_t);
    CUptiResult (*pop)(CUpti_ExternalCorrelationKind, uint64_t *);
    CUptiResult (*timestamp)(uint64_t *);
    CUptiResult (*set_attribute)(CUpti_ActivityAttribute, size_t *, void *);
    CUptiResult (*result_string)(CUptiResult, const char **);
    int registered;
} C;

/* CUPTI's correlation id of a launch and what it leads to: the floor's
 * label (an external correlation record) or its API record's start */
typedef struct link {
    unsigned corr;
    unsigned long long value;
} link_t;

/* A label's stretch on the host: from push to pop, CUPTI's clock */
typedef struct window {
    unsigned long long id, begin, end;
} window_t;

static struct {
    pthread_mutex_t lock;
    gpu_cupti_record_t *v;
    int n, cap;
    link_t *ext, *api;
    int next, capext, napi, capapi;
} R = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, NULL, 0, 0, 0, 0};

static struct { /* the labels' windows: the launching thread's only */
    window_t *v;
    int n, cap;
} W;

static struct {
    pthread_mutex_t lock;
    uint8_t *free[POOL];
    int n;
} P = {PTHREAD_MUTEX_INITIALIZER, {NULL}, 0};

static const char *result_text(CUptiResult r)
{
    const char *s = NULL;
    if (C.result_string)
        C.result_string(r, &s);
    return s ? s : "unknown CUPTI error";
}

/* One more element of *v (n of them, room for *cap), or NULL. */
static void *grow(void **v, int n, int *cap, size_t size)
{
    if (n == *cap) {
        int c = *cap ? *cap * 2 : 256;
        void *w = realloc(*v, (size_t)c * size);
        if (!w)
            return NULL;
        *v = w;
        *cap = c;
    }
    return (char *)*v + (size_t)n * size;
}

/* A zeroed buffer: the pool's, else a new one (calloc's pages are zero). */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    pthread_mutex_lock(&P.lock);
    *buffer = P.n ? P.free[--P.n] : NULL;
    pthread_mutex_unlock(&P.lock);
    if (!*buffer)
        *buffer = calloc(1, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

/* Zeroed again and kept for the next request (off the launching thread:
 * CUPTI's, or the flush after the cell). */
static void recycle(uint8_t *buffer)
{
    memset(buffer, 0, BUFFER_BYTES);
    pthread_mutex_lock(&P.lock);
    if (P.n < POOL) {
        P.free[P.n++] = buffer;
        buffer = NULL;
    }
    pthread_mutex_unlock(&P.lock);
    free(buffer);
}

/* The pool holds POOL_READY buffers, their pages touched. */
static void fill_pool(void)
{
    for (;;) {
        pthread_mutex_lock(&P.lock);
        int enough = P.n >= POOL_READY;
        pthread_mutex_unlock(&P.lock);
        uint8_t *b = enough ? NULL : malloc(BUFFER_BYTES);
        if (!b)
            return;
        recycle(b);
    }
}

static gpu_cupti_record_t *new_record(void)
{
    gpu_cupti_record_t *r = grow((void **)&R.v, R.n, &R.cap, sizeof *R.v);
    if (!r)
        return NULL;
    R.n++;
    memset(r, 0, sizeof *r);
    return r;
}

/* A copy's or a memset's record (kind GPU_CUPTI_MEMCPY or _MEMSET), of the
 * fields their activity records share; NULL when out of memory. */
static gpu_cupti_record_t *new_transfer(int kind, const char *name, unsigned long long start,
                                        unsigned long long end, uint32_t device, uint32_t stream,
                                        unsigned long long bytes, uint32_t correlation)
{
    gpu_cupti_record_t *r = new_record();
    if (!r)
        return NULL;
    r->kind = kind;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->start = start;
    r->end = end;
    r->device = (int)device;
    r->stream = stream;
    r->bytes = bytes;
    r->correlation = correlation;
    return r;
}

static void add_link(link_t **v, int *n, int *cap, unsigned corr, unsigned long long value)
{
    link_t *l = grow((void **)v, *n, cap, sizeof **v);
    if (l) {
        l->corr = corr;
        l->value = value;
        (*n)++;
    }
}

static void keep(const CUpti_Activity *a)
{
    gpu_cupti_record_t *r;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
        if ((k->name && !strcmp(k->name, WARMUP)) || !(r = new_record()))
            return;
        r->kind = GPU_CUPTI_KERNEL;
        snprintf(r->name, sizeof r->name, "%s", k->name ? k->name : "kernel");
        r->start = k->start;
        r->end = k->end;
        r->device = (int)k->deviceId;
        r->stream = k->streamId;
        r->grid[0] = (unsigned)k->gridX, r->grid[1] = (unsigned)k->gridY, r->grid[2] = (unsigned)k->gridZ;
        r->block[0] = (unsigned)k->blockX, r->block[1] = (unsigned)k->blockY, r->block[2] = (unsigned)k->blockZ;
        r->registers = k->registersPerThread;
        r->static_shared = (int)k->staticSharedMemory;
        r->dynamic_shared = (int)k->dynamicSharedMemory;
        r->correlation = k->correlationId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        static const char *const names[] = {"copy", "copy HtoD", "copy DtoH", "copy HtoA",
                                            "copy AtoH", "copy AtoA", "copy AtoD", "copy DtoA",
                                            "copy DtoD", "copy HtoH", "copy PtoP"};
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
        r = new_transfer(GPU_CUPTI_MEMCPY, m->copyKind < 11 ? names[m->copyKind] : "copy",
                         m->start, m->end, m->deviceId, m->streamId, m->bytes, m->correlationId);
        if (r)
            r->copy_kind = m->copyKind;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
        new_transfer(GPU_CUPTI_MEMSET, "memset", m->start, m->end, m->deviceId, m->streamId,
                     m->bytes, m->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)a;
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
            add_link(&R.ext, &R.next, &R.capext, e->correlationId, e->externalId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const CUpti_ActivityAPI *api = (const CUpti_ActivityAPI *)a;
        add_link(&R.api, &R.napi, &R.capapi, api->correlationId, api->start);
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)ctx;
    (void)stream;
    CUpti_Activity *a = NULL;
    pthread_mutex_lock(&R.lock);
    while (C.next_record && C.next_record(buffer, valid, &a) == CUPTI_SUCCESS)
        keep(a);
    pthread_mutex_unlock(&R.lock);
    if (size == BUFFER_BYTES)
        recycle(buffer);
    else
        free(buffer);
}

/* libcupti: $GPUC_CUPTI (a file), beside the executable (a bundle's
 * lib/cupti), the toolkit's places, then the loader's path (gpu_dl_open). */
static int load(cm_error_t *err)
{
    if (C.lib)
        return 0;
    static const char *const names[] = {"libcupti.so.13", "libcupti.so", NULL};
    char exe[512], dir[600];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *places[] = {NULL, "/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64",
                            "/usr/local/cuda/lib"};
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(dir, sizeof dir, "%s/../lib/cupti", exe);
        places[0] = dir;
    }
    const char *own = getenv("GPUC_CUPTI"); /* a libcupti of one's choosing, first */
    if (own && own[0] && (C.lib = dlopen(own, RTLD_NOW | RTLD_LOCAL)))
        snprintf(C.path, sizeof C.path, "%s", own);
    for (size_t p = 0; p < sizeof places / sizeof *places && !C.lib; p++) {
        for (int i = 0; places[p] && names[i] && !C.lib; i++) {
            char file[700];
            snprintf(file, sizeof file, "%s/%s", places[p], names[i]);
            if ((C.lib = dlopen(file, RTLD_NOW | RTLD_LOCAL)))
                snprintf(C.path, sizeof C.path, "%s", file);
        }
        /* the perf libraries counter mode needs, from the same folder, loaded
         * first so that CUPTI's own dlopen by name finds them */
        static const char *const perf[] = {"libnvperf_host.so", "libnvperf_target.so"};
        for (size_t i = 0; C.lib && places[p] && i < 2; i++) {
            char file[700];
            snprintf(file, sizeof file, "%s/%s", places[p], perf[i]);
            dlopen(file, RTLD_NOW | RTLD_GLOBAL);
        }
    }
    char where[600] = "";
    if (!C.lib)
        C.lib = gpu_dl_open(names, RTLD_NOW | RTLD_LOCAL, C.path, sizeof C.path, where, sizeof where);
    if (!C.lib) {
        CM_ERROR(err, 20004, "CUPTI (libcupti) was not found: tried ../lib/cupti beside gpuc, "
                 "/usr/local/cuda/extras/CUPTI/lib64, %s", where);
        return -1;
    }
#define SYM(field, name) *(void **)&C.field = dlsym(C.lib, name)
    SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
    SYM(enable, "cuptiActivityEnable");
    SYM(disable, "cuptiActivityDisable");
    SYM(flush_all, "cuptiActivityFlushAll");
    SYM(next_record, "cuptiActivityGetNextRecord");
    SYM(push, "cuptiActivityPushExternalCorrelationId");
    SYM(pop, "cuptiActivityPopExternalCorrelationId");
    SYM(timestamp, "cuptiGetTimestamp");
    SYM(set_attribute, "cuptiActivitySetAttribute");
    SYM(result_string, "cuptiGetResultString");
#undef SYM
    if (!C.register_callbacks || !C.enable || !C.disable || !C.flush_all || !C.next_record ||
        !C.timestamp) {
        CM_ERROR(err, 20004, "%s lacks the Activity API", C.path);
        dlclose(C.lib);
        C.lib = NULL;
        return -1;
    }
    return 0;
}

static const CUpti_ActivityKind KINDS[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

/* on from a label's push to its pop only (see the top) */
static const CUpti_ActivityKind API_KINDS[] = {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME};

static const char WARMUP_PTX[] = ".version 6.4\n.target sm_75\n.address_size 64\n"
                                 ".visible .entry " WARMUP "()\n{\n\tret;\n}\n";

/* One empty kernel launched and waited for (its record is dropped), and
 * whatever the cell queued before drained: CUPTI's first traced launch in
 * a context sets things up, which is then not the cell's time. */
static void warm_up(void)
{
    static gpu_cucontext_t loaded_in;
    static gpu_cufunction_t fn;
    const gpu_driver_t *d = gpu_driver_get(NULL);
    cm_error_t ignored = {0};
    gpu_cucontext_t ctx = NULL;
    if (!d || gpu_context_ensure(&ignored) || d->cuCtxGetCurrent(&ctx) != GPU_CU_SUCCESS || !ctx)
        return;
    if (ctx != loaded_in) {
        gpu_cumodule_t m = NULL;
        fn = NULL;
        loaded_in = ctx;
        if (d->cuModuleLoadData(&m, WARMUP_PTX) == GPU_CU_SUCCESS &&
            d->cuModuleGetFunction(&fn, m, WARMUP) != GPU_CU_SUCCESS)
            fn = NULL;
    }
    if (fn)
        d->cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    d->cuCtxSynchronize();
}

int gpu_cupti_start(cm_error_t *err)
{
    if (load(err))
        return -1;
    CUptiResult r;
    if (!C.registered) {
        if (C.set_attribute) { /* our buffers come zeroed: CUPTI need not clear them */
            uint8_t zeroed = 1;
            size_t len = sizeof zeroed;
            C.set_attribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &len, &zeroed);
        }
        if ((r = C.register_callbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
            CM_ERROR(err, 20004, "cuptiActivityRegisterCallbacks: %s", result_text(r));
            return -1;
        }
        C.registered = 1;
    }
    fill_pool();
    pthread_mutex_lock(&R.lock);
    R.n = R.next = R.napi = 0;
    pthread_mutex_unlock(&R.lock);
    W.n = 0;
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        if ((r = C.enable(KINDS[i])) != CUPTI_SUCCESS) {
            CM_ERROR(err, 20004, "cuptiActivityEnable(%d): %s", (int)KINDS[i], result_text(r));
            for (size_t j = 0; j < i; j++)
                C.disable(KINDS[j]);
            return -1;
        }
    warm_up();
    return 0;
}

static int by_corr(const void *a, const void *b)
{
    unsigned x = ((const link_t *)a)->corr, y = ((const link_t *)b)->corr;
    return x < y ? -1 : x > y;
}

/* What corr leads to in v (sorted by_corr), or 0. */
static unsigned long long lookup(const link_t *v, int n, unsigned corr)
{
    link_t key = {corr, 0};
    const link_t *l = n ? bsearch(&key, v, (size_t)n, sizeof *v, by_corr) : NULL;
    return l ? l->value : 0;
}

/* The label whose window holds host time t (the windows are in push
 * order, not nested), or 0. */
static unsigned long long window_at(unsigned long long t)
{
    for (int i = W.n - 1; i >= 0; i--)
        if (W.v[i].begin <= t && t <= W.v[i].end)
            return W.v[i].id;
    return 0;
}

int gpu_cupti_stop(gpu_cupti_record_t **out, int *n, cm_error_t *err)
{
    *out = NULL;
    *n = 0;
    if (!C.lib) {
        CM_ERROR(err, 20004, "CUPTI is not loaded");
        return -1;
    }
    C.flush_all(1); /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        C.disable(KINDS[i]);
    for (size_t i = 0; i < sizeof API_KINDS / sizeof *API_KINDS; i++)
        C.disable(API_KINDS[i]);
    pthread_mutex_lock(&R.lock);
    if (R.next) /* the arrays are NULL while empty: qsort of NULL is undefined */
        qsort(R.ext, (size_t)R.next, sizeof *R.ext, by_corr);
    if (R.napi)
        qsort(R.api, (size_t)R.napi, sizeof *R.api, by_corr);
    for (int i = 0; i < R.n; i++) {
        gpu_cupti_record_t *r = &R.v[i];
        r->external = lookup(R.ext, R.next, r->correlation);
        unsigned long long launched = r->external ? 0 : lookup(R.api, R.napi, r->correlation);
        if (launched)
            r->external = window_at(launched);
    }
    *out = R.v;
    *n = R.n;
    R.v = NULL;
    R.n = R.cap = 0;
    R.next = R.napi = 0;
    pthread_mutex_unlock(&R.lock);
    W.n = 0;
    return 0;
}

void gpu_cupti_push(unsigned long long id)
{
    if (!C.push)
        return;
    window_t *w = grow((void **)&W.v, W.n, &W.cap, sizeof *W.v);
    if (w) {
        w->id = id;
        w->begin = gpu_cupti_timestamp();
        w->end = ~0ULL; /* open */
        W.n++;
    }
    for (size_t i = 0; i < sizeof API_KINDS / sizeof *API_KINDS; i++)
        C.enable(API_KINDS[i]);
    C.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void gpu_cupti_pop(void)
{
    uint64_t last = 0;
    if (!C.pop)
        return;
    C.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
    for (size_t i = 0; i < sizeof API_KINDS / sizeof *API_KINDS; i++)
        C.disable(API_KINDS[i]);
    for (int i = W.n - 1; i >= 0; i--)
        if (W.v[i].end == ~0ULL) {
            W.v[i].end = gpu_cupti_timestamp();
            break;
        }
}

unsigned long long gpu_cupti_timestamp(void)
{
    uint64_t t = 0;
    if (C.timestamp)
        C.timestamp(&t);
    return t;
}

const char *gpu_cupti_path(void)
{
    return C.path;
}

void *gpu_cupti_library(cm_error_t *err)
{
    return load(err) ? NULL : C.lib;
}

#else /* no CUPTI headers at build time */

static int missing(cm_error_t *err)
{
    CM_ERROR(err, 20004, "this gpuc was built without CUPTI's headers: it cannot profile a GPU");
    return -1;
}

int gpu_cupti_start(cm_error_t *err)
{
    return missing(err);
}

int gpu_cupti_stop(gpu_cupti_record_t **out, int *n, cm_error_t *err)
{
    *out = NULL;
    *n = 0;
    return missing(err);
}

void gpu_cupti_push(unsigned long long id)
{
    (void)id;
}

void gpu_cupti_pop(void) {}

unsigned long long gpu_cupti_timestamp(void)
{
    return 0;
}

const char *gpu_cupti_path(void)
{
    return "";
}

void *gpu_cupti_library(cm_error_t *err)
{
    missing(err);
    return NULL;
}

#endif
