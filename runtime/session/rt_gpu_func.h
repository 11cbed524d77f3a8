/* rt_gpu_func: the CUDA runtime functions that take a kernel, for host
 * cells (macros of the CUDA header, runtime/cell/rt_cuda_header.c, call these): a
 * kernel's name in a host cell is a handle (const void *func) that they
 * take, as the runtime takes an nvcc program's kernel. Each returns a
 * cudaError_t: 98 (cudaErrorInvalidDeviceFunction) when func is not a
 * kernel of a kernel cell, else what the driver (or the simulator) says;
 * a failure is said on stderr with the cell and the kernel. */
#ifndef RT_GPU_FUNC_H
#define RT_GPU_FUNC_H

#include <stddef.h>

/* cudaFuncGetAttributes: attr is the cell's struct cudaFuncAttributes of
 * attr_size bytes (zeroed, then its first fields filled). */
int rt_gpu_func_attributes(void *attr, size_t attr_size, const void *func);
int rt_gpu_func_set_attribute(const void *func, int attr, int value);
int rt_gpu_func_set_cache_config(const void *func, int config);
int rt_gpu_occupancy_blocks(int *blocks, const void *func, int block_size, size_t shared);
int rt_gpu_occupancy_block_size(int *min_grid, int *block_size, const void *func, size_t shared,
                                int block_limit);

/* cudaLaunchKernel / cudaLaunchCooperativeKernel: grid and block as
 * rt_gpu_read_dim takes them, args as cuLaunchKernel's kernelParams (not
 * checked: the kernel's own types, as in CUDA). The cell waits for the
 * kernel at its end, as for a launch. line: where it is called. */
int rt_gpu_launch_kernel(const void *func, const void *grid, int grid_is_dim3,
                         unsigned grid_size, const void *block, int block_is_dim3,
                         unsigned block_size, void **args, unsigned long long shared,
                         void *stream, int cooperative, int line);

/* What a template kernel's instance as a value in a host cell becomes
 * (`scale<float>`, rt_launch.c): its handle, the instance compiled the
 * first time; a bad instance ends the cell, as its launch would. */
const void *rt_gpu_kernel_handle(const char *name, int cell, int line);

#endif
