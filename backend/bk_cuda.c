/* bk_cuda: the GPU's table, over backend/cuda's bindings and policy
 * (gpu_mem, gpu_program, gpu_blas). CUDA's own errors become the floor's:
 * out of memory (CUDA_ERROR_OUT_OF_MEMORY, 2) is BK_E_MEMORY, no GPU or
 * no library BK_E_DEVICE, no such GPU BK_E_DEVICE.
 *
 * Every entry runs on the GPU its ordinal names, whatever %device
 * selects: the backend/cuda call makes that device's primary context
 * current (each is kept for the process), and `back` makes the selected
 * device's current again afterwards, which host cells' runtime API calls
 * use. Work is queued on each device's default stream and not waited for,
 * so GPUs work at the same time. */
#include <stdio.h>
#include <string.h>

#include "bk_internal.h"
#include "gpu.h"

/* CUDA's error e in err, with the floor's code. Returns -1. */
static int fail(const cm_error_t *e, cm_error_t *err)
{
    int code = e->code == 2 ? BK_E_MEMORY
               : e->code == GPU_E_NO_GPU || e->code == GPU_E_NO_LIBRARY ? BK_E_DEVICE
                                                                        : e->code;
    CM_ERROR(err, code, "%s", e->text);
    return -1;
}

/* rc, after making the selected device's context current again. */
static int back(int ordinal, int rc)
{
    gpu_context_back(ordinal);
    return rc;
}

static int alloc(int ordinal, size_t bytes, void **ptr, cm_error_t *err)
{
    cm_error_t e = {0};
    if (back(ordinal, gpu_mem_alloc(ordinal, bytes, ptr, &e)) != 0)
        return fail(&e, err);
    gpu_track_alloc(*ptr, bytes, "a device array");
    return 0;
}

static void release(int ordinal, void *ptr)
{
    gpu_track_free(ptr);
    gpu_mem_free(ordinal, ptr);
    gpu_context_back(ordinal);
}

static int zero(int ordinal, void *dst, size_t bytes, cm_error_t *err)
{
    return back(ordinal, gpu_mem_zero(ordinal, dst, bytes, err));
}

static int to_device(int ordinal, void *dst, const void *host, size_t bytes, cm_error_t *err)
{
    return back(ordinal, gpu_mem_to_device(ordinal, dst, host, bytes, err));
}

static int to_host(int ordinal, void *host, const void *src, size_t bytes, cm_error_t *err)
{
    return back(ordinal, gpu_mem_to_host(ordinal, host, src, bytes, err));
}

static int copy(int ordinal, void *dst, const void *src, size_t bytes, cm_error_t *err)
{
    return back(ordinal, gpu_mem_copy(ordinal, dst, src, bytes, err));
}

static int peer(int dst_ordinal, void *dst, int src_ordinal, const void *src, size_t bytes,
                cm_error_t *err)
{
    cm_error_t e = {0};
    int rc = gpu_mem_peer(dst_ordinal, dst, src_ordinal, src, bytes, &e);
    gpu_context_back(dst_ordinal);
    gpu_context_back(src_ordinal);
    return rc < 0 ? fail(&e, err) : rc;
}


static int mapped(int ordinal, size_t bytes, void **host, void **dev, cm_error_t *err)
{
    cm_error_t e = {0};
    return back(ordinal, gpu_mem_mapped(ordinal, bytes, host, dev, &e)) ? fail(&e, err) : 0;
}

static int wait(int ordinal, cm_error_t *err)
{
    return back(ordinal, gpu_mem_wait(ordinal, err));
}

static int mem_info(int ordinal, size_t *free_bytes, size_t *total_bytes, cm_error_t *err)
{
    return back(ordinal, gpu_mem_info(ordinal, free_bytes, total_bytes, err));
}

static void *kernel(int ordinal, const char *source, const char *options, const char *name,
                    cm_error_t *err)
{
    cm_error_t e = {0};
    void *fn = NULL;
    gpu_program_t *p = gpu_program_get(source, options, &e);
    if (p)
        fn = gpu_program_kernel(p, ordinal, name, &e);
    gpu_context_back(ordinal);
    if (!fn)
        CM_ERROR(err, e.code == GPU_E_NO_GPU || e.code == GPU_E_NO_LIBRARY ||
                              e.code == GPU_E_INVALID ? BK_E_DEVICE : BK_E_KERNEL,
                 "%s", e.text);
    return fn;
}

static int launch(int ordinal, void *fn, const unsigned grid[3], const unsigned block[3],
                  unsigned shared, void **args, const char *what, cm_error_t *err)
{
    cm_error_t e = {0};
    if (back(ordinal, gpu_program_launch(ordinal, fn, grid, block, shared, args, what, &e)) == 0)
        return 0;
    CM_ERROR(err, e.code == 2 ? BK_E_MEMORY : BK_E_DEVICE, "%s", e.text);
    return -1;
}

