/* gpu_blas: matrix multiply and dot through cuBLAS (gpu.h) — which
 * compute type for which dtype, one cuBLAS handle per device made on its
 * primary context at first use, the default stream. The kernel clock
 * (gpu_timing) times each call as one launch: its events on the default
 * stream enclose the kernels cuBLAS queues there. */
#include "gpu_cublas.h"
#include "gpu_internal.h"

/* One cuBLAS handle per context (a primary context per device). */
static struct {
    gpu_cucontext_t ctx;
    gpu_cublas_handle_t handle;
} handles[GPU_MAX_DEVICES];

/* gpu_cublas.h: device's handle, with its context made current first. */
gpu_cublas_handle_t gpu_blas_handle(int device, const gpu_cublas_t **lib, cm_error_t *err)
{
    const gpu_cublas_t *c = gpu_cublas_get(err);
    const gpu_driver_t *d = c ? gpu_driver_get(err) : NULL;
    gpu_cucontext_t ctx = NULL;
    if (!d || gpu_context_use(device, err) != 0 || GPU_CU_CHECK(d->cuCtxGetCurrent(&ctx), err) != 0)
        return NULL;
    *lib = c;
    int i = 0;
    while (i < GPU_MAX_DEVICES && handles[i].ctx && handles[i].ctx != ctx)
        i++;
    if (i == GPU_MAX_DEVICES) {
        CM_ERROR(err, GPU_E_INVALID, "more than %d CUDA contexts used cuBLAS", GPU_MAX_DEVICES);
        return NULL;
    }
    if (!handles[i].ctx) {
        if (GPU_CUBLAS_CHECK(c->cublasCreate_v2(&handles[i].handle), err) != 0)
            return NULL;
        handles[i].ctx = ctx;
    }
    return handles[i].handle;
}

int gpu_blas_gemm(int device, const gpu_gemm_t *g, cm_error_t *err)
{
    const gpu_cublas_t *c = NULL;
    gpu_cublas_handle_t h = gpu_blas_handle(device, &c, err);
    if (!h)
        return -1;
    int compute;
    switch (g->type) {
    case GPU_BLAS_F64: compute = GPU_CUBLAS_COMPUTE_64F; break;
    case GPU_BLAS_F32:
        compute = g->tf32 ? GPU_CUBLAS_COMPUTE_32F_FAST_TF32 : GPU_CUBLAS_COMPUTE_32F;
        break;
    case GPU_BLAS_F16: compute = GPU_CUBLAS_COMPUTE_32F; break;
    default:
        CM_ERROR(err, GPU_E_INVALID, "gpu_blas_gemm: element type %d", g->type);
        return -1;
    }
    /* alpha and beta in the compute type's precision */
    double one64 = 1, zero64 = 0;
    float one32 = 1, zero32 = 0;
    const void *alpha = compute == GPU_CUBLAS_COMPUTE_64F ? (const void *)&one64 : &one32;
    const void *beta = compute == GPU_CUBLAS_COMPUTE_64F ? (const void *)&zero64 : &zero32;
    int ta = g->trans_a ? GPU_CUBLAS_OP_T : GPU_CUBLAS_OP_N;
    int tb = g->trans_b ? GPU_CUBLAS_OP_T : GPU_CUBLAS_OP_N;
    gpu_kernel_clock_before(NULL);
    int rc = g->batch == 1
                 ? GPU_CUBLAS_CHECK(c->cublasGemmEx(h, ta, tb, g->m, g->n, g->k, alpha, g->a,
                                                    g->type, g->lda, g->b, g->type, g->ldb, beta,
                                                    g->c, g->type, g->ldc, compute,
                                                    GPU_CUBLAS_GEMM_DEFAULT), err)
                 : GPU_CUBLAS_CHECK(c->cublasGemmStridedBatchedEx(
                                        h, ta, tb, g->m, g->n, g->k, alpha, g->a, g->type,
                                        g->lda, g->stride_a, g->b, g->type, g->ldb, g->stride_b,
                                        beta, g->c, g->type, g->ldc, g->stride_c, g->batch,
                                        compute, GPU_CUBLAS_GEMM_DEFAULT), err);
    gpu_kernel_clock_after(NULL);
    return rc;
}

int gpu_blas_dot(int device, int type, int n, const void *x, int incx, const void *y, int incy,
                 void *result, cm_error_t *err)
{
    const gpu_cublas_t *c = NULL;
    gpu_cublas_handle_t h = gpu_blas_handle(device, &c, err);
    if (!h)
        return -1;
    /* float16 and float32 accumulate in float, float64 in double */
    int exec = type == GPU_BLAS_F64 ? GPU_CUDA_R_64F : GPU_CUDA_R_32F;
    gpu_kernel_clock_before(NULL);
    int rc = GPU_CUBLAS_CHECK(c->cublasDotEx(h, n, x, type, incx, y, type, incy, result, type,
                                             exec), err);
    gpu_kernel_clock_after(NULL);
    return rc;
}
