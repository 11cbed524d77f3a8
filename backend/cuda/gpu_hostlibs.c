/* gpu_hostlibs: CUDA's libraries in host cells (see gpu.h).
 *
 * A host cell that names cuBLAS, cuRAND, cuFFT or cuSPARSE (its header or
 * its functions) gets the library opened RTLD_GLOBAL before it is
 * compiled, so that TCC resolves cublasSgemm_v2 & co by name, as it does
 * libcudart's functions. cuBLAS is gpu_cublas's handle (array matmul uses
 * the same library), made global here. Nothing is bound by hand: the
 * cells call the libraries themselves, with NVIDIA's declarations. Which
 * libraries a cell names is read by the cell layer (rt_libnames.h). The
 * table is in GPU_HOSTLIB_* order. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "gpu_cublas.h"
#include "gpu_dl.h"
#include "gpu_internal.h"

typedef struct hostlib {
    const char *name;           /* as NVIDIA writes it */
    const char *prefix;         /* of its soname and its functions' names */
    const char *const *sonames; /* NULL: gpu_cublas loads it */
    int tried;
    void *handle;
    char missing[CM_ERROR_TEXT];
} hostlib_t;

static const char *const curand_names[] = {"libcurand.so.10", NULL};
static const char *const cufft_names[] = {"libcufft.so.12", "libcufft.so.11", NULL};
static const char *const cusparse_names[] = {"libcusparse.so.12", NULL};

static hostlib_t libs[] = {
    {"cuBLAS", "cublas", NULL, 0, NULL, ""},
    {"cuRAND", "curand", curand_names, 0, NULL, ""},
    {"cuFFT", "cufft", cufft_names, 0, NULL, ""},
    {"cuSPARSE", "cusparse", cusparse_names, 0, NULL, ""},
};
#define NLIBS (int)(sizeof libs / sizeof libs[0])

static void load(hostlib_t *l)
{
    l->tried = 1;
    char path[512] = "", where[600] = "";
    if (!l->sonames) { /* cuBLAS: the one gpu_cublas has, now global */
        cm_error_t err = {0};
        const gpu_cublas_t *c = gpu_cublas_get(&err);
        if (!c) {
            snprintf(l->missing, sizeof l->missing, "%s", err.text);
            return;
        }
        l->handle = dlopen(c->path, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
        if (!l->handle)
            snprintf(l->missing, sizeof l->missing, "cuBLAS (%s) could not be made global: %s",
                     c->path, dlerror());
        return;
    }
    l->handle = gpu_dl_open(l->sonames, RTLD_NOW | RTLD_GLOBAL, path, sizeof path, where,
                            sizeof where);
    if (!l->handle)
        snprintf(l->missing, sizeof l->missing,
                 "%s not found: host cells cannot call %s* (looked for %s; install the CUDA "
                 "toolkit's lib%s or set CUDA_HOME)", l->name, l->prefix, where, l->prefix);
}

unsigned gpu_hostlibs_load(unsigned named, unsigned *fresh)
{
    unsigned loaded = 0;
    if (fresh)
        *fresh = 0;
    for (int i = 0; i < NLIBS; i++) {
        if (!(named & (1u << i)))
            continue;
        if (!libs[i].tried) {
            load(&libs[i]);
            if (libs[i].handle && fresh)
                *fresh |= 1u << i;
        }
        if (libs[i].handle)
            loaded |= 1u << i;
    }
    return loaded;
}

const char *gpu_hostlib_name(int i)
{
    return i >= 0 && i < NLIBS ? libs[i].name : NULL;
}

const char *gpu_hostlib_missing(int i)
{
    return i >= 0 && i < NLIBS && libs[i].tried && !libs[i].handle ? libs[i].missing : NULL;
}
