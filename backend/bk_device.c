/* bk_device: device handles, the device list, where arrays go and kernel
 * cells run, and the dispatch to the backends' tables (see bk.h). */
#include <stdio.h>
#include <string.h>

#include "bk_internal.h"
#include "gpu.h"

static const bk_ops_t *const tables[BK_NBACKENDS] = {
    [BK_CPU] = &bk_cpu_ops, [BK_CUDA] = &bk_cuda_ops, [BK_SIM] = &bk_sim_ops};

static bk_device_t default_device = BK_NO_DEVICE; /* not decided yet */
static int sim_selected;                          /* the simulated device %device chose */

bk_device_t bk_device(bk_backend_t backend, int ordinal)
{
    if (ordinal < 0 || ordinal >= BK_MAX_ORDINALS)
        return BK_NO_DEVICE;
    switch (backend) {
    case BK_CPU: return ordinal == 0 ? BK_CPU_DEVICE : BK_NO_DEVICE;
    case BK_CUDA: return ordinal;
    case BK_SIM: return BK_SIM_FIRST + ordinal;
    default: return BK_NO_DEVICE;
    }
}

int bk_backend(bk_device_t d)
{
    if (d == BK_CPU_DEVICE)
        return BK_CPU;
    if (d >= 0 && d < BK_MAX_ORDINALS)
        return BK_CUDA;
    if (d >= BK_SIM_FIRST && d < BK_SIM_FIRST + BK_MAX_ORDINALS)
        return BK_SIM;
    return -1;
}

int bk_ordinal(bk_device_t d)
{
    int b = bk_backend(d);
    return b == BK_CPU ? 0 : b == BK_CUDA ? d : b == BK_SIM ? d - BK_SIM_FIRST : -1;
}

const bk_ops_t *bk_ops_of(bk_device_t d, int *ordinal, cm_error_t *err)
{
    int b = bk_backend(d);
    if (b < 0) {
        CM_ERROR(err, BK_E_DEVICE, "device %d does not exist", d);
        return NULL;
    }
    *ordinal = bk_ordinal(d);
    return tables[b];
}

int bk_host_memory(bk_device_t d)
{
    int b = bk_backend(d);
    return b < 0 || tables[b]->host_memory;
}

int bk_lang(bk_device_t d)
{
    int b = bk_backend(d);
    return b < 0 ? BK_LANG_C : tables[b]->lang;
}

int bk_f16_blas(bk_device_t d)
{
    int b = bk_backend(d);
    return b >= 0 && tables[b]->f16_blas;
}

void bk_device_text(bk_device_t d, char *buf, size_t len)
{
    int b = bk_backend(d);
    if (b < 0)
        snprintf(buf, len, "device %d", d);
    else if (b == BK_CPU)
        snprintf(buf, len, "%s", tables[b]->prefix); /* one CPU: "cpu", never "cpu0" */
    else
        snprintf(buf, len, "%s%d", tables[b]->prefix, bk_ordinal(d));
}

int bk_device_info(bk_device_t d, bk_device_info_t *info, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    memset(info, 0, sizeof *info);
    if (!o)
        return -1;
    info->device = d;
    bk_device_text(d, info->label, sizeof info->label);
    snprintf(info->kind, sizeof info->kind, "%s", o->kind);
    snprintf(info->how, sizeof info->how, "%s", o->how ? o->how : "");
    snprintf(info->clock, sizeof info->clock, "%s", o->clock);
    info->host_memory = o->host_memory;
    info->lang = o->lang;
    info->f16_blas = o->f16_blas;
    info->streams = o->streams;
    info->runs_kernel_cells = o->runs_kernel_cells;
    o->info(ord, info);
    return 0;
}

int bk_devices(bk_device_t *out, int max)
{
    static const bk_backend_t order[] = {BK_CPU, BK_CUDA, BK_SIM};
    int n = 0;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        int count = tables[order[i]]->count();
        for (int k = 0; k < count; k++, n++)
            if (n < max)
                out[n] = bk_device(order[i], k);
    }
    return n;
}

bk_device_t bk_default_device(void)
{
    if (default_device == BK_NO_DEVICE) {
        gpu_info_t info;
        default_device = gpu_probe(&info) && info.selected >= 0 ? bk_device(BK_CUDA, info.selected)
                                                                : BK_CPU_DEVICE;
    }
    return default_device;
}

void bk_set_default_device(bk_device_t d)
{
    default_device = d;
}

bk_device_t bk_kernel_device(void)
{
    if (sim_selected >= bk_sim_device_count())
        sim_selected = 0; /* %sim --devices took it away */
    return gpu_simulating() ? bk_device(BK_SIM, sim_selected)
                            : bk_device(BK_CUDA, gpu_selected());
}

