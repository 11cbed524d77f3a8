/* gpu_internal: what the files of backend/cuda/ share and the runtime does not see. */
#ifndef GPU_INTERNAL_H
#define GPU_INTERNAL_H

#include <stddef.h>

#include "cm_buf.h"
#include "gpu.h"
#include "gpu_driver.h"
#include "gpu_nvrtc.h"

/* ---- gpu_module.c: parameters the compilers measured ----------------- */

/* Records the sizes the device compiler gave k's by-value parameters (a
 * struct, a type gpuc's scanner does not know): sizes[i] for parameter i,
 * n of them, from an array of GPU_MAX_PARAMS (n != k->nparams leaves k as
 * it is). */
#define GPU_MAX_PARAMS 64
void gpu_params_measured(gpu_kernel_info_t *k, const unsigned long *sizes, int n);

/* ---- gpu_device.c: device selection and the primary context ---------- */

/* The compute capability of the selected device, without a context: 1 when
 * there is a usable GPU, 0 when not. */
int gpu_device_target(int *major, int *minor);

/* 1 when the CPU is chosen by gpu_select(GPU_DEVICE_CPU). */
int gpu_device_cpu_selected(void);

/* Prints, once, the note that kernels run on the simulator (no GPU, or
 * the CPU selected). */
void gpu_device_note_sim(void);

/* Fills props with what the simulated device reports. */
void gpu_device_sim_properties(gpu_device_props_t *props);

/* Retains the selected device's primary context (lazily, once) and makes it
 * current on this thread. -1 with err: GPU_E_NO_GPU ("no GPU: <reason>") or
 * the driver's error. */
int gpu_context_ensure(cm_error_t *err);

void *gpu_context_handle(int device);

/* Records GPU_E_NO_GPU: "<prefix>no GPU: <reason>". */
void gpu_error_no_gpu(cm_error_t *err, const char *prefix);

/* What happened to the selected device's context, as told to the listeners
 * of gpu_device_on_context. The device knows nothing of its listeners
 * (modules, later the memory pool): they register themselves. */
typedef enum gpu_context_event {
    GPU_CONTEXT_LEAVING = 1, /* gpu_select chose another device: what lives in
                                the old context stays there, unusable from now */
    GPU_CONTEXT_READY = 2,   /* gpu_select made the selected device's context
                                current (also when the device did not change) */
} gpu_context_event_t;

/* A listener: 0, or -1 with err set; gpu_select then stops and fails with
 * that error. user is what was given at registration. */
typedef int (*gpu_context_fn)(gpu_context_event_t event, void *user, cm_error_t *err);

#define GPU_CONTEXT_LISTENERS 8

/* Registers fn(user) for context events; listeners are called in the order
 * they registered. Registering the same pair again is a no-op. 0, or -1
 * when GPU_CONTEXT_LISTENERS are registered already. */
int gpu_device_on_context(gpu_context_fn fn, void *user);

/* ---- gpu_staging.c: large copies through pinned buffers ----------------- */

/* Copies bytes between pageable host memory and the device through the
 * double-buffered pinned staging (the context must be current). 0 when
 * done, -1 with err set, 1 when staging is not available here (then copy
 * directly). */
int gpu_staging_to_device(const gpu_driver_t *d, int device, void *dst, const void *host, size_t bytes,
                          cm_error_t *err);
int gpu_staging_to_host(const gpu_driver_t *d, int device, void *host, const void *src, size_t bytes,
                        cm_error_t *err);

/* ---- gpu_include.c: the toolkit's headers as compile options -------- */

/* The CUDA include folder (for <cuda_fp16.h>): next to NVRTC, else
 * $CUDA_HOME/include, else /usr/local/cuda/include; NULL when none. */
const char *gpu_include_dir(const gpu_nvrtc_t *nv);

/* The options a kernel cell's simulator compile gets: the cell's (NULL:
 * none), then the toolkit's include folder where there is one, so that g++
 * finds <curand_kernel.h> and CUDA's vector types as NVRTC does. Appended
 * to out (caller frees). */
void gpu_include_sim_options(const char *options, cm_buf_t *out);

/* NVRTC's -I options for the toolkit's headers into opts (at most 2): the
 * include folder and, where it is, its CCCL folder (include/cccl: libcu++
 * <cuda/std/...>, which <curand_kernel.h> and CUB need). The count. */
int gpu_include_options(const gpu_nvrtc_t *nv, char opts[2][640]);

/* What a compile of source with options argv reads from disk that the
 * text does not show, appended to out: for each header an #include line
 * names (and each header those name), found as NVRTC finds it (a quoted
 * name in the including file's folder, the working folder for source,
 * then each -I folder in order) outside the toolkit's folder, its path
 * and contents. Nothing when source names none (most cells). A name a
 * macro makes is not followed. For the compile cache's key: a changed
 * header, or a %cd to another one, is another compile. */
void gpu_include_digest(const gpu_nvrtc_t *nv, const char *source, const char *const *argv,
                        int argc, cm_buf_t *out);

/* ---- gpu_compile.c: what kernel cells and library kernels share ------- */

