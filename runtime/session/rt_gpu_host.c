/* rt_gpu_host: launches and CUDA calls from host cells (see rt_gpu_host.h). */
#include "rt_gpu_host.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bk.h"
#include "cm_log.h"
#include "gpu.h"
#include "cm_buf.h"
#include "ga_array.h"
#include "rt_ktemplate.h"
#include "rt_libnames.h"
#include "rt_protect.h"

typedef struct dim3 {
    unsigned int x, y, z;
} dim3_t;

static int launched;     /* kernels launched by the running cell */
static unsigned long launches; /* kernels launched ever (rt_gpu_launch_count) */
static int context_lost; /* a sticky error happened */
static char runtime_note[CM_ERROR_TEXT + 64];

/* ---- launches from host cells ----------------------------------------- */

void rt_gpu_read_dim(const void *v, int is_dim3, unsigned size, unsigned out[3])
{
    if (is_dim3) {
        const dim3_t *d = v;
        out[0] = d->x, out[1] = d->y, out[2] = d->z;
        return;
    }
    unsigned long long n = size == 1 ? *(const unsigned char *)v
                           : size == 2 ? *(const unsigned short *)v
                           : size == 4 ? *(const unsigned int *)v
                                       : *(const unsigned long long *)v;
    out[0] = (unsigned)n, out[1] = 1, out[2] = 1;
}

/* The data pointer of array argument i of kernel; a freed array, an array
 * on the CPU (where a GPU is there) or a dtype the parameter does not
 * take ends the cell. */
static void *array_argument(const char *kernel, int i, ga_array_t *a, int cell, int line)
{
    char msg[CM_ERROR_TEXT + 512];
    cm_error_t err = {0};
    if (ga_array_check(a, &err) != 0) {
        snprintf(msg, sizeof msg, "cell %d, line %d: argument %d of %s: %s", cell, line, i + 1,
                 kernel, err.text);
        rt_protect_raise("FreedArrayError", msg);
    }
    bk_device_t runner = bk_kernel_device();
    if (!bk_can_access(runner, a->device)) {
        bk_device_info_t r;
        char where[16];
        bk_device_info(runner, &r, NULL);
        ga_device_text(a->device, where, sizeof where);
        /* the number that names the runner (a simulated device: its own
         * where there is no GPU, else the CPU's memory, which it reads) */
        int to = bk_device_number(runner);
        if (r.host_memory && to == runner)
            to = GA_CPU;
        snprintf(msg, sizeof msg,
                 "cell %d, line %d: argument %d of %s is an array on %s; kernels run on %s now "
                 "(%s: %s): copy it with ga_to_device(x, %d), or %%device %s",
                 cell, line, i + 1, kernel, where, r.label, r.kind, r.name,
                 to, where);
        rt_protect_raise("DeviceError", msg);
    }
    const gpu_param_t *params;
    int n = gpu_kernel_params(kernel, &params);
    char why[200];
    if (i < n && params[i].kind == GPU_PARAM_POINTER &&
        !ga_dtype_fits_param(a->dtype, params[i].decl, why, sizeof why)) {
        snprintf(msg, sizeof msg,
                 "cell %d, line %d: argument %d of %s is %s, got a %s array: %s (pass "
                 "ga_data(x) to pass its pointer unchecked)",
                 cell, line, i + 1, kernel, params[i].decl, ga_dtype_name(a->dtype), why);
        rt_protect_raise("LaunchError", msg);
    }
    return ga_array_data(a);
}

#define VECTOR_NAME(t, b, n, a) #t,

/* Non-zero when decl names a CUDA vector type (float4, uint2, longlong3...). */
static int is_vector_type(const char *decl)
{
    static const char *const names[] = {GPU_VECTOR_TYPES(VECTOR_NAME) NULL};
    for (const char *p = decl; *p;) {
        if (!(isalpha((unsigned char)*p) || *p == '_')) {
            p++;
            continue;
        }
        const char *w = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        for (int i = 0; names[i]; i++)
            if (strlen(names[i]) == (size_t)(p - w) && !strncmp(w, names[i], (size_t)(p - w)))
                return 1;
    }
    return 0;
}

