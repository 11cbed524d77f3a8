/* gpu_cupti_counters: %%profile --counters on a GPU — CUPTI's Range
 * Profiler (CUDA 13's cupti_range_profiler.h) with the Profiler Host API
 * (cupti_profiler_host.h) for the configuration and the values, as
 * NVIDIA's range_profiling sample does: the chip's name and the counters
 * it has, a configuration image for the metrics, a counter data image;
 * every kernel an auto range replayed by CUPTI (kernel replay) until all
 * its passes ran; after the cell, each range's metric values. See
 * gpu_cupti.h. */
#include "gpu_cupti.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_driver.h"
#include "gpu_internal.h"

#ifdef GPUC_HAVE_CUPTI
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#define MAX_RANGES 2048 /* kernels counted in one profile */

static const char *const METRICS[GPU_CUPTI_NMETRICS] = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
};

static struct {
    CUptiResult (*initialize)(CUpti_Profiler_Initialize_Params *);
    CUptiResult (*chip_name)(CUpti_Device_GetChipName_Params *);
    CUptiResult (*availability)(CUpti_Profiler_GetCounterAvailability_Params *);
    CUptiResult (*host_init)(CUpti_Profiler_Host_Initialize_Params *);
    CUptiResult (*host_deinit)(CUpti_Profiler_Host_Deinitialize_Params *);
    CUptiResult (*add_metrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params *);
    CUptiResult (*config_size)(CUpti_Profiler_Host_GetConfigImageSize_Params *);
    CUptiResult (*config_image)(CUpti_Profiler_Host_GetConfigImage_Params *);
    CUptiResult (*passes)(CUpti_Profiler_Host_GetNumOfPasses_Params *);
    CUptiResult (*evaluate)(CUpti_Profiler_Host_EvaluateToGpuValues_Params *);
    CUptiResult (*enable)(CUpti_RangeProfiler_Enable_Params *);
    CUptiResult (*disable)(CUpti_RangeProfiler_Disable_Params *);
    CUptiResult (*data_size)(CUpti_RangeProfiler_GetCounterDataSize_Params *);
    CUptiResult (*data_init)(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *);
    CUptiResult (*set_config)(CUpti_RangeProfiler_SetConfig_Params *);
    CUptiResult (*start)(CUpti_RangeProfiler_Start_Params *);
    CUptiResult (*stop)(CUpti_RangeProfiler_Stop_Params *);
    CUptiResult (*decode)(CUpti_RangeProfiler_DecodeData_Params *);
    CUptiResult (*data_info)(CUpti_RangeProfiler_GetCounterDataInfo_Params *);
    CUptiResult (*result_string)(CUptiResult, const char **);
    int loaded, initialized;
    /* one profile */
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *object;
    uint8_t *config, *data, *avail;
    size_t config_bytes, data_bytes;
    size_t npasses;
    int nmetrics; /* of METRICS configured: all, or all but the time */
} K;

