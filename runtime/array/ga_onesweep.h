/* ga_onesweep: a GPU's sort of one line of keys by CCCL's CUB onesweep
 * radix sort (the agents CUB's DeviceRadixSort launches, driven from
 * here), and of many short lines by CUB's segmented sort of one tile, a
 * block a line (ga_onesweep_lines), for ga_sort.
 *
 * The kernels are CUB's histogram and onesweep agents in extern "C"
 * wrappers, compiled by NVRTC for the array's dtype with the array
 * kernels (ga_kernel), the tuning CUB gives sm_90. The keys are read as
 * their bits and put in order by CUB's own hook for a key type of one's
 * own (a NumericTraits specialisation): NumPy's order, NaN last; argsort
 * with -0.0 equal to 0.0 and every NaN one key (so stable as NumPy's
 * kind="stable"), sort with an order-preserving bijection of the bits so
 * that every value comes back as it was (-0.0 then sorts just before
 * 0.0, NaNs by their bits). The steps: one pass over the keys counts the
 * digits of every 8-bit pass (the histogram), a block a pass scans the
 * counts (for integers of 4 or 8 bytes and 4M elements or more the host
 * reads them back instead, scans them and leaves out the passes whose
 * digit every key shares), then one onesweep kernel a pass reads each
 * element once and writes it once (decoupled look-back between the
 * blocks). The input is only read: the passes alternate between two new
 * buffers; argsort's indices are uint32, widened to int64 at the end.
 *
 * Only where bk_kernel_cub says the device can, for one line of at most
 * GA_ONESWEEP_MAX elements (CUB's one "portion"); ga_sort keeps its own
 * radix sort for the rest. */
#ifndef GA_ONESWEEP_H
#define GA_ONESWEEP_H

#include <stdint.h>

#include "cm_error.h"
#include "ga_array.h"

#define GA_ONESWEEP_MAX ((int64_t)1 << 27) /* elements: below CUB's portion of 2^28 */

/* 1 when ga_onesweep_sort sorts n elements of a's dtype on a's device
 * (for argsort: indices != 0). */
int ga_onesweep_fits(const ga_array_t *a, int64_t n, int indices);

/* The sorted copy (indices 0) of the contiguous array a, flattened, as a
 * new 1-d array; or (indices != 0) the int64 indices that sort it
 * (stable). a is not changed. NULL with err; GA_E_KERNEL: the kernels do
 * not compile with this toolkit's CUB headers (then ga_onesweep_fits
 * answers 0 for the dtype from then on, and the caller sorts another
 * way). */
ga_array_t *ga_onesweep_sort(ga_array_t *a, int indices, cm_error_t *err);

/* ga_onesweep_lines: a line fits one block's tile; shorter lines than
 * the least are many, and the radix sort of the whole array moves them
 * with less waste than a block each */
#define GA_ONESWEEP_LINE_MIN 16
#define GA_ONESWEEP_LINE_MAX 2048

/* 1 when ga_onesweep_lines sorts `lines` lines of m of a's dtype on a's device. */
int ga_onesweep_lines_fit(const ga_array_t *a, int64_t lines, int64_t m, int indices);

/* Each of the `lines` lines of m of the contiguous array a sorted (a new
 * array of a's shape), or (indices != 0) the int64 indices within its line
 * that sort it (stable): a block a line, CUB's segmented sort of one tile
 * (AgentSegmentedRadixSort's single pass: every digit in shared memory,
 * one read and one write), the block the smallest of 32 x 2 ... 256 x 8
 * keys that holds m. Keys ordered as ga_onesweep_sort's. NULL with err
 * (GA_E_KERNEL as there). */
ga_array_t *ga_onesweep_lines(ga_array_t *a, int64_t lines, int64_t m, int indices, cm_error_t *err);

/* The whole source of the onesweep kernels for dtype d (indices: argsort's
 * keys and uint32 values; m > 0: with the lines' kernel for lines of m),
 * prelude included, for tests that compile it (NVRTC). Caller frees. */
char *ga_onesweep_source(ga_dtype_t d, int indices, int64_t m);

/* Only the keys' order, in C and CUDA (the prelude, then ga_uk and
 * GA_OS_FN ga_uk ga_os_in(ga_uk bits) / ga_os_out(ga_uk key): a key's
 * bits to the unsigned number CUB ranks, and back; GA_OS_MAX: the bits
 * whose key is all ones), for tests that check the order on the CPU.
 * Caller frees. */
char *ga_onesweep_keys_source(ga_dtype_t d, int indices);

#endif
