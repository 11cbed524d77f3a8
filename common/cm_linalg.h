/* cm_linalg: an FFT and a LAPACK step described once, for every library
 * gpuc calls for them: the backend floor's bk_fft and bk_lapack
 * (backend/bk.h), FFTW and LAPACKE on host memory (backend/cpu/cpu_fft,
 * cpu_lapack), cuFFT and cuSOLVER on a GPU (backend/cuda/gpu_cufft,
 * gpu_cusolver). Plain descriptions: no code. The array library
 * (runtime/array/ga_fft, ga_linalg) lays the data out as they say. */
#ifndef CM_LINALG_H
#define CM_LINALG_H

/* Element types: float32 / float64 (complex64 / complex128 for an FFT's
 * complex side); the values of cm_gemm.h's CM_GEMM_F32 / F64. */
enum { CM_LA_F32 = 0, CM_LA_F64 = 1 };

/* ---- FFT ---- */

enum {
    CM_FFT_C2C = 0, /* complex -> complex */
    CM_FFT_R2C = 1, /* real (n) -> complex (n/2 + 1 along the last axis) */
    CM_FFT_C2R = 2, /* complex (n/2 + 1) -> real (n); in is overwritten (as cuFFT and FFTW do) */
};

/* batch transforms of rank 1 to 3 over dense data: transform i of in at
 * i * (elements of one input), of out likewise, C order, last axis
 * fastest. Unnormalised (the caller scales); inverse: the C2C exponent's
 * sign is + (C2R is always inverse, R2C forward). A rank-1 transform may
 * instead give the advanced layout that cuFFT and FFTW share: element j
 * of transform i of in at i * idist + j * istride (in elements of its
 * side's type), of out likewise — a transform along a non-last axis with
 * no transposed copy. */
typedef struct cm_fft {
    int kind;         /* CM_FFT_* */
    int type;         /* CM_LA_F32 / F64 */
    int inverse;      /* C2C only */
    int rank;         /* 1 .. 3 */
    int n[3];         /* the logical (real-side) sizes of the transform */
    long long batch;  /* >= 1 */
    const void *in;   /* the device's addresses, out of place */
    void *out;
    long long istride, idist, ostride, odist; /* rank 1 only; all 0: dense */
} cm_fft_t;

/* ---- LAPACK ---- */

enum {
    CM_LA_GETRF = 0, /* a (n x n) = P L U in place; ipiv */
    CM_LA_GETRS,     /* b (n x nrhs) = a^-1 b from getrf's a and ipiv */
    CM_LA_POTRF,     /* a (n x n) = L L^T in place, the lower triangle */
    CM_LA_GEQRF,     /* a (m x n) = Q R in place; tau (min(m, n)) in w */
    CM_LA_ORGQR,     /* a (m x n) = Q's first n columns from geqrf's reflectors (k = nrhs) */
    CM_LA_GESVD,     /* a (m x n, m >= n) = U S V^T; s in w; job 'S' (reduced U, V^T in u, vt),
                        'O' (reduced U over a itself, V^T in vt; u unused: CuPy's jobu 'O',
                        jobvt 'S'), 'A' (full), 'N' (s only); a is destroyed */
    CM_LA_SYEVD,     /* a (n x n) symmetric: eigenvalues ascending in w, vectors (job 'V')
                        over a's columns, from its lower triangle; job 'N': values only */
};

/* One step over batch column-major matrices: matrix i of X at x + i *
 * stride_x elements. Dimensions fit an int (the caller checks). */
typedef struct cm_lapack {
    int op;                    /* CM_LA_GETRF ... */
    int type;                  /* CM_LA_F32 / F64 */
    int m, n, nrhs;            /* a is m x n (square ops: n x n); nrhs: getrs's columns of
                                  b, orgqr's reflectors */
    char job;                  /* gesvd: 'S', 'O', 'A', 'N'; syevd: 'V', 'N' */
    void *a;                   /* the device's addresses */
    int lda;
    long long stride_a;
    void *b;                   /* getrs's right-hand sides */
    int ldb;
    long long stride_b;
    void *w;                   /* geqrf/orgqr: tau; gesvd: s; syevd: eigenvalues */
    long long stride_w;
    void *u, *vt;              /* gesvd's U (m x m or m x n) and V^T (n x n) */
    int ldu, ldvt;
    long long stride_u, stride_vt;
    int *ipiv;                 /* getrf/getrs: n per matrix, device memory, 1-based */
    long long stride_ipiv;
    int *info;                 /* HOST memory, one per matrix: LAPACK's info (0 ok; > 0 a
                                  singular / not positive definite / not converged matrix) */
    int batch;                 /* >= 1 */
} cm_lapack_t;

#endif
