/* sim: the CUDA simulator - kernel cells run on the CPU (docs/simulator.md).
 *
 * backend/cuda/ uses it where there is no GPU or the user chose the CPU (%device
 * cpu): gpu_compile_unit compiles the cell's device code here too, with
 * g++ and the prelude (sim_prelude.c), into a cached shared object
 * (backend/cpu/cpu_jit); gpu_launch runs the kernel here; host cells get the
 * runtime API (cudaMalloc ...) from sim_runtime.c. backend/sim includes only
 * common/ and knows nothing of backend/cuda/.
 *
 * Threads: call everything from one OS thread (the executor's main
 * thread). A launch runs its blocks on worker threads (sim_set_threads),
 * each running one block at a time, its threads as fibers; the calling
 * thread waits for them. Launches are synchronous: a kernel has run when
 * sim_launch returns; what failed while it ran (a device assert, a trap,
 * threads that can never leave a barrier, an access to memory the
 * simulated device keeps inaccessible: CUDA's illegal address) is kept and
 * returned by sim_take_error, as a GPU reports it at the next
 * synchronisation (gpuc takes it at the end of the cell; until then the
 * runtime API, sim_runtime.c, returns it from every call that a GPU's lost
 * context would fail). Any other fault on a worker (SIGFPE, SIGABRT ...) is
 * raised again on the calling thread, with the worker's signal
 * information, at the end of the launch.
 *
 * Errors: cm_error_t. err->code is SIM_E_CUDA + the number of the CUDA
 * error a GPU gives for the same mistake (SIM_E_CUDA + 710 for a device
 * assert), and err->text starts with its name and number as the driver
 * writes them ("CUDA_ERROR_ASSERT (710): device-side assert triggered"),
 * so users read what a GPU would say; the code stays out of the range of
 * real CUresults so that nothing takes a simulated failure for a lost
 * context. Compile errors are SIM_E_COMPILE. */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>

#include "cm_buf.h"
#include "cm_error.h"

enum {
    SIM_E_CUDA = 20000,        /* + the CUDA error number */
    SIM_E_RACE = 20998,        /* racecheck saw a data race (no CUDA error: the kernel ran) */
    SIM_E_COMPILE = 20999,     /* g++ rejected the cell (log in NVRTC's format) */
};

/* What a kernel's entry point in a compiled module looks like: one call
 * runs the kernel for the running simulated thread. args as cuLaunchKernel's
 * kernelParams: args[i] points at argument i. */
typedef void (*sim_entry_fn)(void **args);

/* The sizes of a kernel's parameters as g++ lays them out: writes up to max
 * of them into sizes and returns how many parameters the kernel has. */
typedef int (*sim_sizes_fn)(unsigned long *sizes, int max);

/* ---- launches (sim_sched.c) ------------------------------------------- */

typedef struct sim_kernel {
    const char *name;          /* for messages */
    sim_entry_fn entry;
    const int *cells;          /* cells[k - 1]: the cell of "cell[k]" in the module's
                                  source (for assert messages); may be NULL */
    int ncells;
    char *shared;              /* the module's __shared__ variables: [shared, */
    size_t shared_bytes;       /* shared + shared_bytes), filled with 0xff per block */
    int unchecked;             /* 1: runs unchecked under memcheck and racecheck (a whole
                                  program's kernel: no kernel cell's source to check) */
} sim_kernel_t;

/* Runs kernel over grid x block threads with shared_bytes of dynamic
 * shared memory. A bad configuration is refused as a GPU refuses it: -1
 * with err (SIM_E_CUDA + 1, "CUDA_ERROR_INVALID_VALUE (1): invalid
 * argument: 2048 threads per block, at most 1024"); nothing runs. Otherwise
 * 0 once the kernel has run; device printf output has been written to
 * stdout (ordered by block, then thread); a failure while running is
 * pending for sim_take_error (SIM_E_CUDA + 700 for an access that faulted:
 * the line, the thread and where the address lies). A kernel that cannot
 * be checked while memcheck is on runs unchecked, with a note on stderr;
 * while racecheck is on, that is -1 with err. */
int sim_launch(const sim_kernel_t *kernel, const unsigned grid[3], const unsigned block[3],
               unsigned shared_bytes, void **args, cm_error_t *err);

/* 1 when the last launch was stopped before its end (a fault in the
 * kernel, or an interrupt, jumped out of it): where gets the kernel and
 * the thread ("oob, block [0,0,0], thread [2,0,0]"), line the place in the
 * cell of ip, the address it stopped at ("cell 8, line 3"; "" when
 * unknown), and it is forgotten. 0 otherwise. */
int sim_cut_off(const void *ip, char *where, size_t where_len, char *line, size_t line_len);

/* The failure of the last launches since the last call, if any: 1 with err
 * set (and forgotten here), 0 when none. */
int sim_take_error(cm_error_t *err);

/* Keeps err as the pending failure again (after sim_take_error, for a
 * caller that only looked at it). */
void sim_keep_error(const cm_error_t *err);

