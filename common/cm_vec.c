/* cm_vec: growing arrays (see cm_vec.h). */
#include "cm_vec.h"

#include <stdlib.h>

void cm_vec_grow(void **v, size_t n, size_t *cap, size_t item_size)
{
    if (n < *cap)
        return;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, c * item_size);
    if (!p)
        abort();
    *v = p;
    *cap = c;
}
