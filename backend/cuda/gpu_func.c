/* gpu_func: kernels as values in host cells, for the runtime functions
 * that take a kernel (cudaFuncGetAttributes, cudaOccupancy*, ...). In an
 * nvcc program a kernel's host stub is its handle; here a kernel's name
 * has a handle, a small object at a stable address that host cells bind
 * the name to (runtime/magics/rt_magic_kernel.c). The runtime's own
 * functions cannot take it, so these call the driver on the kernel's
 * CUfunction, or answer for the simulated device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "sim.h"

typedef struct handle {
    char name[128];            /* "saxpy", "scale<float>": what the object holds */
} handle_t;

static handle_t **handles;     /* never freed: old cells may still hold one */
static int nhandles;

const void *gpu_kernel_handle(const char *name)
{
    for (int i = 0; i < nhandles; i++)
        if (strcmp(handles[i]->name, name) == 0)
            return handles[i];
    handle_t **grown = realloc(handles, (size_t)(nhandles + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    handles = grown;
    if (!(handles[nhandles] = calloc(1, sizeof(handle_t))))
        return NULL;
    snprintf(handles[nhandles]->name, sizeof handles[nhandles]->name, "%s", name);
    return handles[nhandles++];
}

/* Other addresses that stand for a kernel: a whole program's own kernel
 * functions on the simulator (gpu_kernel_alias). */
typedef struct alias {
    const void *addr;
    const handle_t *h;
} alias_t;

static alias_t *aliases;
static int naliases;

void gpu_kernel_alias(const void *addr, const char *name)
{
    const handle_t *h = gpu_kernel_handle(name);
    for (int i = 0; h && i < naliases; i++)
        if (aliases[i].addr == addr) {
            aliases[i].h = h;
            return;
        }
    alias_t *grown = h ? realloc(aliases, (size_t)(naliases + 1) * sizeof *grown) : NULL;
    if (!grown)
        return;
    aliases = grown;
    aliases[naliases++] = (alias_t){addr, h};
}

const char *gpu_kernel_of_handle(const void *h)
{
    for (int i = 0; i < nhandles; i++)
        if (handles[i] == h)
            return handles[i]->name;
    for (int i = 0; i < naliases; i++)
        if (aliases[i].addr == h)
            return aliases[i].h->name;
    return NULL;
}

enum {
    CUDA_SUCCESS_ = 0,
    CUDA_INVALID_VALUE = 1,
    CUDA_INSUFFICIENT_DRIVER = 35,
    CUDA_INVALID_DEVICE_FUNCTION = 98,
    CUDA_NO_DEVICE = 100,
    CUDA_NOT_SUPPORTED = 801,
    CUDA_UNKNOWN = 999,
};

int gpu_cuda_error_code(const cm_error_t *err)
{
    int c = err->code;
    if (c > 0 && c < 10000)
        return c;
    if (c > SIM_E_CUDA && c < SIM_E_CUDA + 1000)
        return c - SIM_E_CUDA;
    switch (c) {
    case GPU_E_NO_KERNEL:
    case GPU_E_COMPILE:
    case GPU_E_ARGS: /* an instance with the wrong number of template arguments */
        return CUDA_INVALID_DEVICE_FUNCTION;
    case GPU_E_NO_GPU:
        return CUDA_NO_DEVICE;
    case GPU_E_NO_LIBRARY:
        return CUDA_INSUFFICIENT_DRIVER;
    default:
        return CUDA_UNKNOWN;
    }
}

/* Kernel name's CUfunction on a GPU (NULL on the simulator) and, there,
 * its module's static shared memory. A template instance is made by the
 * caller (runtime/cell/rt_ktemplate.c), which gives its canonical name.
 * 0, or a cudaError_t. */
static int function(const char *name, gpu_cufunction_t *fn, size_t *sim_shared, cm_error_t *err)
{
    *fn = NULL;
    *sim_shared = 0;
    if (gpu_module_function(name, fn, sim_shared, err))
        return gpu_cuda_error_code(err);
    return 0;
}

/* A driver call that may be missing (older drivers): a cudaError_t. */
static int driver_result(gpu_curesult_t rc, const char *call, cm_error_t *err)
{
    if (rc == GPU_CU_SUCCESS)
        return 0;
    char text[300];
    gpu_driver_error_text(rc, text, sizeof text);
    CM_ERROR(err, rc, "%s: %s", call, text);
    return rc;
}

#define SIM_MAX_BLOCKS_PER_SM 32 /* compute capability 8.0's */

/* The simulated device: what a multiprocessor holds. */
static void sim_limits(int *threads_per_sm, size_t *shared_per_sm, int *sms)
{
    gpu_device_props_t p;
    gpu_device_sim_properties(&p);
    *threads_per_sm = p.maxThreadsPerMultiProcessor;
    *shared_per_sm = p.sharedMemPerMultiprocessor;
    *sms = p.multiProcessorCount;
}

/* Blocks of block_size threads using shared bytes of shared memory that
 * one simulated multiprocessor holds at once, as a GPU counts them: whole
 * warps of threads, the shared memory, at most 32 blocks. */
static int sim_blocks(int block_size, size_t shared)
{
    int threads, sms;
    size_t per_sm;
    sim_limits(&threads, &per_sm, &sms);
    if (block_size <= 0 || block_size > 1024 || shared > per_sm)
        return 0;
    int warps = (block_size + 31) / 32;
    int blocks = threads / 32 / warps;
    if (shared && (int)(per_sm / shared) < blocks)
        blocks = (int)(per_sm / shared);
    return blocks < SIM_MAX_BLOCKS_PER_SM ? blocks : SIM_MAX_BLOCKS_PER_SM;
}

int gpu_func_attributes(const char *name, gpu_func_attrs_t *a, cm_error_t *err)
{
    gpu_cufunction_t fn;
    size_t shared;
    memset(a, 0, sizeof *a);
    int rc = function(name, &fn, &shared, err);
    if (rc)
        return rc;
    if (!fn) { /* the simulated device: compute capability 8.0, 48 KiB of shared memory */
        a->sharedSizeBytes = shared;
        a->maxThreadsPerBlock = 1024;
        a->ptxVersion = a->binaryVersion = 80;
        a->maxDynamicSharedSizeBytes = (int)(48 * 1024 - (shared < 48 * 1024 ? shared : 48 * 1024));
        a->preferredShmemCarveout = -1;
        return 0;
    }
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d->cuFuncGetAttribute) {
        CM_ERROR(err, CUDA_NOT_SUPPORTED, "this driver has no cuFuncGetAttribute");
        return CUDA_NOT_SUPPORTED;
    }
    int v[10]; /* CUfunction_attribute 0..9, in cudaFuncAttributes' order from maxThreadsPerBlock */
    for (int i = 0; i < 10; i++)
        if ((rc = driver_result(d->cuFuncGetAttribute(&v[i], i, fn), "cuFuncGetAttribute", err)))
            return rc;
    a->maxThreadsPerBlock = v[0];
    a->sharedSizeBytes = (size_t)v[1];
    a->constSizeBytes = (size_t)v[2];
    a->localSizeBytes = (size_t)v[3];
    a->numRegs = v[4];
    a->ptxVersion = v[5];
    a->binaryVersion = v[6];
    a->cacheModeCA = v[7];
    a->maxDynamicSharedSizeBytes = v[8];
    a->preferredShmemCarveout = v[9];
    return 0;
}

int gpu_func_set_attribute(const char *name, int attr, int value, cm_error_t *err)
{
    gpu_cufunction_t fn;
    size_t shared;
    int rc = function(name, &fn, &shared, err);
    if (rc)
        return rc;
    if (!fn) { /* the simulator has 48 KiB of shared memory a block, no more */
        if (attr == 8 /* cudaFuncAttributeMaxDynamicSharedMemorySize */ &&
            (value < 0 || (size_t)value + shared > 48 * 1024)) {
            CM_ERROR(err, CUDA_INVALID_VALUE, "the simulated device has 48 KiB of shared memory "
                     "a block (%zu static in %s): %d bytes of dynamic shared memory do not fit",
                     shared, name, value);
            return CUDA_INVALID_VALUE;
        }
        return 0;
    }
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d->cuFuncSetAttribute) {
        CM_ERROR(err, CUDA_NOT_SUPPORTED, "this driver has no cuFuncSetAttribute");
        return CUDA_NOT_SUPPORTED;
    }
    return driver_result(d->cuFuncSetAttribute(fn, attr, value), "cuFuncSetAttribute", err);
}