static int failed(cm_error_t *err, const char *call, CUptiResult r)
{
    const char *s = NULL;
    if (K.result_string)
        K.result_string(r, &s);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        CM_ERROR(err, GPU_CUPTI_E_PRIVILEGES, "%s: %s: the driver lets only administrators read "
                 "GPU performance counters (an operator enables them for everyone with the "
                 "nvidia kernel module option NVreg_RestrictProfilingToAdminUsers=0)",
                 call, s ? s : "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    else
        CM_ERROR(err, 20004, "%s: %s (%d)", call, s ? s : "CUPTI error", (int)r);
    return -1;
}

static int load(cm_error_t *err)
{
    if (K.loaded)
        return 0;
    void *lib = gpu_cupti_library(err);
    if (!lib)
        return -1;
#define SYM(field, name)                                                                           \
    if (!(*(void **)&K.field = dlsym(lib, name))) {                                                \
        CM_ERROR(err, 20004, "%s lacks %s: counter mode needs CUPTI 13", gpu_cupti_path(), name);  \
        return -1;                                                                                 \
    }
    SYM(initialize, "cuptiProfilerInitialize");
    SYM(chip_name, "cuptiDeviceGetChipName");
    SYM(availability, "cuptiProfilerGetCounterAvailability");
    SYM(host_init, "cuptiProfilerHostInitialize");
    SYM(host_deinit, "cuptiProfilerHostDeinitialize");
    SYM(add_metrics, "cuptiProfilerHostConfigAddMetrics");
    SYM(config_size, "cuptiProfilerHostGetConfigImageSize");
    SYM(config_image, "cuptiProfilerHostGetConfigImage");
    SYM(passes, "cuptiProfilerHostGetNumOfPasses");
    SYM(evaluate, "cuptiProfilerHostEvaluateToGpuValues");
    SYM(enable, "cuptiRangeProfilerEnable");
    SYM(disable, "cuptiRangeProfilerDisable");
    SYM(data_size, "cuptiRangeProfilerGetCounterDataSize");
    SYM(data_init, "cuptiRangeProfilerCounterDataImageInitialize");
    SYM(set_config, "cuptiRangeProfilerSetConfig");
    SYM(start, "cuptiRangeProfilerStart");
    SYM(stop, "cuptiRangeProfilerStop");
    SYM(decode, "cuptiRangeProfilerDecodeData");
    SYM(data_info, "cuptiRangeProfilerGetCounterDataInfo");
    SYM(result_string, "cuptiGetResultString");
#undef SYM
    K.loaded = 1;
    return 0;
}

static void release(void)
{
    if (K.object && K.disable) {
        CUpti_RangeProfiler_Disable_Params p = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = K.object;
        K.disable(&p);
    }
    if (K.host && K.host_deinit) {
        CUpti_Profiler_Host_Deinitialize_Params p = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        p.pHostObject = K.host;
        K.host_deinit(&p);
    }
    free(K.config);
    free(K.data);
    free(K.avail);
    K.object = NULL;
    K.host = NULL;
    K.config = K.data = K.avail = NULL;
}

/* A host object of the range profiler for chip, configured with the
 * first n METRICS (K.host, K.nmetrics); on failure *call is the call that
 * failed and no host object is left. */
static CUptiResult host_config(const char *chip, int n, const char **call)
{
    CUptiResult r;
    CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    hi.pCounterAvailabilityImage = K.avail;
    *call = "cuptiProfilerHostInitialize";
    if ((r = K.host_init(&hi)) != CUPTI_SUCCESS)
        return r;
    K.host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = K.host;
    am.ppMetricNames = (const char **)METRICS;
    am.numMetrics = (size_t)n;
    *call = "cuptiProfilerHostConfigAddMetrics";
    if ((r = K.add_metrics(&am)) != CUPTI_SUCCESS) {
        CUpti_Profiler_Host_Deinitialize_Params d = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        d.pHostObject = K.host;
        K.host_deinit(&d);
        K.host = NULL;
        return r;
    }
    K.nmetrics = n;
    return CUPTI_SUCCESS;
}

int gpu_cupti_counters_start(int device, cm_error_t *err)
{
    if (load(err) || gpu_context_ensure(err))
        return -1;
    CUptiResult r;
    if (!K.initialized) {
        CUpti_Profiler_Initialize_Params p = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if ((r = K.initialize(&p)) != CUPTI_SUCCESS)
            return failed(err, "cuptiProfilerInitialize", r);
        K.initialized = 1;
    }
    const gpu_driver_t *drv = gpu_driver_get(err);
    gpu_cucontext_t ctx = NULL;
    if (!drv || drv->cuCtxGetCurrent(&ctx) != 0 || !ctx) {
        if (!err->text[0])
            CM_ERROR(err, 20004, "no current CUDA context to count in");
        return -1;
    }
    CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)device;
    if ((r = K.chip_name(&chip)) != CUPTI_SUCCESS)
        return failed(err, "cuptiDeviceGetChipName", r);
    CUpti_Profiler_GetCounterAvailability_Params av = {.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    av.ctx = (CUcontext)ctx;
    if ((r = K.availability(&av)) != CUPTI_SUCCESS)
        return failed(err, "cuptiProfilerGetCounterAvailability", r);
    K.avail = malloc(av.counterAvailabilityImageSize);
    av.pCounterAvailabilityImage = K.avail;
    if (!K.avail || (r = K.availability(&av)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiProfilerGetCounterAvailability", r);
    }
    /* gpu__time_duration (the last metric) where the chip's configuration
     * takes it, else the others: the times then stay unmeasured */
    const char *call = NULL;
    if ((r = host_config(chip.pChipName, GPU_CUPTI_NMETRICS, &call)) != CUPTI_SUCCESS &&
        (r = host_config(chip.pChipName, GPU_CUPTI_NMETRICS - 1, &call)) != CUPTI_SUCCESS) {
        release();
        return failed(err, call, r);
    }
    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = K.host;
    if ((r = K.config_size(&cs)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiProfilerHostGetConfigImageSize", r);
    }
    K.config_bytes = cs.configImageSize;
    K.config = malloc(K.config_bytes);
    CUpti_Profiler_Host_GetConfigImage_Params ci = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = K.host;
    ci.configImageSize = K.config_bytes;
    ci.pConfigImage = K.config;
    if (!K.config || (r = K.config_image(&ci)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiProfilerHostGetConfigImage", r);
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = K.config_bytes;
    np.pConfigImage = K.config;
    K.npasses = K.passes(&np) == CUPTI_SUCCESS ? np.numOfPasses : 0;
    CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = (CUcontext)ctx;
    if ((r = K.enable(&en)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerEnable", r);
    }
    K.object = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = K.object;
    ds.pMetricNames = (const char **)METRICS;
    ds.numMetrics = (size_t)K.nmetrics;
    ds.maxNumOfRanges = MAX_RANGES;
    ds.maxNumRangeTreeNodes = MAX_RANGES;
    if ((r = K.data_size(&ds)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerGetCounterDataSize", r);
    }
    K.data_bytes = ds.counterDataSize;
    K.data = malloc(K.data_bytes);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di = {.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = K.object;
    di.counterDataSize = K.data_bytes;
    di.pCounterData = K.data;
    if (!K.data || (r = K.data_init(&di)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerCounterDataImageInitialize", r);
    }
    CUpti_RangeProfiler_SetConfig_Params sc = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = K.object;
    sc.configSize = K.config_bytes;
    sc.pConfig = K.config;
    sc.counterDataImageSize = K.data_bytes;
    sc.pCounterDataImage = K.data;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = MAX_RANGES;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    if ((r = K.set_config(&sc)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerSetConfig", r);
    }
    CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = K.object;
    if ((r = K.start(&st)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerStart", r);
    }
    return 0;
}

int gpu_cupti_counters_stop(gpu_cupti_counts_t **out, int *n, int *passes, cm_error_t *err)
{
    *out = NULL;
    *n = 0;
    *passes = (int)K.npasses;
    if (!K.object) {
        CM_ERROR(err, 20004, "counting was not started");
        return -1;
    }
    CUptiResult r;
    CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = K.object;
    if ((r = K.stop(&sp)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerStop", r);
    }
    CUpti_RangeProfiler_DecodeData_Params dd = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = K.object;
    if ((r = K.decode(&dd)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerDecodeData", r);
    }
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = K.data;
    info.counterDataImageSize = K.data_bytes;
    if ((r = K.data_info(&info)) != CUPTI_SUCCESS) {
        release();
        return failed(err, "cuptiRangeProfilerGetCounterDataInfo", r);
    }
    gpu_cupti_counts_t *v = calloc(info.numTotalRanges + 1, sizeof *v);
    for (size_t i = 0; v && i < info.numTotalRanges; i++) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = K.host;
        ev.pCounterDataImage = K.data;
        ev.counterDataImageSize = K.data_bytes;
        ev.rangeIndex = i;
        ev.ppMetricNames = (const char **)METRICS;
        ev.numMetrics = (size_t)K.nmetrics;
        ev.pMetricValues = v[i].v;
        r = K.evaluate(&ev);
        if (r != CUPTI_SUCCESS && K.nmetrics == GPU_CUPTI_NMETRICS) { /* without the time */
            ev.numMetrics = GPU_CUPTI_NMETRICS - 1;
            r = K.evaluate(&ev);
        }
        if (r == CUPTI_SUCCESS && ev.numMetrics < GPU_CUPTI_NMETRICS)
            v[i].v[GPU_CUPTI_TIME] = -1;
        if (r != CUPTI_SUCCESS) {
            free(v);
            release();
            return failed(err, "cuptiProfilerHostEvaluateToGpuValues", r);
        }
    }
    *out = v;
    *n = v ? (int)info.numTotalRanges : 0;
    release();
    return 0;
}

#else /* no CUPTI headers at build time */

int gpu_cupti_counters_start(int device, cm_error_t *err)
{
    (void)device;
    CM_ERROR(err, 20004, "this gpuc was built without CUPTI's headers: no counter mode");
    return -1;
}

int gpu_cupti_counters_stop(gpu_cupti_counts_t **out, int *n, int *passes, cm_error_t *err)
{
    *out = NULL;
    *n = *passes = 0;
    CM_ERROR(err, 20004, "this gpuc was built without CUPTI's headers: no counter mode");
    return -1;
}

#endif
