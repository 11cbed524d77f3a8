/* rt_session_defs: what the session holds, for the magics and completion
 * that build on it — its declarations (the prelude), its symbols, its
 * typedef names, gpuc.h as its cells see it — and the calls that add to it
 * from outside the compile of a cell (%%cc and C++ cells, %%kernel's host
 * shadows, %timeit's compiled loop, %%speedup's comparison). What these
 * return is borrowed until the next cell runs. The session's state itself
 * is runtime/session/'s alone. */
#ifndef RT_SESSION_DEFS_H
#define RT_SESSION_DEFS_H

#include <stddef.h>

#include "cm_error.h"
#include "rt_plan.h"
#include "rt_prelude.h"
#include "rt_session.h"
#include "rt_tcc.h"

/* ---- what it holds ---- */

/* A variable or function of the session: the latest definition of name. */
typedef struct rt_sym {
    char *name;
    void *addr;
    int cell;      /* the cell that defined it */
    int is_func;
    char *source;  /* a function's text as written (the session's table only), or NULL */
} rt_sym_t;

/* The session's symbols, *n of them (borrowed). */
const rt_sym_t *rt_session_symbols(const rt_session_t *s, size_t *n);

/* The address of the session's variable or function name, or NULL. */
void *rt_session_symbol(const rt_session_t *s, const char *name);

/* The declarations later cells compile against (borrowed). */
const rt_prelude_t *rt_session_prelude(const rt_session_t *s);

/* Non-zero when name[0, len) is a typedef name of the session's cells or
 * headers (an rt_is_type_fn; ctx is the session). */
int rt_session_is_type(void *ctx, const char *name, size_t len);

/* gpuc.h as this session's cells compile against it (rt_header). */
const char *rt_session_header(const rt_session_t *s);

/* Non-zero once a cell named CUDA (rt_session_note_code): cells compile
 * against NVIDIA's runtime header, so native compiles want the toolkit's
 * include folder too. */
int rt_session_uses_cuda_toolkit(const rt_session_t *s);

/* ---- adding to it from outside a cell's compile ---- */

/* Notes a cell's code before it compiles: the first one that names CUDA
 * (cuda... / CUDA...) switches the session to NVIDIA's runtime header for
 * good (what cells compile against changes then). */
void rt_session_note_code(rt_session_t *s, const char *code);

/* Makes a compiled cell's declarations part of the session: the prelude
 * entries its keys replace go, its entries (those keep accepts; all when
 * keep is NULL) and typedef names come. Symbols are the caller's. */
void rt_session_commit_declarations(rt_session_t *s, const rt_plan_t *plan,
                                    int (*keep)(void *ctx, const rt_plan_entry_t *e), void *ctx);

/* Records name, defined by cell at addr, in the session's symbols (and a
 * function in those fault reports name), as a compiled cell's definitions
 * are: for code compiled outside TCC (%%cc). */
void rt_session_define(rt_session_t *s, const char *name, void *addr, int cell, int is_func);

/* Compiles and links body after the session's headers and declarations
 * (all of them) for gpuc's own use. Returns the linked state (free it with
 * rt_tcc_free; its data stays valid in the arena), or NULL with err set. */
rt_tcc_t *rt_session_compile_aux(rt_session_t *s, const char *body, cm_error_t *err);

/* The C source of a host cell's code (a whole cell's text on its own
 * lines) as TCC would get it after the session's declarations: launches
 * rewritten, macros expanded, planned with the final expression shown in
 * `mode`; plan gets the plan (MUST BE zeroed or made before). For a
 * compiler other than TCC (rt_cc's fallback). Caller frees. */
char *rt_session_plan_cell(rt_session_t *s, const char *code, int cell, rt_result_mode_t mode,
                           rt_plan_t *plan);

/* A function compiled at addr, for fault reports. */
void rt_session_add_code(rt_session_t *s, const char *name, void *addr, int cell);

/* Records where a source line's code begins (an rt_tcc_lines callback; ctx
 * is the session): lines of "cell[N]" files by cell, the rest as code of
 * no cell. */
void rt_session_add_line(void *ctx, const void *addr, const char *file, int line);

#endif