/* A number argument converted to the type of the kernel's scalar parameter
 * p, as C++ converts it at a call (an int literal to a size_t or float
 * parameter); *out holds the new value. 0 when it was converted, -1 when p
 * is no arithmetic type gpuc knows (then it goes as it is). */
static int convert_scalar(const gpu_param_t *p, char kind, size_t size, const void *arg,
                          unsigned char out[16])
{
    long double v;
    if (kind == 'f')
        v = *(const float *)arg;
    else if (kind == 'd')
        v = *(const double *)arg;
    else if (kind == 'l')
        v = *(const long double *)arg;
    else if (kind == 'i')
        v = size == 1 ? *(const signed char *)arg : size == 2 ? *(const short *)arg
            : size == 4 ? *(const int *)arg : *(const long long *)arg;
    else
        v = size == 1 ? *(const unsigned char *)arg : size == 2 ? *(const unsigned short *)arg
            : size == 4 ? *(const unsigned *)arg : *(const unsigned long long *)arg;
    const char *d = p->decl;
    if (strstr(d, "*") || strstr(d, "half") || strstr(d, "[") || is_vector_type(d))
        return -1; /* pointers, __half, vector types: not converted */
    int fl = strstr(d, "float") != NULL, dbl = strstr(d, "double") != NULL;
    int uns = strstr(d, "unsigned") || strstr(d, "size_t") || strstr(d, "uint") ||
              strstr(d, "bool");
    int is_int = !fl && !dbl && (strstr(d, "int") || strstr(d, "long") || strstr(d, "short") ||
                                 strstr(d, "char") || strstr(d, "size_t") || strstr(d, "bool") ||
                                 strstr(d, "unsigned"));
    if (fl && p->size == 4) {
        float f = (float)v;
        memcpy(out, &f, 4);
    } else if (dbl && p->size == 8) {
        double x = (double)v;
        memcpy(out, &x, 8);
    } else if (is_int && (p->size == 1 || p->size == 2 || p->size == 4 || p->size == 8)) {
        unsigned long long bits = uns ? (unsigned long long)v
                                      : (unsigned long long)(long long)v;
        if (strstr(d, "bool"))
            bits = v != 0;
        memcpy(out, &bits, p->size); /* little-endian: the low bytes */
    } else {
        return -1;
    }
    return 0;
}

/* What `name<<<grid, block, shared, stream>>>(args)` becomes (rt_launch.c).
 * An error ends the cell at once, naming the kernel and the line. */
