/* gpu_cusolver: LAPACK steps on a GPU (gpu.h's gpu_lapack_run) through
 * cuSOLVER's dense API (libcusolver.so.12, else .11), loaded with dlopen
 * at first use; only the calls gpuc makes are bound, with the legacy typed
 * names CuPy uses (cusolverDnSgetrf ...). One handle per context, on the
 * default stream; a workspace per context (device memory from the driver,
 * grown when a call asks for more, kept for the next) whose first ints
 * are the batch's devInfo. Batches of matrices up to 256 (CuPy's limit
 * for its batched solve) factor and solve in one call each — LU by
 * cuBLAS's getrfBatched / getrsBatched, Cholesky by cuSOLVER's
 * potrfBatched, over arrays of pointers copied into the workspace; other
 * batches are a call per matrix. Then one copy of the infos back to the
 * host (the wait), except after getrs, whose info flags only a bad
 * argument (gpuc passes none): a solve or an inverse waits once, for
 * getrf's. The handle's stream is set (cusolverDnSetStream, NULL) before
 * each step, as CuPy sets it before every call. gesvd's job 'O' is
 * CuPy's reduced SVD: jobu 'O' (U written over the matrix), jobvt 'S'. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_cublas.h"
#include "gpu_dl.h"
#include "gpu_internal.h"

typedef struct cusolver_context *handle_t; /* cusolverDnHandle_t */
typedef int status_t;                      /* cusolverStatus_t; 0 = success */

enum { FILL_LOWER = 0, OP_N = 0, EIG_NOVECTOR = 0, EIG_VECTOR = 1 };

/* cuSOLVER's functions, float32 ([0]: S) and float64 ([1]: D). */
static struct {
    void *handle;
    char path[512];
    status_t (*create)(handle_t *h);
    status_t (*set_stream)(handle_t h, void *stream);
    status_t (*getrf_size[2])(handle_t, int m, int n, void *a, int lda, int *lwork);
    status_t (*getrf[2])(handle_t, int m, int n, void *a, int lda, void *work, int *ipiv,
                         int *info);
    status_t (*getrs[2])(handle_t, int trans, int n, int nrhs, const void *a, int lda,
                         const int *ipiv, void *b, int ldb, int *info);
    status_t (*potrf_size[2])(handle_t, int uplo, int n, void *a, int lda, int *lwork);
    status_t (*potrf[2])(handle_t, int uplo, int n, void *a, int lda, void *work, int lwork,
                         int *info);
    status_t (*geqrf_size[2])(handle_t, int m, int n, void *a, int lda, int *lwork);
    status_t (*geqrf[2])(handle_t, int m, int n, void *a, int lda, void *tau, void *work,
                         int lwork, int *info);
    status_t (*orgqr_size[2])(handle_t, int m, int n, int k, const void *a, int lda,
                              const void *tau, int *lwork);
    status_t (*orgqr[2])(handle_t, int m, int n, int k, void *a, int lda, const void *tau,
                         void *work, int lwork, int *info);
    status_t (*gesvd_size[2])(handle_t, int m, int n, int *lwork);
    status_t (*gesvd[2])(handle_t, signed char jobu, signed char jobvt, int m, int n, void *a,
                         int lda, void *s, void *u, int ldu, void *vt, int ldvt, void *work,
                         int lwork, void *rwork, int *info);
    status_t (*syevd_size[2])(handle_t, int jobz, int uplo, int n, const void *a, int lda,
                              const void *w, int *lwork);
    status_t (*syevd[2])(handle_t, int jobz, int uplo, int n, void *a, int lda, void *w,
                         void *work, int lwork, int *info);
    status_t (*potrf_batched[2])(handle_t, int uplo, int n, void *const a[], int lda, int *info,
                                 int batch);
} lib;

#define BATCHED_LIMIT 256 /* the largest n batched in one call */
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(void **slot, const char *name)
{
    *slot = gpu_dl_sym(lib.handle, name);
    if (!*slot)
        snprintf(missing, sizeof missing, "cuSOLVER (%s) lacks %s", lib.path, name);
    return *slot ? 0 : -1;
}

/* cusolverDnS<name> and cusolverDnD<name> into field[0], field[1] */
static int pair(void **field, const char *name)
{
    char s[64], d[64];
    snprintf(s, sizeof s, "cusolverDnS%s", name);
    snprintf(d, sizeof d, "cusolverDnD%s", name);
    return resolve(&field[0], s) || resolve(&field[1], d);
}

#define PAIR(field, name) pair((void **)lib.field, name)

