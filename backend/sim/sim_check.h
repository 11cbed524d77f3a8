/* sim_check: memory and race checking inside the simulator (internal to
 * backend/sim; docs/simulator.md says what users see).
 *
 * A checked module (sim_module.c) is the cell compiled once more with g++'s
 * -fsanitize=thread: the compiler's own instrumentation calls
 * __tsan_read4(addr) ... before every load and store that could touch
 * memory, and the prelude (not a ThreadSanitizer runtime) defines those,
 * sending each access to sim_check_access. There:
 *
 *   - sim_memory.c keeps the map of what a kernel may touch: allocations
 *     (cudaMalloc ..., in sim_arena.c's mapping with inaccessible gaps
 *     around each; freed ones in quarantine),
 *     device arrays on the CPU, the module's __shared__ arrays and
 *     __device__ variables (from its symbol table), the dynamic shared memory;
 *   - sim_check.c decides: inside a live region, the thread's own stack or
 *     the module's image is fine; anything else stops the kernel with a
 *     report (memcheck);
 *   - sim_race.c keeps, per 4 bytes of a region, the last write and a read
 *     with who made them and at which barrier, and reports two accesses of
 *     different threads, one a write, not both atomic, with no barrier
 *     between them (racecheck).
 *
 * Threads: the executor's thread only, as the rest of the simulator. */
#ifndef SIM_CHECK_H
#define SIM_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "sim_thread.h"

/* ---- the checks in force (sim_settings.c; memcheck on by default) ----- */

extern int sim_memcheck_on, sim_racecheck_on;

/* The prelude's hook: a load or store (SIM_ACCESS_*) of size bytes at addr
 * by the code at pc. May stop the launch (sim_thread_stop). */
void sim_check_access(const void *addr, unsigned long size, int flags, const void *pc);

/* A launch of a checked module begins: dyn is the dynamic shared memory,
 * dyn_bytes the launch's share of it. */
void sim_check_launch(void *dyn, size_t dyn_bytes);

/* Where addr lies, said against the closest region of the map ("address
 * 0x..., 4 bytes after the end of the 400-byte cudaMalloc allocation at
 * 0x...", "..., a null pointer", "..., not memory of the simulated
 * device"), into buf; returns the access's name for it: "out-of-bounds",
 * "use-after-free" or "invalid". For memcheck's reports and the faults of
 * unchecked launches. */
const char *sim_check_place(uintptr_t addr, char *buf, size_t len);

/* The launch ended: 1 with text (a race report) when racecheck saw races. */
int sim_check_races(char *text, size_t len);

/* ---- the memory map (sim_memory.c) ------------------------------------ */

enum {
    SIM_MEM_DEVICE,            /* cudaMalloc */
    SIM_MEM_MANAGED,           /* cudaMallocManaged */
    SIM_MEM_PINNED,            /* cudaMallocHost: host memory a kernel may read */
    SIM_MEM_ARRAY,             /* a device array on the CPU */
    SIM_MEM_SHARED,            /* a __shared__ array, or the dynamic shared memory */
    SIM_MEM_GLOBAL,            /* a module's __device__ / __constant__ variable */
};

typedef struct sim_shadow sim_shadow_t;

typedef struct sim_region {
    uintptr_t lo, hi;          /* [lo, hi) */
    int kind;                  /* SIM_MEM_* */
    int freed;                 /* released (cudaFree) and kept in quarantine */
    char name[48];             /* "tile" for a __shared__ or __device__ variable */
    sim_shadow_t *shadow;      /* racecheck's records, one per 4 bytes, in one calloc'd
                                * block (sim_race.c) that sim_memory.c frees with the
                                * region; NULL until used */
} sim_region_t;

/* Adds [ptr, ptr + bytes) of kind. 0 / -1 (out of memory). */
int sim_mem_add(void *ptr, size_t bytes, int kind, const char *name);

/* Removes the region at ptr (for memory someone else frees). */
void sim_mem_forget(void *ptr);

/* cudaFree: 0 when ptr starts a live allocation, which goes back to the
 * arena now (sim_arena_free) and stays in the map, marked freed, for a
 * while (a quarantine), so that a later access is named as a use after
 * free. -1 for a pointer that is no allocation. */
int sim_mem_release(void *ptr);

/* The region holding addr (a freed one too), else NULL; the region holding
 * or closest to addr (for "N bytes after the end of ..."), else NULL.
 * Borrowed. */
