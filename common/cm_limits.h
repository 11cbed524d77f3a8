/* cm_limits: what one kernel may take, as the operator sets it in the
 * environment (the kernelspec's "env", or the environment the server or
 * batch job starts gpuc in). Read by the kernel process (output, time per
 * cell), the executor (its memory, the pools' limit) and %limits; see
 * docs/hosting.md. Each is 0 when not set: no limit (the output volume has
 * a default). */
#ifndef CM_LIMITS_H
#define CM_LIMITS_H

#include <stddef.h>

#include "cm_error.h"

#define CM_LIMIT_MEMORY "GPUC_LIMIT_MEMORY"           /* bytes the cells may allocate */
#define CM_LIMIT_GPU_MEMORY "GPUC_LIMIT_GPU_MEMORY"   /* each device pool's bytes */
#define CM_LIMIT_OUTPUT "GPUC_LIMIT_OUTPUT"           /* stream bytes per cell */
#define CM_LIMIT_OUTPUT_RATE "GPUC_LIMIT_OUTPUT_RATE" /* stream bytes per second */
#define CM_LIMIT_CELL_TIME "GPUC_LIMIT_CELL_TIME"     /* seconds per cell */

#define CM_LIMITS_OUTPUT_DEFAULT (10u << 20) /* stream bytes per cell when not set */

typedef struct cm_limits {
    size_t memory;      /* bytes the executor's cells may map beyond its start; 0 none */
    size_t gpu_memory;  /* bytes each device's array pool may hold; 0 none */
    size_t output;      /* stream bytes delivered per cell; never 0 */
    size_t output_rate; /* stream bytes per second, over a one-second window; 0 none */
    double cell_time;   /* seconds a cell may run; 0 none */
} cm_limits_t;

/* "8GB" (10^9), "8GiB" (2^30), "512M", "1e9", "0" or "none" (0) as bytes
 * in *bytes. Returns 0, or -1 when text is not a size. */
int cm_size_parse(const char *text, size_t *bytes);

/* Reads the GPUC_LIMIT_* variables. Returns 0, or -1 with err naming the
 * variable whose value is not a size or a number of seconds (a typo must
 * not mean "no limit"). */
int cm_limits_from_env(cm_limits_t *out, cm_error_t *err);

#endif
