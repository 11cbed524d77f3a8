/* rt_arrays: the session's side of device arrays — failures of array
 * calls end the cell, the sweep at the end of each cell frees the arrays
 * no session variable holds, and arrays show as a cell's result.
 *
 * THE RULE a C user must know: an array lives while a session variable of
 * type ga_t (or an array of ga_t) holds it, or until ga_free; an array
 * held anywhere else (a struct, the heap, a local of a cell) is freed at
 * the end of the cell that made it unless ga_keep'd. */
#ifndef RT_ARRAYS_H
#define RT_ARRAYS_H

#include <stddef.h>

#include "ga_array.h"
#include "rt_session.h"

/* The start of cell `cell`: arrays made now are counted to it. */
void rt_session_begin_cell(rt_session_t *s, int cell);

/* The end of a cell (also one that failed): frees the arrays that no
 * session variable holds and that are not kept. Returns how many. */
size_t rt_session_end_cell(rt_session_t *s);

/* What a cell whose final expression is an array shows (__gpuc_show_array
 * in gpuc.h): its NumPy-style text and an HTML table; only the shown
 * elements are copied from the device. A freed array ends the cell. */
void rt_arrays_show(const ga_array_t *a);

/* Calls fn for each live array a session variable holds: the variable's
 * name, the index in it (-1 for a plain ga_t variable) and the array. */
typedef void (*rt_array_holder_fn)(void *ctx, const char *name, long index,
                                   const ga_array_t *a);
void rt_arrays_holders(rt_session_t *s, rt_array_holder_fn fn, void *ctx);

#endif
