/* cm_jit: C or C++ source compiled by the system compiler into a shared
 * object, cached on disk by content, and loaded into this process.
 *
 * For the code gpuc writes at run time that runs on the CPU: array
 * operations on the CPU backend (runtime/array) and simulated kernels
 * (backend/sim). The compiler is $CC (C) or $CXX (C++), else cc / c++.
 *
 * The cache. The key is a SHA-256 of the language, the flags, the
 * compiler's identity (its path and `--version`) and the source; the
 * object is $XDG_CACHE_HOME/gpuc/jit/<key>.so (else ~/.cache/gpuc/jit),
 * written through a temporary file and a rename so that processes that
 * compile the same source at once do not see half a file. In memory, the
 * same key gives the same handle without touching the disk. Handles are
 * never closed: functions found in them stay valid for the process.
 *
 * Errors are cm_error_t with the CM_E_JIT_* codes. */
#ifndef CM_JIT_H
#define CM_JIT_H

#include "cm_error.h"

enum {
    CM_E_JIT_COMPILER = 30001, /* no compiler found: install gcc/g++ or set CC/CXX */
    CM_E_JIT_COMPILE = 30002,  /* the compiler rejected the source */
    CM_E_JIT_LOAD = 30003,     /* the object could not be written or loaded */
};

typedef enum cm_jit_lang { CM_JIT_C = 0, CM_JIT_CXX = 1 } cm_jit_lang_t;

typedef struct cm_jit_result {
    void *handle;              /* dlopen handle (borrowed: lives for the process) */
    double compile_ms;         /* the compiler's run; 0 on a cache hit */
    const char *cache;         /* "miss", "memory hit", "disk hit" (static) */
    char *log;                 /* the compiler's whole output on a compile error,
                                  NULL otherwise; caller frees */
} cm_jit_result_t;

/* Compiles source (lang) with flags ("-O3 -march=native -fno-math-errno";
 * may be NULL) with -shared -fPIC, or finds it in the cache, and loads it
 * (RTLD_NOW | RTLD_LOCAL). 0 with out->handle set; -1 with err set:
 * CM_E_JIT_COMPILER, CM_E_JIT_COMPILE (err->text: the compiler's first
 * error line; out->log: everything it said), CM_E_JIT_LOAD. out may be
 * reused; its log must be freed by the caller either way. Thread-safe. */
int cm_jit_load(cm_jit_lang_t lang, const char *source, const char *flags,
                cm_jit_result_t *out, cm_error_t *err);

/* Looks symbol up in handle: its address, or NULL with err (CM_E_JIT_LOAD). */
void *cm_jit_symbol(void *handle, const char *symbol, cm_error_t *err);

/* The cache folder ($XDG_CACHE_HOME/gpuc/jit), made 0700 at first use;
 * NULL when none can be made (then compiles go to a temporary folder and
 * are not kept). Borrowed. */
const char *cm_jit_cache_dir(void);

/* Runs the shell command cmd (sh -c), its stdout and stderr into *out
 * (caller frees; never NULL). Flushes stdout and stderr first. The exit
 * status, 128 when a signal ended it, or -1 when it could not run. For
 * the compiler here and for %%cc's. */
int cm_jit_run(const char *cmd, char **out);

/* Forgets the in-memory index (the disk cache stays), as a new process
 * would see it; loaded handles stay loaded. For tests. */
void cm_jit_reset_memory(void);

#endif
