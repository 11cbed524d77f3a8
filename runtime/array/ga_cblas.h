/* ga_cblas: a thin binding of a CBLAS for the CPU backend — OpenBLAS
 * (Debian's libopenblas0: libopenblas.so.0), else a libcblas.so.3 or the
 * libblas.so.3 alternative (which holds cblas_* on Debian) — loaded with
 * dlopen at first use, so gpuc starts without it. Policy (layouts,
 * batches, float16) lives in ga_blas.c. */
#ifndef GA_CBLAS_H
#define GA_CBLAS_H

#include "cm_error.h"

/* CBLAS's enum values (cblas.h). */
enum { GA_CBLAS_ROW_MAJOR = 101, GA_CBLAS_NO_TRANS = 111, GA_CBLAS_TRANS = 112 };

typedef struct ga_cblas {
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
} ga_cblas_t;

/* The CBLAS, loaded at the first call. NULL with err (GA_E_DEVICE) naming
 * the package to install and the libraries tried; remembered. Borrowed. */
const ga_cblas_t *ga_cblas_get(cm_error_t *err);

#endif
