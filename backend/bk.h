/* bk: the backend floor — one interface over the GPU (CUDA), the CUDA
 * simulator and the CPU, below the array library and the session.
 *
 * A device is a handle, bk_device_t: a backend (BK_CPU, BK_CUDA, BK_SIM)
 * and an ordinal, packed in an int so that it is the number users already
 * write: the CPU is -1 (GA_CPU), CUDA device n is n, simulated device n is
 * BK_SIM_FIRST + n. Code above the floor never asks which backend a device
 * is; it asks the device what it can do (bk_device_info: is its memory
 * host memory, which language its kernels are written in, whether its BLAS
 * has float16) and calls the floor, which answers through the device's
 * backend table (bk_internal.h). A new backend or a second GPU is a table
 * or an ordinal, not an `if` above the floor (as ArrayFire's one API over
 * src/backend/{cpu,cuda,opencl}; CuPy's pool and compile cache as policy
 * apart from the array).
 *
 * What is here, file by file:
 *   bk_device  handles, the device list, where new arrays go, where kernel
 *              cells run, properties; the backend tables' dispatch
 *   bk_pool    memory: the caching pool (one per device), raw copies,
 *              the user's streams (events) a buffer waits for
 *   bk_kernel  array kernels: compile (through the one compile cache,
 *              common/cm_cache) and launch
 *              and BLAS (gemm, dot), FFT and LAPACK steps (bk_fft, bk_lapack)
 *   bk_cuda, bk_sim, bk_cpu   the three backend tables, over backend/cuda
 *              (gpu_*), backend/sim (sim_*) and backend/cpu (cpu_*)
 *   bk_time    timers (events), the kernel clock, waits of a device
 *   bk_flag    a word per device that kernels set and the host reads
 *              (an index out of range) with one wait and no copy
 *   bk_profile %%profile's recording; the backends' profilers in
 *              bk_profile_sim.c (the simulator's counts) and
 *              bk_profile_cuda.c (CUPTI), behind bk_profile_internal.h
 * Several devices at once (issue 27): each call runs on the device its
 * handle names, whatever %device selects (the CUDA table makes that GPU's
 * context current and the selected one current again); the simulator
 * presents N devices (bk_sim_device_count) so that every path runs where
 * there is no GPU; bk_mem_peer, bk_peer_link and bk_allreduce work between
 * devices.
 * Kernel cells (compiling, loading, launching them, the runtime API of
 * host cells) are still backend/cuda/gpu.h's, which serves the simulator
 * too.
 *
 * Errors are cm_error_t; BK_E_MEMORY and BK_E_DEVICE have the numbers of
 * the array library's GA_E_MEMORY and GA_E_DEVICE. Call from the
 * executor's main thread. */
#ifndef BK_H
#define BK_H

#include <stddef.h>

#include "cm_error.h"
#include "cm_gemm.h"
#include "cm_linalg.h"

enum {
    BK_E_DEVICE = 20004, /* no such device, no GPU, no library (= GA_E_DEVICE) */
    BK_E_MEMORY = 20005, /* out of memory, in words (= GA_E_MEMORY) */
    BK_E_KERNEL = 20008, /* a generated kernel did not compile (= GA_E_KERNEL) */
};

/* ---- devices ------------------------------------------------------------- */

typedef int bk_device_t;

typedef enum bk_backend { BK_CPU = 0, BK_CUDA = 1, BK_SIM = 2, BK_NBACKENDS = 3 } bk_backend_t;

#define BK_MAX_ORDINALS 16      /* devices of one backend */
#define BK_CPU_DEVICE (-1)      /* the CPU: host memory, C kernels */
#define BK_SIM_FIRST 1000       /* simulated device n is BK_SIM_FIRST + n */
#define BK_NO_DEVICE (-2)

