/* ga_sort: sorting and searching — NumPy's sort, argsort, partition,
 * unique (with counts), searchsorted and histogram.
 *
 * Order is NumPy's: NaN after every number (so sort puts them last and
 * searchsorted finds them there), -0.0 equal to 0.0; sorts are stable
 * (argsort gives the lowest index first among equal keys, as NumPy's
 * kind="stable"). Complex dtypes are a GA_E_DTYPE error.
 *
 * How. Along an axis, the lines are made contiguous (the axis last). On
 * the CPU backend each line is a merge sort
 * (insertion-sorted runs of 16, then merges) in C compiled for its dtype.
 * On a GPU that runs CUB (bk_kernel_cub), one line of up to
 * GA_ONESWEEP_MAX elements is CCCL's CUB onesweep radix sort
 * (ga_onesweep.h: CUB's agents in our kernels, our launches), read where
 * it is; there, sort gives every value back bit for bit and puts -0.0
 * just before 0.0 (NaNs by their bits), argsort is stable with -0.0 and
 * 0.0 one key. Several lines of 16 to 2048 are a block a line there
 * (ga_onesweep_lines: CUB's segmented sort of one tile). Other lines (or
 * a longer line, or a GPU without CCCL) are one LSD radix sort of
 * the whole array, 4 bits a pass over the keys as ordered unsigned bits
 * (then over the lines' numbers, so each line ends sorted in its place: a
 * segmented sort): per pass, each tile of
 * 2048 counts its digits, a scan of the counts (ga_scan) gives each tile's
 * place for each digit, and each tile writes its elements there in order
 * (stable), carrying each element's flat index where indices are wanted;
 * a first pass finds the key bits that differ, and the passes over digits
 * every key shares are left out.
 * partition sorts (a sorted line is a valid partition). histogram counts
 * with atomics on a GPU.
 *
 * Results are new C-contiguous arrays the caller owns; errors are
 * cm_error_t values (GA_E_SHAPE, GA_E_DTYPE, GA_E_VALUE, GA_E_DEVICE and
 * those of the kernels). */
#ifndef GA_SORT_H
#define GA_SORT_H

#include "cm_error.h"
#include "ga_array.h"

/* a sorted along axis (GA_AXIS_ALL: the flattened array); indices != 0:
 * the int64 indices that sort it (argsort) instead. */
ga_array_t *ga_sort_array(ga_array_t *a, int axis, int indices, cm_error_t *err);

/* a's distinct elements, sorted (of the flattened array; NaNs are one);
 * *counts (when counts is not NULL): how often each occurs (int64). */
ga_array_t *ga_sort_unique(ga_array_t *a, ga_array_t **counts, cm_error_t *err);

/* Where v's elements would go in the sorted 1-d array a to keep it
 * sorted: the first such place (right == 0) or the last; int64 of v's
 * shape. a and v promote to one dtype. */
ga_array_t *ga_sort_searchsorted(ga_array_t *a, ga_array_t *v, int right, cm_error_t *err);

/* The counts (int64) of a's elements in `bins` equal bins over [lo, hi]
 * (the last bin closed; lo == hi: the range of a's values, widened by 0.5
 * each way when they are all one), NumPy's histogram; *edges (when not
 * NULL): the bins + 1 edges, of NumPy's dtype. NaNs and values outside
 * are not counted. */
ga_array_t *ga_sort_histogram(ga_array_t *a, int64_t bins, double lo, double hi,
                              ga_array_t **edges, cm_error_t *err);

/* The whole source of the sort kernels of dtype d for a GPU (gpu) or the
 * CPU, for tests (NVRTC checks the GPU text). indices: 0 none, 1 carried
 * as int64, 2 as uint32 (a GPU's radix sort below 2^32 elements). Caller
 * frees. */
char *ga_sort_source(ga_dtype_t d, int indices, int gpu);

#endif
