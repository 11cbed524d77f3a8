/* gpu_device: which GPUs there are, which one gpuc uses, and their primary
 * contexts, each retained lazily at the first use that needs it (a launch,
 * a module load, an array on it), never by gpu_probe, and kept: selecting
 * another device leaves the others' arrays and modules valid. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu_cublas.h"
#include "gpu_cudart.h"
#include "gpu_internal.h"
#include "gpu_nvrtc.h"
#include "sim.h"

static struct {
    int probed;
    int ok;                    /* driver loaded, cuInit done, devices > 0 */
    int driver_version;
    int count;
    int selected;
    char reason[CM_ERROR_TEXT];
    gpu_cucontext_t ctx[GPU_MAX_DEVICES]; /* primary contexts retained (kept) */
    int cc[GPU_MAX_DEVICES];   /* compute capability major * 100 + minor, asked once
                                * (every launch asks gpu_simulating); 0 not yet */
    int cpu_selected;          /* gpu_select(GPU_DEVICE_CPU), %device cpu */
} dev = {.selected = 0};

static struct {
    gpu_context_fn fn;
    void *user;
} listeners[GPU_CONTEXT_LISTENERS];
static int nlisteners;

int gpu_device_on_context(gpu_context_fn fn, void *user)
{
    for (int i = 0; i < nlisteners; i++)
        if (listeners[i].fn == fn && listeners[i].user == user)
            return 0;
    if (nlisteners == GPU_CONTEXT_LISTENERS)
        return -1;
    listeners[nlisteners].fn = fn;
    listeners[nlisteners].user = user;
    nlisteners++;
    return 0;
}

/* Tells every listener; the first failure stops it. 0 / -1 with err. */
static int notify(gpu_context_event_t event, cm_error_t *err)
{
    for (int i = 0; i < nlisteners; i++)
        if (listeners[i].fn(event, listeners[i].user, err))
            return -1;
    return 0;
}

static void probe_driver(void)
{
    if (dev.probed) /* every launch comes here: nothing before this test */
        return;
    cm_error_t err;
    cm_error_clear(&err);
    dev.probed = 1;
    const gpu_driver_t *d = gpu_driver_get(&err);
    if (!d) {
        snprintf(dev.reason, sizeof dev.reason, "%s", err.text);
        return;
    }
    d->cuDriverGetVersion(&dev.driver_version);
    if (GPU_CU_CHECK(d->cuInit(0), &err)) {
        snprintf(dev.reason, sizeof dev.reason, "cuInit failed: %.900s%s", err.text,
                 err.code == GPU_CU_ERROR_STUB_LIBRARY ? " (the CUDA stub library was loaded "
                                                         "instead of the driver)" : "");
        return;
    }
    if (GPU_CU_CHECK(d->cuDeviceGetCount(&dev.count), &err)) {
        snprintf(dev.reason, sizeof dev.reason, "cuDeviceGetCount failed: %.900s", err.text);
        return;
    }
    if (dev.count <= 0) {
        snprintf(dev.reason, sizeof dev.reason,
                 "the NVIDIA driver (%s) sees no CUDA device (check CUDA_VISIBLE_DEVICES)",
                 d->path);
        dev.count = 0;
        return;
    }
    dev.ok = 1;
}

void gpu_error_no_gpu(cm_error_t *err, const char *prefix)
{
    probe_driver();
    CM_ERROR(err, GPU_E_NO_GPU, "%sno GPU: %s", prefix ? prefix : "",
             dev.reason[0] ? dev.reason : "no usable device");
}

static int attr(const gpu_driver_t *d, int which, gpu_cudevice_t h)
{
    int v = 0;
    if (d->cuDeviceGetAttribute(&v, which, h) != GPU_CU_SUCCESS)
        v = 0;
    return v;
}

int gpu_probe(gpu_info_t *info)
{
    cm_error_t err;
    memset(info, 0, sizeof *info);
    info->selected = -1;
    probe_driver();
    const gpu_driver_t *d = gpu_driver_get(NULL);
    if (d)
        snprintf(info->driver_path, sizeof info->driver_path, "%s", d->path);
    info->driver_version = dev.driver_version;
    info->driver_present = dev.ok || (d && dev.count == 0 && !strstr(dev.reason, "cuInit"));
    if (dev.ok) {
        info->device_count = dev.count;
        info->selected = dev.selected;
        for (int i = 0; i < dev.count && i < GPU_MAX_DEVICES; i++) {
            gpu_device_info_t *di = &info->devices[i];
            gpu_cudevice_t h;
            if (d->cuDeviceGet(&h, i) != GPU_CU_SUCCESS)
                continue;
            d->cuDeviceGetName(di->name, sizeof di->name, h);
            d->cuDeviceTotalMem(&di->total_mem, h);
            di->major = attr(d, GPU_CU_ATTR_COMPUTE_CAPABILITY_MAJOR, h);
            di->minor = attr(d, GPU_CU_ATTR_COMPUTE_CAPABILITY_MINOR, h);
            di->sm_count = attr(d, GPU_CU_ATTR_MULTIPROCESSOR_COUNT, h);
        }
    } else {
        snprintf(info->reason, sizeof info->reason, "%s", dev.reason);
    }
    cm_error_clear(&err);
    const gpu_nvrtc_t *nv = gpu_nvrtc_get(&err);
    if (nv) {
        info->nvrtc_version = nv->version;
        snprintf(info->nvrtc_path, sizeof info->nvrtc_path, "%s", nv->path);
    }
    const gpu_cudart_t *rt = gpu_cudart_get(NULL);
    if (rt) {
        info->cudart_version = rt->version;
        snprintf(info->cudart_path, sizeof info->cudart_path, "%s", rt->path);
    }
    info->cublas_present = gpu_cublas_get(NULL) != NULL;
    return info->device_count;
}

