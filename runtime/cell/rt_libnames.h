/* rt_libnames: which of CUDA's host libraries a host cell's text names.
 *
 * Language, not binding: a word of the text that starts with "cublas",
 * "curand", "cufft" or "cusparse" (the headers, the functions, the types)
 * names that library, except cuRAND's device API (curand_init, curandState:
 * a kernel cell's, compiled by NVRTC, needing no library). The backend
 * loads what is named (gpu_hostlibs_load in gpu.h); the bits are its
 * GPU_HOSTLIB_* numbers. A few substring searches: cheap for every cell. */
#ifndef RT_LIBNAMES_H
#define RT_LIBNAMES_H

/* The mask of libraries code names (bit GPU_HOSTLIB_CUBLAS ...). */
unsigned rt_libraries_named(const char *code);

/* The GPU_HOSTLIB_* number of the library that defines symbol
 * ("cublasCreate_v2" -> GPU_HOSTLIB_CUBLAS), or -1. */
int rt_library_of_symbol(const char *symbol);

#endif
