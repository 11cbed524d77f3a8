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
    return o ? counted(o, o->launch(ord, kernel, grid, block, shared, args, what, err)) : -1;
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

int bk_gemm(bk_device_t d, const bk_gemm_t *g, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    return o ? counted(o, o->gemm(ord, g, err)) : -1;
}

int bk_dot(bk_device_t d, int type, int n, const void *x, int incx, const void *y, int incy,
           void *result, cm_error_t *err)
{
    int ord;
    const bk_ops_t *o = bk_ops_of(d, &ord, err);
    return o ? counted(o, o->dot(ord, type, n, x, incx, y, incy, result, err)) : -1;
}
