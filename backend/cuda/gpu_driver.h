/* gpu_driver: a thin binding of the CUDA driver API (libcuda.so.1), loaded
 * with dlopen at first use. No policy here: gpu_device.c decides what to
 * call and when. Types are declared here, not taken from cuda.h, so that
 * gpuc builds where no CUDA toolkit is installed; the numeric values were
 * checked against CUDA 13.0's cuda.h. Internal to backend/cuda/. */
#ifndef GPU_DRIVER_H
#define GPU_DRIVER_H

#include <stddef.h>

#include "cm_error.h"

typedef int gpu_curesult_t;                 /* CUresult */
typedef int gpu_cudevice_t;                 /* CUdevice */
typedef struct gpu_cuctx *gpu_cucontext_t;  /* CUcontext */
typedef struct gpu_cumod *gpu_cumodule_t;   /* CUmodule */
typedef struct gpu_cufunc *gpu_cufunction_t; /* CUfunction */
typedef struct gpu_custream *gpu_custream_t; /* CUstream */
typedef unsigned long long gpu_cudeviceptr_t; /* CUdeviceptr */
typedef struct gpu_cuevent *gpu_cuevent_t;   /* CUevent */

enum {
    GPU_CU_SUCCESS = 0,
    GPU_CU_ERROR_OUT_OF_MEMORY = 2,
    GPU_CU_ERROR_STUB_LIBRARY = 34,
    GPU_CU_ERROR_NO_DEVICE = 100,
    GPU_CU_ERROR_ILLEGAL_ADDRESS = 700,
    GPU_CU_ERROR_HARDWARE_STACK_ERROR = 714,
    GPU_CU_ERROR_ILLEGAL_INSTRUCTION = 715,
    GPU_CU_ERROR_MISALIGNED_ADDRESS = 716,
    GPU_CU_ERROR_INVALID_ADDRESS_SPACE = 717,
    GPU_CU_ERROR_INVALID_PC = 718,
    GPU_CU_ERROR_LAUNCH_FAILED = 719,
    GPU_CU_ERROR_ASSERT = 710,         /* a device-side assert(): sticky too */
    GPU_CU_ERROR_TENSOR_MEMORY_LEAK = 721,
    GPU_CU_ERROR_ECC_UNCORRECTABLE = 214,
    GPU_CU_ERROR_CONTAINED = 226,
    GPU_CU_ERROR_EXTERNAL_DEVICE = 911,
};

/* CUdevice_attribute values used by gpu_device.c. */
enum {
    GPU_CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
    GPU_CU_ATTR_MAX_BLOCK_DIM_X = 2,
    GPU_CU_ATTR_MAX_GRID_DIM_X = 5,
    GPU_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    GPU_CU_ATTR_TOTAL_CONSTANT_MEMORY = 9,
    GPU_CU_ATTR_WARP_SIZE = 10,
    GPU_CU_ATTR_MAX_PITCH = 11,
    GPU_CU_ATTR_MAX_REGISTERS_PER_BLOCK = 12,
    GPU_CU_ATTR_CLOCK_RATE = 13,
    GPU_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    GPU_CU_ATTR_INTEGRATED = 18,
    GPU_CU_ATTR_CONCURRENT_KERNELS = 31,
    GPU_CU_ATTR_PCI_BUS_ID = 33,
    GPU_CU_ATTR_PCI_DEVICE_ID = 34,
    GPU_CU_ATTR_MEMORY_CLOCK_RATE = 36,
    GPU_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
    GPU_CU_ATTR_L2_CACHE_SIZE = 38,
    GPU_CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    GPU_CU_ATTR_ASYNC_ENGINE_COUNT = 40,
    GPU_CU_ATTR_UNIFIED_ADDRESSING = 41,
    GPU_CU_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
    GPU_CU_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
    GPU_CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    GPU_CU_ATTR_MANAGED_MEMORY = 83,
};

/* Function pointers named after the driver functions they hold (the _v2
 * symbol where cuda.h maps the name to one). */
