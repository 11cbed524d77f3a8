/* sim_runtime: the CUDA runtime API on the simulator (see sim.h).
 *
 * Host cells call these by the names of libcudart's functions, with
 * rt_cuda_header's declarations (cudaError_t is an int here, the enums
 * ints). Device memory is host memory in the simulator's own mapping
 * (sim_arena.c: apart from the heap, inaccessible gaps around each
 * allocation), aligned as cudaMalloc aligns (256 bytes); copies of every
 * kind are memmove; the default stream and every
 * stream are synchronous, since launches are; events read the wall clock,
 * so cudaEventElapsedTime gives the simulator's own time, not a GPU's. A
 * kernel's failure is sticky until the end of the cell (kernel_error). */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "cm_time.h"
#include "sim_arena.h"
#include "sim_check.h"

enum {
    SUCCESS = 0, INVALID_VALUE = 1, MEMORY_ALLOCATION = 2, INVALID_PITCH_VALUE = 12,
    INVALID_MEMCPY_DIRECTION = 21,
    INVALID_DEVICE = 101, INVALID_RESOURCE_HANDLE = 400,
};

static int last_error; /* cudaGetLastError's */

static int failed(int code)
{
    last_error = code;
    return code;
}

/* The failure a simulated kernel left, as a CUDA error number, without
 * taking it: gpuc reports it at the end of the cell. Until then it is
 * sticky, as a launch failure is for a GPU's context: synchronising,
 * cudaGetLastError, allocating, copying and setting memory return it
 * (and copy or set nothing). Taken at the end of the cell, the next cell
 * starts clean: the simulator's context is not lost. */
static int kernel_error(void)
{
    cm_error_t e = {0};
    if (!sim_take_error(&e))
        return 0;
    /* put it back: sim_take_error forgot it; gpuc reports it at the end of the cell */
    sim_keep_error(&e);
    return e.code == SIM_E_RACE ? SUCCESS : e.code - SIM_E_CUDA; /* a race is no CUDA error */
}

/* size bytes (none: a null pointer, as cudaMalloc(&p, 0) gives) from the
 * arena, in the memory map as kind. */
static int allocate(void **ptr, size_t size, int kind)
{
    int sticky = kernel_error();
    if (sticky)
        return sticky;
    if (!ptr)
        return failed(INVALID_VALUE);
    *ptr = size ? sim_arena_alloc(size) : NULL;
    if (size && (!*ptr || sim_mem_add(*ptr, size, kind, NULL))) {
        sim_arena_free(*ptr);
        *ptr = NULL;
        return failed(MEMORY_ALLOCATION);
    }
    return SUCCESS;
}

static int sim_malloc(void **ptr, size_t size)
{
    return allocate(ptr, size, SIM_MEM_DEVICE);
}

static int sim_malloc_managed(void **ptr, size_t size, unsigned flags)
{
    (void)flags;
    return allocate(ptr, size, SIM_MEM_MANAGED);
}

static int sim_malloc_host(void **ptr, size_t size)
{
    return allocate(ptr, size, SIM_MEM_PINNED);
}

static int sim_host_alloc(void **ptr, size_t size, unsigned flags)
{
    (void)flags; /* portable, mapped, write-combined: all host memory here */
    return allocate(ptr, size, SIM_MEM_PINNED);
}

/* Rows of width bytes, each starting at a multiple of 512 bytes, as a
 * GPU's texture alignment pads them. */
static int sim_malloc_pitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch)
        return failed(INVALID_VALUE);
    *pitch = (width + 511) / 512 * 512;
    return allocate(ptr, *pitch * height, SIM_MEM_DEVICE);
}

static int sim_free(void *ptr)
{
    int sticky = kernel_error(); /* freed all the same: the simulator's context lives on */
    if (!ptr)
        return sticky;
    return sim_mem_release(ptr) ? failed(INVALID_VALUE) : sticky;
}

void *sim_array_alloc(size_t bytes)
{
    void *p = sim_arena_alloc(bytes);
    if (p && sim_mem_add(p, bytes, SIM_MEM_ARRAY, NULL)) {
        sim_arena_free(p);
        p = NULL;
    }
    return p;
}

void sim_array_free(void *ptr)
{
    sim_mem_forget(ptr);
    sim_arena_free(ptr);
}


static int sim_memcpy(void *dst, const void *src, size_t count, int kind)
{
    int sticky = kernel_error();
    if (sticky)
        return sticky;
    if (kind < 0 || kind > 4)
        return failed(INVALID_MEMCPY_DIRECTION);
    if (count && (!dst || !src))
        return failed(INVALID_VALUE);
    double t0 = sim_profile_on ? cm_seconds() : 0;
    memmove(dst, src, count);
    if (sim_profile_on) {
        static const char *const names[] = {"cudaMemcpy HtoH", "cudaMemcpy HtoD", "cudaMemcpy DtoH",
                                            "cudaMemcpy DtoD", "cudaMemcpy"};
        static const int reads[] = {0, 0, 1, 1, 1}, writes[] = {0, 1, 0, 1, 1};
        sim_profile_copy(names[kind], reads[kind] ? count : 0, writes[kind] ? count : 0, t0,
                         cm_seconds() - t0);
    }
    return SUCCESS;
}

