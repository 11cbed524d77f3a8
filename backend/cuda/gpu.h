/* gpu: the CUDA backend of gpuc, as the runtime sees it.
 *
 * Everything NVIDIA ships is loaded with dlopen at FIRST USE (libcuda.so.1;
 * libnvrtc, libcudart, libcublas of CUDA 13, else 12), so gpuc builds and
 * runs host cells on machines without CUDA. A missing library is not an
 * error until something needs it; then the error (code GPU_E_NO_LIBRARY)
 * says what is missing and where it was looked for.
 *
 * Threads: call everything from the executor's main thread. Errors follow
 * cm_error_t: functions return 0 / -1 (or a count), details in err. Driver
 * errors keep the CUresult as err->code (1..999) and read
 * "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"; gpuc's own errors use the
 * GPU_E_* codes below.
 *
 * Kernel cells. gpu_compile_unit compiles a kernel cell's device code with
 * NVRTC for the selected device (sm_XY cubin; compute_XY PTX where NVRTC
 * does not know the architecture or there is no GPU: then the newest
 * architecture NVRTC supports, so compile errors are still found). The
 * cell layer reads the cell (its kernels, parameters, variables, names:
 * runtime/cell/rt_kscan.c) and chooses the EARLIER cells compiled in front
 * of it (the device prelude, runtime/cell/rt_kprelude.c, which says THE
 * RULE of replacing); this backend is given those parts and never reads
 * device source itself. Each cell's module holds its own copy of the
 * prelude's functions; __device__ / __constant__ VARIABLES have ONE
 * storage, in the defining cell's module, which later modules reach
 * through a pointer (gpu_symbol.c).
 *
 * Launches. The latest definition of each kernel name wins. Arguments are
 * checked against the parameters parsed from the kernel's source before the
 * driver is needed, so argument errors are reported on machines with no GPU
 * too. Parameters of unknown type (structs by value) accept any size: the
 * caller must pass exactly the kernel's layout.
 *
 * The files of backend/cuda/: thin bindings apart from policy (as CuPy's
 * cupy_backends driver wrappers apart from cupy/cuda). A binding loads one
 * library, holds its function pointers and has one check macro; it calls
 * no policy file (only gpu_dl), so the calls between files run one way:
 * policy -> bindings -> gpu_dl.
 *   bindings  gpu_dl       dlopen and dlsym, where NVIDIA's libraries are
 *             gpu_driver   libcuda.so.1, GPU_CU_CHECK
 *             gpu_nvrtc    libnvrtc, GPU_NVRTC_CHECK
 *             gpu_cudart   libcudart, GPU_CUDART_CHECK
 *             gpu_cublas   libcublas, GPU_CUBLAS_CHECK
 *             gpu_hostlibs cuBLAS, cuRAND, cuFFT, cuSPARSE for host cells:
 *                          loaded RTLD_GLOBAL when a cell names them
 *   policy    gpu_device   devices, selection, the primary context; tells
 *                          context changes to listeners
 *                          (gpu_device_on_context); the one-time note that
 *                          kernels run on the simulator
 *             gpu_compile  kernel compile units through NVRTC (and g++ on the
 *                          simulator), as the cell layer planned them
 *             gpu_include  the toolkit's headers as compile options (NVRTC's
 *                          and the simulator's): gpu_compile and gpu_module
 *                          both reach down to it, so neither calls the other
 *                          back
 *             gpu_cache    NVRTC images in the one compile cache
 *                          (common/cm_cache: memory and disk)
 *             gpu_module   the kernel registry, module loads, launches
 *             gpu_program  kernels gpuc writes itself (array math, reached
 *                          through the backend floor, backend/bk_cuda.c)
 *             gpu_blas     matrix multiply and dot through cuBLAS, a handle
 *                          per device
 *             gpu_timing   the clock, CUDA events, the kernel clock
 *             gpu_mem      device memory for arrays: allocate, copy, zero
 *             gpu_staging  large host copies through pinned double buffers
 *             gpu_error    what a failure costs, in words
 *             gpu_symbol   the session's device variables: one storage each
 *             gpu_func     kernels as values in host cells: handles,
 *                          attributes, occupancy
 *             gpu_sim      the simulator (backend/sim) as this backend: its
 *                          settings, its runtime API for host cells, whole
 *                          programs' kernels (registered with gpu_module)
 * Among the policy files the calls run one way too: gpu_compile ->
 * gpu_module <- gpu_sim, and all of them -> gpu_include, gpu_device.
 * gpu_internal.h is what the policy files share; backend/sim/ will hold the
 * simulator (backend/sim/README.md). */
#ifndef GPU_H
#define GPU_H

#include <stddef.h>

#include "cm_buf.h"
#include "cm_error.h"
#include "cm_gemm.h"
#include "cm_linalg.h"

/* err->code values of gpuc's own errors (driver errors keep their CUresult). */
enum {
    GPU_E_NO_LIBRARY = 10001, /* libcuda / NVRTC / libcudart / cuBLAS not found */
    GPU_E_NO_GPU = 10002,     /* no usable device: launches and context need one */
    GPU_E_COMPILE = 10003,    /* NVRTC rejected the cell: a CudaCompileError */
    GPU_E_NVRTC = 10004,      /* NVRTC failed otherwise (bad option, ...) */
    GPU_E_ARGS = 10005,       /* launch arguments do not match the kernel */
    GPU_E_NO_KERNEL = 10006,  /* unknown kernel name */
    GPU_E_INVALID = 10007,    /* bad call: no source, bad device number, ... */
    GPU_E_CACHE = 10008,      /* the compile cache could not be used (not fatal) */
};