typedef struct gpu_driver {
    void *handle;
    char path[512];
    gpu_curesult_t (*cuInit)(unsigned flags);
    gpu_curesult_t (*cuDriverGetVersion)(int *version);
    gpu_curesult_t (*cuGetErrorName)(gpu_curesult_t rc, const char **name);
    gpu_curesult_t (*cuGetErrorString)(gpu_curesult_t rc, const char **text);
    gpu_curesult_t (*cuDeviceGetCount)(int *count);
    gpu_curesult_t (*cuDeviceGet)(gpu_cudevice_t *dev, int ordinal);
    gpu_curesult_t (*cuDeviceGetName)(char *name, int len, gpu_cudevice_t dev);
    gpu_curesult_t (*cuDeviceTotalMem)(size_t *bytes, gpu_cudevice_t dev);
    gpu_curesult_t (*cuDeviceGetAttribute)(int *value, int attr, gpu_cudevice_t dev);
    gpu_curesult_t (*cuDevicePrimaryCtxRetain)(gpu_cucontext_t *ctx, gpu_cudevice_t dev);
    gpu_curesult_t (*cuDevicePrimaryCtxRelease)(gpu_cudevice_t dev);
    gpu_curesult_t (*cuCtxSetCurrent)(gpu_cucontext_t ctx);
    gpu_curesult_t (*cuCtxGetCurrent)(gpu_cucontext_t *ctx);
    gpu_curesult_t (*cuCtxSynchronize)(void);
    gpu_curesult_t (*cuStreamQuery)(gpu_custream_t stream); /* NOT_READY (600): work pending */
    gpu_curesult_t (*cuMemGetInfo)(size_t *free_bytes, size_t *total_bytes);
    gpu_curesult_t (*cuMemAlloc)(gpu_cudeviceptr_t *dptr, size_t bytes);
    gpu_curesult_t (*cuMemFree)(gpu_cudeviceptr_t dptr);
    gpu_curesult_t (*cuMemcpyHtoD)(gpu_cudeviceptr_t dst, const void *src, size_t bytes);
    gpu_curesult_t (*cuMemcpyDtoH)(void *dst, gpu_cudeviceptr_t src, size_t bytes);
    gpu_curesult_t (*cuMemcpyDtoD)(gpu_cudeviceptr_t dst, gpu_cudeviceptr_t src, size_t bytes);
    gpu_curesult_t (*cuMemsetD8)(gpu_cudeviceptr_t dst, unsigned char value, size_t bytes);
    gpu_curesult_t (*cuMemAllocHost)(void **ptr, size_t bytes);
    gpu_curesult_t (*cuMemFreeHost)(void *ptr);
    /* optional: NULL where unified addressing makes the host's address the device's */
    gpu_curesult_t (*cuMemHostGetDevicePointer)(gpu_cudeviceptr_t *dptr, void *host, unsigned flags);
    gpu_curesult_t (*cuMemcpyHtoDAsync)(gpu_cudeviceptr_t dst, const void *src, size_t bytes,
                                        gpu_custream_t stream);
    gpu_curesult_t (*cuMemcpyDtoHAsync)(void *dst, gpu_cudeviceptr_t src, size_t bytes,
                                        gpu_custream_t stream);
    gpu_curesult_t (*cuStreamCreate)(gpu_custream_t *stream, unsigned flags);
    gpu_curesult_t (*cuStreamSynchronize)(gpu_custream_t stream);
    gpu_curesult_t (*cuModuleLoadData)(gpu_cumodule_t *mod, const void *image);
    gpu_curesult_t (*cuModuleUnload)(gpu_cumodule_t mod);
    gpu_curesult_t (*cuModuleGetFunction)(gpu_cufunction_t *fn, gpu_cumodule_t mod,
                                          const char *name);
    gpu_curesult_t (*cuModuleGetGlobal)(gpu_cudeviceptr_t *dptr, size_t *bytes,
                                        gpu_cumodule_t mod, const char *name);
    gpu_curesult_t (*cuLaunchKernel)(gpu_cufunction_t fn, unsigned gx, unsigned gy, unsigned gz,
                                     unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                     gpu_custream_t stream, void **params, void **extra);
    /* Events (gpu_timing.c). Optional: NULL when the driver lacks them,
     * which only turns GPU timing off. */
    gpu_curesult_t (*cuEventCreate)(gpu_cuevent_t *event, unsigned flags);
    gpu_curesult_t (*cuEventRecord)(gpu_cuevent_t event, gpu_custream_t stream);
    gpu_curesult_t (*cuEventSynchronize)(gpu_cuevent_t event);
    gpu_curesult_t (*cuEventQuery)(gpu_cuevent_t event); /* NOT_READY (600): pending */
    gpu_curesult_t (*cuEventElapsedTime)(float *ms, gpu_cuevent_t start, gpu_cuevent_t end);
    gpu_curesult_t (*cuEventDestroy)(gpu_cuevent_t event);
    /* Where a kernel's parameter is and its size (CUDA 12.4+). Optional: NULL
     * on older drivers, which only leaves by-value structs unchecked. */
    gpu_curesult_t (*cuFuncGetParamInfo)(gpu_cufunction_t fn, size_t index, size_t *offset,
                                         size_t *size);
    /* A kernel's attributes, occupancy and cooperative launches, for the
     * runtime functions that take a kernel (gpu_func.c). Optional. The
     * attribute numbers are CUfunction_attribute's, which are also
     * cudaFuncAttribute's for those the runtime can set. */
    gpu_curesult_t (*cuFuncGetAttribute)(int *value, int attr, gpu_cufunction_t fn);
    gpu_curesult_t (*cuFuncSetAttribute)(gpu_cufunction_t fn, int attr, int value);
    gpu_curesult_t (*cuFuncSetCacheConfig)(gpu_cufunction_t fn, int config);
    gpu_curesult_t (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, gpu_cufunction_t fn,
                                                                  int block_size, size_t shared);
    gpu_curesult_t (*cuOccupancyMaxPotentialBlockSize)(int *min_grid, int *block_size,
                                                       gpu_cufunction_t fn,
                                                       size_t (*shared_of)(int block_size),
                                                       size_t shared, int block_limit);
    gpu_curesult_t (*cuLaunchCooperativeKernel)(gpu_cufunction_t fn, unsigned gx, unsigned gy,
                                                unsigned gz, unsigned bx, unsigned by,
                                                unsigned bz, unsigned shared,
                                                gpu_custream_t stream, void **params);
    /* Copies between GPUs (gpu_mem.c). Optional: NULL sends them through
     * the host. */
    gpu_curesult_t (*cuDeviceCanAccessPeer)(int *can, gpu_cudevice_t dev, gpu_cudevice_t peer);
    gpu_curesult_t (*cuCtxEnablePeerAccess)(gpu_cucontext_t peer, unsigned flags);
    gpu_curesult_t (*cuMemcpyPeer)(gpu_cudeviceptr_t dst, gpu_cucontext_t dst_ctx,
                                   gpu_cudeviceptr_t src, gpu_cucontext_t src_ctx, size_t bytes);
} gpu_driver_t;

/* The driver, loaded at the first call (not initialised: cuInit is the
 * caller's). Returns NULL with err set (GPU_E_NO_LIBRARY) naming what was
 * missing and where it looked; the result is remembered. Borrowed. */
const gpu_driver_t *gpu_driver_get(cm_error_t *err);

/* The driver if an earlier gpu_driver_get loaded it, else NULL; never
 * loads it. Borrowed. */
const gpu_driver_t *gpu_driver_loaded(void);

/* The check: 0 for CUDA_SUCCESS; otherwise records "CUDA_ERROR_X (n):
 * text" with err->code = the CUresult and the call site, and returns -1. */
int gpu_driver_check(gpu_curesult_t rc, const char *call, const char *file, int line,
                     cm_error_t *err);
#define GPU_CU_CHECK(call, err) gpu_driver_check((call), #call, __FILE__, __LINE__, (err))

/* "CUDA_ERROR_X (n): text" for rc into buf; works without a driver. */
void gpu_driver_error_text(gpu_curesult_t rc, char *buf, size_t len);

#endif
