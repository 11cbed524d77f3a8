/* gpu_cublas: a thin binding of cuBLAS (libcublas.so.13, else .12), loaded
 * with dlopen at first use. Only the calls gpuc makes are bound; policy
 * (a handle per device, the compute types, row-major arrays) lives in
 * gpu_blas.c. Internal to backend/cuda/. */
#ifndef GPU_CUBLAS_H
#define GPU_CUBLAS_H

#include <stddef.h>

#include "cm_error.h"

typedef int gpu_cublas_status_t;               /* cublasStatus_t; 0 = CUBLAS_STATUS_SUCCESS */
typedef struct gpu_cublas_context *gpu_cublas_handle_t; /* cublasHandle_t */

/* The values of NVIDIA's enums that gpuc passes (cublas_api.h, library_types.h). */
enum {
    GPU_CUBLAS_OP_N = 0,
    GPU_CUBLAS_OP_T = 1,
    GPU_CUDA_R_32F = 0,                        /* cudaDataType */
    GPU_CUDA_R_64F = 1,
    GPU_CUDA_R_16F = 2,
    GPU_CUBLAS_COMPUTE_16F = 64,               /* cublasComputeType_t */
    GPU_CUBLAS_COMPUTE_32F = 68,
    GPU_CUBLAS_COMPUTE_64F = 70,
    GPU_CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    GPU_CUBLAS_GEMM_DEFAULT = -1,              /* cublasGemmAlgo_t */
};

typedef struct gpu_cublas {
    void *handle;
    char path[512];
    gpu_cublas_status_t (*cublasCreate_v2)(gpu_cublas_handle_t *handle);
    gpu_cublas_status_t (*cublasDestroy_v2)(gpu_cublas_handle_t handle);
    gpu_cublas_status_t (*cublasGetVersion_v2)(gpu_cublas_handle_t handle, int *version);
    const char *(*cublasGetStatusName)(gpu_cublas_status_t status);
    const char *(*cublasGetStatusString)(gpu_cublas_status_t status);
    gpu_cublas_status_t (*cublasGemmEx)(gpu_cublas_handle_t handle, int transa, int transb,
                                        int m, int n, int k, const void *alpha, const void *a,
                                        int atype, int lda, const void *b, int btype, int ldb,
                                        const void *beta, void *c, int ctype, int ldc,
                                        int compute, int algo);
    gpu_cublas_status_t (*cublasGemmStridedBatchedEx)(
        gpu_cublas_handle_t handle, int transa, int transb, int m, int n, int k,
        const void *alpha, const void *a, int atype, int lda, long long stride_a, const void *b,
        int btype, int ldb, long long stride_b, const void *beta, void *c, int ctype, int ldc,
        long long stride_c, int batch, int compute, int algo);
    gpu_cublas_status_t (*cublasDotEx)(gpu_cublas_handle_t handle, int n, const void *x,
                                       int xtype, int incx, const void *y, int ytype, int incy,
                                       void *result, int rtype, int exectype);
    /* batched LU (gpu_cusolver's small-matrix batches): float32 [0], float64 [1];
     * matrices by arrays of device pointers, pivots n per matrix */
    gpu_cublas_status_t (*getrfBatched[2])(gpu_cublas_handle_t handle, int n, void *const a[],
                                           int lda, int *pivots, int *info, int batch);
    gpu_cublas_status_t (*getrsBatched[2])(gpu_cublas_handle_t handle, int trans, int n,
                                           int nrhs, const void *const a[], int lda,
                                           const int *pivots, void *const b[], int ldb,
                                           int *host_info, int batch);
} gpu_cublas_t;

/* cuBLAS, loaded at the first call. NULL with err set (GPU_E_NO_LIBRARY)
 * naming the libraries and places tried; remembered. Borrowed. err may be
 * NULL (gpu_probe asks only whether it is there). */
const gpu_cublas_t *gpu_cublas_get(cm_error_t *err);

/* The check: 0 for CUBLAS_STATUS_SUCCESS; otherwise records
 * "cublasGemmEx: CUBLAS_STATUS_NOT_SUPPORTED (15): the functionality
 * requested is not supported" with err->code = the status and the call
 * site, and returns -1. */
int gpu_cublas_check(gpu_cublas_status_t rc, const char *call, const char *file, int line,
                     cm_error_t *err);

/* The cuBLAS handle of GPU device's primary context, made current first
 * (the handle made at first use, gpu_blas.c), with the library in *lib.
 * NULL with err. */
gpu_cublas_handle_t gpu_blas_handle(int device, const gpu_cublas_t **lib, cm_error_t *err);
#define GPU_CUBLAS_CHECK(call, err) gpu_cublas_check((call), #call, __FILE__, __LINE__, (err))

#endif
