/* %gpu [N]: the GPUs and the CUDA versions, or select device N. */
#include "rt_magic.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"

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
    for (int i = 0; i < info.device_count && i < GPU_MAX_DEVICES; i++) {
        const gpu_device_info_t *d = &info.devices[i];
        printf("%s %d: %s, compute capability %d.%d (sm_%d%d), %d SMs, %.1f GiB\n",
               i == info.selected ? "*" : " ", i, d->name, d->major, d->minor, d->major, d->minor,
               d->sm_count, (double)d->total_mem / (1 << 30));
    }
    if (!usable)
        printf("no GPU: %s\n", info.reason);
    return 0;
}