/* The handle of (backend, ordinal); BK_NO_DEVICE for an ordinal out of range. */
bk_device_t bk_device(bk_backend_t backend, int ordinal);
/* The backend and ordinal of d; -1 for a handle that is no device. */
int bk_backend(bk_device_t d);
int bk_ordinal(bk_device_t d);

/* The languages array kernels are written in (bk_device_info_t.lang). */
enum { BK_LANG_C = 0, BK_LANG_CUDA = 1 };

typedef struct bk_device_info {
    bk_device_t device;
    char label[16];        /* "gpu0", "cpu", "sim0": in messages and %memory */
    char name[256];        /* "NVIDIA H100 80GB HBM3", "gpuc simulator (CPU, 2 cores)", "CPU" */
    char kind[16];         /* "GPU", "CPU": what it stands for in timing lines */
    char how[32];          /* "" on the real thing; "simulated on the CPU" */
    char clock[16];        /* how its kernels are timed: "CUDA events", "simulated", "host" */
    int major, minor;      /* compute capability; 0 for the CPU */
    int sm_count;          /* multiprocessors (cores on the simulator and the CPU) */
    size_t total_mem;      /* bytes */
    int host_memory;       /* 1: its memory is host memory (plain pointers) */
    int lang;              /* BK_LANG_C: array kernels are C loops run in this process;
                              BK_LANG_CUDA: CUDA grids launched on the device */
    int f16_blas;          /* 1: BLAS multiplies float16 itself (else in float32) */
    int streams;           /* 1: work is queued on streams (the pool waits for events) */
    int runs_kernel_cells; /* 1: kernel cells can run on it (a GPU, the simulator) */
} bk_device_info_t;

/* Fills info for d. 0, or -1 with err (BK_E_DEVICE) for no such device. */
int bk_device_info(bk_device_t d, bk_device_info_t *info, cm_error_t *err);

/* bk_device_info's host_memory, lang and f16_blas, cheaply (no driver call): for
 * every array operation. A handle that is no device: 1 and BK_LANG_C. */
int bk_host_memory(bk_device_t d);
int bk_lang(bk_device_t d);
int bk_f16_blas(bk_device_t d);

/* "gpu0" / "cpu" / "sim0" into buf (also for handles that are no device). */
void bk_device_text(bk_device_t d, char *buf, size_t len);

/* The devices there are, in order: the CPU, the GPUs, the simulator.
 * Returns how many (at most max written to out). */
int bk_devices(bk_device_t *out, int max);

/* The device a user's number names (ga_to_device, ga_use_device,
 * %device gpuN): -1 (GA_CPU) is the CPU; n >= 0 is CUDA device n where
 * the host has GPUs, else simulated device n; a simulated device's handle
 * (BK_SIM_FIRST + n) is itself. BK_NO_DEVICE with err (BK_E_DEVICE) naming
 * the devices there are, for a number that names none. */
bk_device_t bk_device_of_number(int n, cm_error_t *err);

/* The other way: the number that names d (bk_device_of_number(number) is
 * d): -1 for the CPU, N for GPU N, N for simulated device N where the host
 * has no GPU, else d's handle (BK_SIM_FIRST + N). ga_device's answer. */
int bk_device_number(bk_device_t d);

/* How many devices the simulator presents: GPUC_SIM_DEVICES=N at the
 * first call (1 by default; at most BK_MAX_ORDINALS), or what
 * bk_sim_set_device_count set (%sim --devices N). Each has its own pool
 * and arrays, kept apart as GPUs are. Setting fails (-1 with err) for n
 * out of range, or while a device that would go holds arrays. */
int bk_sim_device_count(void);
int bk_sim_set_device_count(int n, cm_error_t *err);

/* Where new arrays go: the selected GPU when one is usable, else the CPU
 * (decided at the first call). */
bk_device_t bk_default_device(void);
void bk_set_default_device(bk_device_t d);

/* Where kernel cells run now: the selected GPU, or the simulator (no GPU,
 * or %device cpu). Asks nothing of the driver after the first call. */