/* ---- devices -------------------------------------------------------- */

#define GPU_MAX_DEVICES 16

typedef struct gpu_device_info {
    char name[256];
    int major, minor;          /* compute capability */
    int sm_count;
    size_t total_mem;          /* bytes */
} gpu_device_info_t;

typedef struct gpu_info {
    int driver_present;        /* libcuda.so.1 loaded and cuInit succeeded */
    int driver_version;        /* cuDriverGetVersion: 13000 = 13.0; 0 = unknown */
    int device_count;          /* usable devices (at most GPU_MAX_DEVICES listed) */
    int selected;              /* the device gpuc uses; -1 when none */
    gpu_device_info_t devices[GPU_MAX_DEVICES];
    int nvrtc_version;         /* 13000 = 13.0; 0 = NVRTC not found */
    int cudart_version;        /* cudaRuntimeGetVersion; 0 = not found */
    int cublas_present;        /* libcublas could be loaded */
    char driver_path[512], nvrtc_path[512], cudart_path[512]; /* "" when not loaded */
    char reason[CM_ERROR_TEXT]; /* why there is no GPU; "" when there is one */
} gpu_info_t;

/* Loads what it can (driver, NVRTC, cudart, cuBLAS) and fills info WITHOUT
 * creating a context. Returns the number of usable devices, 0 when none
 * (info->reason says why). Never fails hard; info may not be NULL. */
int gpu_probe(gpu_info_t *info);

/* Selects device (an ordinal from gpu_probe) for later compiles, loads and
 * launches, and tells libcudart (cudaSetDevice) when it is loaded; kernel
 * cells compiled before are loaded on it. -1 with err (GPU_E_NO_GPU or
 * GPU_E_INVALID) on failure. Device 0 is selected by default. */
int gpu_select(int device, cm_error_t *err);

/* The number of usable GPUs, cheaply (gpu_probe's count without the
 * devices' names and attributes); 0 when none. */
int gpu_device_count(void);

/* The selected device's ordinal (no context made), or -1 when there is no
 * usable GPU. */
int gpu_selected(void);

/* The same for device (any GPU, selected or not): its primary context,
 * retained at the first use and kept for the process, made current. -1
 * with err (GPU_E_INVALID for no such device). Every operation on an
 * array runs in its own device's context through this (issue 27). */
int gpu_context_use(int device, cm_error_t *err);

/* Makes the selected device's context current again after work on device
 * (host cells' runtime API calls use the current context): asks the
 * driver which is current, so that one left by an interrupted operation
 * is put right too (the selected device's context is retained if work on
 * another GPU came first). Nothing while the CPU is selected. */
void gpu_context_back(int device);

/* The primary context of device if it was retained (a CUcontext), else
 * NULL. Borrowed. */
/* Properties of device in the fields tutorials use, filled from driver
 * attributes. Host cells reach it as cudaGetDeviceProperties (see
 * rt_cuda_header). GPU_DEVICE_PROPS is the layout, X(type, name, array
 * dimensions), shared with the host header so the two cannot drift.
 * Returns 0 (cudaSuccess), or 100 (cudaErrorNoDevice) / 101
 * (cudaErrorInvalidDevice), as the runtime API would. */
#define GPU_DEVICE_PROPS(X)                                                                    \
    X(char, name, [256]) X(size_t, totalGlobalMem, ) X(size_t, sharedMemPerBlock, )            \
    X(int, regsPerBlock, ) X(int, warpSize, ) X(size_t, memPitch, )                            \
    X(int, maxThreadsPerBlock, ) X(int, maxThreadsDim, [3]) X(int, maxGridSize, [3])           \
    X(int, clockRate, ) X(size_t, totalConstMem, ) X(int, major, ) X(int, minor, )             \
    X(int, multiProcessorCount, ) X(int, integrated, ) X(int, concurrentKernels, )             \
    X(int, pciBusID, ) X(int, pciDeviceID, ) X(int, asyncEngineCount, )                        \
    X(int, unifiedAddressing, ) X(int, memoryClockRate, ) X(int, memoryBusWidth, )             \
    X(int, l2CacheSize, ) X(int, maxThreadsPerMultiProcessor, )                                \
    X(size_t, sharedMemPerMultiprocessor, ) X(int, managedMemory, )
#define GPU_PROP_FIELD(type, name, dims) type name dims;
typedef struct gpu_device_props { GPU_DEVICE_PROPS(GPU_PROP_FIELD) } gpu_device_props_t;
int gpu_device_properties(gpu_device_props_t *props, int device);

/* ---- kernel cells ---------------------------------------------------- */

typedef enum gpu_param_kind {
    GPU_PARAM_POINTER = 'p',   /* any '*' or '[]': 8 bytes */
    GPU_PARAM_SCALAR = 's',    /* a known scalar type; size is its width */
    GPU_PARAM_BYVALUE = 'v',   /* unknown type (a struct): size unknown (0) */
} gpu_param_kind_t;

