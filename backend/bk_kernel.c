/* bk_kernel: array kernels compiled for a device and launched there, BLAS,
 * and the count of a GPU's launches (see bk.h). The compilers keep what
 * they make in the one compile cache (common/cm_cache): cpu_jit for C,
 * gpu_program (NVRTC) for CUDA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk_internal.h"
#include "cpu_jit.h"
#include "gpu.h"

void *bk_kernel_get(bk_device_t d, const char *source, const char *options, const char *name,
                    cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    return o ? o->kernel(ord, source, options, name, err) : NULL;
}

int bk_units(bk_device_t d)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, NULL);
    int n = o ? o->units(ord) : 0;
    return n > 0 ? n : 1;
}

int bk_kernel_cub(bk_device_t d)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, NULL);
    return o && o->cub ? o->cub(ord) : 0;
}

static unsigned long launches; /* bk_launch_count */

unsigned long bk_launch_count(void)
{
    return launches;
}

/* Counts a call of o that succeeded (rc 0) when o launches its kernels. */
static int counted(const bk_ops_t *o, int rc)
{
    if (rc == 0 && o->launch)
        launches++;
    return rc;
}

int bk_kernel_launch(bk_device_t d, void *kernel, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, void **args, const char *what, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    if (o && !o->launch) {
        CM_ERROR(err, BK_E_DEVICE, "the %s runs kernels as calls, not launches", o->kind);
        return -1;
    }
    /* on a GPU, what names the launch in %%profile (CUPTI times it) */
    int token = o && bk_profiling() ? bk_profile_begin(d, BK_PROF_ARRAY, what, NULL, -1, -1, NULL) : 0;
    int rc = o ? counted(o, o->launch(ord, kernel, grid, block, shared, args, what, err)) : -1;
    bk_profile_end(token);
    return rc;
}

int bk_cell_launch(bk_device_t d, const bk_cell_launch_t *l, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    if (!o)
        return -1;
    if (!o->cell_launch || d != bk_kernel_device()) {
        char here[16], there[16];
        bk_device_text(bk_kernel_device(), here, sizeof here);
        bk_device_text(d, there, sizeof there);
        CM_ERROR(err, BK_E_DEVICE,
                 "cell %d, line %d: %s cannot launch on %s: kernel cells run on %s now", l->cell,
                 l->line, l->name, there, here);
        return -1;
    }
    return o->cell_launch(ord, l, err);
}

/* "line L: message" (NVRTC's, through gpu_program) or "/path/x.c:L:C:
 * error: message" (the system compiler's) as *line and the message. */
static void located(const char *text, int *line, cm_error_t *err)
{
    const char *c = strstr(text, ".c:");
    int col = 0;
    if (sscanf(text, "line %d:", line) == 1) {
        const char *msg = strchr(text, ':');
        CM_ERROR(err, BK_E_KERNEL, "%s", msg ? msg + 2 : text);
    } else if (c && sscanf(c + 3, "%d:%d:", line, &col) == 2) {
        const char *msg = strstr(c, ": ");
        CM_ERROR(err, BK_E_KERNEL, "%s", msg ? msg + 2 : text);
    } else {
        CM_ERROR(err, BK_E_KERNEL, "%s", text);
    }
}

int bk_kernel_check(int lang, const char *source, int *line, cm_error_t *err)
{
    cm_error_t e = {0};
    int rc = 0;
    *line = 0;
    if (lang == BK_LANG_CUDA) {
        if (!gpu_program_get(source, NULL, &e) && e.code != GPU_E_NO_LIBRARY)
            rc = -1;
    } else {
        cpu_jit_result_t r;
        rc = cpu_jit_load(CPU_JIT_C, source, "-O1", &r, &e);
        free(r.log);
    }
    if (rc != 0)
        located(e.text, line, err);
    return rc;
}

/* A gemm's row of %%profile: 2mnk FLOPs per matrix; each matrix read once
 * and C written once (the least a gemm moves). */
static int profile_gemm(bk_device_t d, const bk_gemm_t *g)
{
    static const char *const type[] = {"float32", "float64", "float16"};
    static const int size[] = {4, 8, 2}, prec[] = {BK_PREC_F32, BK_PREC_F64, BK_PREC_F16};
    int t = g->type >= 0 && g->type < 3 ? g->type : 0;
    double batch = g->batch > 0 ? g->batch : 1, m = g->m, n = g->n, k = g->k;
    double flops[BK_NPREC] = {0, 0, 0};
    flops[prec[t]] = 2 * m * n * k * batch;
    char name[160];
    snprintf(name, sizeof name, "gemm %dx%dx%d %s%s", g->m, g->n, g->k, type[t],
             g->tf32 ? " (TF32)" : "");
    return bk_profile_begin(d, BK_PROF_BLAS, name, flops, (m * k + k * n) * size[t] * batch,
                            m * n * size[t] * batch, "2mnk FLOPs, each matrix once");
}

int bk_gemm(bk_device_t d, const bk_gemm_t *g, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    int token = o && bk_profiling() ? profile_gemm(d, g) : 0;
    int rc = o ? counted(o, o->gemm(ord, g, err)) : -1;
    bk_profile_end(token);
    return rc;
}

int bk_dot(bk_device_t d, int type, int n, const void *x, int incx, const void *y, int incy,
           void *result, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    return o ? counted(o, o->dot(ord, type, n, x, incx, y, incy, result, err)) : -1;
}

int bk_fft(bk_device_t d, const bk_fft_t *f, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    return o ? counted(o, o->fft(ord, f, err)) : -1;
}

int bk_lapack(bk_device_t d, const bk_lapack_t *l, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    return o ? counted(o, o->lapack(ord, l, err)) : -1;
}
