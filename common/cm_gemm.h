/* cm_gemm: a matrix product described once, in BLAS's column-major terms,
 * for every BLAS gpuc calls: the backend floor's bk_gemm (backend/bk.h),
 * cuBLAS (backend/cuda/gpu_blas) and a CBLAS (backend/bk_cpu.c). A plain
 * description: no code. */
#ifndef CM_GEMM_H
#define CM_GEMM_H

/* Element types of A, B and C (cudaDataType's values). */
enum { CM_GEMM_F32 = 0, CM_GEMM_F64 = 1, CM_GEMM_F16 = 2 };

/* C = op(A) op(B), batch times: matrix i of X at x + i * stride_x
 * elements. Dimensions and leading dimensions fit an int (the caller
 * checks). */
typedef struct cm_gemm {
    int type;                  /* CM_GEMM_*: A, B and C */
    int tf32;                  /* float32 on TF32 tensor cores (a GPU) */
    int trans_a, trans_b;      /* 1: op(X) = X^T */
    int m, n, k;               /* C is m x n, op(A) m x k, op(B) k x n */
    const void *a, *b;         /* the device's addresses */
    void *c;
    int lda, ldb, ldc;
    long long stride_a, stride_b, stride_c; /* elements between matrices */
    int batch;                 /* >= 1 */
} cm_gemm_t;

#endif
