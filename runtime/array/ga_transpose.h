/* ga_transpose: a transposed view copied into a C-contiguous array on a
 * GPU by tiles. The copy kernel of ga_map reads such a view with a stride
 * of a whole row between neighbouring threads (or writes it so); a tile of
 * 32 x 32 elements read along the source's rows into shared memory and
 * written along the destination's rows keeps both sides coalesced (the
 * textbook transpose of CUDA's samples and of every BLAS's geam).
 *
 * The views it takes: the last two axes swapped over a C-contiguous array
 * (strides ..., 1, R for shape ..., R, C), any leading axes a contiguous
 * batch of such matrices — what `ga_transpose(x)` of a matrix and
 * swapping the last two axes of a stack give, in every dtype (elements of
 * 1, 2, 4, 8 and 16 bytes are moved as bits). */
#ifndef GA_TRANSPOSE_H
#define GA_TRANSPOSE_H

#include "ga_array.h"

/* Copies view a into dst (C-contiguous, a's shape and dtype, a's device)
 * where a is such a view on a device of CUDA kernels: 1 done, 0 not such
 * a view or device (nothing done), -1 with err. */
int ga_transpose_copy(ga_array_t *dst, const ga_array_t *a, cm_error_t *err);

/* The kernel's whole source (prelude included) for elements of `bytes`
 * bytes (1, 2, 4, 8, 16), for tests. Caller frees. */
char *ga_transpose_source(int bytes);

#endif
