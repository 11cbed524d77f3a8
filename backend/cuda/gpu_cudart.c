#include "gpu_cudart.h"

#include <dlfcn.h>
#include <stdio.h>

#include "gpu.h"
#include "gpu_dl.h"

static gpu_cudart_t rt;
static int rt_tried;
static char rt_missing[CM_ERROR_TEXT];

static int resolve(void *h, void **slot, const char *name)
{
    *slot = dlsym(h, name);
    if (!*slot)
        snprintf(rt_missing, sizeof rt_missing, "the CUDA runtime (%s) lacks %s", rt.path, name);
    return *slot ? 0 : -1;
}

#define SYM(name) resolve(h, (void **)&rt.name, #name)

const gpu_cudart_t *gpu_cudart_get(cm_error_t *err)
{
    if (!rt_tried) {
        rt_tried = 1;
        static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", NULL};
        char where[600];
        void *h = gpu_dl_open(names, RTLD_NOW | RTLD_GLOBAL, rt.path, sizeof rt.path, where,
                              sizeof where);
        if (!h) {
            snprintf(rt_missing, sizeof rt_missing,
                     "the CUDA runtime was not found: host cells cannot call cudaMalloc etc. "
                     "(looked for %s)", where);
        } else if (!(SYM(cudaRuntimeGetVersion) || SYM(cudaSetDevice) || SYM(cudaGetDevice) ||
                     SYM(cudaMalloc) || SYM(cudaFree) || SYM(cudaMemcpy) ||
                     SYM(cudaDeviceSynchronize) || SYM(cudaGetLastError) ||
                     SYM(cudaGetErrorName) || SYM(cudaGetErrorString))) {
            rt.cudaRuntimeGetVersion(&rt.version); /* no context needed */
            rt.handle = h;
        }
    }
    if (!rt.handle) {
        CM_ERROR(err, GPU_E_NO_LIBRARY, "%s", rt_missing);
        return NULL;
    }
    return &rt;
}

int gpu_cudart_check(int rc, const char *call, const char *file, int line, cm_error_t *err)
{
    if (rc == 0)
        return 0;
    (void)call;
    cm_error_setf(err, file, line, rc, "%s (%d): %s",
                  rt.handle ? rt.cudaGetErrorName(rc) : "cudaError", rc,
                  rt.handle ? rt.cudaGetErrorString(rc) : "CUDA runtime error");
    return -1;
}
