/* rt_gpu: the GPU side of a session — kernel cells (`%%kernel`, `%%cuda`,
 * and cells whose top level defines __global__ functions), launches from
 * host cells, `%gpu`, and what a launch leaves behind at the end of a
 * cell. The work itself is cuda/'s (gpu.h); this is the cell language. */
#ifndef RT_GPU_H
#define RT_GPU_H

#include <jansson.h>

#include "rt_magic.h"
#include "rt_result.h"
#include "rt_session.h"

/* The functions host cells link against for launches; NULL-terminated. */
extern const rt_symbol_t rt_gpu_symbols[];

/* A cell that mixes device code (__global__, __device__, __constant__
 * items) with host code, like a .cu file: compiles the device part with
 * NVRTC and sets *host to the host part (a new string, device lines
 * blanked so line numbers stay), or to NULL when the cell has no device
 * part. Returns an error reply (a CudaCompileError, say) or NULL. */
json_t *rt_gpu_mixed_cell(rt_session_t *s, const char *code, int cell, char **host);

/* %%kernel / %%cuda: the rest of the cell is device code. */
json_t *rt_gpu_kernel_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                            int cell);

/* %gpu [N]: the devices, or select device N. */
json_t *rt_gpu_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell);

/* Loads the CUDA runtime when a host cell is about to use it (it mentions
 * cuda... or launches). Quiet when it cannot: the link error says why. */
void rt_gpu_prepare_host(const char *code, int cell);

/* After a cell ran without error: if it launched kernels, waits for them
 * and returns an error reply when they failed (naming the kernel and the
 * line that launched it), else NULL. */
json_t *rt_gpu_after_cell(int cell);

/* A cell was interrupted: if a kernel it launched is still running (a GPU
 * kernel cannot be stopped), says so in reply's evalue and traceback and
 * offers a restart. Returns reply. */
json_t *rt_gpu_interrupted(json_t *reply, int cell);

/* How many kernels host code has launched so far in this process (the
 * timing magics compare counts to tell whether code ran GPU work). */
unsigned long rt_gpu_launch_count(void);

/* Non-zero once the GPU context is lost (a sticky error): the executor
 * must be replaced after its reply. */
int rt_gpu_context_lost(void);

/* A note for a link error about a missing cuda* symbol: why the CUDA
 * runtime is not there. Static; "" when it is. */
const char *rt_gpu_runtime_note(void);

#endif
