/* rt_gpu_func: the CUDA runtime functions that take a kernel, as host
 * cells call them (see rt_gpu_func.h). A kernel's name in a host cell is
 * its handle (backend/cuda/gpu_func.c); these find the kernel by it (a template
 * instance made first, runtime/cell/rt_ktemplate.c) and ask backend/cuda/,
 * which answers with the driver on its CUfunction or for the simulated
 * device. Failures return the cudaError_t the runtime would, and say why
 * on stderr, as the symbol functions do. */
#include "rt_gpu_func.h"

#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "rt_gpu_host.h"
#include "rt_ktemplate.h"
#include "rt_protect.h"

enum { INVALID_DEVICE_FUNCTION = 98 };

/* The kernel of handle func, or NULL said on stderr. */
static const char *kernel_of(const char *call, const void *func)
{
    const char *name = gpu_kernel_of_handle(func);
    if (!name)
        fprintf(stderr, "cell %d: %s: the function given is not a kernel of a kernel cell "
                        "(cudaErrorInvalidDeviceFunction)\n", rt_gpu_current_cell(), call);
    return name;
}

/* rc, with err said on stderr when it is an error. */
static int said(const char *call, const char *name, int rc, const cm_error_t *err)
{
    if (rc)
        fprintf(stderr, "cell %d: %s(%s): %s\n", rt_gpu_current_cell(), call, name,
                err->text[0] ? err->text : "failed");
    return rc;
}

/* Kernel name made ready, its canonical name in canon (a template
 * instance made again if its template's cell ran since): 0, or the
 * cudaError_t with err set. */
static int ready(const char *name, char canon[256], cm_error_t *err)
{
    return rt_ktemplate_instance(name, canon, 256, 0, 0, err) ? gpu_cuda_error_code(err) : 0;
}

int rt_gpu_func_attributes(void *attr, size_t attr_size, const void *func)
{
    const char *name = kernel_of("cudaFuncGetAttributes", func);
    if (!name)
        return INVALID_DEVICE_FUNCTION;
    gpu_func_attrs_t a;
    cm_error_t err = {0};
    char canon[256];
    int rc = ready(name, canon, &err);
    if (rc == 0)
        rc = gpu_func_attributes(canon, &a, &err);
    if (rc == 0) { /* cudaFuncAttributes begins with gpu_func_attrs_t's fields; the rest 0 */
        memset(attr, 0, attr_size);
        memcpy(attr, &a, attr_size < sizeof a ? attr_size : sizeof a);
    }
    return said("cudaFuncGetAttributes", name, rc, &err);
}

int rt_gpu_func_set_attribute(const void *func, int attr, int value)
{
    const char *name = kernel_of("cudaFuncSetAttribute", func);
    if (!name)
        return INVALID_DEVICE_FUNCTION;
    cm_error_t err = {0};
    char canon[256];
    int rc = ready(name, canon, &err);
    if (rc == 0)
        rc = gpu_func_set_attribute(canon, attr, value, &err);
    return said("cudaFuncSetAttribute", name, rc, &err);
}

int rt_gpu_func_set_cache_config(const void *func, int config)
{
    const char *name = kernel_of("cudaFuncSetCacheConfig", func);
    if (!name)
        return INVALID_DEVICE_FUNCTION;
    cm_error_t err = {0};
    char canon[256];
    int rc = ready(name, canon, &err);
    if (rc == 0)
        rc = gpu_func_set_cache_config(canon, config, &err);
    return said("cudaFuncSetCacheConfig", name, rc, &err);
}

int rt_gpu_occupancy_blocks(int *blocks, const void *func, int block_size, size_t shared)
{
    const char *name = kernel_of("cudaOccupancyMaxActiveBlocksPerMultiprocessor", func);
    if (!name)
        return INVALID_DEVICE_FUNCTION;
    cm_error_t err = {0};
    char canon[256];
    int rc = ready(name, canon, &err);
    if (rc == 0)
        rc = gpu_occupancy_blocks(canon, block_size, shared, blocks, &err);
    return said("cudaOccupancyMaxActiveBlocksPerMultiprocessor", name, rc, &err);
}

int rt_gpu_occupancy_block_size(int *min_grid, int *block_size, const void *func, size_t shared,
                                int block_limit)
{
    const char *name = kernel_of("cudaOccupancyMaxPotentialBlockSize", func);
    if (!name)
        return INVALID_DEVICE_FUNCTION;
    cm_error_t err = {0};
    char canon[256];
    int rc = ready(name, canon, &err);
    if (rc == 0)
        rc = gpu_occupancy_block_size(canon, shared, block_limit, min_grid, block_size, &err);
    return said("cudaOccupancyMaxPotentialBlockSize", name, rc, &err);
}

int rt_gpu_launch_kernel(const void *func, const void *grid, int grid_is_dim3,
                         unsigned grid_size, const void *block, int block_is_dim3,
                         unsigned block_size, void **args, unsigned long long shared,
                         void *stream, int cooperative, int line)
{
    const char *call = cooperative ? "cudaLaunchCooperativeKernel" : "cudaLaunchKernel";
    const char *name = kernel_of(call, func);
    if (!name)
        return INVALID_DEVICE_FUNCTION;
    unsigned g[3], b[3];
    rt_gpu_read_dim(grid, grid_is_dim3, grid_size, g);
    rt_gpu_read_dim(block, block_is_dim3, block_size, b);
    cm_error_t err = {0};
    int cell = rt_gpu_current_cell();
    char canon[256]; /* an instance made again if its template's cell ran since */
    if (rt_ktemplate_instance(name, canon, sizeof canon, cell, line, &err) == 0 &&
        gpu_launch_params(canon, g, b, (unsigned)shared, stream, args, cooperative, cell, line,
                          &err) == 0) {
        rt_gpu_note_launch();
        return 0;
    }
    fprintf(stderr, "%s\n", err.text);
    return gpu_cuda_error_code(&err);
}

const void *rt_gpu_kernel_handle(const char *name, int cell, int line)
{
    char canon[256];
    cm_error_t err = {0};
    if (rt_ktemplate_instance(name, canon, sizeof canon, cell, line, &err) != 0)
        rt_protect_raise(err.code == GPU_E_COMPILE ? "CudaCompileError" : "LaunchError", err.text);
    return gpu_kernel_handle(canon);
}
