/* A counting stand-in for libcuda.so.1, for bench/bench_launch_host.py on a
 * machine without a GPU: one device of compute capability 9.0 (sm_90, so
 * NVRTC makes cubins as on an H100/H200), every call succeeds at once,
 * modules and functions are dummies, cuLaunchKernel does nothing. What is
 * left of a launch's time is gpuc's own host work. Each entry point counts
 * its calls; the counts are written to $STUB_REPORT (appended) when the
 * launches reach $STUB_REPORT_AT (default 1000000), since the executor
 * does not run destructors. NVRTC asks this library for its private
 * tables (cuGetExportTable): told no, it goes on without. Not a driver:
 * nothing here runs a kernel. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

static unsigned long counts[64];
static const char *names[64];
static int nnames;

static int slot(const char *name)
{
    for (int i = 0; i < nnames; i++)
        if (names[i] == name)
            return i;
    names[nnames] = name;
    return nnames++;
}

#define COUNT counts[slot(__func__)]++

static void report(void)
{
    const char *path = getenv("STUB_REPORT");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    for (int i = 0; i < nnames; i++)
        fprintf(f, "%s %lu\n", names[i], counts[i]);
    fclose(f);
}

static void *current;
static char context[64], module[64], function[64];

CUresult cuInit(unsigned flags) { COUNT; return 0; }
CUresult cuDriverGetVersion(int *v) { COUNT; *v = 13000; return 0; }
CUresult cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_STUB"; return 0; }
CUresult cuGetErrorString(int e, const char **s) { *s = "the stand-in driver"; return 0; }
CUresult cuGetExportTable(const void **t, const void *id) { COUNT; *t = NULL; return 500; }
CUresult cuDeviceGetCount(int *n) { COUNT; *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) { COUNT; *d = ordinal; return 0; }
CUresult cuDeviceGetName(char *s, int len, int d) { COUNT; snprintf(s, len, "stand-in sm_90"); return 0; }
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { COUNT; *b = (size_t)1 << 34; return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int d)
{
    COUNT; /* 75, 76: compute capability; 16: multiprocessors */
    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 16 ? 132 : 1024;
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { COUNT; *c = context; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { COUNT; return 0; }
CUresult cuCtxSetCurrent(void *c) { COUNT; current = c; return 0; }
CUresult cuCtxGetCurrent(void **c) { COUNT; *c = current; return 0; }
CUresult cuCtxSynchronize(void) { COUNT; return 0; }
CUresult cuStreamQuery(void *s) { COUNT; return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { COUNT; *f = *t = (size_t)1 << 34; return 0; }
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) { COUNT; *p = (uint64_t)(uintptr_t)malloc(n ? n : 1); return 0; }
CUresult cuMemFree_v2(uint64_t p) { COUNT; free((void *)(uintptr_t)p); return 0; }
CUresult cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { COUNT; memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, uint64_t s, size_t n) { COUNT; memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(uint64_t d, uint64_t s, size_t n) { COUNT; memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) { COUNT; memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t n) { COUNT; *p = malloc(n ? n : 1); return 0; }
CUresult cuMemFreeHost(void *p) { COUNT; free(p); return 0; }
CUresult cuMemcpyHtoDAsync_v2(uint64_t d, const void *s, size_t n, void *st) { COUNT; memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoHAsync_v2(void *d, uint64_t s, size_t n, void *st) { COUNT; memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuStreamCreate(void **s, unsigned f) { COUNT; *s = malloc(8); return 0; }
CUresult cuStreamSynchronize(void *s) { COUNT; return 0; }
CUresult cuModuleLoadData(void **m, const void *image) { COUNT; *m = module; return 0; }
CUresult cuModuleUnload(void *m) { COUNT; return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { COUNT; *f = function; return 0; }
CUresult cuModuleGetGlobal_v2(uint64_t *p, size_t *bytes, void *m, const char *name)
{
    static char globals[4096];
    COUNT;
    if (p)
        *p = (uint64_t)(uintptr_t)globals;
    if (bytes)
        *bytes = 8;
    return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **args, void **extra)
{
    static unsigned long at;
    COUNT;
    if (!at)
        at = getenv("STUB_REPORT_AT") ? strtoul(getenv("STUB_REPORT_AT"), NULL, 10) : 1000000;
    if (counts[slot(__func__)] == at)
        report();
    return 0;
}
CUresult cuEventCreate(void **e, unsigned f) { COUNT; *e = malloc(8); return 0; }
CUresult cuEventRecord(void *e, void *s) { COUNT; return 0; }
CUresult cuEventSynchronize(void *e) { COUNT; return 0; }
CUresult cuEventQuery(void *e) { COUNT; return 0; }
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) { COUNT; *ms = 0.001f; return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { COUNT; *ms = 0.001f; return 0; }
CUresult cuEventDestroy_v2(void *e) { COUNT; return 0; }
CUresult cuFuncGetAttribute(int *v, int attr, void *f) { COUNT; *v = 0; return 0; }
CUresult cuFuncSetAttribute(void *f, int attr, int v) { COUNT; return 0; }
CUresult cuFuncSetCacheConfig(void *f, int config) { COUNT; return 0; }
CUresult cuDeviceCanAccessPeer(int *can, int a, int b) { COUNT; *can = 0; return 0; }
