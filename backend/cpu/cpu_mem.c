/* cpu_mem: what the host has (see cpu.h). */
#include <sched.h>
#include <stdio.h>

#include "cpu.h"

int cpu_mem_info(size_t *free_bytes, size_t *total_bytes, cm_error_t *err)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) {
        CM_ERROR(err, CPU_E_MEMINFO, "/proc/meminfo cannot be read");
        return -1;
    }
    char line[256];
    unsigned long long kb;
    *free_bytes = *total_bytes = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            *total_bytes = (size_t)kb * 1024;
        else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            *free_bytes = (size_t)kb * 1024;
    }
    fclose(f);
    return 0;
}

int cpu_count(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n > 0 ? n : 1;
}