static int load(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        static const char *const names[] = {"libcusolver.so.12", "libcusolver.so.11", NULL};
        char where[600];
        lib.handle = gpu_dl_open(names, RTLD_NOW | RTLD_LOCAL, lib.path, sizeof lib.path, where,
                                 sizeof where);
        if (!lib.handle)
            snprintf(missing, sizeof missing,
                     "cuSOLVER not found: GPU linear algebra needs it (looked for %s; install the "
                     "CUDA toolkit's libcusolver or set CUDA_HOME)", where);
        else if (resolve((void **)&lib.create, "cusolverDnCreate") ||
                 resolve((void **)&lib.set_stream, "cusolverDnSetStream") ||
                 PAIR(getrf_size, "getrf_bufferSize") || PAIR(getrf, "getrf") ||
                 PAIR(getrs, "getrs") || PAIR(potrf_size, "potrf_bufferSize") ||
                 PAIR(potrf, "potrf") || PAIR(geqrf_size, "geqrf_bufferSize") ||
                 PAIR(geqrf, "geqrf") || PAIR(orgqr_size, "orgqr_bufferSize") ||
                 PAIR(orgqr, "orgqr") || PAIR(gesvd_size, "gesvd_bufferSize") ||
                 PAIR(gesvd, "gesvd") || PAIR(syevd_size, "syevd_bufferSize") ||
                 PAIR(syevd, "syevd") || PAIR(potrf_batched, "potrfBatched"))
            lib.handle = NULL;
    }
    if (!lib.handle) {
        CM_ERROR(err, GPU_E_NO_LIBRARY, "%s", missing);
        return -1;
    }
    return 0;
}

/* cusolverStatus_t's names (cuSOLVER has no function that gives them). */
static const char *status_name(status_t s)
{
    static const char *const names[] = {
        "CUSOLVER_STATUS_SUCCESS", "CUSOLVER_STATUS_NOT_INITIALIZED",
        "CUSOLVER_STATUS_ALLOC_FAILED", "CUSOLVER_STATUS_INVALID_VALUE",
        "CUSOLVER_STATUS_ARCH_MISMATCH", "CUSOLVER_STATUS_MAPPING_ERROR",
        "CUSOLVER_STATUS_EXECUTION_FAILED", "CUSOLVER_STATUS_INTERNAL_ERROR",
        "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "CUSOLVER_STATUS_NOT_SUPPORTED",
    };
    return s >= 0 && s < (int)(sizeof names / sizeof names[0]) ? names[s] : "CUSOLVER_STATUS_?";
}

static int check(status_t rc, const char *call, int line, cm_error_t *err)
{
    if (rc == 0)
        return 0;
    cm_error_setf(err, __FILE__, line, rc, "cusolverDn%s: %s (%d)", call, status_name(rc), rc);
    return -1;
}
#define CHECK(call, name) check((call), name, __LINE__, err)

/* A handle and a workspace per context (a primary context per device). */
static struct slot {
    gpu_cucontext_t ctx;
    int device; /* the GPU whose primary context ctx is */
    handle_t handle;
    gpu_cudeviceptr_t work;
    size_t bytes;
} slots[GPU_MAX_DEVICES];

/* device's slot, with its context made current first. NULL with err. */
static struct slot *slot_now(int device, cm_error_t *err)
{
    const gpu_driver_t *d = gpu_driver_get(err);
    gpu_cucontext_t ctx = NULL;
    if (!d || gpu_context_use(device, err) != 0 || GPU_CU_CHECK(d->cuCtxGetCurrent(&ctx), err) != 0)
        return NULL;
    int i = 0;
    while (i < GPU_MAX_DEVICES && slots[i].ctx && slots[i].ctx != ctx)
        i++;
    if (i == GPU_MAX_DEVICES) {
        CM_ERROR(err, GPU_E_INVALID, "more than %d CUDA contexts used cuSOLVER", GPU_MAX_DEVICES);
        return NULL;
    }
    if (!slots[i].ctx) {
        if (CHECK(lib.create(&slots[i].handle), "Create") != 0)
            return NULL;
        slots[i].ctx = ctx;
        slots[i].device = device;
    }
    return &slots[i];
}

/* At least bytes of workspace in s (the old one freed when it is grown:
 * the default stream orders the free after the work that used it). */
static int reserve(struct slot *s, size_t bytes, cm_error_t *err)
{
    if (bytes <= s->bytes)
        return 0;
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d)
        return -1;
    if (s->work && GPU_CU_CHECK(d->cuMemFree(s->work), err) != 0)
        return -1;
    s->work = 0;
    s->bytes = 0;
    bytes = (bytes + 0xFFFFF) & ~(size_t)0xFFFFF; /* whole MiB, so it grows seldom */
    if (GPU_CU_CHECK(d->cuMemAlloc(&s->work, bytes), err) != 0)
        return -1;
    s->bytes = bytes;
    return 0;
}

