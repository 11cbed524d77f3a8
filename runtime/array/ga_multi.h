/* ga_multi: arrays on several devices at once — the all-reduce across the
 * session's devices, and how many devices arrays can be spread over.
 *
 * ga_multi_allreduce reduces n arrays of one dtype and shape, each on its
 * own device, in place: every array ends with the elementwise sum (max,
 * min) of all. Through the floor's collective library where it has one
 * (NCCL between GPUs: bk_allreduce), else through peer copies and the
 * array math: the others' elements are copied to the first array's device
 * and combined into it there (one fused kernel each), and the result is
 * copied back to each. Queued on the devices, not waited for (as other
 * array operations). */
#ifndef GA_MULTI_H
#define GA_MULTI_H

#include "cm_error.h"
#include "ga_array.h"

/* op: "sum", "max" or "min". 0, or -1 with err: GA_E_VALUE (an unknown
 * op, n < 1, the same device twice), GA_E_DTYPE (dtypes differ, or
 * complex max/min), GA_E_SHAPE (shapes differ, or a view that is not
 * contiguous), GA_E_DEVICE, GA_E_FREED, GA_E_MEMORY. */
int ga_multi_allreduce(ga_array_t *const *arrays, int n, const char *op, cm_error_t *err);

/* The cell API (failures through ga_api_fail): ga_allreduce(arrays, n,
 * op), and ga_device_count(): the GPUs of the host, or where there is none
 * the simulated devices (GPUC_SIM_DEVICES, %sim --devices), so that
 * `for (int d = 0; d < ga_device_count(); d++) ga_to_device(x, d)` runs
 * on both. */
void ga_api_allreduce(ga_array_t **arrays, int n, const char *op);
int ga_api_device_count(void);

#endif