bk_device_t bk_kernel_device(void);

/* Selects d for kernel cells and new arrays (%device): a GPU, or the CPU
 * (kernel cells then run on the simulator, arrays in host memory). 0 / -1
 * with err (no such device, no GPU). */
int bk_select(bk_device_t d, cm_error_t *err);

/* 1 when d queues work on streams (its calls return before the work is
 * done: waits and events matter), 0 when work is done at the call. */
int bk_streams(bk_device_t d);

/* 1 when code running on `runner` can use memory allocated on `memory`
 * (the same device; the CPU's memory for a simulated device: simulated
 * devices keep their arrays apart, as GPUs do). */
int bk_can_access(bk_device_t runner, bk_device_t memory);

/* Free and total bytes of d's memory: the driver's for a GPU; for host
 * memory, MemAvailable and MemTotal of /proc/meminfo. -1 with err. */
int bk_mem_info(bk_device_t d, size_t *free_bytes, size_t *total_bytes, cm_error_t *err);

/* "64.00 MiB" / "512 bytes" into buf. */
void bk_bytes_text(size_t bytes, char *buf, size_t len);

/* ---- memory and the caching pool (bk_pool.c) ----------------------------- */

/* The pool (one per device) keeps freed buffers by size class and hands
 * them out again without asking the backend: sizes round up to 512 bytes
 * below 1 MiB and to 2 MiB above. When the backend says out of memory,
 * the device's cache is given back and the allocation tried once more; an
 * error then says bytes asked, in use, cached and free. A limit caps what
 * the pool holds (in use + cached), as CuPy's set_limit. */

#define BK_USES 4 /* user streams a buffer remembers; a fifth waits for the first */

typedef struct bk_buffer {
    void *ptr;       /* the memory: a host address, or a device address */
    size_t bytes;    /* asked for */
    size_t capacity; /* what the pool gave (its size class); 0 when not owned */
    bk_device_t device;
    int owned;       /* 0: memory the user allocated (a view of a device pointer) */
    int refs;        /* holders (arrays); the owner counts them */
    struct bk_buffer *next; /* the pool's free list */
    /* launches on the user's streams that used it (bk_buffer_used_on): a
     * mark (an event) each, after the latest; a cached buffer with a
     * pending mark is not handed out again */
    struct bk_use {
        void *stream, *mark;
    } uses[BK_USES];
} bk_buffer_t;

/* A new buffer of bytes on d (refs 0). NULL with err set: BK_E_MEMORY
 * (out of memory, in words), BK_E_DEVICE. */
bk_buffer_t *bk_buffer_new(bk_device_t d, size_t bytes, cm_error_t *err);

/* A buffer over memory the user allocated (not owned: never freed). */
bk_buffer_t *bk_buffer_wrap(bk_device_t d, void *ptr, size_t bytes);

/* Drops one reference; at none the memory goes back to the pool. */
void bk_buffer_release(bk_buffer_t *b);

/* Says that work queued on stream (a user's CUstream / cudaStream_t) uses
 * b, after that work was queued: the pool hands b's memory out again only
 * once the work is done. The default stream (NULL or legacy) needs
 * nothing: gpuc's own work is ordered on it. Nothing on devices without
 * streams. */
void bk_buffer_used_on(bk_buffer_t *b, void *stream);

typedef struct bk_pool_stats {
    size_t in_use;       /* bytes of live buffers (size classes) */
    size_t cached;       /* bytes of freed buffers kept for reuse */
    size_t limit;        /* 0 = none */
    size_t allocs, hits; /* buffers handed out, and how many came from the cache */
} bk_pool_stats_t;

void bk_pool_stats(bk_device_t d, bk_pool_stats_t *out);

/* Gives d's cached buffers back to the backend (%memory free). Returns
 * the bytes given back. */
size_t bk_pool_release(bk_device_t d);

/* Caps what d's pool holds (0: no cap). */
void bk_pool_set_limit(bk_device_t d, size_t bytes);

