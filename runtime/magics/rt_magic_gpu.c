/* %gpu [N]: the GPUs and the CUDA versions, or select device N; %device:
 * where new arrays go. */
#include "rt_magic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "ga_array.h"
#include "gpu.h"
#include "rt_cuda_header.h"

int rt_magic_gpu(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err)
{
    if (m->args_len) {
        int device = atoi(code + m->args);
        cm_error_t e = {0};
        if (gpu_select(device, &e) != 0)
            return rt_error_set(err, "UsageError", 0, 0, "%s", e.text);
    }
    gpu_info_t info;
    int usable = gpu_probe(&info);
    if (info.driver_present)
        printf("driver %d.%d", info.driver_version / 1000, info.driver_version % 1000 / 10);
    else
        printf("no NVIDIA driver");
    if (info.nvrtc_version)
        printf(", NVRTC %d.%d", info.nvrtc_version / 1000, info.nvrtc_version % 1000 / 10);
    if (info.cudart_version)
        printf(", CUDA runtime %d.%d", info.cudart_version / 1000,
               info.cudart_version % 1000 / 10);
    printf("\n");
    if (!usable)
        printf("no GPU: %s\n", info.reason);
    /* the devices kernel cells can run on; '*' where they run now */
    bk_device_t list[2 * BK_MAX_ORDINALS + 1], here = bk_kernel_device();
    int n = bk_devices(list, (int)(sizeof list / sizeof *list));
    for (int i = 0; i < n && i < (int)(sizeof list / sizeof *list); i++) {
        bk_device_info_t d;
        if (bk_device_info(list[i], &d, NULL) != 0 || !d.runs_kernel_cells)
            continue;
        printf("%s %s: %s, compute capability %d.%d (sm_%d%d), %d SMs, %.1f GiB%s\n",
               list[i] == here ? "*" : " ", d.label, d.name, d.major, d.minor, d.major, d.minor,
               d.sm_count, (double)d.total_mem / (1 << 30),
               list[i] == here && d.host_memory ? ": kernels run here, on the CUDA simulator (%sim)"
                                                : "");
    }
    printf("host cells declare the runtime API from %s\n", rt_cuda_header_source());
    return 0;
}

/* ---- %device ------------------------------------------------------------ */

/* The devices, one a line: where arrays go ('*') and kernels run, name,
 * memory, and which other devices each copies to directly. */
static void list_devices(void)
{
    bk_device_t list[2 * BK_MAX_ORDINALS + 1];
    bk_device_t home = bk_default_device(), runner = bk_kernel_device();
    int n = bk_devices(list, (int)(sizeof list / sizeof *list));
    if (n > (int)(sizeof list / sizeof *list))
        n = (int)(sizeof list / sizeof *list);
    for (int i = 0; i < n; i++) {
        bk_device_info_t d;
        if (bk_device_info(list[i], &d, NULL) != 0)
            continue;
        char total[32] = "", peers[160] = "";
        bk_bytes_text(d.total_mem, total, sizeof total);
        size_t used = 0;
        for (int k = 0; k < n; k++) {
            bk_device_info_t o;
            if (k == i || bk_backend(list[k]) != bk_backend(list[i]) ||
                bk_backend(list[i]) == BK_CPU || bk_device_info(list[k], &o, NULL) != 0)
                continue;
            if (used < sizeof peers)
                used += (size_t)snprintf(peers + used, sizeof peers - used, "%s%s %s",
                                         used ? ", " : "; ", o.label,
                                         bk_peer_link(list[i], list[k]) ? "peer"
                                                                        : "through the host");
        }
        printf("%s %-5s %s, %s%s%s%s\n", list[i] == home ? "*" : " ", d.label, d.name, total,
               d.how[0] ? ", " : "", d.how, peers);
        if (list[i] == runner && runner != home)
            printf("        (kernel cells run here)\n");
    }
    int gpus = 0;
    for (int i = 0; i < n; i++)
        gpus += bk_backend(list[i]) == BK_CUDA;
    if (gpus > 1) {
        const char *nccl = bk_allreduce_library(bk_device(BK_CUDA, 0));
        printf("ga_allreduce: %s%s\n", nccl ? "NCCL, " : "peer copies (no libnccl.so.2 found)",
               nccl ? nccl : "");
    }
}

int rt_magic_device(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    char arg[32] = "", dev[16];
    if (m->args_len) {
        if (m->args_len >= sizeof arg)
            return rt_error_set(err, "UsageError", cell_no, m->line,
                                "%%device: usage: %%device [cpu | gpu | gpuN | simN | N]");
        memcpy(arg, code + m->args, m->args_len);
        arg[m->args_len] = '\0';
        int device;
        char *end;
        if (strcmp(arg, "cpu") == 0) {
            device = GA_CPU;
        } else if (strcmp(arg, "gpu") == 0) {
            device = 0;
        } else {
            int sim = strncmp(arg, "sim", 3) == 0;
            const char *num = arg + (sim || strncmp(arg, "gpu", 3) == 0 ? 3 : 0);
            device = (int)strtol(num, &end, 10);
            if (*end || end == num || device < 0)
                return rt_error_set(err, "UsageError", cell_no, m->line,
                                    "%%device: '%s' is not a device: cpu, gpu, gpuN, simN or N",
                                    arg);
            if (sim)
                device = bk_device(BK_SIM, device);
            if (device == BK_NO_DEVICE)
                device = BK_SIM_FIRST + BK_MAX_ORDINALS; /* named as no device below */
        }
        cm_error_t e = {0}; /* the CPU: kernels go to the simulator */
        bk_device_t d = bk_device_of_number(device, &e);
        if (d == BK_NO_DEVICE || bk_select(d, &e) != 0)
            return rt_error_set(err, "DeviceError", cell_no, m->line, "%%device %s: %s", arg,
                                e.text);
    } else {
        list_devices();
    }
    ga_device_text(bk_default_device(), dev, sizeof dev);
    printf("New arrays go to %s.\n", dev);
    return 0;
}