/* The target: sm_XY cubin for the selected GPU when NVRTC knows it
 * (*cubin = 1); compute_XY PTX otherwise (the newest NVRTC knows when
 * there is no GPU). 0 / -1 with err. */
int gpu_compile_arch(const gpu_nvrtc_t *nv, char *arch, size_t len, int *cubin, cm_error_t *err);

/* ---- gpu_module.c: what launches share -------------------------------- */

/* Records the launch that reaches the driver now, for messages of errors
 * that surface later (gpu_synchronize, gpu_last_launch). */
void gpu_module_note_launch(const char *name, int cell, int line);

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

/* Stores a copy of img under key, in memory at once and on disk by the
 * cache's writer thread (temporary file + rename; gpu_cache_flush waits
 * for it). Failures to write the disk cache are ignored. */
void gpu_cache_store(const unsigned char key[32], const gpu_image_t *img);

/* The file that holds key on disk (for the tests); 0 / -1. */
int gpu_cache_path(const unsigned char key[32], char *buf, size_t len);

void gpu_image_clear(gpu_image_t *img);

/* The compiled image of NVRTC program prog (cubin or PTX) into img
 * (caller clears it; gpu_compile.c). 0 / -1 with err. */
int gpu_compile_image(const gpu_nvrtc_t *nv, gpu_nvrtc_program_t prog, int cubin,
                      gpu_image_t *img, cm_error_t *err);

/* Rewrites a compiler's log into c->log and c->diags, "cell[K](L): ..."
 * becoming "cell N, line L: ..." with N = cells[K - 1]; the first error
 * goes to first (for err->text). The source names its parts by position
 * ("cell[1]" is the first part), so that the text, and the cache key, do
 * not change with execution counts (gpu_compile_log.c). */
void gpu_compile_map_log(const char *log, const int *cells, int ncells, gpu_cell_t *c,
                         char *first, size_t first_len);

/* ---- gpu_module.c: the kernel registry -------------------------------- */

/* Registers the kernels of a compiled cell, replacing earlier kernels of the
 * same names; takes over img->data (img is cleared). Loads the module when a
 * GPU is present (*loaded = 1, *load_ms) and finds the device addresses and
 * sizes of its nglobals global variables globals[i] (addrs[i], sizes[i];
 * left alone without a GPU); a module with globals stays loaded for the
 * session. -1 with err when loading fails;
 * the kernels are then not registered. The first call subscribes the
 * registry to context events (gpu_device_on_context): after gpu_select the
 * modules are loaded on the new context. */
int gpu_module_add(int cell, gpu_image_t *img, const gpu_kernel_info_t *kernels, int nkernels,
                   int nglobals, const char *const *globals, unsigned long long *addrs,
                   size_t *sizes, int *loaded, double *load_ms, cm_error_t *err);

/* Forgets every kernel and module (unloading what is loaded). */
void gpu_module_reset(void);

/* Forgets the template instances ("scale<float>") of the kernels names[i]
 * (a cell defined them anew: later launches instantiate them again). */
void gpu_module_drop_instances(const char *const *names, int n);

/* Kernel name made runnable where kernels run now (its module loaded on
 * the GPU, or compiled for the simulator): *fn its CUfunction on a GPU
 * (NULL on the simulator), *sim_shared the static shared memory of its
 * simulator module. 0 / -1 with err (GPU_E_NO_KERNEL when unknown). */
int gpu_module_function(const char *name, gpu_cufunction_t *fn, size_t *sim_shared,
                        cm_error_t *err);

/* Keeps the put-together source of kernel name's module (copied), compiled
 * for a GPU only, so that a later launch on the simulator (%device cpu)
 * can compile it there. */
void gpu_module_keep_source(const char *name, const char *source, const char *options,
                            const int *cells, int ncells);

/* Gives kernel name its simulator entry point (after gpu_module_add
 * registered it). cells: the cell numbers of the module's parts (copied);
 * shared: the module's static shared memory (sim_compile). */
void gpu_module_set_sim(const char *name, void (*entry)(void **), const int *cells, int ncells,
                        char *shared, size_t shared_bytes);

/* Kernel name runs unchecked on the simulator, also under memcheck and
 * racecheck (a whole program's: gpu_sim_program_kernel). */
void gpu_module_sim_unchecked(const char *name);

/* ---- gpu_symbol.c: the session's device variables -------------------- */

/* name (a variable of cell, declared decl) now lives at addr (a device
 * address; a host address when sim), size bytes. Every reference that
 * later modules hold to name (gpu_symbol_ref) is pointed at it. */
void gpu_symbol_define(const char *name, const char *decl, int cell, unsigned long long addr,
                       size_t size, int sim);

/* A module's pointer to variable name (`__gpuc_ref_NAME`, at where: a device
 * address, or a host address when sim): set to the variable's address now
 * and whenever it is defined again. */
void gpu_symbol_ref(const char *name, unsigned long long where, int sim);

/* Forgets every variable and reference. */
void gpu_symbol_reset(void);

/* ---- gpu_timing.c ------------------------------------------------------ */

/* The kernel clock's hooks around a launch (gpu_timing.c); no-ops while
 * the clock is off. */
void gpu_kernel_clock_before(void *stream);
void gpu_kernel_clock_after(void *stream);

#endif
