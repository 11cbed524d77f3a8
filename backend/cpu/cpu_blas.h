/* cpu_blas: a thin binding of a CBLAS for the CPU backend — OpenBLAS
 * (Debian's libopenblas0: libopenblas.so.0), else a libcblas.so.3 or the
 * libblas.so.3 alternative (which holds cblas_* on Debian) — loaded with
 * dlopen at first use, so gpuc starts without it. The floor's BLAS
 * (backend/bk_cpu.c) calls it; layouts, batches and float16 are
 * runtime/array/ga_blas.c's. */
#ifndef CPU_BLAS_H
#define CPU_BLAS_H

#include "cm_error.h"

/* CBLAS's enum values (cblas.h). */
enum { CPU_BLAS_ROW_MAJOR = 101, CPU_BLAS_COL_MAJOR = 102, CPU_BLAS_NO_TRANS = 111, CPU_BLAS_TRANS = 112 };

typedef struct cpu_blas {
    void *handle;
    char path[512];
    void (*cblas_sgemm)(int order, int transa, int transb, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc);
    void (*cblas_dgemm)(int order, int transa, int transb, int m, int n, int k, double alpha,
                        const double *a, int lda, const double *b, int ldb, double beta,
                        double *c, int ldc);
    float (*cblas_sdot)(int n, const float *x, int incx, const float *y, int incy);
    double (*cblas_ddot)(int n, const double *x, int incx, const double *y, int incy);
} cpu_blas_t;

/* The CBLAS, loaded at the first call. NULL with err (CPU_E_NO_BLAS) naming
 * the package to install and the libraries tried; remembered. Borrowed. */
const cpu_blas_t *cpu_blas_get(cm_error_t *err);

#endif