int gpu_func_set_cache_config(const char *name, int config, cm_error_t *err)
{
    gpu_cufunction_t fn;
    size_t shared;
    int rc = function(name, &fn, &shared, err);
    if (rc || !fn) /* the simulator has no cache to configure */
        return rc;
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d->cuFuncSetCacheConfig)
        return 0; /* a preference, which a driver may ignore */
    return driver_result(d->cuFuncSetCacheConfig(fn, config), "cuFuncSetCacheConfig", err);
}

int gpu_occupancy_blocks(const char *name, int block_size, size_t shared, int *blocks,
                         cm_error_t *err)
{
    gpu_cufunction_t fn;
    size_t static_shared;
    *blocks = 0;
    int rc = function(name, &fn, &static_shared, err);
    if (rc)
        return rc;
    if (!fn) {
        *blocks = sim_blocks(block_size, static_shared + shared);
        return 0;
    }
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d->cuOccupancyMaxActiveBlocksPerMultiprocessor) {
        CM_ERROR(err, CUDA_NOT_SUPPORTED, "this driver has no occupancy calculator");
        return CUDA_NOT_SUPPORTED;
    }
    return driver_result(d->cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn, block_size,
                                                                         shared),
                         "cuOccupancyMaxActiveBlocksPerMultiprocessor", err);
}

int gpu_occupancy_block_size(const char *name, size_t shared, int block_limit, int *min_grid,
                             int *block_size, cm_error_t *err)
{
    gpu_cufunction_t fn;
    size_t static_shared;
    *min_grid = *block_size = 0;
    int rc = function(name, &fn, &static_shared, err);
    if (rc)
        return rc;
    if (!fn) { /* the largest block that fills a multiprocessor most, as CUDA's search */
        int threads, sms, best = 0;
        size_t per_sm;
        sim_limits(&threads, &per_sm, &sms);
        int limit = block_limit > 0 && block_limit < 1024 ? block_limit : 1024;
        for (int size = limit >= 32 ? limit / 32 * 32 : limit; size > 0; size -= 32) {
            int blocks = sim_blocks(size, static_shared + shared);
            if (blocks * size > best) {
                best = blocks * size;
                *block_size = size;
                *min_grid = blocks * sms;
            }
        }
        return 0;
    }
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d->cuOccupancyMaxPotentialBlockSize) {
        CM_ERROR(err, CUDA_NOT_SUPPORTED, "this driver has no occupancy calculator");
        return CUDA_NOT_SUPPORTED;
    }
    return driver_result(d->cuOccupancyMaxPotentialBlockSize(min_grid, block_size, fn, NULL,
                                                             shared, block_limit),
                         "cuOccupancyMaxPotentialBlockSize", err);
}
