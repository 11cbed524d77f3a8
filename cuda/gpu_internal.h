/* gpu_internal: what the files of cuda/ share and the runtime does not see. */
#ifndef GPU_INTERNAL_H
#define GPU_INTERNAL_H

#include <stddef.h>

#include "gpu.h"
#include "gpu_driver.h"

/* ---- gpu_scan.c: a light scanner over CUDA C++ device source ---------- */

/* Finds the non-template __global__ functions of src (also inside extern
 * "C" blocks) and parses their parameters. Returns the count and *out
 * (caller frees with gpu_kernels_free; lowered names empty), -1 on OOM. */
int gpu_scan_kernels(const char *src, gpu_kernel_info_t **out);
void gpu_kernels_free(gpu_kernel_info_t *kernels, int n);

/* The top-level names src defines (functions with bodies, __device__ /
 * __constant__ / __managed__ variables, struct/class/union/enum tags,
 * typedefs, using-aliases, #define macros). Returns the count and *out, an
 * array of strings (free with gpu_names_free), -1 on OOM. */
int gpu_scan_names(const char *src, char ***out);
void gpu_names_free(char **names, int n);

/* Parses one parameter declaration ("const float *__restrict__ x") into p.
 * Exposed for the tests. */
void gpu_scan_param(const char *text, size_t len, gpu_param_t *p);

/* ---- gpu_device.c: device selection and the primary context ---------- */

/* The compute capability of the selected device, without a context: 1 when
 * there is a usable GPU, 0 when not. */
int gpu_device_target(int *major, int *minor);

/* Retains the selected device's primary context (lazily, once) and makes it
 * current on this thread. -1 with err: GPU_E_NO_GPU ("no GPU: <reason>") or
 * the driver's error. */
int gpu_context_ensure(cm_error_t *err);

/* Records GPU_E_NO_GPU: "<prefix>no GPU: <reason>". */
void gpu_error_no_gpu(cm_error_t *err, const char *prefix);

/* ---- gpu_error.c ------------------------------------------------------- */

/* The part of gpu_sticky_message after the error's name: what was lost. */
void gpu_sticky_cost(char *buf, size_t len);

/* ---- gpu_cache.c: the compile cache ----------------------------------- */

enum { GPU_IMAGE_CUBIN = 1, GPU_IMAGE_PTX = 2 };

typedef struct gpu_image {
    int kind;                  /* GPU_IMAGE_CUBIN / GPU_IMAGE_PTX */
    unsigned char *data;       /* payload; PTX is NUL-terminated (size counts the NUL) */
    size_t size;
    char *names;               /* lowered names: "name\0lowered\0name\0lowered\0..." */
    size_t names_size;
} gpu_image_t;

/* Looks key (32 bytes) up in memory, then on disk. 1 and a copy in *img
 * (caller frees with gpu_image_clear) with *where = "memory hit" / "disk
 * hit"; 0 on a miss (a corrupt disk entry is a miss and is removed). */
int gpu_cache_lookup(const unsigned char key[32], gpu_image_t *img, const char **where);

/* Stores a copy of img under key, in memory and on disk (temporary file +
 * rename). Failures to write the disk cache are ignored. */
void gpu_cache_store(const unsigned char key[32], const gpu_image_t *img);

/* The file that holds key on disk (for the tests); 0 / -1. */
int gpu_cache_path(const unsigned char key[32], char *buf, size_t len);

void gpu_image_clear(gpu_image_t *img);

/* ---- gpu_module.c: the kernel registry -------------------------------- */

/* Registers the kernels of a compiled cell, replacing earlier kernels of the
 * same names; takes over img->data (img is cleared). Loads the module when a
 * GPU is present (*loaded = 1, *load_ms). -1 with err when loading fails;
 * the kernels are then not registered. */
int gpu_module_add(int cell, gpu_image_t *img, const gpu_kernel_info_t *kernels, int nkernels,
                   int *loaded, double *load_ms, cm_error_t *err);

/* Loads the modules not loaded yet on the current context (after
 * gpu_select). */
int gpu_module_load_all(cm_error_t *err);

/* Forgets every module without unloading (the context is being switched). */
void gpu_module_forget_loaded(void);

/* Forgets every kernel and module (unloading what is loaded). */
void gpu_module_reset(void);

double gpu_now_ms(void);

/* The kernel clock's hooks around a launch (gpu_timing.c); no-ops while
 * the clock is off. */
void gpu_kernel_clock_before(void *stream);
void gpu_kernel_clock_after(void *stream);

#endif