/* The hooks compiled kernels call (threadIdx, barriers, warp intrinsics,
 * printf, assert). Borrowed, static. */
const struct sim_hooks *sim_hooks(void);

/* Order of execution: seed < 0 runs warps and blocks in index order (the
 * default); otherwise their order is shuffled by a generator seeded with
 * seed, the same for the same seed and launch sequence, and launches run
 * on one worker (so that the shuffled order is the order blocks run in). */
void sim_set_seed(long long seed);
long long sim_seed(void);

/* Worker threads for later launches: n >= 1 (1: the calling thread runs
 * every block, as before there were workers; at most SIM_POOL_MAX), 0 the
 * default, sim_default_threads(): the CPUs this process may use, at most
 * 64. A launch uses no more workers than it has blocks, and one when a
 * check (memcheck, racecheck) is on. sim_threads: the setting in force. */
void sim_set_threads(int n);
int sim_threads(void);
int sim_default_threads(void);

/* Checking for later launches (docs/simulator.md; memcheck on, racecheck
 * off until set otherwise): memcheck stops a kernel
 * at its first access outside the memory it may touch, with a report
 * (SIM_E_CUDA + 700, or + 716 misaligned); racecheck lets the kernel run
 * to its end and leaves the races it saw as the pending failure
 * (SIM_E_RACE). A launch with either on runs the kernel's checked variant,
 * compiled at its first such launch. */
void sim_set_checks(int memcheck, int racecheck);
void sim_checks(int *memcheck, int *racecheck);

/* Memory for a device array on the CPU: bytes (zeroed, 256-byte aligned)
 * in the simulated device's own mapping, as cudaMalloc's (docs/simulator.md:
 * an access past it faults), and in the map of what kernels may touch;
 * NULL when out of memory. sim_array_free gives it back (NULL: nothing). */
void *sim_array_alloc(size_t bytes);
void sim_array_free(void *ptr);

/* Wall seconds the simulator spent running kernels since the process
 * started (for the timers: simulated kernels take CPU time, not GPU time). */
double sim_kernel_seconds(void);

/* The number of CPU cores the simulator says it has (multiProcessorCount):
 * the CPUs this process may run on. */
int sim_cores(void);

/* ---- compiling (sim_cell.c, sim_compile.c) ----------------------------- */

/* Compiles source (CUDA C++ device code, parts marked `#line 1
 * "cell[k]"`) with g++ and the prelude, and finds the entry points of the
 * nkernels kernels names[i] (non-template __global__ functions of the
 * source): entries[i], the address and size of the nvars global variables
 * sizes[i] (may be NULL) the function that tells kernel i's parameter sizes,
 * vars[i] (var_addrs[i], var_sizes[i]; their names as written at the top
 * level), and the module's static shared memory (*shared,
 * *shared_bytes; NULL, 0 when none). options: the kernel cell's magic options (-D, -U, -I
 * and --use_fast_math are used, the rest is NVRTC's and ignored); may be
 * NULL. *ms gets the compile's milliseconds (0 on a cache hit), *cache
 * "miss" / "memory hit" / "disk hit". On a compile error: -1 with err
 * (SIM_E_COMPILE, the first error line) and *log (caller frees): g++'s
 * messages in NVRTC's form ("cell[2](3): error: ...", the source line, a
 * caret), for the caller's log mapping. Other failures: -1 with err (no g++
 * is CPU_E_JIT_COMPILER). */
/* The source's lines as the prelude needs them (see sim_compile.c): the
 * includes of CUDA's headers and assert.h as empty lines, `extern
 * __shared__ T a[];` as the launch's dynamic shared memory; #line lines
 * keep the rest where it was. */
void sim_rewrite_source(const char *src, cm_buf_t *out);

int sim_compile(const char *source, const char *options, int nkernels, const char *const *names,
                sim_entry_fn *entries, sim_sizes_fn *sizes, int nvars, const char *const *vars,
                void **var_addrs, size_t *var_sizes, char **shared, size_t *shared_bytes,
                char **log, double *ms, const char **cache, cm_error_t *err);

/* Called for each reference of a checked variant (sim_module_refs) once it
 * is loaded: name is the variable's ("__gpuc_ref_" left out), where the
 * address of the pointer to set; returns the variable's size (0: unknown). */
typedef size_t (*sim_ref_hook_fn)(const char *name, void *where);
void sim_set_ref_hook(sim_ref_hook_fn hook);

/* A kept cell's checked variant compiles checked_source instead of its
 * source: the same code with every variable a reference (a pointer named
 * refs[i]) to the session's one storage, which the hook points once the
 * checked module is loaded — so that a kernel reads and writes the same
 * variables checked or not. */
void sim_module_refs(const char *source, const char *checked_source, int nrefs,
                     const char *const *refs);

/* ---- the runtime API for host cells (sim_runtime.c) -------------------- */

typedef struct sim_symbol {
    const char *name;          /* "cudaMalloc" */
    const void *addr;
} sim_symbol_t;

/* cudaMalloc, cudaMemcpy, cudaEventRecord ... as the simulator serves them
 * (device memory is host memory), for host cells to link against; ends
 * with {NULL, NULL}. Static. */
