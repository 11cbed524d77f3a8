/* rt_gpu_host: the GPU as host cells see it — launches (what
 * `kernel<<<grid, block>>>(args)` becomes), cudaMalloc/cudaFree tracked
 * for the messages of a lost context, and what a launch leaves behind at
 * the end of a cell. Kernel cells themselves are a magic's
 * (magics/rt_magic_kernel.c); the work is backend/cuda/'s (gpu.h). */
#ifndef RT_GPU_HOST_H
#define RT_GPU_HOST_H

#include <stddef.h>

#include "rt_error.h"

/* What a launch from a cell calls (rt_api.h): an error ends the cell at
 * once through rt_protect_raise, naming the kernel and the line. */
int rt_gpu_launch(const char *kernel, const void *grid, int grid_is_dim3, unsigned grid_size,
                  const void *block, int block_is_dim3, unsigned block_size,
                  unsigned long long shared, void *stream, int nargs, void **args,
                  const unsigned long long *sizes, const char *kinds, const char **types,
                  int cell, int line);

/* cudaMalloc / cudaFree in host cells (macros of gpuc.h): the real
 * libcudart calls, with the allocation remembered under `what` (the
 * pointer's text) and line; a failure says how much was asked and what
 * is free. Return cudaError_t values. */
int rt_gpu_cuda_malloc(void *ptr, size_t size, const char *what, int line);
int rt_gpu_cuda_free(void *ptr);

/* cudaMemcpyToSymbol / cudaMemcpyFromSymbol (and their Async forms) in
 * host cells: count bytes between buf and the device variable name at
 * offset, through the runtime's cudaMemcpy(Async) with kind. A name that
 * is no device variable of a kernel cell returns cudaErrorInvalidSymbol
 * (13), a range past its end cudaErrorInvalidValue (1), each with a line
 * on stderr saying why. */
int rt_gpu_memcpy_symbol(const char *name, void *buf, size_t count, size_t offset, int kind,
                         int to_device, void *stream, int async);

/* cudaGetSymbolAddress and cudaGetSymbolSize: 0, or 13 as above. */
int rt_gpu_symbol_address(void **dev, const char *name);
int rt_gpu_symbol_size(size_t *size, const char *name);

/* Loads the CUDA runtime when a host cell is about to use it (it mentions
 * cuda... or launches). Quiet when it cannot: the link error says why. */
void rt_gpu_prepare_host(const char *code, int cell);

/* After a cell ran without error: if it launched kernels, waits for them.
 * Returns 0, or -1 with err set when they failed (naming the kernel and
 * the line that launched it). */
int rt_gpu_after_cell(int cell, rt_error_t *err);

/* A cell was interrupted (err holds the interrupt): if a kernel it
 * launched is still running (a GPU kernel cannot be stopped), err is
 * reworded to say so and to offer a restart. */
void rt_gpu_interrupted(rt_error_t *err, int cell);

/* A cell stopped by a fault or an interrupt at ip: when that stopped a
 * kernel running on the simulator, err's hint says which kernel, line and
 * thread. */
void rt_gpu_stopped(rt_error_t *err, const void *ip);

/* How many kernels host code has launched so far in this process, with
 * the array library's launches on a GPU (bk_launch_count: array kernels
 * and cuBLAS calls; on a host device array math runs at the call and is
 * not counted). The timing magics compare counts to tell whether code ran
 * GPU work. */
unsigned long rt_gpu_launch_count(void);

/* A grid or block as a cell gave it: a dim3 (is_dim3), or an integer of
 * size bytes (x only), into out. */
void rt_gpu_read_dim(const void *v, int is_dim3, unsigned size, unsigned out[3]);

/* A kernel launched by other means than a launch (cudaLaunchKernel): the
 * cell waits for it at its end. */
void rt_gpu_note_launch(void);

/* The cell running now (for messages). */
int rt_gpu_current_cell(void);

/* Non-zero once the GPU context is lost (a sticky error): the executor
 * must be replaced after its reply. */
int rt_gpu_context_lost(void);

/* A note for a link error (message: "undefined symbol 'cudaMalloc'"):
 * why the library that would define the symbol is not there (the CUDA
 * runtime for cuda*, cuBLAS for cublas*...). Static; NULL when there is
 * none to give. */
const char *rt_gpu_link_note(const char *message);

/* cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize and
 * cudaMemcpy as host cells call them (macros of the CUDA header): on a GPU
 * the wait for earlier work is one an interrupt ends, stopping the cell
 * outside the driver; then the runtime's call. */
int rt_gpu_device_synchronize(void);
int rt_gpu_stream_synchronize(void *stream);
int rt_gpu_event_synchronize(void *event);
int rt_gpu_memcpy(void *dst, const void *src, size_t count, int kind);

#endif