/* Caps every device's pool, those not used yet too (0: no cap): the
 * operator's limit per kernel (docs/hosting.md). Touches no device. */
void bk_pool_set_limit_all(size_t bytes);

/* Raw copies of bytes on d: zero dst, host -> device, device -> host,
 * device -> device; between two devices (peer: through the host where
 * the backends share nothing better). 0 / -1 with err. */
int bk_mem_zero(bk_device_t d, void *dst, size_t bytes, cm_error_t *err);
int bk_mem_to_device(bk_device_t d, void *dst, const void *host, size_t bytes, cm_error_t *err);
int bk_mem_to_host(bk_device_t d, void *host, const void *src, size_t bytes, cm_error_t *err);
int bk_mem_copy(bk_device_t d, void *dst, const void *src, size_t bytes, cm_error_t *err);
int bk_mem_peer(bk_device_t dst_dev, void *dst, bk_device_t src_dev, const void *src,
                size_t bytes, cm_error_t *err);

/* ---- flags ---------------------------------------------------------------- */

/* The device's flag: two int64 that its kernels may set (at *dev) and the
 * host reads (the pointer returned) after bk_flag_wait; zeroed by this
 * call. One per device, kept for the process, for one use at a time. On
 * a GPU it is pinned host memory that kernels write through the bus, so
 * a check (an index out of range) costs its kernel's wait and no copy or
 * fill. NULL with err. */
long long *bk_flag(bk_device_t d, void **dev, cm_error_t *err);

/* Waits for d's own queued work (array kernels, copies); then the flag
 * holds what its kernels set. 0, or -1 with err: a kernel's failure. */
int bk_flag_wait(bk_device_t d, cm_error_t *err);

/* 1 when devices a and b copy between them directly (two GPUs with peer
 * access, which it enables; two simulated devices, whose memory is the
 * host's; the same device), 0 when copies go through the host. */
int bk_peer_link(bk_device_t a, bk_device_t b);

/* ---- all-reduce (bk_pool.c) ------------------------------------------------ */

/* Element types and reductions of bk_allreduce: NCCL's numbers. */
enum {
    BK_ELEM_I8 = 0, BK_ELEM_U8 = 1, BK_ELEM_I32 = 2, BK_ELEM_U32 = 3, BK_ELEM_I64 = 4,
    BK_ELEM_U64 = 5, BK_ELEM_F16 = 6, BK_ELEM_F32 = 7, BK_ELEM_F64 = 8,
};
enum { BK_REDUCE_SUM = 0, BK_REDUCE_MAX = 2, BK_REDUCE_MIN = 3 };

/* Reduces count elements of type in place in bufs[i] on devices[i], i < n
 * (n distinct devices of one backend), with a collective library where the
 * backend has one (NCCL on GPUs): every buffer ends with the reduction.
 * Queued, not waited for. 0; -1 with err; 1 when there is no collective
 * library for these devices (the caller reduces through peer copies). */
int bk_allreduce(int n, const bk_device_t *devices, void *const *bufs, size_t count, int type,
                 int op, cm_error_t *err);

/* What bk_allreduce uses between devices of d's backend: the collective
 * library's file ("/.../libnccl.so.2", loading it), or NULL when there is
 * none (peer copies then). Static. */
const char *bk_allreduce_library(bk_device_t d);

/* ---- array kernels (bk_kernel.c) ------------------------------------------ */

/* The function `name` of source written in d's language (bk_device_info's
 * lang) with the compiler options given for d's compiler (NULL: none;
 * "--fmad=false" for NVRTC), compiled for d through the one compile cache: for a C device a C
 * function to call, for a CUDA device a kernel for bk_kernel_launch. NULL
 * with err: BK_E_KERNEL (the compiler rejected it; its first error),
 * BK_E_DEVICE (no GPU, no library). GPUC_DUMP_SOURCE=1 prints a rejected
 * C source with the compiler's log on stderr. */
