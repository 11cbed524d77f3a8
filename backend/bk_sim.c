/* bk_sim: the simulator's table. A simulated device keeps its memory in
 * the host's (kernels run in this process), so memory, array kernels and
 * BLAS are the CPU's (bk_cpu.c, whose host memory is the simulator's own
 * mapping, known to its memcheck); what is its own is its description.
 * Kernel cells reach the simulator through backend/cuda (gpu_sim.c), and
 * so do their timers and the kernel clock (gpu_timing). */
#include <stdio.h>

#include "bk_internal.h"
#include "gpu.h"
#include "sim.h"

static int one(void)
{
    return 1;
}

static void info(int ordinal, bk_device_info_t *info)
{
    (void)ordinal;
    snprintf(info->name, sizeof info->name, "%s", sim_device_name());
    info->major = 8;
    info->minor = 0;
    info->sm_count = sim_cores();
    info->total_mem = sim_total_memory();
}

const bk_ops_t bk_sim_ops = {
    .prefix = "sim", .kind = "GPU", .how = "simulated on the CPU", .clock = "simulated", .host_memory = 1, .lang = BK_LANG_C,
    .runs_kernel_cells = 1,
    .count = one, .info = info,
    .alloc = bk_host_alloc, .free = bk_host_free, .zero = bk_host_zero,
    .to_device = bk_host_move, .to_host = bk_host_move, .copy = bk_host_move,
    .mem_info = bk_host_info,
    .kernel = bk_host_kernel, .units = bk_host_units,
    .timer_new = bk_gpu_timer_new, .timer_start = bk_gpu_timer_start,
    .timer_stop = bk_gpu_timer_stop, .timer_free = bk_gpu_timer_free,
    .clock_start = gpu_kernel_clock_start, .clock_stop = gpu_kernel_clock_stop,
    .synchronize = bk_gpu_synchronize,
    .gemm = bk_host_gemm, .dot = bk_host_dot,
    .fft = bk_host_fft, .lapack = bk_host_lapack,
};
