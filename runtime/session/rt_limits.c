/* rt_limits: the operator's limits in the executor (see rt_limits.h). */
#include "rt_limits.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "bk.h"
#include "rt_tcc.h"

static cm_limits_t limits;
static size_t memory_base;

/* VmData of /proc/self/status in bytes: what RLIMIT_DATA counts (private
 * writable mappings, the heap), or 0 when it cannot be read. */
static size_t data_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (size_t)kb * 1024;
}

int rt_limits_apply(cm_error_t *err)
{
    if (cm_limits_from_env(&limits, err) != 0)
        return -1;
    if (limits.gpu_memory)
        bk_pool_set_limit_all(limits.gpu_memory);
    if (!limits.memory)
        return 0;
    /* The cells' code arena is address space the session reserves once
     * (1 GiB, pages used as cells come); counted now, it is not the
     * cells' allocation. */
    if (rt_tcc_reserve() != 0) {
        CM_ERROR(err, -1, "cannot reserve the cells' code arena");
        return -1;
    }
    memory_base = data_bytes();
    struct rlimit rl = {.rlim_cur = memory_base + limits.memory,
                        .rlim_max = memory_base + limits.memory};
    if (setrlimit(RLIMIT_DATA, &rl) != 0) {
        CM_ERROR(err, -1, "setrlimit(RLIMIT_DATA): %s", strerror(errno));
        return -1;
    }
    return 0;
}

const cm_limits_t *rt_limits(void)
{
    return &limits;
}

size_t rt_limits_memory_base(void)
{
    return memory_base;
}
