/* cpu_jit: C or C++ source compiled by the system compiler into a shared
 * object, kept in the one compile cache (common/cm_cache), and loaded
 * into this process: the CPU backend's compiler.
 *
 * For the code gpuc writes at run time that runs on the CPU: array
 * operations on the CPU backend (runtime/array) and simulated kernels
 * (backend/sim). The compiler is $CC (C) or $CXX (C++), else cc / c++.
 *
 * The cache. The key is a SHA-256 of the language, the flags, the
 * compiler's identity (its path and `--version`) and the source; the
 * object is <key>.so in the cache's folder (cm_cache_path), written through a temporary file and a rename so that processes that
 * compile the same source at once do not see half a file. In memory, the
 * same key gives the same handle without touching the disk. Handles are
 * never closed: functions found in them stay valid for the process.
 *
 * Errors are cm_error_t with the CPU_E_JIT_* codes. */
#ifndef CPU_JIT_H
#define CPU_JIT_H

#include "cm_error.h"

enum {
    CPU_E_JIT_COMPILER = 30001, /* no compiler found: install gcc/g++ or set CC/CXX */
    CPU_E_JIT_COMPILE = 30002,  /* the compiler rejected the source */
    CPU_E_JIT_LOAD = 30003,     /* the object could not be written or loaded */
};

typedef enum cpu_jit_lang { CPU_JIT_C = 0, CPU_JIT_CXX = 1 } cpu_jit_lang_t;

typedef struct cpu_jit_result {
    void *handle;              /* dlopen handle (borrowed: lives for the process) */
    double compile_ms;         /* the compiler's run; 0 on a cache hit */
    const char *cache;         /* "miss", "memory hit", "disk hit" (static) */
    char *log;                 /* the compiler's whole output on a compile error,
                                  NULL otherwise; caller frees */
} cpu_jit_result_t;

/* Compiles source (lang) with flags ("-O3 -march=native -fno-math-errno";
 * may be NULL) with -shared -fPIC, or finds it in the cache, and loads it
 * (RTLD_NOW | RTLD_LOCAL). 0 with out->handle set; -1 with err set:
 * CPU_E_JIT_COMPILER, CPU_E_JIT_COMPILE (err->text: the compiler's first
 * error line; out->log: everything it said), CPU_E_JIT_LOAD. out may be
 * reused; its log must be freed by the caller either way. Thread-safe. */
int cpu_jit_load(cpu_jit_lang_t lang, const char *source, const char *flags,
                 cpu_jit_result_t *out, cm_error_t *err);

/* Looks symbol up in handle: its address, or NULL with err (CPU_E_JIT_LOAD). */
void *cpu_jit_symbol(void *handle, const char *symbol, cm_error_t *err);

/* Forgets the memory side of the compile cache (common/cm_cache; the disk
 * stays), as a new process would see it; loaded handles stay loaded. For
 * tests. */
void cpu_jit_reset_memory(void);

#endif
