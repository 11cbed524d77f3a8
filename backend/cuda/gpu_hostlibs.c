/* gpu_hostlibs: CUDA's libraries in host cells (see gpu.h).
 *
 * A host cell that names cuBLAS, cuRAND, cuFFT or cuSPARSE (its header or
 * its functions) gets the library opened RTLD_GLOBAL before it is
 * compiled, so that TCC resolves cublasSgemm_v2 & co by name, as it does
 * libcudart's functions. cuBLAS is gpu_cublas's handle (array matmul uses
 * the same library), made global here. Nothing is bound by hand: the
 * cells call the libraries themselves, with NVIDIA's declarations. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "gpu_cublas.h"
#include "gpu_dl.h"
#include "gpu_internal.h"

typedef struct hostlib {
    const char *name;           /* as NVIDIA writes it */
    const char *prefix;         /* of its header's and functions' names */
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

/* Non-zero when code has a word that starts with l's prefix and belongs to
 * its host API: cuRAND's device API (curand_kernel.h: curand_init,
 * curandState...) is a kernel cell's, compiled by NVRTC, and needs no
 * library. */
static int names(const char *code, const hostlib_t *l)
{
    size_t n = strlen(l->prefix);
    for (const char *p = strstr(code, l->prefix); p; p = strstr(p + n, l->prefix)) {
        if (p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        if (l->sonames == curand_names && (p[n] == '_' || strncmp(p + n, "State", 5) == 0))
            continue;
        return 1;
    }
    return 0;
}

unsigned gpu_hostlibs_named(const char *code)
{
    unsigned mask = 0;
    for (int i = 0; i < NLIBS; i++)
        if (names(code, &libs[i]))
            mask |= 1u << i;
    return mask;
}

unsigned gpu_hostlibs_load(const char *code, unsigned *fresh)
{
    unsigned named = gpu_hostlibs_named(code), loaded = 0;
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

const char *gpu_hostlibs_missing(const char *symbol)
{
    for (int i = 0; i < NLIBS; i++)
        if (strncmp(symbol, libs[i].prefix, strlen(libs[i].prefix)) == 0)
            return libs[i].tried && !libs[i].handle ? libs[i].missing : NULL;
    return NULL;
}
