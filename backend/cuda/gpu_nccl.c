/* gpu_nccl: the all-reduce across GPUs through NCCL (libnccl.so.2), loaded
 * with dlopen at the first all-reduce, never linked (see gpu.h).
 *
 * Where it is looked for: GPUC_NCCL_LIB (a file) if set, the loader's path
 * (libnccl.so.2), then the wheels PyTorch installs it from
 * (site-packages/nvidia/nccl/lib under the active virtual environment,
 * ~/.local and the system's Python folders). GPUC_NCCL=0 turns it off
 * (the floor then reduces through peer copies).
 *
 * One set of communicators is kept for the set of GPUs last asked for
 * (ncclCommInitAll, a few hundred milliseconds the first time); another
 * set of GPUs makes a new one. The reduction is queued on each GPU's
 * default stream (ncclGroupStart/End around one ncclAllReduce per GPU) and
 * not waited for. */
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_dl.h"

typedef struct nccl_comm *nccl_comm_t;

static struct {
    int tried;
    void *handle;
    int (*ncclCommInitAll)(nccl_comm_t *comms, int ndev, const int *devlist);
    int (*ncclCommDestroy)(nccl_comm_t comm);
    int (*ncclAllReduce)(const void *send, void *recv, size_t count, int type, int op,
                         nccl_comm_t comm, void *stream);
    int (*ncclGroupStart)(void);
    int (*ncclGroupEnd)(void);
    const char *(*ncclGetErrorString)(int rc);
    char why[CM_ERROR_TEXT]; /* why it is not there */
} nc;

static struct {
    int n;
    int devices[GPU_MAX_DEVICES];
    nccl_comm_t comms[GPU_MAX_DEVICES];
} set;

/* The first file matching pattern that dlopens, or NULL. */
static void *open_glob(const char *pattern)
{
    glob_t g;
    void *h = NULL;
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc && !h; i++)
            h = dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_LOCAL);
    globfree(&g);
    return h;
}

static void *find_library(void)
{
    const char *lib = getenv("GPUC_NCCL_LIB");
    if (lib && *lib)
        return dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    static const char *const names[] = {"libnccl.so.2", NULL};
    char where[600];
    void *h = gpu_dl_open(names, RTLD_NOW | RTLD_LOCAL, NULL, 0, where, sizeof where);
    char pattern[1024];
    const char *venv = getenv("VIRTUAL_ENV"), *home = getenv("HOME");
    if (!h && venv) {
        snprintf(pattern, sizeof pattern, "%s/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
                 venv);
        h = open_glob(pattern);
    }
    if (!h && home) {
        snprintf(pattern, sizeof pattern,
                 "%s/.local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2", home);
        h = open_glob(pattern);
    }
    static const char *const system[] = {
        "/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
        "/usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
        "/usr/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
        "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2",
        "/opt/conda/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
        "/opt/conda/lib/libnccl.so.2",
    };
    for (size_t i = 0; !h && i < sizeof system / sizeof *system; i++)
        h = open_glob(system[i]);
    return h;
}

#define SYM(name) (*(void **)&nc.name = dlsym(nc.handle, #name))

/* 1 when NCCL is loaded. */
static int loaded(void)
{
    if (nc.tried)
        return nc.handle != NULL;
    nc.tried = 1;
    const char *off = getenv("GPUC_NCCL");
    if (off && strcmp(off, "0") == 0) {
        snprintf(nc.why, sizeof nc.why, "GPUC_NCCL=0");
        return 0;
    }
    nc.handle = find_library();
    if (!nc.handle) {
        snprintf(nc.why, sizeof nc.why, "libnccl.so.2 not found");
        return 0;
    }
    if (!SYM(ncclCommInitAll) || !SYM(ncclCommDestroy) || !SYM(ncclAllReduce) ||
        !SYM(ncclGroupStart) || !SYM(ncclGroupEnd) || !SYM(ncclGetErrorString)) {
        snprintf(nc.why, sizeof nc.why, "libnccl.so.2 lacks a function gpuc needs");
        dlclose(nc.handle);
        nc.handle = NULL;
        return 0;
    }
    return 1;
}

const char *gpu_nccl_library(void)
{
    if (!loaded())
        return NULL;
    Dl_info info;
    return dladdr((void *)nc.ncclAllReduce, &info) && info.dli_fname ? info.dli_fname
                                                                      : "libnccl.so.2";
}

/* NCCL's failure rc of call in err. Returns -1. */
static int fail(int rc, const char *call, cm_error_t *err)
{
    CM_ERROR(err, GPU_E_INVALID, "%s failed: NCCL error %d: %s", call, rc,
             nc.ncclGetErrorString ? nc.ncclGetErrorString(rc) : "");
    return -1;
}

/* Communicators for devices[0..n), made or kept. 0 / -1 with err. */
static int communicators(int n, const int *devices, cm_error_t *err)
{
    if (set.n == n && memcmp(set.devices, devices, (size_t)n * sizeof *devices) == 0)
        return 0;
    for (int i = 0; i < set.n; i++)
        nc.ncclCommDestroy(set.comms[i]);
    set.n = 0;
    int rc = nc.ncclCommInitAll(set.comms, n, devices);
    if (rc != 0)
        return fail(rc, "ncclCommInitAll", err);
    set.n = n;
    memcpy(set.devices, devices, (size_t)n * sizeof *devices);
    return 0;
}

int gpu_nccl_allreduce(int n, const int *devices, void *const *bufs, size_t count, int type,
                       int op, cm_error_t *err)
{
    if (n < 1 || n > GPU_MAX_DEVICES || !loaded())
        return 1;
    int rc = communicators(n, devices, err);
    if (rc == 0) {
        nc.ncclGroupStart();
        for (int i = 0; i < n && rc == 0; i++) {
            /* NCCL sets each device itself; its context must exist (ours) */
            if (gpu_context_use(devices[i], err))
                rc = -1;
            else if ((rc = nc.ncclAllReduce(bufs[i], bufs[i], count, type, op, set.comms[i],
                                            NULL)) != 0)
                rc = fail(rc, "ncclAllReduce", err);
        }
        int end = nc.ncclGroupEnd();
        if (rc == 0 && end != 0)
            rc = fail(end, "ncclGroupEnd", err);
    }
    /* NCCL left another device current: the selected one again */
    if (gpu_selected() >= 0)
        gpu_context_use(gpu_selected(), NULL);
    return rc;
}
