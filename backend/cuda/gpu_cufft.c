/* gpu_cufft: FFTs on a GPU (gpu.h's gpu_fft_run) through cuFFT
 * (libcufft.so.12, else .11; the library host cells may also use, through
 * gpu_hostlibs), loaded with dlopen at first use; only the calls gpuc
 * makes are bound. A rank-1 transform may have strides (cufftPlanMany's
 * advanced layout: a non-last axis with no copy). Plans are kept by
 * shape, layout and context (the last 16, as CuPy's plan cache keeps
 * them) and run on the default stream; a plan holds its own work area. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu_dl.h"
#include "gpu_internal.h"

typedef int plan_t;   /* cufftHandle */
typedef int result_t; /* cufftResult; 0 = CUFFT_SUCCESS */

enum {
    CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29,
    CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69,
    CUFFT_FORWARD = -1, CUFFT_INVERSE = 1,
};

static struct {
    void *handle;
    char path[512];
    result_t (*plan_many)(plan_t *plan, int rank, int *n, int *inembed, int istride, int idist,
                          int *onembed, int ostride, int odist, int type, int batch);
    result_t (*destroy)(plan_t plan);
    result_t (*c2c)(plan_t, void *in, void *out, int direction);
    result_t (*z2z)(plan_t, void *in, void *out, int direction);
    result_t (*r2c)(plan_t, void *in, void *out);
    result_t (*d2z)(plan_t, void *in, void *out);
    result_t (*c2r)(plan_t, void *in, void *out);
    result_t (*z2d)(plan_t, void *in, void *out);
} lib;
static int tried;
static char missing[CM_ERROR_TEXT];

static int resolve(void **slot, const char *name)
{
    *slot = gpu_dl_sym(lib.handle, name);
    if (!*slot)
        snprintf(missing, sizeof missing, "cuFFT (%s) lacks %s", lib.path, name);
    return *slot ? 0 : -1;
}

#define SYM(field, name) resolve((void **)&lib.field, name)

static int load(cm_error_t *err)
{
    if (!tried) {
        tried = 1;
        static const char *const names[] = {"libcufft.so.12", "libcufft.so.11", NULL};
        char where[600];
        lib.handle = gpu_dl_open(names, RTLD_NOW | RTLD_LOCAL, lib.path, sizeof lib.path, where,
                                 sizeof where);
        if (!lib.handle)
            snprintf(missing, sizeof missing,
                     "cuFFT not found: GPU FFTs need it (looked for %s; install the CUDA "
                     "toolkit's libcufft or set CUDA_HOME)", where);
        else if (SYM(plan_many, "cufftPlanMany") || SYM(destroy, "cufftDestroy") ||
                 SYM(c2c, "cufftExecC2C") || SYM(z2z, "cufftExecZ2Z") ||
                 SYM(r2c, "cufftExecR2C") || SYM(d2z, "cufftExecD2Z") ||
                 SYM(c2r, "cufftExecC2R") || SYM(z2d, "cufftExecZ2D"))
            lib.handle = NULL;
    }
    if (!lib.handle) {
        CM_ERROR(err, GPU_E_NO_LIBRARY, "%s", missing);
        return -1;
    }
    return 0;
}

/* cufftResult's names (cuFFT has no function that gives them). */
static const char *result_name(result_t r)
{
    static const char *const names[] = {
        "CUFFT_SUCCESS", "CUFFT_INVALID_PLAN", "CUFFT_ALLOC_FAILED", "CUFFT_INVALID_TYPE",
        "CUFFT_INVALID_VALUE", "CUFFT_INTERNAL_ERROR", "CUFFT_EXEC_FAILED",
        "CUFFT_SETUP_FAILED", "CUFFT_INVALID_SIZE", "CUFFT_UNALIGNED_DATA",
    };
    return r >= 0 && r < (int)(sizeof names / sizeof names[0]) ? names[r] : "CUFFT_?";
}

static int check(result_t rc, const char *call, int line, cm_error_t *err)
{
    if (rc == 0)
        return 0;
    cm_error_setf(err, __FILE__, line, rc, "cufft%s: %s (%d)", call, result_name(rc), rc);
    return -1;
}
#define CHECK(call, name) check((call), name, __LINE__, err)

#define KEPT 16
static struct kept {
    gpu_cucontext_t ctx;
    cm_fft_t key; /* in and out zeroed */
    plan_t plan;
    int used;
} kept[KEPT];
static int next_slot;

