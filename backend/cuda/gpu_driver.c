#include "gpu_driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "gpu_dl.h"

static gpu_driver_t driver;
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(void *h, void **slot, const char *name)
{
    *slot = dlsym(h, name);
    if (!*slot)
        snprintf(missing, sizeof missing, "libcuda.so.1 (%s) lacks %s: the driver is too old",
                 driver.path, name);
    return *slot ? 0 : -1;
}

/* The optional functions: a driver without the events only has no GPU
 * timing, one without cuFuncGetParamInfo no check of by-value structs. cuEventElapsedTime_v2 is what CUDA 12.8+ headers call. */
static void resolve_optional(void *h)
{
    *(void **)&driver.cuEventCreate = dlsym(h, "cuEventCreate");
    *(void **)&driver.cuEventRecord = dlsym(h, "cuEventRecord");
    *(void **)&driver.cuEventSynchronize = dlsym(h, "cuEventSynchronize");
    *(void **)&driver.cuEventQuery = dlsym(h, "cuEventQuery");
    *(void **)&driver.cuEventElapsedTime = dlsym(h, "cuEventElapsedTime_v2");
    if (!driver.cuEventElapsedTime)
        *(void **)&driver.cuEventElapsedTime = dlsym(h, "cuEventElapsedTime");
    *(void **)&driver.cuEventDestroy = dlsym(h, "cuEventDestroy_v2");
    *(void **)&driver.cuFuncGetParamInfo = dlsym(h, "cuFuncGetParamInfo");
    /* kernels as values in host cells (gpu_func.c): NULL makes those calls
     * return cudaErrorNotSupported */
    *(void **)&driver.cuFuncGetAttribute = dlsym(h, "cuFuncGetAttribute");
    *(void **)&driver.cuFuncSetAttribute = dlsym(h, "cuFuncSetAttribute");
    *(void **)&driver.cuFuncSetCacheConfig = dlsym(h, "cuFuncSetCacheConfig");
    *(void **)&driver.cuOccupancyMaxActiveBlocksPerMultiprocessor =
        dlsym(h, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    *(void **)&driver.cuOccupancyMaxPotentialBlockSize = dlsym(h, "cuOccupancyMaxPotentialBlockSize");
    *(void **)&driver.cuLaunchCooperativeKernel = dlsym(h, "cuLaunchCooperativeKernel");
    /* copies between GPUs (gpu_mem.c): NULL makes them go through the host */
    *(void **)&driver.cuDeviceCanAccessPeer = dlsym(h, "cuDeviceCanAccessPeer");
    *(void **)&driver.cuCtxEnablePeerAccess = dlsym(h, "cuCtxEnablePeerAccess");
    *(void **)&driver.cuMemcpyPeer = dlsym(h, "cuMemcpyPeer");
    /* the floor's flags (gpu_mem_mapped): NULL takes the host's address */
    *(void **)&driver.cuMemHostGetDevicePointer = dlsym(h, "cuMemHostGetDevicePointer_v2");
}

#define SYM(field, name) resolve(h, (void **)&driver.field, name)

const gpu_driver_t *gpu_driver_get(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        static const char *const names[] = {"libcuda.so.1", NULL};
        char where[600];
        void *h = gpu_dl_open(names, RTLD_NOW | RTLD_GLOBAL, driver.path, sizeof driver.path,
                              where, sizeof where);
        if (!h) {
            snprintf(missing, sizeof missing,
                     "no NVIDIA driver: libcuda.so.1 not found (looked for %s)", where);
        } else if (SYM(cuInit, "cuInit") || SYM(cuDriverGetVersion, "cuDriverGetVersion") ||
                   SYM(cuGetErrorName, "cuGetErrorName") ||
                   SYM(cuGetErrorString, "cuGetErrorString") ||
                   SYM(cuDeviceGetCount, "cuDeviceGetCount") ||
                   SYM(cuDeviceGet, "cuDeviceGet") || SYM(cuDeviceGetName, "cuDeviceGetName") ||
                   SYM(cuDeviceTotalMem, "cuDeviceTotalMem_v2") ||
                   SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute") ||
                   SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") ||
                   SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") ||
                   SYM(cuCtxSetCurrent, "cuCtxSetCurrent") ||
                   SYM(cuCtxGetCurrent, "cuCtxGetCurrent") ||
                   SYM(cuCtxSynchronize, "cuCtxSynchronize") ||
                   SYM(cuStreamQuery, "cuStreamQuery") ||
                   SYM(cuMemGetInfo, "cuMemGetInfo_v2") || SYM(cuMemAlloc, "cuMemAlloc_v2") ||
                   SYM(cuMemFree, "cuMemFree_v2") ||
                   SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2") ||
                   SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2") ||
                   SYM(cuMemcpyDtoD, "cuMemcpyDtoD_v2") ||
                   SYM(cuMemsetD8, "cuMemsetD8_v2") ||
                   SYM(cuMemAllocHost, "cuMemAllocHost_v2") ||
                   SYM(cuMemFreeHost, "cuMemFreeHost") ||
                   SYM(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2") ||
                   SYM(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2") ||
                   SYM(cuStreamCreate, "cuStreamCreate") ||
                   SYM(cuStreamSynchronize, "cuStreamSynchronize") ||
                   SYM(cuModuleLoadData, "cuModuleLoadData") ||
                   SYM(cuModuleUnload, "cuModuleUnload") ||
                   SYM(cuModuleGetFunction, "cuModuleGetFunction") ||
                   SYM(cuModuleGetGlobal, "cuModuleGetGlobal_v2") ||
                   SYM(cuLaunchKernel, "cuLaunchKernel")) {
            /* missing says which symbol */
        } else {
            driver.handle = h;
            resolve_optional(h);
        }
    }
    if (!driver.handle) {
        CM_ERROR(err, GPU_E_NO_LIBRARY, "%s", missing);
        return NULL;
    }
    return &driver;
}

const gpu_driver_t *gpu_driver_loaded(void)
{
    return driver.handle ? &driver : NULL;
}

void gpu_driver_error_text(gpu_curesult_t rc, char *buf, size_t len)
{
    const char *name = NULL, *text = NULL;
    if (driver.handle) {
        driver.cuGetErrorName(rc, &name);
        driver.cuGetErrorString(rc, &text);
    }
    if (name)
        snprintf(buf, len, "%s (%d): %s", name, rc, text ? text : "no description");
    else
        snprintf(buf, len, "CUDA driver error %d", rc);
}

int gpu_driver_check(gpu_curesult_t rc, const char *call, const char *file, int line,
                     cm_error_t *err)
{
    if (rc == GPU_CU_SUCCESS)
        return 0;
    char text[512];
    gpu_driver_error_text(rc, text, sizeof text);
    (void)call; /* the call site (file, line) is recorded; the text stays for users */
    cm_error_setf(err, file, line, rc, "%s", text);
    return -1;
}
