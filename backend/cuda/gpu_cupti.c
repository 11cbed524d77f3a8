/* gpu_cupti: CUPTI's Activity API, loaded with dlopen (see gpu_cupti.h).
 * Kernels are recorded as CONCURRENT_KERNEL (KERNEL would serialise
 * them); copies and memsets too; external correlation records tie a
 * launch to the floor's label. Buffers of 4 MiB are handed to CUPTI and
 * read when it gives them back (at a flush, or when full, on its thread:
 * the records are kept under a lock). */
#include "gpu_cupti.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_dl.h"

#ifdef GPUC_HAVE_CUPTI
#include <cupti_activity.h>
#include <cupti_result.h>

#define BUFFER_BYTES (4u << 20)

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
    CUptiResult (*result_string)(CUptiResult, const char **);
    int registered;
} C;

static struct {
    pthread_mutex_t lock;
    gpu_cupti_record_t *v;
    int n, cap;
    /* external correlation: CUPTI's correlation id -> the floor's label */
    unsigned *corr;
    unsigned long long *ext;
    int ncorr, capcorr;
} R = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, NULL, 0, 0};

static const char *result_text(CUptiResult r)
{
    const char *s = NULL;
    if (C.result_string)
        C.result_string(r, &s);
    return s ? s : "unknown CUPTI error";
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static gpu_cupti_record_t *new_record(void)
{
    if (R.n == R.cap) {
        int cap = R.cap ? R.cap * 2 : 256;
        gpu_cupti_record_t *v = realloc(R.v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        R.v = v;
        R.cap = cap;
    }
    gpu_cupti_record_t *r = &R.v[R.n++];
    memset(r, 0, sizeof *r);
    return r;
}

static void keep(const CUpti_Activity *a)
{
    gpu_cupti_record_t *r;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
        if (!(r = new_record()))
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
        if (!(r = new_record()))
            return;
        r->kind = GPU_CUPTI_MEMCPY;
        r->copy_kind = m->copyKind;
        snprintf(r->name, sizeof r->name, "%s", m->copyKind < 11 ? names[m->copyKind] : "copy");
        r->start = m->start;
        r->end = m->end;
        r->device = (int)m->deviceId;
        r->stream = m->streamId;
        r->bytes = m->bytes;
        r->correlation = m->correlationId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
        if (!(r = new_record()))
            return;
        r->kind = GPU_CUPTI_MEMSET;
        snprintf(r->name, sizeof r->name, "memset");
        r->start = m->start;
        r->end = m->end;
        r->device = (int)m->deviceId;
        r->stream = m->streamId;
        r->bytes = m->bytes;
        r->correlation = m->correlationId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)a;
        if (R.ncorr == R.capcorr) {
            int cap = R.capcorr ? R.capcorr * 2 : 256;
            unsigned *c = realloc(R.corr, (size_t)cap * sizeof *c);
            if (c)
                R.corr = c;
            unsigned long long *x = realloc(R.ext, (size_t)cap * sizeof *x);
            if (x)
                R.ext = x;
            if (!c || !x)
                return;
            R.capcorr = cap;
        }
        R.corr[R.ncorr] = e->correlationId;
        R.ext[R.ncorr++] = e->externalId;
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
    (void)size;
    CUpti_Activity *a = NULL;
    pthread_mutex_lock(&R.lock);
    while (C.next_record && C.next_record(buffer, valid, &a) == CUPTI_SUCCESS)
        keep(a);
    pthread_mutex_unlock(&R.lock);
    free(buffer);
}

/* libcupti: beside the executable (a bundle's lib/cupti), the toolkit's
 * places, then the loader's path (gpu_dl_open). */
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

int gpu_cupti_start(cm_error_t *err)
{
    if (load(err))
        return -1;
    CUptiResult r;
    if (!C.registered) {
        if ((r = C.register_callbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
            CM_ERROR(err, 20004, "cuptiActivityRegisterCallbacks: %s", result_text(r));
            return -1;
        }
        C.registered = 1;
    }
    pthread_mutex_lock(&R.lock);
    R.n = R.ncorr = 0;
    pthread_mutex_unlock(&R.lock);
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        if ((r = C.enable(KINDS[i])) != CUPTI_SUCCESS) {
            CM_ERROR(err, 20004, "cuptiActivityEnable(%d): %s", (int)KINDS[i], result_text(r));
            for (size_t j = 0; j < i; j++)
                C.disable(KINDS[j]);
            return -1;
        }
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
    pthread_mutex_lock(&R.lock);
    for (int i = 0; i < R.n; i++)
        for (int k = 0; k < R.ncorr; k++)
            if (R.corr[k] == R.v[i].correlation) {
                R.v[i].external = R.ext[k];
                break;
            }
    *out = R.v;
    *n = R.n;
    R.v = NULL;
    R.n = R.cap = 0;
    R.ncorr = 0;
    pthread_mutex_unlock(&R.lock);
    return 0;
}

void gpu_cupti_push(unsigned long long id)
{
    if (C.push)
        C.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void gpu_cupti_pop(void)
{
    uint64_t last;
    if (C.pop)
        C.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
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