int rt_gpu_launch(const char *kernel, const void *grid, int grid_is_dim3, unsigned grid_size,
                  const void *block, int block_is_dim3, unsigned block_size,
                  unsigned long long shared, void *stream, int nargs, void **args,
                  const unsigned long long *sizes, const char *kinds, const char **types,
                  int cell, int line)
{
    cm_error_t err; /* every launch: not the whole text cleared, only what says "no error" */
    err.code = 0;
    err.text[0] = '\0';
    char instance[256]; /* a template kernel's instance is compiled at its first launch */
    if (strchr(kernel, '<')) { /* rt_launch writes a plain kernel's name as one word */
        if (rt_ktemplate_instance(kernel, instance, sizeof instance, cell, line, &err) != 0)
            rt_protect_raise(err.code == GPU_E_COMPILE ? "CudaCompileError" : "LaunchError",
                             err.text);
        kernel = instance;
    }
    unsigned g[3], b[3];
    rt_gpu_read_dim(grid, grid_is_dim3, grid_size, g);
    rt_gpu_read_dim(block, block_is_dim3, block_size, b);
    size_t sz[64];
    void *ptrs[64], *argv[64];
    unsigned char converted[64][16];
    char kind[65];
    const gpu_param_t *params = NULL;
    int nparams = gpu_kernel_params(kernel, &params);
    for (int i = 0; i < nargs && i < 64; i++) {
        sz[i] = (size_t)sizes[i];
        argv[i] = args[i];
        kind[i] = strchr("iufdl", kinds[i]) ? 's' : kinds[i];
        if (kind[i] == 's' && i < nparams && params[i].kind == GPU_PARAM_SCALAR &&
            convert_scalar(&params[i], kinds[i], sz[i], args[i], converted[i]) == 0) {
            argv[i] = converted[i]; /* the parameter's type, as C++ would convert */
            sz[i] = params[i].size;
        }
        if (kinds[i] == 'a') { /* a device array: its data pointer, its dtype checked */
            ptrs[i] = array_argument(kernel, i, *(ga_array_t **)args[i], cell, line);
            argv[i] = &ptrs[i];
            sz[i] = sizeof(void *);
            kind[i] = 'p';
        }
    }
    kind[nargs < 64 ? nargs : 64] = '\0';
    bk_cell_launch_t l = {.name = kernel, .grid = {g[0], g[1], g[2]},
                          .block = {b[0], b[1], b[2]}, .shared = (unsigned)shared,
                          .stream = stream, .nargs = nargs, .args = argv, .sizes = sz,
                          .kinds = kind, .types = (const char *const *)types, .cell = cell,
                          .line = line};
    if (bk_cell_launch(bk_kernel_device(), &l, &err) != 0) {
        const char *ename = err.code == GPU_E_ARGS || err.code == GPU_E_NO_KERNEL ? "LaunchError"
                            : err.code == GPU_E_NO_GPU || err.code == GPU_E_NO_LIBRARY
                                ? "NoGPU"
                            : err.code == BK_E_DEVICE ? "DeviceError"
                                                      : "CudaError";
        if (err.code > 0 && err.code < 10000 && gpu_error_is_sticky(err.code)) {
            context_lost = 1;
            char msg[CM_ERROR_TEXT];
            gpu_sticky_message(err.code, msg, sizeof msg);
            rt_protect_raise("CudaError", msg);
        }
        rt_protect_raise(ename, err.text);
    }
    for (int i = 0; i < nargs && i < 64; i++)
        if (kinds[i] == 'a') /* the pool hands its memory out again once this launch is done */
            bk_buffer_used_on((*(ga_array_t **)args[i])->buf, stream);
    launched++;
    launches++;
    return 0;
}

static int current_cell; /* for the labels of tracked allocations */

typedef int (*cuda_malloc_fn)(void **ptr, size_t size);
typedef int (*cuda_free_fn)(void *ptr);

/* cudaMalloc in host cells (a macro in the header names the pointer and the
 * line): the real libcudart call, then the allocation is remembered, and a
 * failure says how much was asked and what is free. */
int rt_gpu_cuda_malloc(void *ptr, size_t size, const char *what, int line)
{
    cm_error_t err = {0};
    cuda_malloc_fn real = NULL; /* libcudart's or the simulator's, as the device is now */
    if (gpu_runtime_load(&err) == 0)
        real = (cuda_malloc_fn)gpu_runtime_function("cudaMalloc");
    if (!real) {
        fprintf(stderr, "cudaMalloc: %s\n", err.text[0] ? err.text : "no CUDA runtime");
        return 35; /* cudaErrorInsufficientDriver */
    }
    int rc = real((void **)ptr, size);
    const char *name = what[0] == '&' ? what + 1 : what;
    if (rc == 0) {
        char label[160];
        snprintf(label, sizeof label, "%.100s (cell %d, line %d)", name, current_cell, line);
        gpu_track_alloc(*(void **)ptr, size, label);
    } else if (rc == 2) { /* cudaErrorMemoryAllocation: the cell decides what to do */
        gpu_error_oom(&err, size, name);
        fprintf(stderr, "cell %d, line %d: cudaMalloc(%s): %s\n", current_cell, line, name,
                err.text);
    }
    return rc;
}

