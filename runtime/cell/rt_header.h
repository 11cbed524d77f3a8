/* rt_header: the text of gpuc.h, compiled before every host cell: the
 * standard headers a notebook expects, the display API, and the helpers
 * the generated code calls (__gpuc_show_*). */
#ifndef RT_HEADER_H
#define RT_HEADER_H

/* gpuc.h itself as C source; static. */
extern const char rt_header_text[];

/* What every host cell is compiled after: gpuc.h, the CUDA runtime API
 * declarations (backend/cuda/gpu_header.c; NVIDIA's own where the toolkit matches
 * when cuda_toolkit, else gpuc's subset) and the launch helpers
 * (rt_launch.h). Static, made on first use. */
const char *rt_header(int cuda_toolkit);

#endif