static int same(const cm_fft_t *a, const cm_fft_t *b)
{
    return a->kind == b->kind && a->type == b->type && a->rank == b->rank &&
           memcmp(a->n, b->n, sizeof a->n) == 0 && a->batch == b->batch &&
           a->istride == b->istride && a->idist == b->idist && a->ostride == b->ostride &&
           a->odist == b->odist;
}

/* The plan of f's shape on ctx: kept, or made (and kept). -1 with err. */
static int plan_for(gpu_cucontext_t ctx, const cm_fft_t *f, plan_t *plan, cm_error_t *err)
{
    for (int i = 0; i < KEPT; i++)
        if (kept[i].used && kept[i].ctx == ctx && same(&kept[i].key, f)) {
            *plan = kept[i].plan;
            return 0;
        }
    long long real = 1;
    for (int k = 0; k < f->rank; k++)
        real *= f->n[k];
    long long half = real / f->n[f->rank - 1] * (f->n[f->rank - 1] / 2 + 1);
    if (real > 0x7fffffff || f->batch > 0x7fffffff) {
        CM_ERROR(err, GPU_E_INVALID, "an FFT of %lld x %lld elements: cuFFT's plans take int "
                 "sizes", f->batch, real);
        return -1;
    }
    int f64 = f->type == CM_LA_F64, type, idist = (int)real, odist = (int)real;
    switch (f->kind) {
    case CM_FFT_R2C: type = f64 ? CUFFT_D2Z : CUFFT_R2C; odist = (int)half; break;
    case CM_FFT_C2R: type = f64 ? CUFFT_Z2D : CUFFT_C2R; idist = (int)half; break;
    default: type = f64 ? CUFFT_Z2Z : CUFFT_C2C; break;
    }
    int n[3] = {f->n[0], f->n[1], f->n[2]}, istride = 1, ostride = 1;
    int *inembed = NULL, *onembed = NULL; /* NULL: cuFFT ignores the strides and dists */
    if (f->istride) { /* the advanced layout (rank 1; ga_fft checked the ints) */
        istride = (int)f->istride, idist = (int)f->idist;
        ostride = (int)f->ostride, odist = (int)f->odist;
        inembed = onembed = n; /* rank 1: the embedding's size is not read */
    }
    if (CHECK(lib.plan_many(plan, f->rank, n, inembed, istride, idist, onembed, ostride, odist,
                            type, (int)f->batch), "PlanMany") != 0)
        return -1;
    struct kept *k = &kept[next_slot];
    next_slot = (next_slot + 1) % KEPT;
    if (k->used)
        lib.destroy(k->plan); /* the default stream orders it after its last run */
    k->ctx = ctx;
    k->key = *f;
    k->key.in = NULL;
    k->key.out = NULL;
    k->plan = *plan;
    k->used = 1;
    return 0;
}

int gpu_fft_run(int device, const cm_fft_t *f, cm_error_t *err)
{
    if (load(err) != 0)
        return -1;
    const gpu_driver_t *d = gpu_driver_get(err);
    gpu_cucontext_t ctx = NULL;
    if (!d || gpu_context_use(device, err) != 0 ||
        GPU_CU_CHECK(d->cuCtxGetCurrent(&ctx), err) != 0)
        return -1;
    plan_t plan;
    if (plan_for(ctx, f, &plan, err) != 0)
        return -1;
    void *in = (void *)f->in, *out = f->out;
    int f64 = f->type == CM_LA_F64, dir = f->inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
    gpu_kernel_clock_before(NULL);
    int rc;
    switch (f->kind) {
    case CM_FFT_R2C:
        rc = f64 ? CHECK(lib.d2z(plan, in, out), "ExecD2Z") : CHECK(lib.r2c(plan, in, out), "ExecR2C");
        break;
    case CM_FFT_C2R:
        rc = f64 ? CHECK(lib.z2d(plan, in, out), "ExecZ2D") : CHECK(lib.c2r(plan, in, out), "ExecC2R");
        break;
    default:
        rc = f64 ? CHECK(lib.z2z(plan, in, out, dir), "ExecZ2Z")
                 : CHECK(lib.c2c(plan, in, out, dir), "ExecC2C");
        break;
    }
    gpu_kernel_clock_after(NULL);
    return rc;
}
