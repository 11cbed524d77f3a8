#include "cpu_lapack.h"

#include <dlfcn.h>
#include <stdio.h>

#include "cpu.h"

#define COL_MAJOR 102 /* LAPACK_COL_MAJOR */

/* LAPACKE's functions gpuc calls, float32 ([0]) and float64 ([1]); lapack_int is int. */
static struct {
    void *handle;
    int (*getrf[2])(int, int, int, void *, int, int *);
    int (*getrs[2])(int, char, int, int, const void *, int, const int *, void *, int);
    int (*potrf[2])(int, char, int, void *, int);
    int (*geqrf[2])(int, int, int, void *, int, void *);
    int (*orgqr[2])(int, int, int, int, void *, int, const void *);
    int (*gesdd[2])(int, char, int, int, void *, int, void *, void *, int, void *, int);
    int (*syevd[2])(int, char, char, int, void *, int, void *);
} lp;
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(void **slot, const char *name)
{
    *slot = dlsym(lp.handle, name);
    if (!*slot)
        snprintf(missing, sizeof missing, "liblapacke.so.3 lacks %s (install Debian's liblapacke)",
                 name);
    return *slot ? 0 : -1;
}

#define PAIR(field, s, d) (resolve((void **)&lp.field[0], s) || resolve((void **)&lp.field[1], d))

static int load(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        lp.handle = dlopen("liblapacke.so.3", RTLD_NOW | RTLD_LOCAL);
        if (!lp.handle)
            snprintf(missing, sizeof missing,
                     "no LAPACK for the CPU backend: install Debian's liblapacke (apt-get install "
                     "liblapacke; looked for liblapacke.so.3)");
        else if (PAIR(getrf, "LAPACKE_sgetrf", "LAPACKE_dgetrf") ||
                 PAIR(getrs, "LAPACKE_sgetrs", "LAPACKE_dgetrs") ||
                 PAIR(potrf, "LAPACKE_spotrf", "LAPACKE_dpotrf") ||
                 PAIR(geqrf, "LAPACKE_sgeqrf", "LAPACKE_dgeqrf") ||
                 PAIR(orgqr, "LAPACKE_sorgqr", "LAPACKE_dorgqr") ||
                 PAIR(gesdd, "LAPACKE_sgesdd", "LAPACKE_dgesdd") ||
                 PAIR(syevd, "LAPACKE_ssyevd", "LAPACKE_dsyevd"))
            lp.handle = NULL;
    }
    if (!lp.handle) {
        CM_ERROR(err, CPU_E_NO_LAPACK, "%s", missing);
        return -1;
    }
    return 0;
}

/* Element off of x's matrix i: x + i * stride elements of es bytes. */
static void *at(void *x, long long stride, int i, size_t es)
{
    return x ? (char *)x + (size_t)(stride * i) * es : NULL;
}

int cpu_lapack_run(const cm_lapack_t *l, cm_error_t *err)
{
    if (load(err) != 0)
        return -1;
    int t = l->type == CM_LA_F64;
    size_t es = t ? 8 : 4;
    for (int i = 0; i < l->batch; i++) {
        void *a = at(l->a, l->stride_a, i, es), *b = at(l->b, l->stride_b, i, es);
        void *w = at(l->w, l->stride_w, i, es), *u = at(l->u, l->stride_u, i, es);
        void *vt = at(l->vt, l->stride_vt, i, es);
        int *ipiv = l->ipiv ? l->ipiv + l->stride_ipiv * i : NULL;
        int info;
        switch (l->op) {
        case CM_LA_GETRF: info = lp.getrf[t](COL_MAJOR, l->n, l->n, a, l->lda, ipiv); break;
        case CM_LA_GETRS:
            info = lp.getrs[t](COL_MAJOR, 'N', l->n, l->nrhs, a, l->lda, ipiv, b, l->ldb);
            break;
        case CM_LA_POTRF: info = lp.potrf[t](COL_MAJOR, 'L', l->n, a, l->lda); break;
        case CM_LA_GEQRF: info = lp.geqrf[t](COL_MAJOR, l->m, l->n, a, l->lda, w); break;
        case CM_LA_ORGQR: info = lp.orgqr[t](COL_MAJOR, l->m, l->n, l->nrhs, a, l->lda, w); break;
        case CM_LA_GESVD:
            info = lp.gesdd[t](COL_MAJOR, l->job, l->m, l->n, a, l->lda, w, u,
                               l->ldu > 0 ? l->ldu : 1, vt, l->ldvt > 0 ? l->ldvt : 1);
            break;
        case CM_LA_SYEVD: info = lp.syevd[t](COL_MAJOR, l->job, 'L', l->n, a, l->lda, w); break;
        default:
            CM_ERROR(err, CPU_E_NO_LAPACK, "cpu_lapack_run: step %d", l->op);
            return -1;
        }
        if (info < 0) {
            CM_ERROR(err, CPU_E_NO_LAPACK, "LAPACKE (step %d) rejected its argument %d", l->op,
                     -info);
            return -1;
        }
        l->info[i] = info;
    }
    return 0;
}