typedef struct gpu_param {
    char kind;                 /* gpu_param_kind_t */
    size_t size;               /* bytes; 0 for GPU_PARAM_BYVALUE */
    char decl[128];            /* as written, normalised: "float *x", "int n" */
} gpu_param_t;

typedef struct gpu_kernel_info {
    char name[128];            /* as in the source: "saxpy" */
    char lowered[256];         /* mangled name in the module: "_Z5saxpyifPfS_" */
    int line;                  /* line of __global__ in the cell (1-based) */
    int nparams;
    gpu_param_t *params;       /* nparams entries, owned by the gpu_cell_t */
} gpu_kernel_info_t;

/* A top-level __device__ / __constant__ / __managed__ variable of a cell. */
typedef struct gpu_var_info {
    char name[128];
    char decl[256];            /* its declaration without storage words or
                                  initializer: "float coef[4]" */
    int constant;              /* 1 for __constant__ */
    int line;
    size_t init_from, init_to; /* byte range of "= ..." in the source; 0, 0 when none */
} gpu_var_info_t;

typedef struct gpu_diag {
    int cell;                  /* execution count the message refers to */
    int line;                  /* line in that cell, 1-based; 0 = none */
    int column;                /* 1-based, from NVRTC's caret; 0 = unknown */
    char severity[24];         /* "error", "warning", "catastrophic error", ... */
    char *message;             /* "identifier \"y\" is undefined" */
    char *source_line;         /* the line as NVRTC quoted it; NULL if none */
} gpu_diag_t;

typedef struct gpu_cell {
    int cell;
    int ok;                    /* 1 compiled; 0 NVRTC rejected it (see diags/log) */
    int nkernels;
    gpu_kernel_info_t *kernels;
    int nvars;
    gpu_var_info_t *vars;      /* its device variables (one storage each for the session) */
    char arch[32];             /* "sm_90" (cubin) or "compute_121" (PTX) */
    int cubin;                 /* 1 cubin, 0 PTX */
    size_t image_size;         /* bytes of cubin / PTX */
    double setup_ms;           /* loading NVRTC and starting the driver (first use) */
    double compile_ms;         /* NVRTC or cache lookup; excludes set-up and module load */
    double load_ms;            /* cuModuleLoadData + cuModuleGetFunction; 0 if not loaded */
    const char *cache;         /* "miss", "memory hit", "disk hit" (static) */
    int loaded;                /* 1 when the module is loaded on a GPU */
    int simulated;             /* 1 when also compiled for the simulator (gpu_simulating) */
    char *log;                 /* the whole NVRTC log with "cell N, line L: " locations;
                                  NULL when NVRTC said nothing */
    int ndiags;
    gpu_diag_t *diags;         /* every message, in order, for a CudaCompileError
                                  traceback (source line + caret at column) */
} gpu_cell_t;

/* One part of a kernel compile's source, in the order compiled: an earlier
 * cell of the device prelude, or the cell compiled. The cell layer chose
 * the parts and scanned their variables (runtime/cell/rt_kprelude.c). */
typedef struct gpu_part {
    int cell;                  /* the execution count its text comes from */
    const char *text;          /* its device code, lines as the user sees them */
    int earlier;               /* 1: an earlier cell's (its variables are
                                  references to their one storage) */
    const gpu_var_info_t *vars; /* the variables text defines */
    int nvars;
} gpu_part_t;

/* A kernel compile, as the cell layer planned it: the parts, and what the
 * compiled cell defines, all already read from its text. */
typedef struct gpu_unit {
    int cell;                  /* the execution count, used in messages */
    const char *options;       /* the magic line's options, may be NULL */
    const gpu_part_t *parts;   /* the source, the compiled cell among them */
    int nparts;
    const gpu_kernel_info_t *kernels; /* the kernels to register (copied) */
    int nkernels;
    const gpu_var_info_t *vars; /* the cell's own variables (copied) */
    int nvars;
    const char *const *names;  /* the top-level names the cell defines: */
    int nnames;                /* instances of templates so named are dropped */
} gpu_unit_t;

/* Compiles one kernel compile unit (a kernel cell, or a template
 * instance: its one kernel named "scale<float>", no variables, no names).
 * options: the magic line's options ("-O3 --use_fast_math -lineinfo
 * --maxrregcount=32 -DN=4 -I/x"); -O0..-O3 become -Xptxas=-ON (NVRTC does
 * not take -O); --std=c++17 is added unless --std is given. On success
 * returns 0 and *out (caller owns, gpu_cell_free); registers the unit's
 * kernels (loading the module when a GPU is present) and its variables'
 * one storage. On a compile error returns -1, err->code GPU_E_COMPILE,
 * err->text the FIRST error ("cell 5, line 3: error: identifier \"y\" is
 * undefined"), and *out set to a gpu_cell_t with ok = 0 and the mapped log
 * and diags (caller frees it). On any other failure returns -1 with err set
 * and *out NULL. The device prelude (which earlier cells go in front) is
 * the cell layer's: rt_kprelude_compile. */
int gpu_compile_unit(const gpu_unit_t *unit, gpu_cell_t **out, cm_error_t *err);

/* Frees an array of n kernel records and their parameters (NULL is fine). */
void gpu_kernels_free(gpu_kernel_info_t *kernels, int n);

/* Frees a gpu_cell_t (NULL is fine). */
void gpu_cell_free(gpu_cell_t *cell);

