/* gpu_cudart: a thin binding of the CUDA runtime (libcudart.so.13, else .12),
 * loaded with dlopen at first use (cuBLAS: gpu_cublas).
 * libcudart is opened RTLD_GLOBAL so that host cells compiled later by TCC
 * resolve cudaMalloc and friends through dlsym. Only the functions gpuc
 * itself calls are bound here; host cells call the library directly.
 * Internal to backend/cuda/. */
#ifndef GPU_CUDART_H
#define GPU_CUDART_H

#include <stddef.h>

#include "cm_error.h"

typedef struct gpu_cudart {
    void *handle;
    char path[512];
    int version;                                     /* cudaRuntimeGetVersion */
    int (*cudaRuntimeGetVersion)(int *version);
    int (*cudaSetDevice)(int device);
    int (*cudaGetDevice)(int *device);
    int (*cudaMalloc)(void **ptr, size_t bytes);
    int (*cudaFree)(void *ptr);
    int (*cudaMemcpy)(void *dst, const void *src, size_t bytes, int kind);
    int (*cudaDeviceSynchronize)(void);
    int (*cudaGetLastError)(void);
    const char *(*cudaGetErrorName)(int rc);
    const char *(*cudaGetErrorString)(int rc);
} gpu_cudart_t;

/* The runtime, loaded (RTLD_NOW | RTLD_GLOBAL) at the first call. NULL with
 * err set (GPU_E_NO_LIBRARY) naming what was tried; remembered. Borrowed. */
const gpu_cudart_t *gpu_cudart_get(cm_error_t *err);

/* The check for runtime-API codes: 0 for cudaSuccess; otherwise records
 * "cudaErrorX (n): text" with err->code = the cudaError_t. */
int gpu_cudart_check(int rc, const char *call, const char *file, int line, cm_error_t *err);
#define GPU_CUDART_CHECK(call, err) gpu_cudart_check((call), #call, __FILE__, __LINE__, (err))

#endif
