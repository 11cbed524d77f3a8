/* gpu_sim: the CUDA simulator (backend/sim) as the backend gpu.h serves when
 * there is no GPU or the CPU is selected (gpu_simulating, in gpu_device.c,
 * says when). The simulator knows nothing of backend/cuda/; this file
 * passes its settings on and serves its runtime API to host cells. Calls
 * run one way: gpu_sim -> gpu_device. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"
#include "sim.h"

void gpu_sim_note(void)
{
    static int noted;
    if (noted)
        return;
    noted = 1;
    if (gpu_device_cpu_selected())
        fprintf(stderr, "note: the CPU is selected: kernels run on the CUDA simulator "
                        "(docs/simulator.md)\n");
    else
        fprintf(stderr, "note: no GPU found: kernels run on the CUDA simulator "
                        "(docs/simulator.md)\n");
    fflush(stderr);
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
