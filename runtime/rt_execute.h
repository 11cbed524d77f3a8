/* rt_execute: the cell runner — the one place that knows the order of a
 * cell, and the one place that reads it: the cell is lexed once and its
 * tokens go down the layers (the C++ test, the .cu split, the magic
 * finder, the session's compile) in place of its text. A cell becomes
 * segments, token ranges of the cell: host code, line magics and a cell
 * magic (first line only); a .cu-style cell first gives its device part
 * to NVRTC. Each segment goes to the session (code) or to the magic
 * table, in order; the first error ends the cell. */
#ifndef RT_EXECUTE_H
#define RT_EXECUTE_H

#include <jansson.h>

#include "rt_error.h"
#include "rt_session.h"

/* Runs cell `code` (number cell_no). Returns 0 and sets *result to the
 * last code segment's final expression (text NULL for none; free it with
 * rt_value_free); or -1 with err set. */
int rt_execute_cell(rt_session_t *s, const char *code, int cell_no, rt_value_t *result,
                    rt_error_t *err);

/* rt_execute_cell as the executor link carries its outcome: a new object
 * {"status":"ok"} with "result": {"data": {"text/plain": ...},
 * "metadata": {}} when there is one and "payload": [...] when the cell
 * added any (rt_session_add_payload), or {"status":"error", "error":
 * rt_error_json(...)} (kernel/jk_reply.c renders it). */
json_t *rt_execute(rt_session_t *s, const char *code, int cell_no);

#endif
