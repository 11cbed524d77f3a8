/* rt_session: the session a notebook builds up — host C cells compiled in
 * memory by libtcc, their definitions kept for later cells.
 *
 * ONE session per process: it installs the signal handlers of the
 * protected run boundary (rt_protect). Not thread-safe. */
#ifndef RT_SESSION_H
#define RT_SESSION_H

#include <jansson.h>

#include "cm_error.h"

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

/* Compiles and runs one cell. Returns a new reply object (never NULL):
 *   {"status":"ok"} plus "result": {"data":{mime:text},"metadata":{}} when
 *   the cell ends in an expression; or
 *   {"status":"error","ename":..,"evalue":..,"traceback":[lines]}.
 * cell_no numbers the cell in messages ("cell 3, line 2"). */
json_t *rt_session_execute(rt_session_t *s, const char *code, int cell_no);

/* Completion, inspection and is_complete; each returns a new reply
 * content object as the Jupyter protocol defines it, with "status". */
json_t *rt_session_complete(rt_session_t *s, const char *code, int cursor_pos);
json_t *rt_session_inspect(rt_session_t *s, const char *code, int cursor_pos, int detail_level);
json_t *rt_session_is_complete(rt_session_t *s, const char *code);

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
