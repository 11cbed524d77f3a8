/* rt_cuda_header: the C declarations of the CUDA runtime API that host cells
 * see (rt_header.c puts them after gpuc.h in cells that use CUDA). The
 * text is language (made from NVIDIA's cuda_runtime_api.h, or gpuc's own
 * subset); which libcudart is loaded is the backend's (gpu_runtime_library
 * in gpu.h). Call from the executor's main thread. */
#ifndef RT_CUDA_HEADER_H
#define RT_CUDA_HEADER_H

/* The C declarations of the runtime API for host cells: NVIDIA's
 * cuda_runtime_api.h of the toolkit that matches the loaded libcudart
 * (every function, enum and struct; default arguments as macros), else
 * gpuc's subset; with dim3, the vector types and make_float4 & co, __half,
 * and gpuc's macros (tracked cudaMalloc, device variables by name). Made
 * at the first call (which loads libcudart when there is one); borrowed,
 * the same for the whole process. GPUC_CUDA_INCLUDE names the toolkit's
 * include folder, or "none" for the subset. toolkit 0: gpuc's subset in
 * any case (for cells that name nothing of CUDA's: NVIDIA's header is big
 * to preprocess and to keep, and only cells that use it pay for it). */
const char *rt_cuda_header(int toolkit);

/* Where rt_cuda_header's declarations come from, in words ("CUDA 13.0's
 * cuda_runtime_api.h (/usr/local/cuda/include)"). Borrowed. */
const char *rt_cuda_header_source(void);

/* The toolkit's include folder whose cuda_runtime_api.h host cells see
 * (rt_cuda_header(1) made, so loading libcudart), where the headers of
 * CUDA's libraries are; NULL when gpuc's subset is used. Borrowed. */
const char *rt_cuda_include_dir(void);

#endif