int gpu_device_target(int *major, int *minor)
{
    probe_driver();
    if (!dev.ok || dev.selected < 0 || dev.selected >= GPU_MAX_DEVICES)
        return 0;
    int *cc = &dev.cc[dev.selected];
    if (!*cc) { /* a device's capability never changes: the driver is asked once */
        const gpu_driver_t *d = gpu_driver_get(NULL);
        gpu_cudevice_t h;
        if (d->cuDeviceGet(&h, dev.selected) != GPU_CU_SUCCESS)
            return 0;
        int ma = attr(d, GPU_CU_ATTR_COMPUTE_CAPABILITY_MAJOR, h);
        int mi = attr(d, GPU_CU_ATTR_COMPUTE_CAPABILITY_MINOR, h);
        if (ma <= 0)
            return 0;
        *cc = ma * 100 + mi;
    }
    *major = *cc / 100;
    *minor = *cc % 100;
    return 1;
}

/* The primary context of device, retained at its first use and kept for
 * the process: arrays, modules and handles made in it stay valid while
 * another device is selected. NULL with err. */
static gpu_cucontext_t context_of(const gpu_driver_t *d, int device, cm_error_t *err)
{
    if (device < 0 || device >= dev.count || device >= GPU_MAX_DEVICES) {
        CM_ERROR(err, GPU_E_INVALID, "no device %d: there %s %d (gpu0..gpu%d)", device,
                 dev.count == 1 ? "is" : "are", dev.count, dev.count - 1);
        return NULL;
    }
    if (!dev.ctx[device]) {
        gpu_cudevice_t h;
        gpu_cucontext_t ctx;
        if (GPU_CU_CHECK(d->cuDeviceGet(&h, device), err) ||
            GPU_CU_CHECK(d->cuDevicePrimaryCtxRetain(&ctx, h), err))
            return NULL;
        dev.ctx[device] = ctx;
    }
    return dev.ctx[device];
}

int gpu_context_use(int device, cm_error_t *err)
{
    probe_driver();
    if (!dev.ok) {
        gpu_error_no_gpu(err, "");
        return -1;
    }
    const gpu_driver_t *d = gpu_driver_get(err);
    gpu_cucontext_t ctx = d ? context_of(d, device, err) : NULL, current = NULL;
    if (!ctx)
        return -1;
    /* asked each time, not remembered: a host cell's cudaSetDevice changes it too */
    if (d->cuCtxGetCurrent(&current) == GPU_CU_SUCCESS && current == ctx)
        return 0;
    return GPU_CU_CHECK(d->cuCtxSetCurrent(ctx), err);
}

void gpu_context_back(int device)
{
    /* also when device is the selected one: an earlier operation may have
     * been interrupted before it came back */
    (void)device;
    if (dev.ok && !dev.cpu_selected) /* retained if work on another GPU came first */
        gpu_context_use(dev.selected, NULL);
}

void *gpu_context_handle(int device)
{
    return device >= 0 && device < GPU_MAX_DEVICES ? dev.ctx[device] : NULL;
}

int gpu_context_ensure(cm_error_t *err)
{
    return gpu_context_use(dev.selected, err);
}

int gpu_device_count(void)
{
    probe_driver();
    return dev.ok ? dev.count : 0;
}

int gpu_selected(void)
{
    probe_driver();
    return dev.ok ? dev.selected : -1;
}

int gpu_select(int device, cm_error_t *err)
{
    if (device == GPU_DEVICE_CPU) {
        dev.cpu_selected = 1;
        return 0;
    }
    probe_driver();
    if (!dev.ok) {
        gpu_error_no_gpu(err, "cannot select a device: ");
        return -1;
    }
    if (device < 0 || device >= dev.count) {
        CM_ERROR(err, GPU_E_INVALID, "no device %d: there %s %d (0..%d)", device,
                 dev.count == 1 ? "is" : "are", dev.count, dev.count - 1);
        return -1;
    }
    if (device != dev.selected) {
        dev.selected = device;
        if (notify(GPU_CONTEXT_LEAVING, err))
            return -1;
    }
    const gpu_cudart_t *rt = gpu_cudart_get(NULL);
    if (rt && GPU_CUDART_CHECK(rt->cudaSetDevice(device), err))
        return -1;
    if (gpu_context_ensure(err))
        return -1;
    dev.cpu_selected = 0;
    return notify(GPU_CONTEXT_READY, err);
}