const sim_symbol_t *sim_runtime_symbols(void);

/* The address of the simulator's implementation of name, or NULL. */
const void *sim_runtime_function(const char *name);

/* The device's name as %gpu and cudaGetDeviceProperties show it:
 * "gpuc simulator (CPU, 2 cores)". Static buffer. */
const char *sim_device_name(void);

/* Host memory the simulated device reports (bytes): physical memory. */
size_t sim_total_memory(void);

/* What the simulated device says it is, by CUDA's cudaDeviceAttr numbers:
 * the one source of cudaDeviceGetAttribute and cudaGetDeviceProperties on
 * the simulator. Attributes it does not model are 0. */
enum {
    SIM_ATTR_MAX_THREADS_PER_BLOCK = 1, SIM_ATTR_MAX_BLOCK_DIM_X = 2, SIM_ATTR_MAX_BLOCK_DIM_Y = 3,
    SIM_ATTR_MAX_BLOCK_DIM_Z = 4, SIM_ATTR_MAX_GRID_DIM_X = 5, SIM_ATTR_MAX_GRID_DIM_Y = 6,
    SIM_ATTR_MAX_GRID_DIM_Z = 7, SIM_ATTR_SHARED_PER_BLOCK = 8, SIM_ATTR_CONSTANT_MEMORY = 9,
    SIM_ATTR_WARP_SIZE = 10, SIM_ATTR_MAX_PITCH = 11, SIM_ATTR_REGISTERS_PER_BLOCK = 12,
    SIM_ATTR_MULTIPROCESSORS = 16, SIM_ATTR_THREADS_PER_MULTIPROCESSOR = 39,
    SIM_ATTR_UNIFIED_ADDRESSING = 41, SIM_ATTR_MAJOR = 75, SIM_ATTR_MINOR = 76,
    SIM_ATTR_SHARED_PER_MULTIPROCESSOR = 81, SIM_ATTR_MANAGED_MEMORY = 83,
    SIM_ATTR_SHARED_PER_BLOCK_OPTIN = 97,
};
int sim_device_attribute(int attr);

/* ---- profiling (sim_profile.c; %%profile through backend/bk_profile.c) ---

While sim_profile_on, every launch runs its checked variant (sim_check.h:
g++'s instrumentation calls the simulator before each load and store, and
trace-pc at each basic block) and is recorded: bytes loaded and stored in
global memory (cudaMalloc, device arrays, __device__ variables) and in
shared memory, as each thread asked for them (no cache is modelled), and
floating-point operations by precision, read from the blocks run and the
instructions of each block in the module's code (objdump). What g++ made
of the source is counted, not what NVCC would make: a `fmaf` is one FMA,
`a * b + c` a multiply and an add (on a GPU one FFMA: the same 2 FLOPs),
a division or square root a special operation (a GPU runs several
instructions for one). Coalescing: the 32-byte sectors each warp-wide
access touches (the n-th global access of each thread of a warp taken
for one instruction, as it is where the warp does not diverge). cudaMemcpy and cudaMemset calls are recorded as
copies. Off: one test of a flag per basic block of a checked launch. */

enum { SIM_PREC_F32 = 0, SIM_PREC_F64 = 1, SIM_NPREC = 2 };
enum { SIM_OP_ADD = 0, SIM_OP_MUL = 1, SIM_OP_FMA = 2, SIM_OP_SPECIAL = 3, SIM_NOPS = 4 };
enum { SIM_PROF_KERNEL = 0, SIM_PROF_COPY = 1 };

typedef struct sim_profile_record {
    int kind;                        /* SIM_PROF_* */
    char name[128];                  /* the kernel; "cudaMemcpy HtoD" */
    unsigned grid[3], block[3];
    size_t shared_static, shared_dynamic; /* bytes per block */
    double start, seconds;           /* cm_seconds() at the start; the host's time of it */
    unsigned long long load_global, store_global; /* bytes asked for by the threads */
    unsigned long long load_shared, store_shared;
    unsigned long long atomics;      /* atomic operations (in store_global / store_shared too) */
    unsigned long long sectors;      /* 32-byte sectors of global memory the warps' accesses
                                        touched, each counted once per warp access (coalescing) */
    unsigned long long ops[SIM_NPREC][SIM_NOPS]; /* operations (lanes), SIM_OP_* */
    int ops_counted;                 /* 0: the code could not be read (no objdump): ops unknown */
    int counted;                     /* 0: ran unchecked (no instrumented variant): nothing counted */
} sim_profile_record_t;

extern volatile int sim_profile_on;

/* Starts recording (forgets what was recorded). */
void sim_profile_start(void);

/* Stops recording: *out gets the records (caller frees with free()),
 * returns how many. */
int sim_profile_stop(sim_profile_record_t **out);

/* A copy the simulated device made (sim_runtime.c), recorded while on:
 * the bytes it read and wrote in device memory. */
void sim_profile_copy(const char *name, size_t read, size_t written, double start,
                      double seconds);

#endif
