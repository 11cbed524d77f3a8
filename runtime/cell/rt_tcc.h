/* rt_tcc: a thin wrapper over one libtcc compilation in memory that
 * collects every error and warning TCC reports, parsed into file, line
 * and message.
 *
 * Call order: rt_tcc_new, rt_tcc_add_symbol (BEFORE compiling),
 * rt_tcc_compile, rt_tcc_relocate, rt_tcc_symbol, then rt_tcc_free once
 * what is needed has been looked up: the code and data stay in the arena
 * all cells share. */
#ifndef RT_TCC_H
#define RT_TCC_H

#include <stddef.h>

#include "cm_error.h"
#include "cm_buf.h"

typedef struct rt_diag {
    char *file;     /* "cell[3]", "session", or "" when TCC named none */
    int line;       /* 0 when TCC gave none */
    int warning;    /* 1 for a warning, 0 for an error */
    char *msg;      /* the message without file, line and severity */
} rt_diag_t;

typedef struct rt_tcc rt_tcc_t;

/* A new in-memory compilation with libdir as TCC's lib path and libm
 * linked. Returns NULL with err set on failure. */
rt_tcc_t *rt_tcc_new(const char *libdir, cm_error_t *err);

/* Options and shared libraries every state made afterwards gets, the
 * states of rt_tcc_preprocess included (the session's %cflags and %lib):
 * opts is a space-separated option string (NULL = none; it MUST hold only
 * options this libtcc accepts without error, see rt_magic.c), files are
 * full paths of shared libraries already loaded with dlopen(RTLD_GLOBAL).
 * Copies are kept; process-wide, like the code arena. */
void rt_tcc_set_extra(const char *opts, char *const *files, size_t nfiles);

/* Defines name as address addr for the code compiled next. Returns 0/-1. */
int rt_tcc_add_symbol(rt_tcc_t *t, const char *name, const void *addr);

/* Compiles C source. Returns 0, or -1 (see rt_tcc_diags). */
int rt_tcc_compile(rt_tcc_t *t, const char *src);

/* Links in memory, into the arena. The compilation's data (.data, .bss)
 * is moved apart from its code where its relocations allow (so that code
 * given back leaves no data behind it), before any symbol can be looked
 * up. Returns 0, or -1 (undefined symbols; see rt_tcc_diags). */
int rt_tcc_relocate(rt_tcc_t *t);

/* Moves the code of relocated t's functions not named with prefix (a
 * cell's own: they stay, while the functions named with prefix, its
 * top-level code, go once it has run) out of the image to the kept data,
 * where they lie packed, when they refer only to themselves and the
 * data and the data was moved too: rt_tcc_code_of then gives the whole
 * image back. MUST BE CALLED before any symbol is looked up or any of the
 * code runs. 0, or -1 (nothing moved). */
int rt_tcc_move_functions(rt_tcc_t *t, const char *prefix);

/* Maps the arena all cells' code and data share (address space only),
 * if not yet done; the first compile does it otherwise. MUST BE CALLED
 * before a data limit (RLIMIT_DATA) that must not count it is set: see
 * runtime/session/rt_limits.h. Returns 0, or -1 (mmap failed). */
int rt_tcc_reserve(void);

/* Non-zero when ip lies in code or data of a compiled cell (the arena all
 * cells share). Async-signal-safe. */
int rt_tcc_owns_code(const void *ip);

/* Preprocesses src as a cell would be (same lib path and options), with
 * every #define and #undef kept in place (-dD) and line markers, appending
 * the text to out. Returns 0, or -1 with err set. Not thread-safe (libtcc
 * is not); fd 1 is borrowed meanwhile. */
int rt_tcc_preprocess(const char *libdir, const char *src, cm_buf_t *out, cm_error_t *err);

/* Address of a global symbol after relocation, or NULL. */
void *rt_tcc_symbol(rt_tcc_t *t, const char *name);

/* The diagnostics so far; borrowed. */
const rt_diag_t *rt_tcc_diags(const rt_tcc_t *t, size_t *n);

/* Drops the diagnostics of a state that is kept (its code and data are
 * used by the session until rt_tcc_free). */
void rt_tcc_keep(rt_tcc_t *t);

/* Calls fn for every global symbol of a relocated compilation, the
 * library symbols it was linked against included, with its address. */
void rt_tcc_list_symbols(rt_tcc_t *t, void *ctx,
                         void (*fn)(void *ctx, const char *name, const void *addr));

/* Calls fn, in address order, for the first instruction of every source
 * line of a relocated compilation's functions: its address, the file its
 * #line directives name ("cell[3]", "session") and the line. */
void rt_tcc_lines(rt_tcc_t *t, void *ctx,
                  void (*fn)(void *ctx, const void *addr, const char *file, int line));

/* Code of a relocated compilation that can be given back once it has run:
 * its text and PLT with the padding after them, and its GOT; the whole
 * image when it has no data or its data was moved apart (never data:
 * string literals, static variables and the like may be pointed to from
 * anywhere). */
typedef struct rt_tcc_code {
    void *at[2];
    size_t size[2];
    int n;
} rt_tcc_code_t;

/* The code of relocated t that nothing can run once the cell has run:
 * the functions named with prefix (a cell's generated ones) and what they
 * alone use. Other functions (the cell's own) stay: moved apart
 * (rt_tcc_move_functions), or in the image, whose rest then goes only when
 * they come first and refer only to themselves and the data. 0, or -1
 * (nothing can be given: the layout is not the expected one, or the other
 * functions may use the rest). */
int rt_tcc_code_of(rt_tcc_t *t, const char *prefix, rt_tcc_code_t *code);

/* Gives the code back to the arena: later compilations may be placed
 * there. Nothing may run it any more. */
void rt_tcc_release_code(const rt_tcc_code_t *code);

/* The arena's bytes placed so far (its high-water mark: pages touched)
 * and, of those, the bytes given back and free for later compilations. */
void rt_tcc_arena_stats(size_t *placed, size_t *free_bytes);

/* Frees everything but the code and data in the arena (whose code only
 * rt_tcc_release_code gives back). */
void rt_tcc_free(rt_tcc_t *t);

#endif