void *bk_kernel_get(bk_device_t d, const char *source, const char *options, const char *name,
                    cm_error_t *err);

/* The multiprocessors of d for sizing grids (cores for host devices);
 * cheap, at least 1. */
int bk_units(bk_device_t d);

/* 1 when d's array kernels may include CCCL's CUB agents
 * (<cub/agent/...>, compiled with the kernel: a CUDA device whose compiler
 * finds the CCCL headers and whose GPU runs them), else 0 (the simulator,
 * the CPU). Cheap after the first call. */
int bk_kernel_cub(bk_device_t d);

/* Launches a kernel of a CUDA device (from bk_kernel_get) with
 * cuLaunchKernel's kernelParams args; what names it in a later error. 0 /
 * -1 with err (BK_E_MEMORY when the device is out of memory). */
int bk_kernel_launch(bk_device_t d, void *kernel, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, void **args, const char *what, cm_error_t *err);

/* Compiles source in lang only to see that it compiles: 0, or -1 with err
 * (BK_E_KERNEL: the compiler's first error, "line L: error: ...") and
 * *line the source line it names (from #line directives), 0 when none.
 * CUDA with no NVRTC: 0 (nothing to check with). */
int bk_kernel_check(int lang, const char *source, int *line, cm_error_t *err);

/* ---- kernel cells (bk_kernel.c) ------------------------------------------- */

/* A launch of a kernel cell's kernel, `name<<<grid, block, shared,
 * stream>>>(args)`: args[i] points at argument i (sizes[i] bytes; kinds[i]
 * 'p' pointer, 's' scalar, 'v' by value; types[i] its C type or NULL), as
 * the cell layer read the launch; cell and line name it in errors. */
typedef struct bk_cell_launch {
    const char *name;
    unsigned grid[3], block[3];
    unsigned shared;
    void *stream;
    int nargs;
    void *const *args;
    const size_t *sizes;
    const char *kinds;
    const char *const *types;
    int cell, line;
} bk_cell_launch_t;

/* Launches l on device d, which must be where kernel cells run now
 * (bk_kernel_device: the selected GPU, whose module of the cell is loaded
 * at its first launch there, one compile for all GPUs; or a simulated
 * device). 0, or -1 with err: BK_E_DEVICE for a device that runs no kernel
 * cells now (naming the one that does); else backend/cuda's codes as they
 * are (GPU_E_ARGS, GPU_E_NO_KERNEL, GPU_E_NO_GPU, a CUresult), which the
 * session turns into LaunchError, NoGPU, CudaError. */
int bk_cell_launch(bk_device_t d, const bk_cell_launch_t *l, cm_error_t *err);

/* ---- streams, events and timing (bk_time.c) ------------------------------- */

/* The device's time of the work queued on its default stream between two
 * events (CUDA events on a GPU; the simulator's clock of its kernels). */
typedef struct bk_timer bk_timer_t;

/* A new timer on d, or NULL when there is nothing to time with (no work
 * ran on the GPU in this process yet, no events, a host device: then the
 * host's clock is the time). NEVER starts the driver. Free with
 * bk_timer_free. */
bk_timer_t *bk_timer_new(bk_device_t d);

/* Records the start; 0 / -1 with err. */
int bk_timer_start(bk_timer_t *t, cm_error_t *err);

/* Records the stop and WAITS for it: *seconds gets the device's time
 * between the two. 0 / -1 with err (a failure of earlier work surfaces
 * here). */
int bk_timer_stop(bk_timer_t *t, double *seconds, cm_error_t *err);

void bk_timer_free(bk_timer_t *t);

/* The kernel clock of d: while on, the time d's kernels run is summed apart
 * from copies and host work (%%speedup's "GPU kernels"). Start returns -1
 * (clock off) when d cannot time its kernels; stop waits for the last one
 * and gives the sum in *seconds (0 / -1 when off). */
