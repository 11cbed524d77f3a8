/* gpu_error: what GPU failures cost the user, in words: sticky errors (the
 * context is gone for the rest of the process, as seen on the GPU machine:
 * even cuDevicePrimaryCtxReset does not bring it back) and out of memory
 * (nothing else lost). Also gpuc's record of the device allocations it
 * knows, so a sticky error can list what went with the context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

typedef struct tracked {
    const void *ptr;
    size_t bytes;
    char what[96];
} tracked_t;

static tracked_t *allocs;
static int nallocs, cap_allocs;

void gpu_track_alloc(const void *device_ptr, size_t bytes, const char *what)
{
    if (nallocs == cap_allocs) {
        int cap = cap_allocs ? cap_allocs * 2 : 32;
        tracked_t *grown = realloc(allocs, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        allocs = grown;
        cap_allocs = cap;
    }
    tracked_t *t = &allocs[nallocs++];
    t->ptr = device_ptr;
    t->bytes = bytes;
    snprintf(t->what, sizeof t->what, "%s", what ? what : "(unnamed)");
}

void gpu_track_free(const void *device_ptr)
{
    for (int i = 0; i < nallocs; i++) {
        if (allocs[i].ptr == device_ptr) {
            allocs[i] = allocs[--nallocs];
            return;
        }
    }
}

int gpu_error_is_sticky(int cu_result)
{
    switch (cu_result) {
    case GPU_CU_ERROR_ECC_UNCORRECTABLE:
    case GPU_CU_ERROR_CONTAINED:
    case GPU_CU_ERROR_ILLEGAL_ADDRESS:
    case GPU_CU_ERROR_HARDWARE_STACK_ERROR:
    case GPU_CU_ERROR_ILLEGAL_INSTRUCTION:
    case GPU_CU_ERROR_MISALIGNED_ADDRESS:
    case GPU_CU_ERROR_INVALID_ADDRESS_SPACE:
    case GPU_CU_ERROR_INVALID_PC:
    case GPU_CU_ERROR_LAUNCH_FAILED:
    case GPU_CU_ERROR_ASSERT:
    case GPU_CU_ERROR_TENSOR_MEMORY_LEAK:
    case GPU_CU_ERROR_EXTERNAL_DEVICE:
        return 1;
    default:
        return 0;
    }
}

static void human(size_t bytes, char *buf, size_t len)
{
    double v = (double)bytes;
    const char *unit = "bytes";
    if (bytes >= (1ull << 30)) {
        v /= (double)(1ull << 30);
        unit = "GiB";
    } else if (bytes >= (1ull << 20)) {
        v /= (double)(1ull << 20);
        unit = "MiB";
    } else if (bytes >= (1ull << 10)) {
        v /= 1024.0;
        unit = "KiB";
    }
    if (unit[0] == 'b')
        snprintf(buf, len, "%zu bytes", bytes);
    else
        snprintf(buf, len, "%.2f %s", v, unit);
}

void gpu_sticky_message(int cu_result, char *buf, size_t len)
{
    char text[300];
    gpu_driver_error_text(cu_result, text, sizeof text);
    int n = snprintf(buf, len, "%s. ", text);
    if (n >= 0 && (size_t)n < len)
        gpu_sticky_cost(buf + n, len - (size_t)n);
}

void gpu_sticky_cost(char *buf, size_t len)
{
    char size[32];
    size_t total = 0, n = 0;
    for (int i = 0; i < nallocs; i++)
        total += allocs[i].bytes;
    human(total, size, sizeof size);
    n += (size_t)snprintf(buf, len,
                          "The GPU context is lost: this error is sticky, so every later "
                          "CUDA call in this process fails and the executor must restart. ");
    if (nallocs == 0) {
        n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
                              "Device memory allocated in host cells (cudaMalloc) is gone.");
        return;
    }
    n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
                          "Lost with it: %d device allocation%s (%s):", nallocs,
                          nallocs == 1 ? "" : "s", size);
    for (int i = 0; i < nallocs && n < len; i++) {
        human(allocs[i].bytes, size, sizeof size);
        n += (size_t)snprintf(buf + n, len - n, "%s %s (%s)", i ? "," : "", allocs[i].what, size);
    }
    if (n < len)
        snprintf(buf + n, len - n, ".");
}

void gpu_error_oom(cm_error_t *err, size_t bytes_asked, const char *what)
{
    char asked[32], freeb[32], totalb[32];
    size_t free_bytes = 0, total_bytes = 0;
    const gpu_driver_t *d = gpu_driver_get(NULL);
    gpu_cucontext_t ctx = NULL;
    human(bytes_asked, asked, sizeof asked);
    if (d && d->cuCtxGetCurrent(&ctx) == GPU_CU_SUCCESS && ctx &&
        d->cuMemGetInfo(&free_bytes, &total_bytes) == GPU_CU_SUCCESS) {
        human(free_bytes, freeb, sizeof freeb);
        human(total_bytes, totalb, sizeof totalb);
        CM_ERROR(err, GPU_CU_ERROR_OUT_OF_MEMORY,
                 "GPU out of memory%s%s: asked for %s (%zu bytes), %s free of %s; nothing else "
                 "was lost", what ? " in " : "", what ? what : "", asked, bytes_asked, freeb,
                 totalb);
    } else {
        CM_ERROR(err, GPU_CU_ERROR_OUT_OF_MEMORY,
                 "GPU out of memory%s%s: asked for %s (%zu bytes); nothing else was lost",
                 what ? " in " : "", what ? what : "", asked, bytes_asked);
    }
}
