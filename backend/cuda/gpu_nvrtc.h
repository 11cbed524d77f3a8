/* gpu_nvrtc: a thin binding of NVRTC (libnvrtc.so.13, else .12), loaded with
 * dlopen at first use. Policy (options, the prelude, the cache) lives in
 * gpu_compile.c. Internal to backend/cuda/. */
#ifndef GPU_NVRTC_H
#define GPU_NVRTC_H

#include <stddef.h>

#include "cm_error.h"

typedef int gpu_nvrtc_result_t;            /* nvrtcResult; 0 = NVRTC_SUCCESS */
typedef struct gpu_nvrtc_prog *gpu_nvrtc_program_t; /* nvrtcProgram */

typedef struct gpu_nvrtc {
    void *handle;
    char path[512];
    int version;                           /* major * 1000 + minor * 10, as CUDA_VERSION */
    const char *(*nvrtcGetErrorString)(gpu_nvrtc_result_t rc);
    gpu_nvrtc_result_t (*nvrtcVersion)(int *major, int *minor);
    gpu_nvrtc_result_t (*nvrtcGetNumSupportedArchs)(int *count);
    gpu_nvrtc_result_t (*nvrtcGetSupportedArchs)(int *archs);
    gpu_nvrtc_result_t (*nvrtcCreateProgram)(gpu_nvrtc_program_t *prog, const char *src,
                                             const char *name, int nheaders,
                                             const char *const *headers,
                                             const char *const *include_names);
    gpu_nvrtc_result_t (*nvrtcDestroyProgram)(gpu_nvrtc_program_t *prog);
    gpu_nvrtc_result_t (*nvrtcCompileProgram)(gpu_nvrtc_program_t prog, int nopts,
                                              const char *const *opts);
    gpu_nvrtc_result_t (*nvrtcGetProgramLogSize)(gpu_nvrtc_program_t prog, size_t *size);
    gpu_nvrtc_result_t (*nvrtcGetProgramLog)(gpu_nvrtc_program_t prog, char *log);
    gpu_nvrtc_result_t (*nvrtcGetPTXSize)(gpu_nvrtc_program_t prog, size_t *size);
    gpu_nvrtc_result_t (*nvrtcGetPTX)(gpu_nvrtc_program_t prog, char *ptx);
    gpu_nvrtc_result_t (*nvrtcGetCUBINSize)(gpu_nvrtc_program_t prog, size_t *size);
    gpu_nvrtc_result_t (*nvrtcGetCUBIN)(gpu_nvrtc_program_t prog, char *cubin);
    gpu_nvrtc_result_t (*nvrtcAddNameExpression)(gpu_nvrtc_program_t prog, const char *expr);
    gpu_nvrtc_result_t (*nvrtcGetLoweredName)(gpu_nvrtc_program_t prog, const char *expr,
                                              const char **lowered);
} gpu_nvrtc_t;

/* NVRTC, loaded at the first call. NULL with err set (GPU_E_NO_LIBRARY)
 * naming the libraries and places tried; remembered. Borrowed. */
const gpu_nvrtc_t *gpu_nvrtc_get(cm_error_t *err);

/* The check: 0 for NVRTC_SUCCESS; otherwise records "what: NVRTC_ERROR_X
 * (n)" with err->code = GPU_E_NVRTC and the call site, and returns -1. */
int gpu_nvrtc_check(gpu_nvrtc_result_t rc, const char *call, const char *file, int line,
                    cm_error_t *err);
#define GPU_NVRTC_CHECK(call, err) gpu_nvrtc_check((call), #call, __FILE__, __LINE__, (err))

#endif