static int units(int ordinal)
{
    return gpu_program_sm_count(ordinal);
}

static int gemm(int ordinal, const bk_gemm_t *g, cm_error_t *err)
{
    return back(ordinal, gpu_blas_gemm(ordinal, g, err));
}

static int dot(int ordinal, int type, int n, const void *x, int incx, const void *y, int incy,
               void *result, cm_error_t *err)
{
    return back(ordinal, gpu_blas_dot(ordinal, type, n, x, incx, y, incy, result, err));
}

static int fft(int ordinal, const bk_fft_t *f, cm_error_t *err)
{
    return back(ordinal, gpu_fft_run(ordinal, f, err));
}

static int lapack(int ordinal, const bk_lapack_t *l, cm_error_t *err)
{
    return back(ordinal, gpu_lapack_run(ordinal, l, err));
}

void *bk_gpu_timer_new(void)
{
    return gpu_timer_new();
}

int bk_gpu_timer_start(void *timer, cm_error_t *err)
{
    return gpu_timer_start(timer, err);
}

int bk_gpu_timer_stop(void *timer, double *seconds, cm_error_t *err)
{
    return gpu_timer_stop(timer, seconds, err);
}

void bk_gpu_timer_free(void *timer)
{
    gpu_timer_free(timer);
}

int bk_gpu_synchronize(int ordinal, cm_error_t *err)
{
    (void)ordinal; /* the simulator's kernels are done at the call */
    return gpu_synchronize(err);
}

int bk_gpu_cell_launch(const bk_cell_launch_t *l, cm_error_t *err)
{
    return gpu_launch(l->name, l->grid, l->block, l->shared, l->stream, l->nargs, l->args,
                      l->sizes, l->kinds, l->types, l->cell, l->line, err);
}

/* Kernel cells launch on the selected GPU: its module of the cell is
 * loaded there at the first launch (gpu_module keeps one per GPU). */
static int cell_launch(int ordinal, const bk_cell_launch_t *l, cm_error_t *err)
{
    int selected = gpu_selected();
    if (ordinal != selected) {
        CM_ERROR(err, BK_E_DEVICE,
                 "cell %d, line %d: %s cannot launch on gpu%d: kernel cells run on the selected "
                 "device (%%device gpu%d first)",
                 l->cell, l->line, l->name, ordinal, ordinal);
        return -1;
    }
    return bk_gpu_cell_launch(l, err);
}

/* Waits for GPU ordinal's queued work (in its context). */
static int synchronize(int ordinal, cm_error_t *err)
{
    if (gpu_context_use(ordinal, err))
        return -1;
    return back(ordinal, gpu_synchronize(err));
}

static int count(void)
{
    return gpu_device_count();
}

static void info(int ordinal, bk_device_info_t *info)
{
    gpu_info_t all;
    if (ordinal >= gpu_probe(&all))
        return;
    const gpu_device_info_t *d = &all.devices[ordinal];
    snprintf(info->name, sizeof info->name, "%s", d->name);
    info->major = d->major;
    info->minor = d->minor;
    info->sm_count = d->sm_count;
    info->total_mem = d->total_mem;
}

const bk_ops_t bk_cuda_ops = {
    .prefix = "gpu", .kind = "GPU", .clock = "CUDA events", .lang = BK_LANG_CUDA, .f16_blas = 1, .streams = 1,
    .runs_kernel_cells = 1,
    .count = count, .info = info,
    .alloc = alloc, .free = release, .zero = zero, .to_device = to_device, .to_host = to_host,
    .copy = copy, .mem_info = mem_info, .peer = peer, .peer_link = gpu_mem_peer_link,
    .mapped = mapped, .wait = wait,
    .allreduce = gpu_nccl_allreduce, .allreduce_library = gpu_nccl_library,
    .mark = gpu_mem_mark, .mark_pending = gpu_mem_mark_pending, .mark_drop = gpu_mem_mark_drop,
    .kernel = kernel, .launch = launch, .units = units, .cub = gpu_program_cccl,
    .cell_launch = cell_launch,
    .timer_new = bk_gpu_timer_new, .timer_start = bk_gpu_timer_start,
    .timer_stop = bk_gpu_timer_stop, .timer_free = bk_gpu_timer_free,
    .clock_start = gpu_kernel_clock_start, .clock_stop = gpu_kernel_clock_stop,
    .synchronize = synchronize,
    .gemm = gemm, .dot = dot,
    .fft = fft, .lapack = lapack,
};
