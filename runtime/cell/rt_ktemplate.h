/* rt_ktemplate: template kernels launched by an instance's name
 * ("scale<float>"), as nvcc programs write them. Call from the executor's
 * main thread. */
#ifndef RT_KTEMPLATE_H
#define RT_KTEMPLATE_H

#include <stddef.h>

#include "cm_error.h"

/* Makes sure kernel name can be launched: a kernel cell's kernel is there
 * already; a template instance ("scale<float>", "tile<float, 16>") of a
 * template __global__ function of the kernel cells is compiled the first
 * time (NVRTC, and g++ on the simulator: once, then cached) and registered
 * under its name as written in canonical form (canon, at least 128 bytes:
 * "tile<float,16>"), which later calls use. cell/line: where it is used,
 * for messages. 0, or -1 with err: GPU_E_NO_KERNEL ("no template kernel
 * named scale", "saxpy is not a template kernel"), GPU_E_ARGS (the number
 * of template arguments), GPU_E_COMPILE ("cell 5, line 2: scale<Foo>
 * cannot be instantiated: cell 3, line 4: error: ..."). */
int rt_ktemplate_instance(const char *name, char *canon, size_t canon_len, int cell, int line,
                          cm_error_t *err);

#endif
