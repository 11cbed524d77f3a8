/* sim_abi: what compiled kernels and the simulator share.
 *
 * A kernel cell compiled for the simulator (sim_compile.c) is C++ built by
 * g++ with the prelude (sim_prelude.c); its threadIdx, __syncthreads(),
 * __shfl_sync(), printf ... read the running thread and call the scheduler
 * (sim_sched.c) through one sim_hooks_t, handed to the module when it is
 * loaded. SIM_ABI_DECLS is both compiled here and pasted, as text, into
 * the prelude, so the two layouts cannot drift. */
#ifndef SIM_ABI_H
#define SIM_ABI_H

#include <stdarg.h>

#define SIM_ABI_DECLS                                                                       \
    typedef struct sim_uint3 {                                                              \
        unsigned int x, y, z;                                                               \
    } sim_uint3_t;                                                                          \
    typedef struct sim_block_view {                                                         \
        sim_uint3_t block_idx, block_dim, grid_dim;                                         \
        void *dyn_shared; /* extern __shared__: the launch's dynamic shared bytes */        \
    } sim_block_view_t;                                                                     \
    typedef struct sim_thread_view {                                                        \
        sim_uint3_t thread_idx;                                                             \
        const sim_block_view_t *block;                                                      \
    } sim_thread_view_t;                                                                    \
    typedef struct sim_hooks {                                                              \
        /* where the running thread's view lies: this many bytes from the thread pointer */ \
        long self_offset;                                                                   \
        void (*syncthreads)(void);                                                          \
        int (*syncthreads_pred)(int op, int predicate); /* SIM_SYNC_* */                    \
        void (*syncwarp)(unsigned int mask);                                                \
        unsigned long long (*shfl)(int op, unsigned int mask, unsigned long long value,     \
                                   int arg, int width);                                     \
        unsigned int (*vote)(int op, unsigned int mask, int predicate);                     \
        int (*vprintf)(const char *format, va_list ap);                                     \
        void (*assert_fail)(const char *expr, const char *file, unsigned int line,          \
                            const char *function);                                          \
        void (*trap)(void);                                                                 \
        /* a load or store of size bytes at addr (checked modules only; SIM_ACCESS_*) */    \
        void (*access)(const void *addr, unsigned long size, int flags, const void *pc);    \
        /* a basic block of a checked module begins at pc, while *profiling (%%profile's */ \
        /* operation counts, sim_profile.c) */                                              \
        const volatile int *profiling;                                                      \
        void (*block)(const void *pc);                                                      \
    } sim_hooks_t;                                                                          \
    /* the running simulated thread of the calling OS thread (a worker) */                  \
    static inline __attribute__((no_sanitize_thread)) sim_thread_view_t *                   \
    sim_self(const sim_hooks_t *h)                                                          \
    {                                                                                       \
        return *(sim_thread_view_t **)((char *)__builtin_thread_pointer() + h->self_offset); \
    }

SIM_ABI_DECLS

/* sim_hooks_t.shfl's op and .vote's op */
enum { SIM_SHFL_IDX = 0, SIM_SHFL_UP = 1, SIM_SHFL_DOWN = 2, SIM_SHFL_XOR = 3 };
enum { SIM_VOTE_BALLOT = 0, SIM_VOTE_ANY = 1, SIM_VOTE_ALL = 2 };
enum { SIM_SYNC_COUNT = 0, SIM_SYNC_AND = 1, SIM_SYNC_OR = 2 };
/* sim_hooks_t.access's flags: a store (else a load), an atomic operation;
 * a __threadfence() (no address) */
enum { SIM_ACCESS_WRITE = 1, SIM_ACCESS_ATOMIC = 2, SIM_ACCESS_FENCE = 4 };

#define SIM_STR_(...) #__VA_ARGS__
#define SIM_STR(...) SIM_STR_(__VA_ARGS__)

#endif