sim_region_t *sim_mem_find(uintptr_t addr);
sim_region_t *sim_mem_near(uintptr_t addr);

/* "a 4096-byte cudaMalloc allocation at 0x7f...": the region in words. */
void sim_mem_describe(const sim_region_t *r, char *buf, size_t len);

/* The shared regions (dynamic shared memory): resize at each launch. */
void sim_mem_set_bytes(void *ptr, size_t bytes);

/* ---- modules (sim_module.c, sim_compile.c) ---------------------------- */

/* sim_compile (sim_cell.c) compiles the plain variant, binds it to the
 * scheduler's hooks and keeps it here; sim_module.c asks sim_compile.c
 * for the checked variant later: calls run cell -> module -> compile. */

/* sim_compile's work: the plain variant (checked 0), the checked one (1)
 * or the profiled one (2: checked, and trace-pc),
 * its module bound to hooks (the scheduler's, sim_hooks()). */
int sim_compile_variant(const char *source, const char *options, int checked, int nkernels,
                        const char *const *names, sim_entry_fn *entries, sim_sizes_fn *sizes,
                        int nvars, const char *const *vars, void **var_addrs, size_t *var_sizes,
                        char **shared, size_t *shared_bytes, char **log, double *ms,
                        const char **cache, const struct sim_hooks *hooks, cm_error_t *err);

/* Keeps a compiled cell (copies of everything) for a checked variant later. */
void sim_module_keep(const char *source, const char *options, int n, const char *const *names,
                     const sim_entry_fn *entries);

/* Calls fn for each data object of the module file path (a kernel cell's
 * shared object): its symbol name, its address in the file's image (for
 * a __shared__ array, thread-local: its offset in the TLS segment), its
 * size, and whether it is a __shared__ array (thread-local: the section
 * gpuc_shared, or a template's array in .tbss). The
 * prelude's own objects are left out; nothing happens when the file
 * cannot be read. */
void sim_compile_objects(const char *path, void *ctx,
                         void (*fn)(void *ctx, const char *name, uintptr_t value, size_t size,
                                    int shared));

/* k as its checked variant, or with profiled its profiled one (the
 * checked one with trace-pc: sim_profile.c) (compiled now when it is not yet: g++'s time,
 * bound to hooks): *checked the same kernel with the checked entry and
 * shared memory, *base where the checked module is loaded. -1 with err: a
 * compile error (given again at later calls, without compiling again), or
 * no source for k. */
int sim_module_checked(const sim_kernel_t *k, const struct sim_hooks *hooks, int profiled,
                       sim_kernel_t *checked, uintptr_t *base, cm_error_t *err);

/* The calling thread's copy of template_at, an address in the template of
 * a module's thread-local storage (its __shared__ section, which each
 * worker thread has a copy of), allocated at its first use; NULL when
 * template_at lies in no module's TLS segment. */
char *sim_module_tls(char *template_at);

/* 1 when addr lies in a kernel module's loaded image, checked or plain
 * (string literals, tables, variables without a symbol; an `inline`
 * variable a checked module binds to the plain module's copy). */
int sim_module_image(uintptr_t addr);

/* ---- race records (sim_race.c) ---------------------------------------- */

/* Records the access and compares it with the region's earlier ones. */
void sim_race_access(sim_region_t *r, uintptr_t addr, unsigned long size, int flags,
                     const void *pc);

/* Forgets the races (and the fences) of the last launch. */
void sim_race_reset(void);

/* The running thread ran a __threadfence(); the running block passed a
 * __syncthreads(). */
void sim_race_fence(void);
void sim_race_barrier(void);

/* The races seen since sim_race_reset, in words: 0 when none. */
int sim_race_report(char *text, size_t len);


/* ---- %%profile's counts (sim_profile.c; calls nothing of the folder) ---- */

/* A launch begins while sim_profile_on: a new record of k's (counted: it
 * runs checked); sim_profile_launch_end closes it with the host's time. */
void sim_profile_launch_begin(const sim_kernel_t *k, const unsigned grid[3],
                              const unsigned block[3], size_t shared_dynamic, int counted);
void sim_profile_launch_end(double start, double seconds);

/* An access of the running launch at addr into a region of kind
 * (SIM_MEM_*; -1: none, a thread's own stack), SIM_ACCESS_* flags. */
void sim_profile_access(int kind, uintptr_t addr, unsigned long size, int flags);

/* The hooks' block: a basic block of a checked module begins at pc. */
void sim_profile_block(const void *pc);


#endif