static int sim_memcpy_async(void *dst, const void *src, size_t count, int kind, void *stream)
{
    (void)stream;
    return sim_memcpy(dst, src, count, kind);
}

static int sim_memcpy_2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, int kind)
{
    if (width > dpitch || width > spitch)
        return failed(INVALID_PITCH_VALUE);
    for (size_t r = 0; r < height; r++) {
        int rc = sim_memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind);
        if (rc != SUCCESS)
            return rc;
    }
    return SUCCESS;
}

static int sim_memcpy_2d_async(void *dst, size_t dpitch, const void *src, size_t spitch,
                               size_t width, size_t height, int kind, void *stream)
{
    (void)stream;
    return sim_memcpy_2d(dst, dpitch, src, spitch, width, height, kind);
}

static int sim_memset(void *ptr, int value, size_t count)
{
    int sticky = kernel_error();
    if (sticky)
        return sticky;
    if (count && !ptr)
        return failed(INVALID_VALUE);
    memset(ptr, value, count);
    return SUCCESS;
}

static int sim_synchronize(void)
{
    return kernel_error();
}

static int sim_get_last_error(void)
{
    int k = kernel_error();
    int e = last_error;
    last_error = SUCCESS;
    return e ? e : k;
}

static int sim_peek_at_last_error(void)
{
    return last_error ? last_error : kernel_error();
}

static const struct {
    int code;
    const char *name, *text;
} errors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {35, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {999, "cudaErrorUnknown", "unknown error"},
};

static const char *error_string(int code)
{
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
        if (errors[i].code == code)
            return errors[i].text;
    return "unrecognized error code";
}

static const char *error_name(int code)
{
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
        if (errors[i].code == code)
            return errors[i].name;
    return "cudaErrorUnknown";
}

static int get_device_count(int *count)
{
    *count = 1;
    return SUCCESS;
}

static int set_device(int device)
{
    return device == 0 ? SUCCESS : failed(INVALID_DEVICE);
}

static int get_device(int *device)
{
    *device = 0;
    return SUCCESS;
}

size_t sim_total_memory(void)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return 0;
    return (size_t)si.totalram * si.mem_unit;
}

static int mem_get_info(size_t *free_bytes, size_t *total)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return failed(INVALID_VALUE);
    *free_bytes = (size_t)si.freeram * si.mem_unit;
    *total = (size_t)si.totalram * si.mem_unit;
    return SUCCESS;
}

const char *sim_device_name(void)
{
    static char name[64];
    snprintf(name, sizeof name, "gpuc simulator (CPU, %d core%s)", sim_cores(),
             sim_cores() == 1 ? "" : "s");
    return name;
}

/* ---- events and streams ---------------------------------------------- */

typedef struct event {
    double seconds;            /* cm_seconds() at the last record; < 0 never recorded */
} event_t;

static int event_create(void **event)
{
    event_t *e = malloc(sizeof *e);
    if (!e)
        return failed(MEMORY_ALLOCATION);
    e->seconds = -1;
    *event = e;
    return SUCCESS;
}

static int event_create_with_flags(void **event, unsigned flags)
{
    (void)flags;
    return event_create(event);
}

static int event_record(void *event, void *stream)
{
    (void)stream;
    if (!event)
        return failed(INVALID_RESOURCE_HANDLE);
    ((event_t *)event)->seconds = cm_seconds();
    return SUCCESS;
}

static int event_synchronize(void *event)
{
    return event ? SUCCESS : failed(INVALID_RESOURCE_HANDLE);
}

static int event_elapsed_time(float *ms, void *start, void *end)
{
    const event_t *a = start, *b = end;
    if (!ms || !a || !b)
        return failed(INVALID_RESOURCE_HANDLE);
    if (a->seconds < 0 || b->seconds < 0)
        return failed(INVALID_RESOURCE_HANDLE);
    *ms = (float)((b->seconds - a->seconds) * 1e3);
    return SUCCESS;
}

static int event_destroy(void *event)
{
    free(event);
    return SUCCESS;
}

static int stream_create(void **stream)
{
    static char the_stream; /* every stream is the one synchronous queue */
    *stream = &the_stream;
    return SUCCESS;
}

static int stream_create_with_flags(void **stream, unsigned flags)
{
    (void)flags;
    return stream_create(stream);
}

static int stream_nothing(void *stream)
{
    (void)stream;
    return kernel_error();
}

static int stream_attach_mem(void *stream, void *ptr, size_t length, unsigned flags)
{
    (void)stream, (void)ptr, (void)length, (void)flags; /* one memory: nothing to attach */
    return SUCCESS;
}

