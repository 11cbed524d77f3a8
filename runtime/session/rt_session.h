/* rt_session: the session a notebook builds up — host C cells compiled in
 * memory by libtcc, their definitions kept for later cells. It runs code;
 * it knows nothing of magics or of the order of a cell's parts (that is
 * the cell runner's, runtime/rt_execute.h).
 *
 * ONE session per process: it installs the signal handlers of the
 * protected run boundary (rt_protect). Not thread-safe. */
#ifndef RT_SESSION_H
#define RT_SESSION_H

#include <jansson.h>

#include "cm_error.h"
#include "rt_error.h"
#include "rt_options.h"
#include "rt_segment.h"

typedef struct rt_session rt_session_t;

/* Output a cell makes besides stdout/stderr (display_data, clear_output),
 * handed to the executor loop as it happens. msg is borrowed and has an
 * "op" of "display" or "clear_output" (see docs/architecture.md). */
typedef void (*rt_emit_fn)(void *ctx, const json_t *msg);

/* A new empty session. tcc_libdir holds libtcc1.a and include/ (NULL =
 * GPUC_TCC_LIBDIR env, else the build-time path). Returns NULL with err
 * set when libtcc cannot be set up. */
rt_session_t *rt_session_new(const char *tcc_libdir, rt_emit_fn emit, void *emit_ctx,
                             cm_error_t *err);
void rt_session_free(rt_session_t *s);

/* THE segment runner: compiles and runs seg (host C code) in the session,
 * on the cell's own line numbers; what it declares stays for later
 * segments and cells. A blank segment does nothing. Returns 0, or -1 with
 * err set (CompileError, a fault, a CUDA error of what it launched...).
 * The final expression's text, if any, replaces the session's result
 * (rt_session_take_result). */
int rt_session_run(rt_session_t *s, const rt_segment_t *seg, rt_error_t *err);

/* rt_session_run for text of cell cell_no starting on its line 1: for
 * declarations gpuc makes itself (a size variable, _timeit). */
int rt_session_run_text(rt_session_t *s, const char *text, int cell_no, rt_error_t *err);

/* THE entry to the protected run boundary (rt_protect) for code compiled
 * into the session: runs fn(arg), code of cell cell_no, so that a fault,
 * an interrupt, exit() or a failed launch in it ends fn, not the session.
 * Returns 0 when fn returned; 1 when it called exit(0) (err unset: a cell
 * ends there successfully, as a program would; code that must run to its
 * end says otherwise); -1 with err set (the fault, the interrupt, with
 * what a still-running kernel means, exit(n), the raised error). Not
 * reentrant. */
int rt_session_protect(rt_session_t *s, void (*fn)(void *), void *arg, int cell_no,
                       rt_error_t *err);

/* Runs compiled cell code through rt_session_protect: cell(), then main
 * (when not NULL, as a C cell's main is run); the result it shows (or
 * main's non-zero return value) becomes the session's. 0, or -1 with err
 * set. */
int rt_session_run_entry(rt_session_t *s, void (*cell)(void), int (*main)(int, char **),
                         int cell_no, rt_error_t *err);

/* A shown value: its text and, for some types (arrays), an HTML form. */
typedef struct rt_value {
    char *text; /* NULL: no value */
    char *html; /* NULL: none */
} rt_value_t;

void rt_value_free(rt_value_t *v);

/* Moves the last run's final expression into *out (the caller frees it
 * with rt_value_free) and forgets it. Returns 1 when there was one. */
int rt_session_take_result(rt_session_t *s, rt_value_t *out);

/* Shows data (a MIME bundle, stolen) in the front end as a display_data
 * (update_display_data when update; display_id id, may be NULL), also
 * outside a running cell: for magics that draw. */
void rt_session_display(rt_session_t *s, json_t *data, const char *id, int update);

/* Shows data (stolen) with the output's metadata (stolen; NULL: none). */
void rt_session_display_meta(rt_session_t *s, json_t *data, json_t *metadata);

/* Makes text (copied) the session's result, as a final expression's
 * would be: for a magic whose outcome is a value (%timeit -o). */
void rt_session_set_result(rt_session_t *s, const char *text);

/* Adds item (stolen; NULL is ignored) to the payload of the cell's
 * execute_reply, as IPython's payloads: {"source": "ask_exit", ...},
 * {"source": "set_next_input", ...}. */
void rt_session_add_payload(rt_session_t *s, json_t *item);

/* The payloads added since the last call (a JSON array, the caller's), or
 * NULL when there are none. */
json_t *rt_session_take_payload(rt_session_t *s);

/* What %cflags and %lib set (borrowed). After changing it, call
 * rt_session_options_changed. */
rt_options_t *rt_session_options(rt_session_t *s);

/* Hands the session's options to every later compile. */
void rt_session_options_changed(rt_session_t *s);

/* Forgets every definition (variables, functions, types, macros,
 * includes, %lib and %cflags); code already compiled stays in memory.
 * Returns how many names were dropped. */
size_t rt_session_reset(rt_session_t *s);

/* How a cell gets the declarations of its headers (see rt_shake.h). */
typedef enum {
    RT_HEADERS_SHAKE,   /* only what the cell needs; full headers if that fails (default) */
    RT_HEADERS_FULL,    /* always the full headers (GPUC_FULL_HEADERS=1) */
    RT_HEADERS_BROKEN,  /* for tests: every shaken compile fails, so the fallback runs */
} rt_headers_mode_t;

void rt_session_set_headers(rt_session_t *s, rt_headers_mode_t mode);

/* How the session's compiles went. */
typedef struct rt_compile_stats {
    unsigned long shaken;     /* compiles with shaken headers that were used */
    unsigned long fallbacks;  /* shaken compiles that failed and were redone in full */
    unsigned long full;       /* compiles with full headers only (not shakeable) */
    unsigned long preprocess; /* times the header directives were preprocessed */
    unsigned long reruns;     /* cells run again without compiling (unchanged code) */
} rt_compile_stats_t;

void rt_session_stats(const rt_session_t *s, rt_compile_stats_t *out);

#endif