/* Forgets the memory side of the compile cache (common/cm_cache: every
 * compiler's; the disk stays), as a fresh process would see it. For tests
 * and %reset. */
void gpu_cache_reset_memory(void);

/* Waits until the compile cache's entries this process has queued for the
 * disk are written (a compile does not wait for them); also done before
 * the cache reads the disk and at exit. The kernel-cell magic calls it at
 * the end of a cell, so a process killed after the reply loses none. */
void gpu_cache_flush(void);

/* Forgets every kernel, module and device variable (%reset; the cell
 * layer's rt_kprelude_reset forgets the prelude and calls this). */
void gpu_reset_kernels(void);

/* The device variable name of the kernel cells (the latest definition):
 * 0 with its address (a device address; host memory on the simulator) and
 * size in bytes; -1 when no kernel cell defines it. The address stays the
 * same until a cell defines name again. */
int gpu_symbol_lookup(const char *name, void **addr, size_t *size);

/* ---- launches -------------------------------------------------------- */

/* The parameters of kernel name (the latest definition). Returns nparams
 * and *params (borrowed, valid until the kernel is redefined), or -1 when
 * unknown. Lets the runtime convert arguments before gpu_launch. */
int gpu_kernel_params(const char *name, const gpu_param_t **params);

/* Launches kernel name. arg_ptrs[i] points at argument i's value,
 * arg_sizes[i] is its size, arg_kinds[i] is 's' (a number), 'v' (a CUDA
 * vector type or __half) or 'p' (a pointer, or a struct: C cannot tell them
 * apart); arg_types[i] names its type for messages ("float4"), NULL when
 * unknown (arg_types may be NULL). cell/line: where the launch is written,
 * for messages and for gpu_last_launch. stream: a CUstream / cudaStream_t,
 * NULL = default. Checks, in order and without the driver: the name
 * (GPU_E_NO_KERNEL, listing the known kernels), the argument count, pointer
 * versus value and the size of each value (GPU_E_ARGS, e.g. "cell 4, line 2:
 * saxpy expects 4 arguments (int n, float a, float *x, float *y), got 3");
 * a by-value struct's size once the device compiler's module is there (the
 * simulator's g++ or the driver's cuFuncGetParamInfo); then that there is a
 * GPU (GPU_E_NO_GPU); then cuLaunchKernel, whose error names the kernel and
 * the cell line. The launch is asynchronous: errors of the kernel's execution
 * surface at the next synchronisation (gpu_synchronize). 0 / -1. */
int gpu_launch(const char *name, const unsigned grid[3], const unsigned block[3],
               unsigned shared_bytes, void *stream, int nargs, void *const *arg_ptrs,
               const size_t *arg_sizes, const char *arg_kinds, const char *const *arg_types,
               int cell, int line, cm_error_t *err);

/* Launches kernel name with cuLaunchKernel's kernelParams args (args[i]
 * points at argument i, in the kernel's own types: nothing is checked or
 * converted), as cudaLaunchKernel does; cooperative: with
 * cuLaunchCooperativeKernel (on the simulator, as any launch). Errors as
 * gpu_launch's. 0 / -1. */
int gpu_launch_params(const char *name, const unsigned grid[3], const unsigned block[3],
                      unsigned shared_bytes, void *stream, void **args, int cooperative,
                      int cell, int line, cm_error_t *err);

/* ---- kernels as values in host cells (gpu_func.c) --------------------- */

/* The handle of kernel name for host cells: a stable address (the same for
 * the name for the whole process, whichever cell defines it last) that
 * the runtime functions taking a kernel accept (const void *func). Static;
 * NULL on out of memory. */
const void *gpu_kernel_handle(const char *name);

/* The kernel name of handle h (borrowed), or NULL when h is none. */
const char *gpu_kernel_of_handle(const void *h);

/* addr (a whole program's own kernel function on the simulator) stands
 * for kernel name too, for gpu_kernel_of_handle. */
void gpu_kernel_alias(const void *addr, const char *name);

/* err's code (of a gpu_ function) as the cudaError_t the runtime would
 * return: the driver's CUresults and the simulator's errors keep their
 * numbers; an unknown kernel or a bad template instance is 98
 * (cudaErrorInvalidDeviceFunction), no
 * GPU 100, no driver 35, anything else 999. */
int gpu_cuda_error_code(const cm_error_t *err);

/* What cudaFuncGetAttributes reports, in the order of the fields that
 * struct cudaFuncAttributes has had since CUDA 11. */
typedef struct gpu_func_attrs {
    size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
    int maxDynamicSharedSizeBytes, preferredShmemCarveout;
} gpu_func_attrs_t;

/* The runtime functions that take a kernel, on the kernel's CUfunction
 * (the driver's cuFuncGetAttribute & co.) or the simulated device. Each
 * returns a cudaError_t value: 0; 98 (cudaErrorInvalidDeviceFunction) for
 * an unknown name; the driver's error (numbered as the runtime numbers
 * it); why in err. */
int gpu_func_attributes(const char *name, gpu_func_attrs_t *a, cm_error_t *err);
int gpu_func_set_attribute(const char *name, int attr, int value, cm_error_t *err);
int gpu_func_set_cache_config(const char *name, int config, cm_error_t *err);
int gpu_occupancy_blocks(const char *name, int block_size, size_t shared, int *blocks,
                         cm_error_t *err);