int rt_gpu_cuda_free(void *ptr)
{
    cm_error_t err = {0};
    cuda_free_fn real = NULL;
    if (gpu_runtime_load(&err) == 0)
        real = (cuda_free_fn)gpu_runtime_function("cudaFree");
    if (!real)
        return 35;
    gpu_track_free(ptr);
    return real(ptr);
}

/* ---- waits for the GPU that an interrupt can end ---------------------- */

enum { CUDA_ERROR_NOT_READY = 600 };
typedef int (*cuda_query_fn)(void *what);

/* Polls query(what) (cudaEventQuery, cudaStreamQuery) until the GPU work it
 * names is done, as a wait an interrupt ends: the cell then stops here, at
 * a safe point outside the driver, and no later statement of it runs (a
 * kernel still running on the GPU goes on: rt_gpu_interrupted says so).
 * Spins for the first 200 us, then sleeps 50 us at a time, so that a wait
 * ends at most that late. ret: where the cell called from. */
static void wait_done(const char *call, const char *query_name, void *what, void *ret)
{
    cuda_query_fn query = (cuda_query_fn)gpu_runtime_function(query_name);
    if (!query || query(what) != CUDA_ERROR_NOT_READY)
        return; /* done already (or no such call): the real call does the rest */
    rt_protect_wait_begin();
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!rt_protect_interrupted() && query(what) == CUDA_ERROR_NOT_READY) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long spun = (now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec);
        /* spun as CUDA's own wait spins; a sleep ends ~50 us late (the
         * timer's slack), a cost only beside a wait of milliseconds */
        if (spun > 5000000) {
            struct timespec step = {0, 50000};
            nanosleep(&step, NULL);
        }
    }
    rt_protect_wait_end(call, ret);
}

typedef int (*cuda_event_create_fn)(void **event, unsigned flags);
typedef int (*cuda_event_record_fn)(void *event, void *stream);
typedef int (*cuda_event_destroy_fn)(void *event);

/* Waits as wait_done until the work queued on the default stream so far
 * (and so, on blocking streams) is done. */
static void wait_default_stream(const char *call, void *ret)
{
    cuda_event_create_fn create =
        (cuda_event_create_fn)gpu_runtime_function("cudaEventCreateWithFlags");
    cuda_event_record_fn record = (cuda_event_record_fn)gpu_runtime_function("cudaEventRecord");
    cuda_event_destroy_fn destroy = (cuda_event_destroy_fn)gpu_runtime_function("cudaEventDestroy");
    void *event = NULL;
    if (!create || !record || !destroy || create(&event, 0x02 /* cudaEventDisableTiming */))
        return;
    if (record(event, NULL) == 0)
        wait_done(call, "cudaEventQuery", event, ret);
    destroy(event);
}

typedef int (*cuda_void_fn)(void);
typedef int (*cuda_handle_fn)(void *handle);

typedef int (*cuda_memcpy_fn)(void *dst, const void *src, size_t count, int kind);
typedef int (*cuda_memcpy_async_fn)(void *dst, const void *src, size_t count, int kind,
                                    void *stream);

/* The runtime's function name (libcudart's or the simulator's, as the
 * device is now), or NULL when there is no runtime. */
static void *runtime_function(const char *name)
{
    cm_error_t err = {0};
    return gpu_runtime_load(&err) == 0 ? gpu_runtime_function(name) : NULL;
}

/* On a GPU these wait in wait_done first, then call the runtime (which has
 * nothing left to wait for, and returns the error of the work); on the
 * simulator kernels ran at their launch, and an interrupt stopped them.
 * 35 (cudaErrorInsufficientDriver) where there is no runtime. */
int rt_gpu_device_synchronize(void)
{
    cuda_void_fn f = (cuda_void_fn)runtime_function("cudaDeviceSynchronize");
    if (f && bk_streams(bk_kernel_device()))
        wait_default_stream("cudaDeviceSynchronize", __builtin_return_address(0));
    return f ? f() : 35;
}

