/* rt_header: the text every host cell is compiled after.
 *
 * gpuc.h, a real file: the standard headers a notebook expects, device
 * arrays, display from C and the helpers the generated code calls
 * (__gpuc_*). Its text is made at compile time from the one list of the
 * functions cells call (rt_api.h); the build writes it to
 * BUILD/include/gpuc.h (src/gpuc_h.c), `gpuc install` beside kernel.json
 * and make-bundle.sh to BUNDLE/include, so the file a user opens is the
 * same bytes the cells see. After it, cells see the CUDA runtime API
 * (rt_cuda_header.c), which is not part of the file: it is
 * NVIDIA's header of the toolkit found at run time (docs/cells.md). */
#ifndef RT_HEADER_H
#define RT_HEADER_H

#include <stddef.h>

/* gpuc.h, byte for byte; static. */
extern const char rt_gpuc_h[];

/* What every host cell is compiled after: gpuc.h (named "gpuc.h" in
 * diagnostics), then the CUDA runtime API declarations (named
 * "cuda_runtime_api.h": NVIDIA's own where the toolkit matches when
 * cuda_toolkit, else gpuc's subset). Static, made on first use. */
const char *rt_header(int cuda_toolkit);

/* What to do about a compile error that gpuc.h's names cause, for the
 * error's message msg on the cell's source line src (len bytes): an int
 * given for a dtype, a cell's own U8 or F32 (gpuc.h's short dtype names
 * are macros). Writes the hint into out and returns 1, or returns 0. */
int rt_header_hint(const char *msg, const char *src, size_t len, char *out, size_t size);

#endif