/* The workspace in elements of l's matrix 0 that l's step asks for. */
static int work_size(handle_t h, const cm_lapack_t *l, int *lwork, cm_error_t *err)
{
    int t = l->type == CM_LA_F64;
    *lwork = 0;
    switch (l->op) {
    case CM_LA_GETRF:
        return CHECK(lib.getrf_size[t](h, l->n, l->n, l->a, l->lda, lwork), "getrf_bufferSize");
    case CM_LA_POTRF:
        return CHECK(lib.potrf_size[t](h, FILL_LOWER, l->n, l->a, l->lda, lwork),
                     "potrf_bufferSize");
    case CM_LA_GEQRF:
        return CHECK(lib.geqrf_size[t](h, l->m, l->n, l->a, l->lda, lwork), "geqrf_bufferSize");
    case CM_LA_ORGQR:
        return CHECK(lib.orgqr_size[t](h, l->m, l->n, l->nrhs, l->a, l->lda, l->w, lwork),
                     "orgqr_bufferSize");
    case CM_LA_GESVD:
        return CHECK(lib.gesvd_size[t](h, l->m, l->n, lwork), "gesvd_bufferSize");
    case CM_LA_SYEVD:
        return CHECK(lib.syevd_size[t](h, l->job == 'V' ? EIG_VECTOR : EIG_NOVECTOR, FILL_LOWER,
                                       l->n, l->a, l->lda, l->w, lwork), "syevd_bufferSize");
    default: return 0; /* getrs */
    }
}

static void *at(void *x, long long stride, int i, size_t es)
{
    return x ? (char *)x + (size_t)(stride * i) * es : NULL;
}

/* Matrix i of l, its devInfo at info. */
static int step(handle_t h, const cm_lapack_t *l, int i, void *work, int lwork, int *info,
                cm_error_t *err)
{
    int t = l->type == CM_LA_F64;
    size_t es = t ? 8 : 4;
    void *a = at(l->a, l->stride_a, i, es), *b = at(l->b, l->stride_b, i, es);
    void *w = at(l->w, l->stride_w, i, es), *u = at(l->u, l->stride_u, i, es);
    void *vt = at(l->vt, l->stride_vt, i, es);
    int *ipiv = l->ipiv ? l->ipiv + l->stride_ipiv * i : NULL;
    switch (l->op) {
    case CM_LA_GETRF:
        return CHECK(lib.getrf[t](h, l->n, l->n, a, l->lda, work, ipiv, info), "getrf");
    case CM_LA_GETRS:
        return CHECK(lib.getrs[t](h, OP_N, l->n, l->nrhs, a, l->lda, ipiv, b, l->ldb, info),
                     "getrs");
    case CM_LA_POTRF:
        return CHECK(lib.potrf[t](h, FILL_LOWER, l->n, a, l->lda, work, lwork, info), "potrf");
    case CM_LA_GEQRF:
        return CHECK(lib.geqrf[t](h, l->m, l->n, a, l->lda, w, work, lwork, info), "geqrf");
    case CM_LA_ORGQR:
        return CHECK(lib.orgqr[t](h, l->m, l->n, l->nrhs, a, l->lda, w, work, lwork, info),
                     "orgqr");
    case CM_LA_GESVD: { /* job 'O': U over a (u and ldu are a's, as CuPy passes them), V^T 'S' */
        int over = l->job == 'O';
        return CHECK(lib.gesvd[t](h, (signed char)l->job, (signed char)(over ? 'S' : l->job),
                                  l->m, l->n, a, l->lda, w, over ? a : u,
                                  over ? l->lda : l->ldu > 0 ? l->ldu : 1, vt,
                                  l->ldvt > 0 ? l->ldvt : 1, work, lwork, NULL, info), "gesvd");
    }
    case CM_LA_SYEVD:
        return CHECK(lib.syevd[t](h, l->job == 'V' ? EIG_VECTOR : EIG_NOVECTOR, FILL_LOWER, l->n,
                                  a, l->lda, w, work, lwork, info), "syevd");
    }
    CM_ERROR(err, GPU_E_INVALID, "gpu_lapack_run: step %d", l->op);
    return -1;
}

static size_t round256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

/* getrf, getrs and potrf of l (batch > 1, n <= BATCHED_LIMIT) in one
 * batched call: matrix pointers for a (and b) in s's workspace after the
 * infos. */