/* "2 GPUs (gpu0..gpu1)" / "1 simulated device (sim0)" into buf. */
static void devices_text(bk_backend_t b, int count, char *buf, size_t len)
{
    const char *what = b == BK_CUDA ? "GPU" : "simulated device";
    if (count == 1)
        snprintf(buf, len, "1 %s (%s0)", what, tables[b]->prefix);
    else
        snprintf(buf, len, "%d %ss (%s0..%s%d)", count, what, tables[b]->prefix,
                 tables[b]->prefix, count - 1);
}

bk_device_t bk_device_of_number(int n, cm_error_t *err)
{
    if (n == BK_CPU_DEVICE)
        return n;
    int b = bk_backend(n);
    if (b == BK_SIM || (b == BK_CUDA && tables[BK_CUDA]->count() == 0 && n < BK_MAX_ORDINALS)) {
        /* where the host has no GPU, GPU numbers name the simulated devices */
        int ord = b == BK_SIM ? bk_ordinal(n) : n, count = bk_sim_device_count();
        if (ord < count)
            return bk_device(BK_SIM, ord);
        char have[64];
        devices_text(BK_SIM, count, have, sizeof have);
        CM_ERROR(err, BK_E_DEVICE,
                 "no device sim%d: %sthe simulator presents %s "
                 "(GPUC_SIM_DEVICES or %%sim --devices N for more)",
                 ord, b == BK_SIM ? "" : "there is no GPU here and ", have);
        return BK_NO_DEVICE;
    }
    int count = tables[BK_CUDA]->count();
    if (b == BK_CUDA && n < count)
        return n;
    char have[64];
    if (count)
        devices_text(BK_CUDA, count, have, sizeof have);
    else
        devices_text(BK_SIM, bk_sim_device_count(), have, sizeof have);
    if (n >= 0 && n < BK_MAX_ORDINALS)
        CM_ERROR(err, BK_E_DEVICE, "no device gpu%d: this host has %s", n, have);
    else
        CM_ERROR(err, BK_E_DEVICE,
                 "%d is not a device: GA_CPU (-1), or a GPU number 0..%d (%s here)", n,
                 count > 0 ? count - 1 : bk_sim_device_count() - 1, have);
    return BK_NO_DEVICE;
}

int bk_device_number(bk_device_t d)
{
    if (bk_backend(d) != BK_SIM)
        return d;
    int n = bk_ordinal(d);
    return bk_device_of_number(n, NULL) == d ? n : d;
}

int bk_select(bk_device_t d, cm_error_t *err)
{
    /* the CPU's kernel cells run on the simulator (gpu.h: GPU_DEVICE_CPU) */
    int b = bk_backend(d);
    if (b < 0) {
        CM_ERROR(err, BK_E_DEVICE, "device %d does not exist", d);
        return -1;
    }
    if (b == BK_SIM && bk_ordinal(d) >= bk_sim_device_count()) {
        bk_device_of_number(d, err); /* says which there are */
        return -1;
    }
    if (gpu_select(b == BK_CUDA ? bk_ordinal(d) : GPU_DEVICE_CPU, err) != 0)
        return -1;
    /* the CPU's kernel cells run on sim0; a simulated device is selected for both */
    sim_selected = b == BK_SIM ? bk_ordinal(d) : 0;
    bk_set_default_device(d);
    return 0;
}

int bk_streams(bk_device_t d)
{
    int b = bk_backend(d);
    return b >= 0 && tables[b]->streams;
}

int bk_can_access(bk_device_t runner, bk_device_t memory)
{
    /* simulated devices keep their memory apart (as GPUs do); the CPU's
     * memory is host memory every simulated device reaches */
    return runner == memory ||
           (bk_host_memory(runner) && (memory == BK_CPU_DEVICE || runner == BK_CPU_DEVICE));
}

int bk_mem_info(bk_device_t d, size_t *free_bytes, size_t *total_bytes, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    return o ? o->mem_info(ord, free_bytes, total_bytes, err) : -1;
}

void bk_bytes_text(size_t bytes, char *buf, size_t len)
{
    if (bytes >= (1u << 30))
        snprintf(buf, len, "%.2f GiB", (double)bytes / (1u << 30));
    else if (bytes >= (1u << 20))
        snprintf(buf, len, "%.2f MiB", (double)bytes / (1u << 20));
    else if (bytes >= 1024)
        snprintf(buf, len, "%.2f KiB", (double)bytes / 1024);
    else
        snprintf(buf, len, "%zu bytes", bytes);
}