int gpu_occupancy_block_size(const char *name, size_t shared, int block_limit, int *min_grid,
                             int *block_size, cm_error_t *err);

/* The last launch that reached the driver: 1 and its kernel name (borrowed,
 * until the next launch), cell and line; 0 when there was none. */
int gpu_last_launch(const char **name, int *cell, int *line);

/* cuCtxSynchronize on the current context. An error names the last launch
 * ("CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was
 * encountered (in saxpy, launched at cell 4, line 2)"); a sticky error adds
 * gpu_sticky_message. 0 when there is nothing to wait for. */
int gpu_synchronize(cm_error_t *err);

/* Non-zero when GPU work is still running on the default stream (without
 * waiting for it); *name, *cell, *line then tell the last launch (any may
 * be NULL). 0 when idle, or when there is no context. */
int gpu_busy(const char **name, int *cell, int *line);

/* 1 when a CUresult / cudaError_t leaves the context unusable for the rest
 * of the process (700 illegal address, 714 hardware stack error, 715 illegal
 * instruction, 716 misaligned address, 717 invalid address space, 718
 * invalid PC, 719 launch failed, 214 ECC uncorrectable, ...). */
int gpu_error_is_sticky(int cu_result);

/* Writes what a sticky error cost into buf: the context is lost, the device
 * allocations gpuc knows about (gpu_track_alloc) are gone, and every later
 * CUDA call in this process fails, so the executor must restart. */
void gpu_sticky_message(int cu_result, char *buf, size_t len);

/* gpuc's own record of live device allocations, listed by
 * gpu_sticky_message. cudaMalloc calls from host cells go straight to
 * libcudart and are NOT seen (no interposition); the runtime's device arrays
 * call these. what is copied ("x: float32[1048576]"). */
void gpu_track_alloc(const void *device_ptr, size_t bytes, const char *what);
void gpu_track_free(const void *device_ptr);

/* Records an out-of-memory error: "GPU out of memory: asked for 4.00 GiB
 * (4294967296 bytes), 1.20 GiB free of 79.10 GiB; nothing else was lost"
 * (free/total from cuMemGetInfo when a context exists). what may be NULL. */
void gpu_error_oom(cm_error_t *err, size_t bytes_asked, const char *what);

/* ---- library kernels (gpu_program.c) -------------------------------- */

/* Kernels gpuc writes itself (array math, random numbers), as opposed to
 * kernel cells: a standalone CUDA C++ source (no device prelude, not in
 * the launch registry) compiled by NVRTC once for the selected device's
 * architecture, cached like kernel cells (in memory and on disk), and
 * loaded on each device at its first use there (a module per device).
 * Kernels are extern "C" so that their names are as written. */
typedef struct gpu_program gpu_program_t;

/* The program for source and options ("-DBLOCK=256"; NULL for none),
 * compiling and loading it on first use. Borrowed: programs live for the
 * process (the same source and options give the same program). NULL with
 * err: GPU_E_COMPILE (err->text "cell 0, line L: error: ..." - the first
 * NVRTC error, the line in source), GPU_E_NO_GPU, GPU_E_NO_LIBRARY. */
gpu_program_t *gpu_program_get(const char *source, const char *options, cm_error_t *err);

/* The kernel name of p on GPU device (a CUfunction, as void *), loading
 * the module there if needed (device's context is left current). NULL
 * with err when p has no such kernel. */
void *gpu_program_kernel(gpu_program_t *p, int device, const char *name, cm_error_t *err);

/* Launches kernel (from gpu_program_kernel for device) on device's
 * default stream with cuLaunchKernel's kernelParams args; what names it in
 * a later error message (e.g. "ga_map (a - b) * (a - b)"; copied). Counted
 * by the kernel clock like a kernel cell's launch. Returns at once (the
 * work is queued: GPUs work at the same time). 0 / -1 with err. */
int gpu_program_launch(int device, void *kernel, const unsigned grid[3], const unsigned block[3],
                       unsigned shared_bytes, void **args, const char *what, cm_error_t *err);

/* 1 when library kernels for GPU device may include CCCL's CUB agents
 * (<cub/agent/...>): NVRTC finds the toolkit's include/cccl and the GPU
 * is compute capability 7.0 or newer (their warp matching); else 0.
 * Asked once per device. */
int gpu_program_cccl(int device);

/* The number of multiprocessors of GPU device (for grid sizes), 0 when
 * there is no such GPU. */
int gpu_program_sm_count(int device);

/* ---- device memory (gpu_mem.c) ---------------------------------------- */

/* Memory of GPU device, for device arrays (their pool is the backend
 * floor's, backend/bk_pool.c; these are the raw calls). Device addresses are
 * passed as void *. Each makes device's primary context current first
 * (gpu_context_use; the caller makes the selected one current again), so
 * it fails with GPU_E_NO_GPU (or GPU_E_NO_LIBRARY) where there is none and
 * GPU_E_INVALID for no such device. Out of memory is the driver's
 * CUDA_ERROR_OUT_OF_MEMORY (code 2). */
