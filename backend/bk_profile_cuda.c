/* bk_profile_cuda: the GPU's profiler (bk_profile_internal.h), over CUPTI
 * (backend/cuda/gpu_cupti.c). */
#include "bk_profile_internal.h"

static int start(int ordinal, int mode, bk_profile_t *p, cm_error_t *err)
{
    (void)ordinal;
    (void)mode;
    (void)p;
    CM_ERROR(err, BK_E_DEVICE, "profiling a GPU needs CUPTI, which is not loaded yet");
    return -1;
}

static int stop(bk_profile_t *p, cm_error_t *err)
{
    (void)p;
    (void)err;
    return 0;
}

const bk_prof_backend_t bk_prof_cuda = {start, stop, NULL, NULL};
