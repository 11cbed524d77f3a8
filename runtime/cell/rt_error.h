/* rt_error: the one error value of the runtime. Every layer that can fail
 * because of what a user wrote (the cell language, the session, the
 * magics, the array library) returns 0 / -1 and fills a caller-owned
 * rt_error_t; the executor sends it over the link (rt_error_json) and the
 * kernel process turns it into the Jupyter reply (kernel/jk_reply.c).
 *
 * kind is the reply's ename ("CompileError", "SegmentationFault", ...),
 * message its evalue. The traceback is rendered from cell and line unless
 * lines are added explicitly (several diagnostics, a source line with a
 * caret); a hint is one more line saying what to do next.
 *
 * The FIRST error set wins, as with cm_error_t: setting a set error does
 * nothing, so the root cause reaches the user. A zeroed value is "no
 * error"; rt_error_free releases the lines and clears it. */
#ifndef RT_ERROR_H
#define RT_ERROR_H

#include <jansson.h>
#include <stddef.h>

#include "cm_buf.h"
#include "cm_error.h"

typedef struct rt_error {
    char kind[48];               /* "" = no error */
    char message[CM_ERROR_TEXT]; /* one line */
    int cell, line, column;      /* where in the notebook; 0 = unknown */
    char hint[512];              /* what to do next; "" for none */
    cm_names_t traceback;        /* explicit traceback lines, in order */
} rt_error_t;

/* Sets kind and the formatted message at cell/line (0 = unknown) unless
 * err is already set. Returns -1, so `return rt_error_set(...)` fails. */
int rt_error_set(rt_error_t *err, const char *kind, int cell, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Non-zero when err holds an error. */
int rt_error_is_set(const rt_error_t *err);

/* Appends one traceback line (formatted). */
void rt_error_add_line(rt_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the source line src[0, len), indented by four spaces, and when
 * col > 0 a caret under column col (tabs kept so the caret lines up). */
void rt_error_add_source(rt_error_t *err, const char *src, size_t len, int col);

/* Replaces the message (and drops explicit traceback lines) of a set
 * error: for a layer that knows better what happened (an interrupt that
 * left a GPU kernel running). */
void rt_error_reword(rt_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets the hint (formatted). */
void rt_error_hint(rt_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Moves src into dst (dst must be unset or is freed first); src is cleared. */
void rt_error_move(rt_error_t *dst, rt_error_t *src);

/* The value as the executor link carries it: {"kind", "message", "cell",
 * "line", "column", "hint", "traceback": [...]}. A new reference. */
json_t *rt_error_json(const rt_error_t *err);

void rt_error_free(rt_error_t *err);

/* The text of line `line` (1-based) of code, without its newline, in
 * *len bytes; "" past the end. Borrowed from code. */
const char *rt_source_line(const char *code, int line, size_t *len);

/* The column of a compiler message about line[0, len) that gave none, or
 * one of code the compiler saw in another layout: the identifier quoted
 * in msg ('name'), else the line's first non-blank. 1-based. */
int rt_source_column(const char *msg, const char *line, size_t len);

#endif