int gpu_mem_alloc(int device, size_t bytes, void **ptr, cm_error_t *err);
void gpu_mem_free(int device, void *ptr);
int gpu_mem_zero(int device, void *dst, size_t bytes, cm_error_t *err);
int gpu_mem_to_device(int device, void *dst, const void *host, size_t bytes, cm_error_t *err);
int gpu_mem_to_host(int device, void *host, const void *src, size_t bytes, cm_error_t *err);
int gpu_mem_copy(int device, void *dst, const void *src, size_t bytes, cm_error_t *err);
/* Free and total bytes of GPU device. */
int gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, cm_error_t *err);

/* Pinned host memory of bytes that device's kernels read and write
 * through the bus: *host for the host, *dev for kernels (the floor's
 * flags, bk_flag). Kept for the process. */
int gpu_mem_mapped(int device, size_t bytes, void **host, void **dev, cm_error_t *err);
/* Waits for the work queued on device's default stream (gpuc's own: array
 * kernels and copies); a kernel's failure is the error. */
int gpu_mem_wait(int device, cm_error_t *err);

/* 1 when GPUs a and b reach each other's memory directly (NVLink, PCIe
 * peer to peer: cuDeviceCanAccessPeer both ways); 0 when copies between
 * them are staged. Makes no context (gpu_mem_peer enables the access at
 * the first copy between them). */
int gpu_mem_peer_link(int a, int b);

/* Copies bytes from src on GPU src_device to dst on GPU dst_device with
 * cuMemcpyPeer (direct where gpu_mem_peer_link says so, peer access
 * enabled both ways at the first copy; else the driver stages it), after
 * both devices' queued work. 0, -1 with err, 1
 * when the driver has no cuMemcpyPeer (copy through the host). */
int gpu_mem_peer(int dst_device, void *dst, int src_device, const void *src, size_t bytes,
                 cm_error_t *err);

/* Marks: what the array pool knows of work on the user's streams. A mark
 * is an event recorded on a stream after work that uses some memory, so
 * that the memory is handed out again only once that work is done.
 * gpu_mem_mark records on stream into mark (a new one when mark is NULL)
 * and returns it; where no event can be recorded it waits for the stream
 * instead (nothing is then pending). gpu_mem_mark_pending: 1 while
 * the work before the mark runs. gpu_mem_mark_drop waits for the mark and
 * destroys it. */
void *gpu_mem_mark(void *stream, void *mark);
int gpu_mem_mark_pending(void *mark);
void gpu_mem_mark_drop(void *mark);

/* ---- timing (gpu_timing.c) ------------------------------------------- */

/* GPU time of the work queued on the default stream between two CUDA
 * events, for the timing magics. */
typedef struct gpu_timer gpu_timer_t;

/* A new timer on the current context, or NULL when there is none yet (no
 * GPU work ran in this process) or the driver has no events: then there is
 * nothing to time. NEVER creates a context or loads the driver. Free with
 * gpu_timer_free. */
gpu_timer_t *gpu_timer_new(void);

/* The kernel clock: while on, every gpu_launch is bracketed by a pair of
 * events on its stream, so the time its kernels ran can be summed apart
 * from copies and host work (%%speedup's "GPU kernels"). Start returns -1
 * (clock off) when there is no context or no event support; stop waits
 * for the last kernel and gives the sum in *seconds (0 / -1 when off). */
int gpu_kernel_clock_start(void);
int gpu_kernel_clock_stop(double *seconds);

/* Records the start event on the default stream. 0 / -1 with err. */
int gpu_timer_start(gpu_timer_t *t, cm_error_t *err);

/* Records the stop event and WAITS for it, so that everything queued before
 * it has finished (a launch-only loop is never reported as kernel time);
 * *seconds gets the GPU time between the two events. 0 / -1 with err (the
 * failure of a kernel queued before surfaces here). */
int gpu_timer_stop(gpu_timer_t *t, double *seconds, cm_error_t *err);

void gpu_timer_free(gpu_timer_t *t);

/* ---- the simulator (backend/sim, docs/simulator.md) --------------------- */

/* Where no GPU is found, or after gpu_select(GPU_DEVICE_CPU) (%device
 * cpu), kernel cells are compiled by g++ for the CUDA simulator as well
 * (NVRTC still checks them where it exists), launches run there,
 * synchronously, and host cells get the runtime API (cudaMalloc ...) from
 * the simulator instead of libcudart. The first kernel cell compiled for
 * the simulator prints a one-time note on stderr. */
#define GPU_DEVICE_CPU (-1)   /* gpu_select's number for the CPU (the simulator) */

/* 1 when kernels run on the simulator, 0 when on a GPU. */
int gpu_simulating(void);

/* A whole program compiled for the simulator into the session's process
 * (one g++ unit with the simulator's prelude, runtime/magics/rt_program.c).
 * gpu_sim_program_bind gives the loaded object the simulator's hooks (its
 * __gpuc_bind); gpu_sim_program_kernel registers one of its kernels
 * (entry: its __gpuc_call instance; shared: the object's __shared__
 * section; built_in: the cell its lines name, "cell[N]", which a program
 * run again from the same object keeps) under name for gpu_launch_params, replacing a kernel of that
 * name. The kernels run unchecked (memcheck needs a kernel cell's source).
 * 0, or -1 with err. */
void gpu_sim_program_bind(void (*bind)(const void *hooks));
/* The simulator's CUDA prelude for g++ (static text), and the rewrite of
 * a source's lines that it needs (CUDA's includes blanked, `extern
 * __shared__` arrays as the launch's dynamic shared memory), appended to
 * out. */