int gpu_device_cpu_selected(void)
{
    return dev.cpu_selected;
}

int gpu_simulating(void)
{
    int major, minor;
    return dev.cpu_selected || !gpu_device_target(&major, &minor);
}

void gpu_device_sim_properties(gpu_device_props_t *props)
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

int gpu_device_properties(gpu_device_props_t *props, int device)
{
    if (gpu_simulating()) {
        gpu_device_sim_properties(props);
        return device == 0 ? 0 : 101;
    }
    probe_driver();
    memset(props, 0, sizeof *props);
    if (!dev.ok)
        return 100; /* cudaErrorNoDevice */
    const gpu_driver_t *d = gpu_driver_get(NULL);
    gpu_cudevice_t h;
    if (device < 0 || device >= dev.count || d->cuDeviceGet(&h, device) != GPU_CU_SUCCESS)
        return 101; /* cudaErrorInvalidDevice */
    d->cuDeviceGetName(props->name, sizeof props->name, h);
    d->cuDeviceTotalMem(&props->totalGlobalMem, h);
    props->sharedMemPerBlock = (size_t)attr(d, GPU_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, h);
    props->regsPerBlock = attr(d, GPU_CU_ATTR_MAX_REGISTERS_PER_BLOCK, h);
    props->warpSize = attr(d, GPU_CU_ATTR_WARP_SIZE, h);
    props->memPitch = (size_t)attr(d, GPU_CU_ATTR_MAX_PITCH, h);
    props->maxThreadsPerBlock = attr(d, GPU_CU_ATTR_MAX_THREADS_PER_BLOCK, h);
    for (int i = 0; i < 3; i++) {
        props->maxThreadsDim[i] = attr(d, GPU_CU_ATTR_MAX_BLOCK_DIM_X + i, h);
        props->maxGridSize[i] = attr(d, GPU_CU_ATTR_MAX_GRID_DIM_X + i, h);
    }
    props->clockRate = attr(d, GPU_CU_ATTR_CLOCK_RATE, h);
    props->totalConstMem = (size_t)attr(d, GPU_CU_ATTR_TOTAL_CONSTANT_MEMORY, h);
    props->major = attr(d, GPU_CU_ATTR_COMPUTE_CAPABILITY_MAJOR, h);
    props->minor = attr(d, GPU_CU_ATTR_COMPUTE_CAPABILITY_MINOR, h);
    props->multiProcessorCount = attr(d, GPU_CU_ATTR_MULTIPROCESSOR_COUNT, h);
    props->integrated = attr(d, GPU_CU_ATTR_INTEGRATED, h);
    props->concurrentKernels = attr(d, GPU_CU_ATTR_CONCURRENT_KERNELS, h);
    props->pciBusID = attr(d, GPU_CU_ATTR_PCI_BUS_ID, h);
    props->pciDeviceID = attr(d, GPU_CU_ATTR_PCI_DEVICE_ID, h);
    props->asyncEngineCount = attr(d, GPU_CU_ATTR_ASYNC_ENGINE_COUNT, h);
    props->unifiedAddressing = attr(d, GPU_CU_ATTR_UNIFIED_ADDRESSING, h);
    props->memoryClockRate = attr(d, GPU_CU_ATTR_MEMORY_CLOCK_RATE, h);
    props->memoryBusWidth = attr(d, GPU_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH, h);
    props->l2CacheSize = attr(d, GPU_CU_ATTR_L2_CACHE_SIZE, h);
    props->maxThreadsPerMultiProcessor = attr(d, GPU_CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR, h);
    props->sharedMemPerMultiprocessor =
        (size_t)attr(d, GPU_CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, h);
    props->managedMemory = attr(d, GPU_CU_ATTR_MANAGED_MEMORY, h);
    return 0;
}

void gpu_device_note_sim(void)
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

int gpu_runtime_load(cm_error_t *err)
{
    if (gpu_simulating())
        return 0; /* the simulator serves the runtime API (gpu_runtime_symbols) */
    return gpu_cudart_get(err) ? 0 : -1;
}

void *gpu_runtime_handle(void)
{
    const gpu_cudart_t *rt = gpu_cudart_get(NULL);
    return rt ? rt->handle : NULL;
}

int gpu_runtime_library(char *path, size_t path_len)
{
    const gpu_cudart_t *rt = gpu_cudart_get(NULL);
    if (path_len)
        path[0] = '\0';
    if (!rt)
        return 0;
    Dl_info info;
    snprintf(path, path_len, "%s",
             dladdr((void *)rt->cudaRuntimeGetVersion, &info) && info.dli_fname ? info.dli_fname
                                                                                 : rt->path);
    return rt->version;
}