int bk_kernel_clock_start(bk_device_t d);
int bk_kernel_clock_stop(bk_device_t d, double *seconds);

/* How many times the floor has launched work on a device that runs
 * kernels as launches (a GPU): array kernels (bk_kernel_launch) and BLAS
 * calls (bk_gemm, bk_dot) that succeeded, ever in this process. A host
 * device's calls are not counted: they run at the call, on the CPU. The
 * timing magics add it to the launches of host cells (rt_gpu_launch_count)
 * to tell whether timed code did GPU work. */
unsigned long bk_launch_count(void);

/* Waits for the work queued on d; a failure of it in err. 0 / -1. */
int bk_synchronize(bk_device_t d, cm_error_t *err);

/* ---- BLAS (bk_kernel.c) ----------------------------------------------------- */

/* Element types of bk_gemm_t and bk_dot. */
enum { BK_BLAS_F32 = CM_GEMM_F32, BK_BLAS_F64 = CM_GEMM_F64, BK_BLAS_F16 = CM_GEMM_F16 };

/* C = op(A) op(B) in column-major terms, batch times (common/cm_gemm.h).
 * On a GPU cuBLAS with CuPy's compute types (float32 in 32F, or TF32 when
 * tf32 is set; float16 in 32F); on host memory a CBLAS (OpenBLAS),
 * float32 and float64 only. */
typedef cm_gemm_t bk_gemm_t;

int bk_gemm(bk_device_t d, const bk_gemm_t *g, cm_error_t *err);

/* The dot product of n elements of type at x and y (increments > 0),
 * into host memory result, one element of type. Waits for it. */
int bk_dot(bk_device_t d, int type, int n, const void *x, int incx, const void *y, int incy,
           void *result, cm_error_t *err);

/* ---- FFT and LAPACK (bk_kernel.c) ------------------------------------------ */

/* One batched FFT (common/cm_linalg.h), unnormalised, out of place: cuFFT
 * on a GPU (plans kept by shape), FFTW on host memory (the CPU backend
 * and the simulator, whose arrays are host memory: the simulator is for
 * teaching kernels, not for simulating cuFFT). 0 / -1 with err
 * (BK_E_DEVICE: no library, naming the package). */
typedef cm_fft_t bk_fft_t;
int bk_fft(bk_device_t d, const bk_fft_t *f, cm_error_t *err);

/* One LAPACK step over a batch of column-major matrices
 * (common/cm_linalg.h): cuSOLVER on a GPU (batches of small matrices in
 * one batched call, others a call per matrix; waits, as info comes back
 * to the host), LAPACKE on host memory (a call per matrix). l->info (host
 * memory) gets LAPACK's info per matrix. 0 / -1 with err (BK_E_DEVICE: no
 * library). */
typedef cm_lapack_t bk_lapack_t;
int bk_lapack(bk_device_t d, const bk_lapack_t *l, cm_error_t *err);

/* ---- profiling (bk_profile.c; %%profile) ---------------------------------- */

/* While a profile is on, the floor records each kernel launch, array
 * kernel, BLAS call and copy of the profiled device: its time on the
 * device, and where the backend can count them, the bytes it moved in
 * device memory and its floating-point operations by precision. On a GPU
 * the times come from CUPTI's activity records and the counts, in counter
 * mode, from CUPTI's range profiler (each kernel replayed); on the
 * simulator from its own counts (backend/sim: every launch instrumented),
 * against a documented model of its peaks. A row's unknown number is < 0. */

enum { BK_PROF_KERNEL = 0, BK_PROF_ARRAY = 1, BK_PROF_BLAS = 2, BK_PROF_COPY = 3 };
enum { BK_PREC_F16 = 0, BK_PREC_F32 = 1, BK_PREC_F64 = 2, BK_NPREC = 3 };
enum { BK_OP_ADD = 0, BK_OP_MUL = 1, BK_OP_FMA = 2, BK_OP_SPECIAL = 3, BK_NOPS = 4 };
enum { BK_PROF_TIMES = 0, BK_PROF_COUNTERS = 1 }; /* bk_profile_start's mode */

