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
    unsigned long long start, end; /* ns, CUPTI's clock (gpu_cupti_timestamp) */
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
 * the toolkit's extras/CUPTI/lib64, lib64 or lib) and starts recording.
 * -1 with err (GPU_E_NO_LIBRARY-like text naming where it looked). */
int gpu_cupti_start(cm_error_t *err);

/* Flushes and stops: *out gets the records (the caller frees it), *n how
 * many. 0 / -1 with err. */
int gpu_cupti_stop(gpu_cupti_record_t **out, int *n, cm_error_t *err);

/* The launches from now until pop are id's (CUPTI's external correlation). */
void gpu_cupti_push(unsigned long long id);
void gpu_cupti_pop(void);

/* CUPTI's clock now, ns. 0 when not loaded. */
unsigned long long gpu_cupti_timestamp(void);

/* Where CUPTI was loaded from ("" when not). */
const char *gpu_cupti_path(void);

#endif