static int batched(struct slot *s, const cm_lapack_t *l, cm_error_t *err)
{
    const gpu_driver_t *d = gpu_driver_get(err);
    const gpu_cublas_t *cb = NULL;
    gpu_cublas_handle_t bh = l->op == CM_LA_POTRF ? NULL : gpu_blas_handle(s->device, &cb, err);
    if (!d || (l->op != CM_LA_POTRF && !bh))
        return -1;
    int t = l->type == CM_LA_F64, nb = l->batch;
    size_t es = t ? 8 : 4, infos = round256((size_t)nb * sizeof(int));
    if (reserve(s, infos + 2 * (size_t)nb * sizeof(void *), err) != 0)
        return -1;
    void **host = malloc(2 * (size_t)nb * sizeof *host);
    if (!host) {
        CM_ERROR(err, GPU_E_INVALID, "out of host memory for %d matrix pointers", nb);
        return -1;
    }
    for (int i = 0; i < nb; i++) {
        host[i] = at(l->a, l->stride_a, i, es);
        host[nb + i] = at(l->b, l->stride_b, i, es);
    }
    int *info = (int *)(uintptr_t)s->work;
    void **ap = (void **)(uintptr_t)(s->work + infos), **bp = ap + nb;
    int rc = GPU_CU_CHECK(d->cuMemcpyHtoD(s->work + infos, host, 2 * (size_t)nb * sizeof *host),
                          err);
    free(host);
    if (rc != 0)
        return -1;
    int host_info = 0;
    gpu_kernel_clock_before(NULL);
    switch (l->op) {
    case CM_LA_GETRF:
        rc = GPU_CUBLAS_CHECK(cb->getrfBatched[t](bh, l->n, ap, l->lda, l->ipiv, info, nb), err);
        break;
    case CM_LA_GETRS:
        rc = GPU_CUBLAS_CHECK(cb->getrsBatched[t](bh, OP_N, l->n, l->nrhs, (const void *const *)ap,
                                                  l->lda, l->ipiv, bp, l->ldb, &host_info, nb),
                              err);
        break;
    default:
        rc = CHECK(lib.potrf_batched[t](s->handle, FILL_LOWER, l->n, ap, l->lda, info, nb),
                   "potrfBatched");
        break;
    }
    gpu_kernel_clock_after(NULL);
    if (rc == 0 && l->op == CM_LA_GETRS) { /* its info says only whether an argument was bad */
        memset(l->info, 0, (size_t)nb * sizeof *l->info);
        return 0;
    }
    return rc == 0 ? GPU_CU_CHECK(d->cuMemcpyDtoH(l->info, s->work, (size_t)nb * sizeof(int)), err)
                   : -1;
}

int gpu_lapack_run(int device, const cm_lapack_t *l, cm_error_t *err)
{
    if (load(err) != 0)
        return -1;
    struct slot *s = slot_now(device, err);
    /* The stream before each step, as CuPy sets it: cusolverDnSetStream sets
     * that of cuSOLVER's own cuBLAS handle, and cublasSetStream puts that
     * handle's workspace back to cuBLAS's default pool, so a step with no
     * workspace argument (getrs, whose trsm is all of inv's second half)
     * runs as in CuPy's process, not with whatever an earlier step may
     * have left there. */
    if (!s || CHECK(lib.set_stream(s->handle, NULL), "SetStream") != 0)
        return -1;
    int lu = (l->op == CM_LA_GETRF || l->op == CM_LA_GETRS) && l->stride_ipiv == l->n;
    if (l->batch > 1 && l->n <= BATCHED_LIMIT && (lu || l->op == CM_LA_POTRF))
        return batched(s, l, err);
    int lwork;
    if (work_size(s->handle, l, &lwork, err) != 0)
        return -1;
    size_t es = l->type == CM_LA_F64 ? 8 : 4;
    size_t infos = round256((size_t)l->batch * sizeof(int));
    if (reserve(s, infos + (size_t)lwork * es, err) != 0)
        return -1;
    const gpu_driver_t *d = gpu_driver_get(err);
    int *info = (int *)(uintptr_t)s->work;
    void *work = (char *)(uintptr_t)s->work + infos;
    gpu_kernel_clock_before(NULL);
    int rc = 0;
    for (int i = 0; i < l->batch && rc == 0; i++)
        rc = step(s->handle, l, i, work, lwork, info + i, err);
    gpu_kernel_clock_after(NULL);
    if (rc == 0 && l->op == CM_LA_GETRS) { /* its info only flags a bad argument: no wait */
        memset(l->info, 0, (size_t)l->batch * sizeof *l->info);
        return 0;
    }
    if (rc == 0)
        rc = GPU_CU_CHECK(d->cuMemcpyDtoH(l->info, s->work, (size_t)l->batch * sizeof(int)), err);
    return rc;
}
