#include "cpu_fft.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"

#define FFTW_FORWARD (-1)
#define FFTW_BACKWARD (+1)
#define FFTW_ESTIMATE (1U << 6)
#define FFTW_UNALIGNED (1U << 1)

typedef void *plan_t; /* fftw_plan / fftwf_plan */

/* FFTW's functions, float32 ([0]: fftwf_) and float64 ([1]: fftw_). */
static struct {
    void *handle[2];
    plan_t (*many_dft[2])(int rank, const int *n, int howmany, void *in, const int *inembed,
                          int istride, int idist, void *out, const int *onembed, int ostride,
                          int odist, int sign, unsigned flags);
    plan_t (*many_r2c[2])(int rank, const int *n, int howmany, void *in, const int *inembed,
                          int istride, int idist, void *out, const int *onembed, int ostride,
                          int odist, unsigned flags);
    plan_t (*many_c2r[2])(int rank, const int *n, int howmany, void *in, const int *inembed,
                          int istride, int idist, void *out, const int *onembed, int ostride,
                          int odist, unsigned flags);
    void (*execute_dft[2])(plan_t, void *in, void *out);
    void (*execute_r2c[2])(plan_t, void *in, void *out);
    void (*execute_c2r[2])(plan_t, void *in, void *out);
    void (*destroy[2])(plan_t);
} fw;
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(int t, void **slot, const char *name)
{
    char full[64];
    snprintf(full, sizeof full, "%s%s", t ? "fftw_" : "fftwf_", name);
    *slot = dlsym(fw.handle[t], full);
    if (!*slot)
        snprintf(missing, sizeof missing, "FFTW lacks %s (install Debian's libfftw3-%s3)", full,
                 t ? "double" : "single");
    return *slot ? 0 : -1;
}

static int load(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        static const char *const names[2] = {"libfftw3f.so.3", "libfftw3.so.3"};
        for (int t = 0; t < 2; t++) {
            void *h = dlopen(names[t], RTLD_NOW | RTLD_LOCAL);
            fw.handle[t] = h;
            if (!h) {
                snprintf(missing, sizeof missing,
                         "no FFT library for the CPU backend: install Debian's libfftw3-single3 "
                         "and libfftw3-double3 (looked for %s)", names[t]);
                break;
            }
            if (resolve(t, (void **)&fw.many_dft[t], "plan_many_dft") ||
                resolve(t, (void **)&fw.many_r2c[t], "plan_many_dft_r2c") ||
                resolve(t, (void **)&fw.many_c2r[t], "plan_many_dft_c2r") ||
                resolve(t, (void **)&fw.execute_dft[t], "execute_dft") ||
                resolve(t, (void **)&fw.execute_r2c[t], "execute_dft_r2c") ||
                resolve(t, (void **)&fw.execute_c2r[t], "execute_dft_c2r") ||
                resolve(t, (void **)&fw.destroy[t], "destroy_plan")) {
                fw.handle[t] = NULL;
                break;
            }
        }
        if (!fw.handle[1])
            fw.handle[0] = NULL;
    }
    if (!fw.handle[0]) {
        CM_ERROR(err, CPU_E_NO_FFT, "%s", missing);
        return -1;
    }
    return 0;
}

/* The plans kept: a transform's shape (kind, type, direction, sizes,
 * batch) and FFTW_UNALIGNED, so that any addresses may run them. */
#define KEPT 8
static struct kept {
    cm_fft_t key; /* in and out zeroed */
    plan_t plan;
} kept[KEPT];
static int next_slot;

static int same(const cm_fft_t *a, const cm_fft_t *b)
{
    return a->kind == b->kind && a->type == b->type && a->inverse == b->inverse &&
           a->rank == b->rank && memcmp(a->n, b->n, sizeof a->n) == 0 && a->batch == b->batch &&
           a->istride == b->istride && a->idist == b->idist && a->ostride == b->ostride &&
           a->odist == b->odist;
}

static plan_t make_plan(const cm_fft_t *f, cm_error_t *err)
{
    int t = f->type == CM_LA_F64, last = f->n[f->rank - 1];
    long long real = 1;
    for (int k = 0; k < f->rank; k++)
        real *= f->n[k];
    long long half = real / last * (last / 2 + 1);
    if (real > INT32_MAX || f->batch > INT32_MAX) {
        CM_ERROR(err, CPU_E_NO_FFT, "an FFT of %lld x %lld elements: FFTW's plans take int sizes",
                 f->batch, real);
        return NULL;
    }
    /* FFTW_ESTIMATE never touches the arrays: planned on two stand-ins (apart, so
     * that the plan is out of place), run on the real ones */
    static double stand_in[2][2];
    void *in = stand_in[0], *out = stand_in[1];
    unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    int howmany = (int)f->batch;
    int is = 1, os = 1, id = (int)real, od = (int)real;
    if (f->kind == CM_FFT_R2C)
        od = (int)half;
    if (f->kind == CM_FFT_C2R)
        id = (int)half;
    if (f->istride) { /* the advanced layout (rank 1; ga_fft checked the ints) */
        is = (int)f->istride, id = (int)f->idist, os = (int)f->ostride, od = (int)f->odist;
    }
    plan_t p = NULL;
    switch (f->kind) {
    case CM_FFT_C2C:
        p = fw.many_dft[t](f->rank, f->n, howmany, in, NULL, is, id, out, NULL, os, od,
                           f->inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags);
        break;
    case CM_FFT_R2C:
        p = fw.many_r2c[t](f->rank, f->n, howmany, in, NULL, is, id, out, NULL, os, od, flags);
        break;
    case CM_FFT_C2R:
        p = fw.many_c2r[t](f->rank, f->n, howmany, in, NULL, is, id, out, NULL, os, od, flags);
        break;
    }
    if (!p)
        CM_ERROR(err, CPU_E_NO_FFT, "FFTW made no plan for this transform (rank %d, kind %d)",
                 f->rank, f->kind);
    return p;
}

int cpu_fft_run(const cm_fft_t *f, cm_error_t *err)
{
    if (load(err) != 0)
        return -1;
    int t = f->type == CM_LA_F64;
    plan_t plan = NULL;
    for (int i = 0; i < KEPT && !plan; i++)
        if (kept[i].plan && same(&kept[i].key, f))
            plan = kept[i].plan;
    if (!plan) {
        plan = make_plan(f, err);
        if (!plan)
            return -1;
        struct kept *k = &kept[next_slot];
        next_slot = (next_slot + 1) % KEPT;
        if (k->plan)
            fw.destroy[k->key.type == CM_LA_F64](k->plan);
        k->key = *f;
        k->key.in = NULL;
        k->key.out = NULL;
        k->plan = plan;
    }
    void *in = (void *)f->in;
    switch (f->kind) {
    case CM_FFT_C2C: fw.execute_dft[t](plan, in, f->out); break;
    case CM_FFT_R2C: fw.execute_r2c[t](plan, in, f->out); break;
    case CM_FFT_C2R: fw.execute_c2r[t](plan, in, f->out); break;
    }
    return 0;
}