const char *gpu_sim_prelude(void);
void gpu_sim_rewrite(const char *src, cm_buf_t *out);
int gpu_sim_program_kernel(int cell, int built_in, const char *name, void (*entry)(void **),
                           char *shared, size_t shared_bytes, cm_error_t *err);


/* The order simulated warps and blocks run in: seed < 0 the index order
 * (the default), else shuffled reproducibly by seed (%sim --seed N). */
void gpu_sim_set_seed(long long seed);
long long gpu_sim_seed(void);

/* The worker threads that run a simulated launch's blocks (%sim --threads
 * N): n >= 1, or 0 for the default (the CPUs, at most 64). gpu_sim_threads:
 * the number in force; *is_default 1 when it is the default. */
void gpu_sim_set_threads(int n);
int gpu_sim_threads(int *is_default);

/* Memory and race checking of later simulated launches (%sim --memcheck,
 * --racecheck; docs/simulator.md): memcheck on, racecheck off by default. */
void gpu_sim_set_checks(int memcheck, int racecheck);
void gpu_sim_checks(int *memcheck, int *racecheck);


/* 1 when a kernel running on the simulator was stopped before its end by
 * a fault in it or an interrupt (the protected boundary jumped out of
 * it): buf gets which, where it was launched, the line of ip (the address
 * it stopped at; may be NULL) and the thread ("the simulated kernel oob
 * (launched at cell 9, line 1) stopped at cell 8, line 3, in block
 * [0,0,0], thread [2,0,0]"); forgotten after the call. 0 otherwise. */
int gpu_stopped_kernel(const void *ip, char *buf, size_t len);

/* A function host cells link to by name. */
typedef struct gpu_symbol {
    const char *name;
    const void *addr;
} gpu_symbol_t;

/* The runtime API functions that gpuc serves itself while simulating (a
 * table ending with {NULL, NULL}, static), or NULL when libcudart serves
 * them. Give them to each host cell's TCC state. */
const gpu_symbol_t *gpu_runtime_symbols(void);

/* The function that serves runtime API function name for host cells now:
 * the simulator's while simulating, else libcudart's; NULL when neither. */
void *gpu_runtime_function(const char *name);
/* ---- matrix multiply (gpu_blas.c, cuBLAS) ------------------------------ */

/* Element types of gpu_gemm_t and gpu_blas_dot (cudaDataType's values). */
enum { GPU_BLAS_F32 = CM_GEMM_F32, GPU_BLAS_F64 = CM_GEMM_F64, GPU_BLAS_F16 = CM_GEMM_F16 };

/* A product in cuBLAS's column-major terms (common/cm_gemm.h). Compute
 * types as CuPy's defaults: float32 in 32F (32F_FAST_TF32 when tf32 is
 * set), float64 in 64F, float16 in 32F (float alpha and beta). */
typedef cm_gemm_t gpu_gemm_t;

/* Queues g on GPU device's default stream with its cuBLAS handle (made
 * at first use, on its primary context, which is left current). 0 / -1
 * with err: GPU_E_NO_LIBRARY (no cuBLAS), GPU_E_NO_GPU, or cuBLAS's
 * status. */
int gpu_blas_gemm(int device, const gpu_gemm_t *g, cm_error_t *err);

/* The dot product of n elements of type (GPU_BLAS_*) at x and y with
 * increments incx, incy (> 0), accumulated in float (float16, float32) or
 * double, into host memory result, one element of type (as cuBLAS gives
 * it: a float16 dot is a float16). Waits for it. 0 / -1 with err. */
int gpu_blas_dot(int device, int type, int n, const void *x, int incx, const void *y, int incy,
                 void *result, cm_error_t *err);

/* ---- FFT and LAPACK (gpu_cufft.c, gpu_cusolver.c) ---------------------- */

/* One batched FFT (common/cm_linalg.h) queued on GPU device's default stream with
 * cuFFT (libcufft.so.12, else .11), its plan kept by shape for the
 * next call. 0 / -1 with err: GPU_E_NO_LIBRARY, or cuFFT's result. */
int gpu_fft_run(int device, const cm_fft_t *f, cm_error_t *err);

/* One LAPACK step (common/cm_linalg.h) on GPU device with cuSOLVER (libcusolver.so.12,
 * else .11) on the default stream — batches of matrices up to 256 in one
 * batched call (LU by cuBLAS, Cholesky by cuSOLVER), others a call per
 * matrix — its workspace kept for the next; WAITS, to copy info back to l->info (host). 0 / -1 with
 * err: GPU_E_NO_LIBRARY, or cuSOLVER's status. */
int gpu_lapack_run(int device, const cm_lapack_t *l, cm_error_t *err);

/* ---- all-reduce across GPUs (gpu_nccl.c, NCCL) ------------------------ */

/* Reduces count elements of NCCL data type `type` (ncclDataType_t's
 * numbers) with NCCL reduction op (ncclRedOp_t's: 0 sum, 2 max, 3 min) in
 * place in bufs[i] on GPU devices[i], i < n, through NCCL: queued on each
 * device's default stream, not waited for; the selected device's context
 * is current again afterwards. 0; -1 with err (NCCL's failure); 1 when
 * NCCL is not there (libnccl.so.2 not found, GPUC_NCCL=0): reduce some
 * other way. */