int rt_gpu_stream_synchronize(void *stream)
{
    cuda_handle_fn f = (cuda_handle_fn)runtime_function("cudaStreamSynchronize");
    if (f && bk_streams(bk_kernel_device()))
        wait_done("cudaStreamSynchronize", "cudaStreamQuery", stream,
                  __builtin_return_address(0));
    return f ? f(stream) : 35;
}

int rt_gpu_event_synchronize(void *event)
{
    cuda_handle_fn f = (cuda_handle_fn)runtime_function("cudaEventSynchronize");
    if (f && bk_streams(bk_kernel_device()))
        wait_done("cudaEventSynchronize", "cudaEventQuery", event, __builtin_return_address(0));
    return f ? f(event) : 35;
}

/* A blocking copy waits for the default stream's earlier work first (that
 * wait is what can be long: a kernel still running); the copy itself then
 * takes its bandwidth's time. A copy between device addresses does not
 * block the host (CUDA queues it), so it is not waited for. */
int rt_gpu_memcpy(void *dst, const void *src, size_t count, int kind)
{
    cuda_memcpy_fn f = (cuda_memcpy_fn)runtime_function("cudaMemcpy");
    if (f && bk_streams(bk_kernel_device()) && kind != 0 /* cudaMemcpyHostToHost */ &&
        kind != 3 /* cudaMemcpyDeviceToDevice */)
        wait_default_stream("cudaMemcpy", __builtin_return_address(0));
    return f ? f(dst, src, count, kind) : 35;
}

/* The device variable name, or 13 (cudaErrorInvalidSymbol) said on stderr. */
static int find_symbol(const char *call, const char *name, void **addr, size_t *size)
{
    if (gpu_symbol_lookup(name, addr, size) == 0)
        return 0;
    fprintf(stderr, "cell %d: %s(%s): %s is not a __device__ or __constant__ variable of a kernel "
                    "cell (cudaErrorInvalidSymbol)\n", current_cell, call, name, name);
    return 13;
}

int rt_gpu_memcpy_symbol(const char *name, void *buf, size_t count, size_t offset, int kind,
                         int to_device, void *stream, int async)
{
    const char *call = to_device ? (async ? "cudaMemcpyToSymbolAsync" : "cudaMemcpyToSymbol")
                                 : (async ? "cudaMemcpyFromSymbolAsync" : "cudaMemcpyFromSymbol");
    void *addr;
    size_t size;
    int rc = find_symbol(call, name, &addr, &size);
    if (rc)
        return rc;
    if (offset > size || count > size - offset) {
        fprintf(stderr, "cell %d: %s(%s): %zu bytes at offset %zu do not fit in %s (%zu bytes) "
                        "(cudaErrorInvalidValue)\n", current_cell, call, name, count, offset, name,
                size);
        return 1;
    }
    char *dev = (char *)addr + offset;
    void *dst = to_device ? (void *)dev : buf;
    const void *src = to_device ? (const void *)buf : (const void *)dev;
    if (async) {
        cuda_memcpy_async_fn f = (cuda_memcpy_async_fn)runtime_function("cudaMemcpyAsync");
        return f ? f(dst, src, count, kind, stream) : 35;
    }
    cuda_memcpy_fn f = (cuda_memcpy_fn)runtime_function("cudaMemcpy");
    return f ? f(dst, src, count, kind) : 35;
}

int rt_gpu_symbol_address(void **dev, const char *name)
{
    size_t size;
    return find_symbol("cudaGetSymbolAddress", name, dev, &size);
}

int rt_gpu_symbol_size(size_t *size, const char *name)
{
    void *addr;
    return find_symbol("cudaGetSymbolSize", name, &addr, size);
}