typedef struct bk_prof_row {
    int kind;                  /* BK_PROF_* */
    char name[160];            /* the kernel; an array kernel's expression; "gemm 256x256x256
                                  float32"; "copy HtoD" */
    bk_device_t device;
    unsigned stream;           /* 0: the default stream */
    unsigned grid[3], block[3]; /* 0 where there is no grid (copies, host calls) */
    double start, seconds;     /* from the profile's start; the device's time of it */
    double bytes_read, bytes_written; /* device memory (the simulator: asked for by threads) */
    double sector_bytes;       /* the simulator: bytes of the 32-byte sectors warps' global
                                  accesses touched (bytes read + written over it: coalescing) */
    double ops[BK_NPREC][BK_NOPS]; /* operations, BK_OP_* (an FMA counts once here) */
    int registers;             /* per thread */
    double shared_static, shared_dynamic; /* bytes per block */
    double occupancy, occupancy_achieved; /* theoretical and achieved, 0..1 */
    char note[96];             /* where a number comes from when not counted ("by the
                                  expression", "2mnk") */
} bk_prof_row_t;

typedef struct bk_prof_peaks {
    double bytes_per_s;        /* device memory bandwidth */
    double flops[BK_NPREC];    /* FLOP/s (an FMA is 2); 0 unknown */
    int sms, warp, threads_per_sm, blocks_per_sm, registers_per_sm;
    double shared_per_sm;      /* bytes */
    char how[400];             /* where the peaks come from, in words */
} bk_prof_peaks_t;

typedef struct bk_profile {
    bk_device_t device;
    char device_name[256];
    int simulated;             /* 1: the simulator's counts and model */
    int mode;                  /* BK_PROF_TIMES, BK_PROF_COUNTERS */
    int counted;               /* 1: bytes and operations were counted */
    bk_prof_peaks_t peaks;
    bk_prof_row_t *rows;       /* by start */
    int nrows;
    char note[600];            /* what the user should know (counters not permitted, replayed) */
} bk_profile_t;

/* Starts profiling work on d (the device kernel cells run on); a profile
 * still on (left by a jump out of a cell) is dropped first. 0 / -1 with
 * err (BK_E_DEVICE: no profiler for d, CUPTI missing). */
int bk_profile_start(bk_device_t d, int mode, cm_error_t *err);

/* Stops profiling: the rows recorded since the start, the caller's (free
 * with bk_profile_free). NULL with err when none was on or CUPTI failed. */
bk_profile_t *bk_profile_stop(cm_error_t *err);
void bk_profile_free(bk_profile_t *p);

/* 1 while a profile is on (cheap: for the hooks). */
int bk_profiling(void);

/* Work the floor's caller does on d outside a kernel cell's launch: an
 * array kernel (BK_PROF_ARRAY, named by its expression), a BLAS call, a
 * copy, with the counts it knows from its arguments (flops per precision
 * with an FMA as 2 FLOPs; bytes; < 0 unknown). Begin returns a token for
 * end; on a host device the row is this call, timed by the host's clock;
 * on a GPU it names the launches between begin and end (CUPTI times them;
 * the outermost call's label wins, its counts going with the first launch).
 * Nothing (token 0) when no profile is on. */
int bk_profile_begin(bk_device_t d, int kind, const char *name, const double flops[BK_NPREC],
                     double bytes_read, double bytes_written, const char *note);
void bk_profile_end(int token);

/* The theoretical occupancy (0..1) of blocks of threads using registers
 * per thread (< 0 unknown: not a limit) and shared bytes per block on a
 * device of peaks p; 0 when a block cannot run there. */
double bk_profile_occupancy(const bk_prof_peaks_t *p, int threads, int registers, double shared);

#endif
