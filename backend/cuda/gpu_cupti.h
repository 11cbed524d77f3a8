/* gpu_cupti: a thin binding of CUPTI (libcupti, loaded with dlopen at the
 * first profile): the Activity API's records of kernels, copies and
 * memsets, named by the floor's external correlation ids, and — counter
 * mode — the Range Profiler's counts per kernel (gpu_cupti_counters.c).
 * No policy: backend/bk_profile_cuda.c decides what to show. Built only
 * where the toolkit's CUPTI headers were found (GPUC_HAVE_CUPTI); without
 * them every call says so. */
#ifndef GPU_CUPTI_H
#define GPU_CUPTI_H

#include "cm_error.h"

enum { GPU_CUPTI_KERNEL = 0, GPU_CUPTI_MEMCPY = 1, GPU_CUPTI_MEMSET = 2 };

typedef struct gpu_cupti_record {
    int kind;                  /* GPU_CUPTI_* */
    char name[160];            /* a kernel's (demangled by nothing: as CUPTI gives it);
                                  "copy HtoD", "memset" */
    unsigned long long start, end; /* ns, CUPTI's clock (gpu_cupti_timestamp); both 0
                                      when CUPTI gave none (while the Range Profiler replays) */
    int device;
    unsigned stream;
    unsigned grid[3], block[3];
    int registers;             /* per thread */
    int static_shared, dynamic_shared; /* bytes per block */
    unsigned long long bytes;  /* a copy's or memset's */
    int copy_kind;             /* CUPTI's CUpti_ActivityMemcpyKind */
    unsigned correlation;
    unsigned long long external; /* the floor's label id, 0 when none */
} gpu_cupti_record_t;

/* Loads CUPTI (libcupti.so.13 beside the executable in ../lib/cupti, in
 * the toolkit's extras/CUPTI/lib64, lib64 or lib) and starts recording;
 * one empty kernel is launched and the device waited for, so that what
 * CUPTI sets up at its first traced launch is not the profiled cell's.
 * -1 with err (GPU_E_NO_LIBRARY-like text naming where it looked). */
int gpu_cupti_start(cm_error_t *err);

/* Flushes and stops: *out gets the records (the caller frees it), *n how
 * many. 0 / -1 with err. */
int gpu_cupti_stop(gpu_cupti_record_t **out, int *n, cm_error_t *err);

/* The launches from now until pop are id's: CUPTI's external correlation,
 * with the driver's and runtime's API records on meanwhile (a record's
 * `external` is id where its launch has either; see gpu_cupti.c). Not
 * nested: the floor pushes its outermost label only. */
void gpu_cupti_push(unsigned long long id);
void gpu_cupti_pop(void);

/* CUPTI's clock now, ns. 0 when not loaded. */
unsigned long long gpu_cupti_timestamp(void);

/* Where CUPTI was loaded from ("" when not). */
const char *gpu_cupti_path(void);

/* ---- counter mode (gpu_cupti_counters.c): CUPTI's Range Profiler ----------
 * Every kernel is a range (auto range) and is replayed (kernel replay) as
 * many passes as the metrics need; the values per kernel, in launch order. */

enum {
    GPU_CUPTI_DRAM_READ = 0, GPU_CUPTI_DRAM_WRITE, /* dram__bytes_{read,write}.sum */
    GPU_CUPTI_HADD, GPU_CUPTI_HMUL, GPU_CUPTI_HFMA, /* sm__sass_thread_inst_executed_op_h..._pred_on.sum */
    GPU_CUPTI_FADD, GPU_CUPTI_FMUL, GPU_CUPTI_FFMA,
    GPU_CUPTI_DADD, GPU_CUPTI_DMUL, GPU_CUPTI_DFMA,
    GPU_CUPTI_OCCUPANCY,       /* sm__warps_active.avg.pct_of_peak_sustained_active (percent) */
    GPU_CUPTI_TIME,            /* gpu__time_duration.sum (ns) of a replayed pass; -1 where the
                                  chip's configuration did not take it (always the last) */
    GPU_CUPTI_NMETRICS
};
enum { GPU_CUPTI_E_PRIVILEGES = 20035 }; /* CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35) */

typedef struct gpu_cupti_counts {
    double v[GPU_CUPTI_NMETRICS];
} gpu_cupti_counts_t;

/* Starts counting on CUDA device `device` (its primary context made
 * current). -1 with err; err->code GPU_CUPTI_E_PRIVILEGES when the driver
 * does not let this user read counters. */
int gpu_cupti_counters_start(int device, cm_error_t *err);

/* Stops: *out the counts of each kernel run since the start, in launch
 * order (the caller frees it), *n how many, *passes the replays each
 * kernel took. 0 / -1 with err. */
int gpu_cupti_counters_stop(gpu_cupti_counts_t **out, int *n, int *passes, cm_error_t *err);

/* The loaded libcupti (for gpu_cupti_counters.c), or NULL with err. */
void *gpu_cupti_library(cm_error_t *err);

#endif