/* Once per library: on the simulator, CUDA's libraries still want a GPU. */
static void note_simulated(unsigned fresh)
{
    for (int i = 0; fresh && gpu_hostlib_name(i); i++)
        if (fresh & (1u << i) && bk_host_memory(bk_kernel_device()))
            fprintf(stderr,
                    "note: %s needs a GPU; cells run on the CUDA simulator now, whose memory "
                    "it cannot use (without a GPU its calls return an error status%s)\n",
                    gpu_hostlib_name(i),
                    strcmp(gpu_hostlib_name(i), "cuRAND") == 0
                        ? "; curandCreateGeneratorHost works on the CPU"
                        : "");
}

void rt_gpu_prepare_host(const char *code, int cell)
{
    current_cell = cell;
    unsigned fresh = 0;
    if (gpu_hostlibs_load(rt_libraries_named(code), &fresh))
        note_simulated(fresh);
    if (!strstr(code, "cuda") && !strstr(code, "<<<"))
        return;
    cm_error_t err = {0};
    if (gpu_runtime_load(&err) == 0) {
        runtime_note[0] = '\0';
        return;
    }
    snprintf(runtime_note, sizeof runtime_note,
             "the CUDA runtime cannot be used here: %s", err.text);
}

const char *rt_gpu_link_note(const char *message)
{
    const char *q = strstr(message, "undefined symbol '");
    if (!q)
        return NULL;
    q += strlen("undefined symbol '");
    if (strncmp(q, "cuda", 4) == 0)
        return runtime_note[0] ? runtime_note : NULL;
    return gpu_hostlib_missing(rt_library_of_symbol(q));
}

int rt_gpu_after_cell(int cell, rt_error_t *error)
{
    if (!launched)
        return 0;
    launched = 0;
    cm_error_t err = {0};
    if (gpu_synchronize(&err) == 0)
        return 0;
    /* err names the kernel and the line that launched it and, for a sticky
     * error, what was lost with the context (gpu_synchronize) */
    if (err.code > 0 && err.code < 10000 && gpu_error_is_sticky(err.code))
        context_lost = 1;
    return rt_error_set(error, "CudaError", 0, 0, "cell %d: %s", cell, err.text);
}

void rt_gpu_stopped(rt_error_t *error, const void *ip)
{
    char where[CM_ERROR_TEXT];
    if (!gpu_stopped_kernel(ip, where, sizeof where))
        return;
    launched = 0; /* it ran synchronously: nothing to wait for */
    rt_error_hint(error, "%s", where);
}

void rt_gpu_interrupted(rt_error_t *error, int cell)
{
    const char *name;
    int at_cell, line;
    if (!launched || !gpu_busy(&name, &at_cell, &line))
        return;
    launched = 0; /* nothing to wait for at the end of this cell: it would never end */
    /* where the cell stopped ("cell 3 was interrupted in cudaDeviceSynchronize(),
     * called in ..."), without the message's closing words */
    char where[CM_ERROR_TEXT];
    snprintf(where, sizeof where, "%s", error->message);
    char *kept = strstr(where, "; the session's variables are kept");
    if (kept)
        *kept = '\0';
    if (!where[0])
        snprintf(where, sizeof where, "cell %d was interrupted", cell);
    rt_error_reword(error,
                    "%s; the GPU kernel %s (launched at cell %d, line %d) is still running, and "
                    "a running GPU kernel cannot be stopped: later GPU calls wait for it to "
                    "finish. One that never ends holds the GPU until a restart (Kernel > "
                    "Restart), which loses the session's state; until then the session's "
                    "variables are kept.",
                    where, name, at_cell, line);
    error->cell = error->line = 0;
}

void rt_gpu_note_launch(void)
{
    launched++;
    launches++;
}

int rt_gpu_current_cell(void)
{
    return current_cell;
}

unsigned long rt_gpu_launch_count(void)
{
    return launches + bk_launch_count(); /* and the array library's launches on a GPU */
}

int rt_gpu_context_lost(void)
{
    return context_lost;
}

