#include "cpu_blas.h"

#include <dlfcn.h>
#include <stdio.h>

#include "cpu.h"

static cpu_blas_t blas;
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(void *h, void **slot, const char *name)
{
    *slot = dlsym(h, name);
    if (!*slot)
        snprintf(missing, sizeof missing, "the BLAS %s lacks %s (install Debian's libopenblas0)",
                 blas.path, name);
    return *slot ? 0 : -1;
}

#define SYM(name) resolve(h, (void **)&blas.name, #name)

const cpu_blas_t *cpu_blas_get(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        static const char *const names[] = {"libopenblas.so.0", "libcblas.so.3", "libblas.so.3"};
        void *h = NULL;
        for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++) {
            h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
            if (h)
                snprintf(blas.path, sizeof blas.path, "%s", names[i]);
        }
        if (!h)
            snprintf(missing, sizeof missing,
                     "no BLAS for the CPU backend: install Debian's libopenblas0 (apt-get install "
                     "libopenblas0; looked for libopenblas.so.0, libcblas.so.3, libblas.so.3)");
        else if (!(SYM(cblas_sgemm) || SYM(cblas_dgemm) || SYM(cblas_sdot) || SYM(cblas_ddot)))
            blas.handle = h;
    }
    if (!blas.handle) {
        CM_ERROR(err, CPU_E_NO_BLAS, "%s", missing);
        return NULL;
    }
    return &blas;
}
