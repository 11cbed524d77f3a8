/* ga_index: indexing by data — NumPy's take and put with index arrays,
 * nonzero / argwhere / flatnonzero, boolean masks (select and assign)
 * and compress.
 *
 * Kernels: a gather (take, which flags an index out of range), a check of
 * indices and a scatter (put), a GPU thread moving 4 elements a turn (4
 * loads in flight); and a compaction by tiles of 8192 mask elements: one
 * pass counts each tile, one block scans the counts into offsets, the
 * count is read back (the result's size), and a second pass ranks each
 * tile 2048 elements at a time (ballots, shared memory) and writes the
 * indices (nonzero, argwhere) or the elements (a mask of a's shape) at
 * their places, coalesced. A mask of a's leading axes selects rows by
 * their indices and a gather. Each kernel is written once for both
 * languages (GA_KERNEL of ga_kernel's prelude; the GPU's side of the
 * compaction in its own #ifdef) and moves elements by their size, so one
 * kernel serves every dtype of a size.
 *
 * Indices are int64 (other integer dtypes are converted); negative ones
 * count from the end; one out of range is a GA_E_SHAPE error naming it
 * (checked before anything is written). Results are new C-contiguous
 * arrays the caller owns; errors are cm_error_t values. */
#ifndef GA_INDEX_H
#define GA_INDEX_H

#include "cm_error.h"
#include "ga_array.h"
#include "ga_map.h"

/* NumPy's modes for indices out of range: raise (a GA_E_SHAPE error; on
 * a GPU the gather flags it and the flag is read back, one wait), wrap
 * (x mod n), clip (into [0, n - 1]; a negative index clips to 0, as
 * NumPy's). Wrap and clip never wait. */
typedef enum { GA_MODE_RAISE, GA_MODE_WRAP, GA_MODE_CLIP } ga_index_mode_t;

/* The mode named "raise", "wrap" or "clip": 0, or -1 with GA_E_VALUE. */
int ga_index_mode(const char *name, ga_index_mode_t *mode, cm_error_t *err);

/* a's elements at idx along axis (GA_AXIS_ALL: of the flattened array):
 * shape a.shape[:axis] + idx.shape + a.shape[axis + 1:]. */
ga_array_t *ga_index_take(ga_array_t *a, ga_array_t *idx, int axis, ga_index_mode_t mode,
                          cm_error_t *err);

/* a.flat[idx] = v (v cycled when shorter, as NumPy's put; a number when
 * v->kind is not an array). A repeated index keeps one of its values
 * (the last on the CPU). 0 / -1. */
int ga_index_put(ga_array_t *a, ga_array_t *idx, const ga_arg_t *v, ga_index_mode_t mode,
                 cm_error_t *err);

/* The indices of a's non-zero elements: an int64 array (count, ndim)
 * (NumPy's argwhere; flat != 0: of the flattened array, 1-d). */
ga_array_t *ga_index_argwhere(ga_array_t *a, int flat, cm_error_t *err);

/* a[mask]: mask of bool (any dtype: non-zero) of a's leading dimensions;
 * a 1-d result when mask has a's shape, else (count,) + the rest. */
ga_array_t *ga_index_mask_select(ga_array_t *a, ga_array_t *mask, cm_error_t *err);

/* a[mask] = v: a number or an array that broadcasts to a's shape (each
 * selected element takes v's element at its place), or a 1-d array of
 * one value per selected element (NumPy's a[mask] = values). 0 / -1. */
int ga_index_mask_assign(ga_array_t *a, ga_array_t *mask, const ga_arg_t *v, cm_error_t *err);

/* The slices of a along axis where cond (1-d) is non-zero (NumPy's
 * compress; cond may be shorter than the axis; GA_AXIS_ALL: flattened). */
ga_array_t *ga_index_compress(ga_array_t *cond, ga_array_t *a, int axis, cm_error_t *err);

/* The whole source of the kernels moving elements of elsize bytes (1, 2,
 * 4, 8, 16; 0: the compaction), for tests (NVRTC checks it). Caller frees. */
char *ga_index_source(int elsize);

#endif
