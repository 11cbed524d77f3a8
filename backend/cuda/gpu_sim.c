/* gpu_sim: the CUDA simulator (backend/sim) as the backend gpu.h serves when
 * there is no GPU or the CPU is selected (gpu_simulating, in gpu_device.c,
 * says when). The simulator knows nothing of backend/cuda/; this file
 * passes its settings on and serves its runtime API to host cells. Calls
 * run one way: gpu_sim -> gpu_device. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "sim.h"
#include "sim_prelude.h"

const char *gpu_sim_prelude(void)
{
    return sim_prelude;
}

void gpu_sim_rewrite(const char *src, cm_buf_t *out)
{
    sim_rewrite_source(src, out);
}

void gpu_sim_program_bind(void (*bind)(const void *hooks))
{
    bind(sim_hooks());
}

int gpu_sim_program_kernel(int cell, int built_in, const char *name, void (*entry)(void **),
                           char *shared, size_t shared_bytes, cm_error_t *err)
{
    gpu_kernel_info_t info = {0};
    snprintf(info.name, sizeof info.name, "%s", name);
    snprintf(info.lowered, sizeof info.lowered, "%s", name);
    gpu_image_t img = {0};
    int loaded;
    double ms;
    if (gpu_module_add(cell, &img, &info, 1, 0, NULL, NULL, NULL, &loaded, &ms, err))
        return -1;
    /* the object's lines are "cell[BUILT_IN]" (rt_native's diagnostics):
     * part BUILT_IN of the module is the running cell */
    int *cells = calloc((size_t)(built_in > 0 ? built_in : 1), sizeof *cells);
    if (cells && built_in > 0)
        cells[built_in - 1] = cell;
    gpu_module_set_sim(name, entry, cells, cells && built_in > 0 ? built_in : 0, shared,
                       shared_bytes);
    gpu_module_sim_unchecked(name);
    free(cells);
    return 0;
}

void gpu_sim_set_seed(long long seed)
{
    sim_set_seed(seed);
}

long long gpu_sim_seed(void)
{
    return sim_seed();
}

void gpu_sim_set_threads(int n)
{
    sim_set_threads(n);
}

int gpu_sim_threads(int *is_default)
{
    if (is_default)
        *is_default = sim_threads() == sim_default_threads();
    return sim_threads();
}

void gpu_sim_set_checks(int memcheck, int racecheck)
{
    sim_set_checks(memcheck, racecheck);
}

void gpu_sim_checks(int *memcheck, int *racecheck)
{
    sim_checks(memcheck, racecheck);
}

const gpu_symbol_t *gpu_runtime_symbols(void)
{
    static gpu_symbol_t table[64];
    if (!gpu_simulating())
        return NULL;
    if (!table[0].name) {
        const sim_symbol_t *s = sim_runtime_symbols();
        for (int i = 0; s[i].name && i < 63; i++)
            table[i] = (gpu_symbol_t){s[i].name, s[i].addr};
    }
    return table;
}

void *gpu_runtime_function(const char *name)
{
    if (gpu_simulating())
        return (void *)sim_runtime_function(name);
    void *h = gpu_runtime_handle();
    return h ? dlsym(h, name) : NULL;
}