int gpu_nccl_allreduce(int n, const int *devices, void *const *bufs, size_t count, int type,
                       int op, cm_error_t *err);

/* The NCCL library file loaded (loading it if needed), or NULL. Static. */
const char *gpu_nccl_library(void);

/* ---- the runtime API for host cells ---------------------------------- */

/* dlopens libcudart (13, else 12) RTLD_GLOBAL so that host cells compiled
 * later resolve cuda* functions by name. MUST BE CALLED before compiling a
 * host cell that uses the runtime API. 0 / -1 (GPU_E_NO_LIBRARY). */
int gpu_runtime_load(cm_error_t *err);

/* The handle of libcudart for dlsym (loading it if needed), or NULL when
 * it cannot be loaded. Borrowed. */
void *gpu_runtime_handle(void);

/* The CUDART_VERSION of libcudart (loading it, as gpu_runtime_handle),
 * with the file it was loaded from in path (dladdr, else the name it was
 * opened by); 0 with path "" when it cannot be loaded. The host cells'
 * declarations of it are the cell layer's (runtime/cell/rt_cuda_header.c). */
int gpu_runtime_library(char *path, size_t path_len);

/* ---- CUDA's libraries in host cells (gpu_hostlibs.c) ------------------ */

/* cuBLAS, cuRAND, cuFFT and cuSPARSE, numbered: bit GPU_HOSTLIB_* of a
 * mask. Which a host cell names is the cell layer's to read
 * (runtime/cell/rt_libnames.h); this file loads them. */
enum { GPU_HOSTLIB_CUBLAS, GPU_HOSTLIB_CURAND, GPU_HOSTLIB_CUFFT, GPU_HOSTLIB_CUSPARSE };

/* Loads (once, RTLD_GLOBAL) each library of the mask named, so that host
 * cells compiled after it link to the library's functions by name. MUST
 * BE CALLED before compiling such a cell. Returns the mask of those named
 * that are loaded; *fresh (may be NULL) gets those loaded by this call. A
 * library that cannot be loaded is left out, and gpu_hostlib_missing says
 * why. */
unsigned gpu_hostlibs_load(unsigned named, unsigned *fresh);

/* "cuBLAS", "cuRAND", "cuFFT", "cuSPARSE" for bit i; NULL past them. */
const char *gpu_hostlib_name(int i);

/* Why library i could not be loaded ("cuFFT not found: host cells cannot
 * call cufft* (looked for libcufft.so.12, ... in the loader's path,
 * /usr/local/cuda/lib64)"), or NULL when it was not tried or is loaded.
 * Static. */
const char *gpu_hostlib_missing(int i);

/* CUDA's vector types as vector_types.h lays them out: X(name, element
 * type, count, alignment). nvcc aligns float2 to 8 and float4 to 16, which
 * a plain C struct of the same members is not; the host header and the
 * launch checks take them from this one list. */
#define GPU_VECTOR_TYPES(X)                                                                    \
    X(char1, signed char, 1, 1) X(char2, signed char, 2, 2) X(char3, signed char, 3, 1)        \
    X(char4, signed char, 4, 4) X(uchar1, unsigned char, 1, 1) X(uchar2, unsigned char, 2, 2)  \
    X(uchar3, unsigned char, 3, 1) X(uchar4, unsigned char, 4, 4) X(short1, short, 1, 2)       \
    X(short2, short, 2, 4) X(short3, short, 3, 2) X(short4, short, 4, 8)                       \
    X(ushort1, unsigned short, 1, 2) X(ushort2, unsigned short, 2, 4)                          \
    X(ushort3, unsigned short, 3, 2) X(ushort4, unsigned short, 4, 8) X(int1, int, 1, 4)       \
    X(int2, int, 2, 8) X(int3, int, 3, 4) X(int4, int, 4, 16) X(uint1, unsigned int, 1, 4)     \
    X(uint2, unsigned int, 2, 8) X(uint3, unsigned int, 3, 4) X(uint4, unsigned int, 4, 16)    \
    X(long1, long, 1, 8) X(long2, long, 2, 16) X(long3, long, 3, 8) X(long4, long, 4, 16)      \
    X(ulong1, unsigned long, 1, 8) X(ulong2, unsigned long, 2, 16)                             \
    X(ulong3, unsigned long, 3, 8) X(ulong4, unsigned long, 4, 16)                             \
    X(longlong1, long long, 1, 8) X(longlong2, long long, 2, 16)                               \
    X(longlong3, long long, 3, 8) X(longlong4, long long, 4, 16)                               \
    X(ulonglong1, unsigned long long, 1, 8) X(ulonglong2, unsigned long long, 2, 16)           \
    X(ulonglong3, unsigned long long, 3, 8) X(ulonglong4, unsigned long long, 4, 16)           \
    X(float1, float, 1, 4) X(float2, float, 2, 8) X(float3, float, 3, 4) X(float4, float, 4, 16) \
    X(double1, double, 1, 8) X(double2, double, 2, 16) X(double3, double, 3, 8)                \
    X(double4, double, 4, 16)

/* The 2-byte floating types of cuda_fp16.h / cuda_bf16.h, and their pairs:
 * X(name, alignment). */
#define GPU_HALF_TYPES(X) X(__half, 2) X(__half2, 4) X(__nv_bfloat16, 2) X(__nv_bfloat162, 4)

#endif
