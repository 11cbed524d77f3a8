/* ga_kernel: the code array math runs, on either backend.
 *
 * Kernels are generated text (ga_map, ga_reduce) over one prelude that is
 * both C and CUDA C++: the storage and compute types (ga_i8 ... ga_u64),
 * float16 conversions, and the helpers that give NumPy's integer rules
 * without C's undefined behaviour (ga_mod_i32: Python's modulo, 0 for a
 * zero divisor; ga_pow_i64; ga_shl_u8: 0 past the width; ga_max_f:
 * NaN-propagating, as np.maximum). The same expression text therefore
 * computes the same values on the CPU and on a GPU.
 *
 * The backend floor compiles it for the array's device (bk_kernel_get:
 * the system C compiler for a device of C kernels, NVRTC for a GPU; both
 * cached in memory and on disk). A
 * compiled kernel is then found by its signature (what the generator was
 * asked for) without generating its text again. */
#ifndef GA_KERNEL_H
#define GA_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "cm_error.h"

/* The prelude both backends compile in front of a kernel. Static. */
extern const char ga_kernel_prelude[];

/* The prelude's type of an element of `bytes` bytes (1, 2, 4, 8, 16)
 * moved as bits, unchanged: "ga_u8" ... "ga_u64", "ga_e16" (two words).
 * For kernels that move elements of any dtype by their size. */
const char *ga_kernel_bits(int bytes);

/* The function `name` of a kernel for device: a C function where the
 * device's kernels are C (bk_lang), else a CUDA kernel. The
 * prelude is put in front of source. signature: a short text that names
 * what source computes (e.g. "map|(a-b)*(a-b)|f4,f4|f4|flat"): a later
 * call with the same signature and name skips source (may be NULL then
 * when make_source is given). make_source(ctx) writes the source only on
 * a miss (free()d by the caller). NULL with err: CompileError-like
 * GA_E_KERNEL for a source the compiler rejects (a bug or an unsupported
 * construct; the message has the compiler's first error), no compiler,
 * no GPU. */
void *ga_kernel_get(int device, const char *signature, const char *name,
                    char *(*make_source)(void *ctx), void *ctx, cm_error_t *err);

/* The prelude followed by make_source(ctx): the whole text a kernel is
 * compiled from, for tests that check it (ga_kernel_check). Caller frees. */
char *ga_kernel_source(char *(*make_source)(void *ctx), void *ctx);

/* Launches a kernel of device (a CUDA device) over n work items (a grid-stride loop inside):
 * block 256, a grid of at most 32 blocks per multiprocessor. what names it
 * in errors. 0 / -1 with err. */
int ga_kernel_launch(int device, void *fn, int64_t n, void **args, const char *what, cm_error_t *err);

/* The same with the grid and block given. */
int ga_kernel_launch_grid(int device, void *fn, const unsigned grid[3], const unsigned block[3],
                          unsigned shared, void **args, const char *what, cm_error_t *err);

/* Compiles a whole source (ga_map_source's, prelude included) for a GPU (gpu; NVRTC, PTX
 * where there is no GPU) or the CPU, only to see that it compiles: 0, or
 * -1 with err (GA_E_KERNEL: the compiler's first error, "line L: error:
 * ...") and *line the source line it names (from #line directives), 0
 * when none. NVRTC missing for a GPU check: 0 (nothing to check with). */
int ga_kernel_check(const char *source, int gpu, int *line, cm_error_t *err);

/* Forgets the signatures (the compile caches stay): for tests. */
void ga_kernel_reset(void);

enum { GA_E_KERNEL = 20008 }; /* a generated kernel did not compile, or no compiler */

#endif
