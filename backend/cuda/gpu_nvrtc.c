#include "gpu_nvrtc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "gpu_dl.h"

static gpu_nvrtc_t nvrtc;
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(void *h, void **slot, const char *name)
{
    *slot = dlsym(h, name);
    if (!*slot)
        snprintf(missing, sizeof missing, "NVRTC (%s) lacks %s", nvrtc.path, name);
    return *slot ? 0 : -1;
}

#define SYM(name) resolve(h, (void **)&nvrtc.name, #name)

const gpu_nvrtc_t *gpu_nvrtc_get(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", NULL};
        char where[600];
        void *h = gpu_dl_open(names, RTLD_NOW | RTLD_LOCAL, nvrtc.path, sizeof nvrtc.path, where,
                              sizeof where);
        if (!h) {
            snprintf(missing, sizeof missing,
                     "NVRTC not found: cannot compile kernel cells (looked for %s; install the "
                     "CUDA toolkit or set CUDA_HOME)", where);
        } else if (!(SYM(nvrtcGetErrorString) || SYM(nvrtcVersion) ||
                     SYM(nvrtcGetNumSupportedArchs) || SYM(nvrtcGetSupportedArchs) ||
                     SYM(nvrtcCreateProgram) || SYM(nvrtcDestroyProgram) ||
                     SYM(nvrtcCompileProgram) || SYM(nvrtcGetProgramLogSize) ||
                     SYM(nvrtcGetProgramLog) || SYM(nvrtcGetPTXSize) || SYM(nvrtcGetPTX) ||
                     SYM(nvrtcGetCUBINSize) || SYM(nvrtcGetCUBIN) ||
                     SYM(nvrtcAddNameExpression) || SYM(nvrtcGetLoweredName))) {
            int major = 0, minor = 0;
            nvrtc.nvrtcVersion(&major, &minor);
            nvrtc.version = major * 1000 + minor * 10;
            nvrtc.handle = h;
        }
    }
    if (!nvrtc.handle) {
        CM_ERROR(err, GPU_E_NO_LIBRARY, "%s", missing);
        return NULL;
    }
    return &nvrtc;
}

int gpu_nvrtc_check(gpu_nvrtc_result_t rc, const char *call, const char *file, int line,
                    cm_error_t *err)
{
    if (rc == 0)
        return 0;
    const char *name = nvrtc.handle ? nvrtc.nvrtcGetErrorString(rc) : NULL;
    char fn[64];
    size_t n = strcspn(call, "(");
    snprintf(fn, sizeof fn, "%.*s", (int)(n < 63 ? n : 63), call);
    /* "nvrtc->nvrtcCompileProgram" -> the function name users can look up */
    const char *shown = strstr(fn, "nvrtc");
    const char *arrow = strrchr(fn, '>');
    if (arrow)
        shown = arrow + 1;
    cm_error_setf(err, file, line, GPU_E_NVRTC, "%s: %s (%d)", shown ? shown : fn,
                  name ? name : "NVRTC error", rc);
    return -1;
}
