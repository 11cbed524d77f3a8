/* rt_limits: the operator's limits as the executor applies them (see
 * common/cm_limits.h and docs/hosting.md): its memory as RLIMIT_DATA, the
 * device pools' limit, and the values %limits shows. Read once, at the
 * executor's start: a cell that changes the environment changes nothing. */
#ifndef RT_LIMITS_H
#define RT_LIMITS_H

#include <stddef.h>

#include "cm_error.h"
#include "cm_limits.h"

/* Reads the limits and applies the executor's own: the cells may map
 * GPUC_LIMIT_MEMORY bytes beyond what the session maps at its start (the
 * cells' code arena reserved first), soft and hard limit alike; every
 * device pool is capped at GPUC_LIMIT_GPU_MEMORY. MUST BE CALLED once,
 * after the session is made and before the first cell. Returns 0, or -1
 * with err set (a value that is not a size; setrlimit failed). */
int rt_limits_apply(cm_error_t *err);

/* The limits read by rt_limits_apply (all 0 before). Borrowed. */
const cm_limits_t *rt_limits(void);

/* Bytes of data mappings (VmData) the session had when the memory limit
 * was set, 0 when none was. */
size_t rt_limits_memory_base(void);

#endif