int sim_device_attribute(int attr)
{
    switch (attr) {
    case SIM_ATTR_MAX_THREADS_PER_BLOCK: case SIM_ATTR_MAX_BLOCK_DIM_X:
    case SIM_ATTR_MAX_BLOCK_DIM_Y: case SIM_ATTR_THREADS_PER_MULTIPROCESSOR: return 1024;
    case SIM_ATTR_MAX_BLOCK_DIM_Z: return 64;
    case SIM_ATTR_MAX_GRID_DIM_X: case SIM_ATTR_MAX_PITCH: return 2147483647;
    case SIM_ATTR_MAX_GRID_DIM_Y: case SIM_ATTR_MAX_GRID_DIM_Z: return 65535;
    case SIM_ATTR_SHARED_PER_BLOCK: case SIM_ATTR_SHARED_PER_MULTIPROCESSOR:
    case SIM_ATTR_SHARED_PER_BLOCK_OPTIN: return 48 * 1024;
    case SIM_ATTR_CONSTANT_MEMORY: case SIM_ATTR_REGISTERS_PER_BLOCK: return 65536;
    case SIM_ATTR_WARP_SIZE: return 32;
    case SIM_ATTR_MULTIPROCESSORS: return sim_cores();
    case SIM_ATTR_UNIFIED_ADDRESSING: case SIM_ATTR_MANAGED_MEMORY: return 1;
    case SIM_ATTR_MAJOR: return 8; /* the prelude's __CUDA_ARCH__ 800 */
    case SIM_ATTR_MINOR: return 0;
    default: return 0;
    }
}

static int device_get_attribute(int *value, int attr, int device)
{
    if (!value || attr < 1 || attr > 200)
        return failed(INVALID_VALUE);
    if (device != 0)
        return failed(INVALID_DEVICE);
    *value = sim_device_attribute(attr);
    return SUCCESS;
}

static int runtime_version(int *version)
{
    *version = 13000;
    return SUCCESS;
}

static int device_reset(void)
{
    return SUCCESS;
}

#define SYMBOL(name, fn) {#name, (const void *)fn},
static const sim_symbol_t symbols[] = {
    SYMBOL(cudaMalloc, sim_malloc)
    SYMBOL(cudaMallocManaged, sim_malloc_managed)
    SYMBOL(cudaMallocHost, sim_malloc_host)
    SYMBOL(cudaHostAlloc, sim_host_alloc)
    SYMBOL(cudaMallocPitch, sim_malloc_pitch)
    SYMBOL(cudaFree, sim_free)
    SYMBOL(cudaFreeHost, sim_free)
    SYMBOL(cudaMemcpy, sim_memcpy)
    SYMBOL(cudaMemcpyAsync, sim_memcpy_async)
    SYMBOL(cudaMemcpy2D, sim_memcpy_2d)
    SYMBOL(cudaMemcpy2DAsync, sim_memcpy_2d_async)
    SYMBOL(cudaMemset, sim_memset)
    SYMBOL(cudaDeviceSynchronize, sim_synchronize)
    SYMBOL(cudaDeviceReset, device_reset)
    SYMBOL(cudaGetLastError, sim_get_last_error)
    SYMBOL(cudaPeekAtLastError, sim_peek_at_last_error)
    SYMBOL(cudaGetErrorString, error_string)
    SYMBOL(cudaGetErrorName, error_name)
    SYMBOL(cudaGetDeviceCount, get_device_count)
    SYMBOL(cudaSetDevice, set_device)
    SYMBOL(cudaGetDevice, get_device)
    SYMBOL(cudaMemGetInfo, mem_get_info)
    SYMBOL(cudaEventCreate, event_create)
    SYMBOL(cudaEventCreateWithFlags, event_create_with_flags)
    SYMBOL(cudaEventRecord, event_record)
    SYMBOL(cudaEventSynchronize, event_synchronize)
    SYMBOL(cudaEventElapsedTime, event_elapsed_time)
    SYMBOL(cudaEventDestroy, event_destroy)
    SYMBOL(cudaStreamCreate, stream_create)
    SYMBOL(cudaStreamCreateWithFlags, stream_create_with_flags)
    SYMBOL(cudaStreamDestroy, stream_nothing)
    SYMBOL(cudaStreamSynchronize, stream_nothing)
    SYMBOL(cudaStreamQuery, stream_nothing)
    SYMBOL(cudaEventQuery, event_synchronize) /* recorded is done: launches are synchronous */
    SYMBOL(cudaStreamAttachMemAsync, stream_attach_mem)
    SYMBOL(cudaDeviceGetAttribute, device_get_attribute)
    SYMBOL(cudaRuntimeGetVersion, runtime_version)
    SYMBOL(cudaDriverGetVersion, runtime_version)
    {NULL, NULL},
};

const sim_symbol_t *sim_runtime_symbols(void)
{
    return symbols;
}

const void *sim_runtime_function(const char *name)
{
    for (const sim_symbol_t *s = symbols; s->name; s++)
        if (strcmp(s->name, name) == 0)
            return s->addr;
    return NULL;
}
