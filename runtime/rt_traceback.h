/* rt_traceback: the lines of an error traceback that point into a cell —
 * the cell's source line and a caret under the column — shared by every
 * compiler gpuc runs (libtcc, the system cc, NVRTC). */
#ifndef RT_TRACEBACK_H
#define RT_TRACEBACK_H

#include <jansson.h>
#include <stddef.h>

/* The text of line `line` (1-based) of code, without its newline, in
 * *len bytes; "" past the end. Borrowed from code. */
const char *rt_source_line(const char *code, int line, size_t *len);

/* Appends to traceback (a JSON array) the line src[0, len) indented by
 * four spaces and, when col > 0, a caret under column col (tabs in the
 * line are kept so the caret lines up). */
void rt_traceback_add_source(json_t *traceback, const char *src, size_t len, int col);

#endif
