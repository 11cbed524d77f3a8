/* rt_traceback: error replies, and the lines of a traceback that point
 * into a cell — the cell's source line and a caret under the column —
 * shared by every compiler gpuc runs (libtcc, the system cc, NVRTC). */
#ifndef RT_TRACEBACK_H
#define RT_TRACEBACK_H

#include <jansson.h>
#include <stddef.h>

/* A new error reply {"status":"error", ename, evalue, traceback: [evalue]}
 * with the evalue formatted (cut at CM_ERROR_TEXT bytes). */
json_t *rt_error_reply(const char *ename, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The text of line `line` (1-based) of code, without its newline, in
 * *len bytes; "" past the end. Borrowed from code. */
const char *rt_source_line(const char *code, int line, size_t *len);

/* Appends to traceback (a JSON array) the line src[0, len) indented by
 * four spaces and, when col > 0, a caret under column col (tabs in the
 * line are kept so the caret lines up). */
void rt_traceback_add_source(json_t *traceback, const char *src, size_t len, int col);

#endif
