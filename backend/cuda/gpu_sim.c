/* gpu_sim: the CUDA simulator (backend/sim) as the backend gpu.h serves when
 * there is no GPU or the CPU is selected. The simulator knows nothing of
 * backend/cuda/; this file says when it is used and what it reports. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"
#include "sim.h"

static int cpu_selected; /* %device cpu */

int gpu_sim_cpu_selected(void)
{
    return cpu_selected;
}

void gpu_sim_select_cpu(int on)
{
    cpu_selected = on;
}

int gpu_simulating(void)
{
    int major, minor;
    return cpu_selected || !gpu_device_target(&major, &minor);
}

void gpu_sim_note(void)
{
    static int noted;
    if (noted)
        return;
    noted = 1;
    if (cpu_selected)
        fprintf(stderr, "note: the CPU is selected: kernels run on the CUDA simulator "
                        "(docs/simulator.md)\n");
    else
        fprintf(stderr, "note: no GPU found: kernels run on the CUDA simulator "
                        "(docs/simulator.md)\n");
    fflush(stderr);
}

void gpu_sim_device(gpu_device_info_t *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", sim_device_name());
    info->major = 8;
    info->minor = 0;
    info->sm_count = sim_cores();
    info->total_mem = sim_total_memory();
}

void gpu_sim_properties(gpu_device_props_t *props)
{
    memset(props, 0, sizeof *props);
    snprintf(props->name, sizeof props->name, "%s", sim_device_name());
    props->totalGlobalMem = sim_total_memory();
    props->sharedMemPerBlock = (size_t)sim_device_attribute(SIM_ATTR_SHARED_PER_BLOCK);
    props->regsPerBlock = sim_device_attribute(SIM_ATTR_REGISTERS_PER_BLOCK);
    props->warpSize = sim_device_attribute(SIM_ATTR_WARP_SIZE);
    props->memPitch = (size_t)sim_device_attribute(SIM_ATTR_MAX_PITCH);
    props->maxThreadsPerBlock = sim_device_attribute(SIM_ATTR_MAX_THREADS_PER_BLOCK);
    for (int i = 0; i < 3; i++) {
        props->maxThreadsDim[i] = sim_device_attribute(SIM_ATTR_MAX_BLOCK_DIM_X + i);
        props->maxGridSize[i] = sim_device_attribute(SIM_ATTR_MAX_GRID_DIM_X + i);
    }
    props->totalConstMem = (size_t)sim_device_attribute(SIM_ATTR_CONSTANT_MEMORY);
    props->major = sim_device_attribute(SIM_ATTR_MAJOR);
    props->minor = sim_device_attribute(SIM_ATTR_MINOR);
    props->multiProcessorCount = sim_device_attribute(SIM_ATTR_MULTIPROCESSORS);
    props->unifiedAddressing = sim_device_attribute(SIM_ATTR_UNIFIED_ADDRESSING);
    props->maxThreadsPerMultiProcessor = sim_device_attribute(SIM_ATTR_THREADS_PER_MULTIPROCESSOR);
    props->sharedMemPerMultiprocessor =
        (size_t)sim_device_attribute(SIM_ATTR_SHARED_PER_MULTIPROCESSOR);
    props->managedMemory = sim_device_attribute(SIM_ATTR_MANAGED_MEMORY);
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

void gpu_sim_track(void *ptr, size_t bytes)
{
    sim_track(ptr, bytes);
}

void gpu_sim_untrack(void *ptr)
{
    sim_untrack(ptr);
}

void *gpu_sim_alloc(size_t bytes)
{
    return sim_array_alloc(bytes);
}

void gpu_sim_free(void *ptr)
{
    sim_array_free(ptr);
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
