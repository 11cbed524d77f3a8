/* cm_vec: growing an array kept as (pointer, count, capacity).
 *
 *     item_t *v; size_t n, cap;
 *     CM_VEC_GROW(v, n, cap);      // room for one more
 *     v[n++] = item;
 *
 * Capacity doubles from 16. Allocation failure aborts the process, as
 * cm_buf does (out of memory in the executor cannot be reported anyway). */
#ifndef CM_VEC_H
#define CM_VEC_H

#include <stddef.h>

/* Makes *v (count n, capacity *cap) big enough for n + 1 items of
 * item_size bytes. */
void cm_vec_grow(void **v, size_t n, size_t *cap, size_t item_size);

#define CM_VEC_GROW(v, n, cap) cm_vec_grow((void **)&(v), (n), &(cap), sizeof *(v))

#endif
