/* bk_sim: the simulator's table. A simulated device keeps its memory in
 * the host's (kernels run in this process), so memory, array kernels and
 * BLAS are the CPU's (bk_cpu.c, whose host memory is the simulator's own
 * mapping, known to its memcheck); what is its own is its description.
 * Kernel cells reach the simulator through backend/cuda (gpu_sim.c), and
 * so do their timers and the kernel clock (gpu_timing).
 *
 * The simulator presents N devices (GPUC_SIM_DEVICES=N at start, %sim
 * --devices N later; 1 by default), sim0..simN-1: each its own pool,
 * label and arrays, which the array library keeps apart as it keeps GPUs
 * apart (a mixed operation is a DeviceError), so the several-GPU paths run
 * where there is no GPU. Their memory is host memory all the same: a copy
 * between two of them is a plain copy. */
#include <stdio.h>
#include <stdlib.h>

#include "bk_internal.h"
#include "gpu.h"
#include "sim.h"

static int ndevices; /* 0: not read from GPUC_SIM_DEVICES yet */

int bk_sim_device_count(void)
{
    if (!ndevices) {
        const char *v = getenv("GPUC_SIM_DEVICES");
        int n = v ? atoi(v) : 1;
        ndevices = n < 1 ? 1 : n > BK_MAX_ORDINALS ? BK_MAX_ORDINALS : n;
    }
    return ndevices;
}

void bk_sim_count_set(int n)
{
    ndevices = n;
}

/* Simulated kernels run in this process on the arrays of the simulated
 * device selected (the session checks each array argument first). */
static int cell_launch(int ordinal, const bk_cell_launch_t *l, cm_error_t *err)
{
    (void)ordinal;
    return bk_gpu_cell_launch(l, err);
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
    .count = bk_sim_device_count, .info = info,
    .alloc = bk_host_alloc, .free = bk_host_free, .zero = bk_host_zero,
    .to_device = bk_host_move, .to_host = bk_host_move, .copy = bk_host_move,
    .mem_info = bk_host_info,
    .kernel = bk_host_kernel, .units = bk_host_units, .cell_launch = cell_launch,
    .timer_new = bk_gpu_timer_new, .timer_start = bk_gpu_timer_start,
    .timer_stop = bk_gpu_timer_stop, .timer_free = bk_gpu_timer_free,
    .clock_start = gpu_kernel_clock_start, .clock_stop = gpu_kernel_clock_stop,
    .synchronize = bk_gpu_synchronize,
    .gemm = bk_host_gemm, .dot = bk_host_dot,
    .fft = bk_host_fft, .lapack = bk_host_lapack,
};
