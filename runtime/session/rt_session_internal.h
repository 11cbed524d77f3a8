/* rt_session_internal: the session's state, shared by the files of
 * runtime/session/ that implement rt_session.h and rt_session_defs.h
 * (rt_session.c, rt_symbols.c, rt_headers.c, rt_compile.c, rt_run.c,
 * rt_fault.c, rt_arrays.c, rt_struct_hint.c, rt_session_query.c). NOTHING
 * outside runtime/session/ includes it: the magics and completion use
 * rt_session.h and rt_session_defs.h. */
#ifndef RT_SESSION_INTERNAL_H
#define RT_SESSION_INTERNAL_H

#include <stdint.h>

#include "cm_buf.h"
#include "cm_map.h"
#include "rt_options.h"
#include "rt_plan.h"
#include "rt_prelude.h"
#include "rt_protect.h"
#include "rt_session.h"
#include "rt_session_defs.h"
#include "rt_shake.h"
#include "rt_tcc.h"

/* A function compiled into the arena, for fault reports. Every function
 * ever compiled stays (a long session has thousands), so it is 16 bytes
 * and its name is shared with the other definitions of that name. */
typedef struct rt_code {
    void *addr;
    uint32_t name; /* in rt_session.code_names, or RT_CODE_CELL */
    int cell;      /* the cell that compiled it */
} rt_code_t;
#define RT_CODE_CELL UINT32_MAX /* the name of a cell's top-level code (__gpuc_cell...) */

struct rt_session {
    char *libdir;
    rt_emit_fn emit;
    void *emit_ctx;
    rt_prelude_t prelude;     /* declarations later cells compile against */
    rt_sym_t *syms;           /* the latest definition of each name */
    size_t nsyms, capsyms;
    cm_map_t sym_index;       /* syms by name */
    rt_code_t *code;          /* every function ever compiled, for fault reports */
    size_t ncode, capcode;
    cm_names_t code_names;    /* the names of code, each once */
    cm_map_t code_name_index; /* code_names by name */
    rt_sym_t *libs;           /* library functions cells call, for fault reports */
    size_t nlibs, caplibs;
    struct rt_line {          /* where each source line's code begins, by address */
        const void *addr;
        int cell;             /* 0: code that is not a cell's (gpuc.h, generated) */
        int line;
    } *lines;
    size_t nlines, caplines;
    cm_names_t types;         /* typedef names declared by cells */
    rt_headers_mode_t headers;
    rt_shake_t *shake;        /* for the current header directives, or NULL */
    char *shake_failed;       /* header directives that could not be preprocessed */
    rt_compile_stats_t stats;
    unsigned long generation; /* changes whenever what cells compile against changes */
    struct rt_rerun {         /* statement-only cells, for re-runs (rt_run.c) */
        char *code;
        unsigned long generation;
        void (*cell)(void);
        rt_tcc_code_t once;   /* its code, given back when it leaves (n = 0: none) */
    } reruns[8];
    int next_rerun;
    rt_options_t options;     /* %cflags and %lib */
    rt_value_t result;        /* the last run's final expression (text NULL: none) */
    int cuda_toolkit;         /* a cell named CUDA: cells compile against NVIDIA's header */
    char *cell_includes;      /* while a cell is planned: its #include lines the prelude
                               * lacks, so that its declarations see their types */
    json_t *payload;          /* the cell's payloads for its execute_reply (NULL: none) */
};

/* The headers a shaker is made from: gpuc.h, then the prelude's #include,
 * #define and #undef lines up to its last #include (later ones cannot
 * change what the headers declare), leaving out entries marked in
 * excluded (may be NULL); marks the lines used in consumed (may be NULL).
 * A new string, or NULL when the prelude cannot be shaken (a #pragma). */
char *rt_session_header_key(const rt_session_t *s, const char *excluded, char *consumed);

/* The #include lines of code that the prelude does not hold yet, each
 * with its newline (a new string), or NULL when there are none. While
 * s->cell_includes holds them, rt_session_header_key adds them after the
 * whole prelude's directives: a cell that includes a header and declares
 * `cublasHandle_t h;` in one go is planned knowing the header's types, and
 * the shaker made for it is the one the next cell uses. */
char *rt_session_cell_includes(const rt_session_t *s, const char *code);

/* The shaker for the headers text key, made (and preprocessed) when they
 * changed; kept in the session. NULL when they cannot be preprocessed. */
rt_shake_t *rt_session_shaker(rt_session_t *s, const char *key);

/* The error for a cell that ended with a signal (rt_fault.c). */
void rt_session_fault_error(rt_session_t *s, int cell, const rt_fault_t *fault, rt_error_t *err);

/* ---- the symbol table (rt_symbols.c) ---- */

/* The index of name in s->syms, or -1. */
long rt_session_find_symbol(const rt_session_t *s, const char *name);

/* name is now at addr, defined by cell. */
void rt_session_set_symbol(rt_session_t *s, const char *name, void *addr, int cell, int is_func);

/* The text a cell wrote for function name (copied), shown by `name??`. */
void rt_session_set_source(rt_session_t *s, const char *name, const char *text);

/* The name of a function compiled, or NULL for a cell's top-level code;
 * borrowed. */
const char *rt_session_code_name(const rt_session_t *s, const rt_code_t *code);

/* Forgets the functions and line starts that lie in code (about to be
 * given back to the arena: rt_tcc_release_code). */
void rt_session_forget_code(rt_session_t *s, const rt_tcc_code_t *code);

/* A library function a cell was linked against (addresses outside the
 * arena), so that a crash inside one can name it (an rt_tcc symbol
 * callback; ctx is the session). */
void rt_session_add_library_symbol(void *ctx, const char *name, const void *addr);

/* The cell and line of the code at ip, or 0 (not a cell's line). */
int rt_session_line_of(const rt_session_t *s, const void *ip, int *line);

/* ---- compiling (rt_compile.c, rt_headers.c) ---- */

/* A TCC state for a cell: the runtime's symbols and the earlier cells'
 * ones it does not redefine (only those of the entries in emit, if not
 * NULL). NULL with err set on failure. */
rt_tcc_t *rt_session_new_state(rt_session_t *s, const rt_plan_t *plan, const char *emit,
                               rt_error_t *err);

/* The source of a cell with only the declarations it needs, from the
 * headers and from earlier cells (marked in emit[0..prelude.n)), or NULL
 * when it cannot be made (the cell then gets the full headers). */
char *rt_session_shaken_source(rt_session_t *s, const rt_plan_t *plan, const char *excluded,
                               const cm_buf_t *body, char *emit);

/* Plans and compiles a cell's code, read once into toks (toks->src is the
 * code): launches rewritten, macros expanded, the ways to show its final
 * expression tried in turn, each planned from the same tokens. The linked
 * state, or NULL with err set (a CompileError on the cell's lines). */
rt_tcc_t *rt_session_compile_cell(rt_session_t *s, const rt_tokens_t *toks, int cell,
                                  rt_plan_t *plan, rt_error_t *err);

/* Makes what a compiled cell defined part of the session (t is the
 * caller's: its symbols are looked up). */
void rt_session_commit(rt_session_t *s, rt_tcc_t *t, const rt_plan_t *plan);

/* The type and members of the struct value expr, the last item of code,
 * has, as far as the session can tell: a session variable's declared type
 * and its struct's members (see rt_session_query.h). hint is cleared
 * first; its steps stay until the next call. */
void rt_session_struct_hint(rt_session_t *s, const char *code, const char *expr,
                            rt_struct_hint_t *hint);

#endif
