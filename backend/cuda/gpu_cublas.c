#include "gpu_cublas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "gpu_dl.h"

static gpu_cublas_t cublas;
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(void *h, void **slot, const char *name)
{
    *slot = dlsym(h, name);
    if (!*slot)
        snprintf(missing, sizeof missing, "cuBLAS (%s) lacks %s", cublas.path, name);
    return *slot ? 0 : -1;
}

#define SYM(name) resolve(h, (void **)&cublas.name, #name)

const gpu_cublas_t *gpu_cublas_get(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", NULL};
        char where[600];
        void *h = gpu_dl_open(names, RTLD_NOW | RTLD_LOCAL, cublas.path, sizeof cublas.path,
                              where, sizeof where);
        if (!h) {
            snprintf(missing, sizeof missing,
                     "cuBLAS not found: GPU matmul and host cells' cublas* calls need it (looked "
                     "for %s; install the CUDA toolkit's libcublas or set CUDA_HOME)", where);
        } else if (!(SYM(cublasCreate_v2) || SYM(cublasDestroy_v2) || SYM(cublasGetVersion_v2) ||
                     SYM(cublasGetStatusName) || SYM(cublasGetStatusString) ||
                     SYM(cublasGemmEx) || SYM(cublasGemmStridedBatchedEx) ||
                     SYM(cublasDotEx) ||
                     resolve(h, (void **)&cublas.getrfBatched[0], "cublasSgetrfBatched") ||
                     resolve(h, (void **)&cublas.getrfBatched[1], "cublasDgetrfBatched") ||
                     resolve(h, (void **)&cublas.getrsBatched[0], "cublasSgetrsBatched") ||
                     resolve(h, (void **)&cublas.getrsBatched[1], "cublasDgetrsBatched"))) {
            cublas.handle = h;
        }
    }
    if (!cublas.handle) {
        if (err)
            CM_ERROR(err, GPU_E_NO_LIBRARY, "%s", missing);
        return NULL;
    }
    return &cublas;
}

int gpu_cublas_check(gpu_cublas_status_t rc, const char *call, const char *file, int line,
                     cm_error_t *err)
{
    if (rc == 0)
        return 0;
    /* "c->cublasGemmEx(handle, ...)" -> "cublasGemmEx" */
    const char *fn = strstr(call, "cublas");
    size_t n = fn ? strcspn(fn, "( ") : 0;
    cm_error_setf(err, file, line, rc, "%.*s: %s (%d): %s", (int)(n < 60 ? n : 60),
                  fn ? fn : "cuBLAS", cublas.handle ? cublas.cublasGetStatusName(rc) : "cuBLAS error",
                  rc, cublas.handle ? cublas.cublasGetStatusString(rc) : "");
    return -1;
}
