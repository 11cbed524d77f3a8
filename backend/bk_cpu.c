/* bk_cpu: the CPU's table — host memory, C kernels compiled by the
 * system compiler (backend/cpu/cpu_jit) and called in this process, a CBLAS
 * (backend/cpu/cpu_blas). The host functions here serve the simulator's
 * table too (bk_sim.c): its memory is host memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk_internal.h"
#include "cm_buf.h"
#include "cpu_jit.h"
#include "cpu.h"
#include "cpu_blas.h"
#include "cpu_fft.h"
#include "cpu_lapack.h"
#include "sim.h"

/* Host memory for arrays is memory simulated kernels may use: it comes
 * from the simulator's own mapping (backend/sim/sim_arena: guard gaps
 * around each allocation, apart from the executor's heap), which also
 * tells the simulator's memcheck of it, so that an out-of-bounds access of
 * a kernel is a report or an illegal address, never a corrupted heap. */
int bk_host_alloc(int ordinal, size_t bytes, void **ptr, cm_error_t *err)
{
    (void)ordinal;
    *ptr = sim_array_alloc(bytes);
    if (!*ptr) {
        CM_ERROR(err, BK_E_MEMORY, "host out of memory");
        return -1;
    }
    return 0;
}

void bk_host_free(int ordinal, void *ptr)
{
    (void)ordinal;
    sim_array_free(ptr);
}

int bk_host_zero(int ordinal, void *dst, size_t bytes, cm_error_t *err)
{
    (void)ordinal, (void)err;
    memset(dst, 0, bytes);
    return 0;
}

int bk_host_move(int ordinal, void *dst, const void *src, size_t bytes, cm_error_t *err)
{
    (void)ordinal, (void)err;
    memmove(dst, src, bytes);
    return 0;
}

int bk_host_info(int ordinal, size_t *free_bytes, size_t *total_bytes, cm_error_t *err)
{
    (void)ordinal;
    cm_error_t e = {0};
    if (cpu_mem_info(free_bytes, total_bytes, &e) == 0)
        return 0;
    CM_ERROR(err, BK_E_MEMORY, "%s", e.text);
    return -1;
}

void *bk_host_kernel(int ordinal, const char *source, const char *options, const char *name,
                     cm_error_t *err)
{
    (void)ordinal;
    cpu_jit_result_t r;
    cm_error_t e = {0};
    void *fn = NULL;
    cm_buf_t flags = {0};
    cm_buf_addf(&flags, "-O3 -march=native -fno-math-errno%s%s", options ? " " : "",
                options ? options : "");
    int rc = cpu_jit_load(CPU_JIT_C, source, cm_buf_str(&flags), &r, &e);
    cm_buf_free(&flags);
    if (rc == 0)
        fn = cpu_jit_symbol(r.handle, name, &e);
    if (r.log && getenv("GPUC_DUMP_SOURCE"))
        fprintf(stderr, "---- bk_kernel ----\n%s\n---- log ----\n%s\n", source, r.log);
    free(r.log);
    if (!fn)
        CM_ERROR(err, BK_E_KERNEL, "%s", e.text);
    return fn;
}

int bk_host_units(int ordinal)
{
    (void)ordinal;
    return cpu_count();
}

static const cpu_blas_t *blas(cm_error_t *err)
{
    cm_error_t e = {0};
    const cpu_blas_t *b = cpu_blas_get(&e);
    if (!b)
        CM_ERROR(err, BK_E_DEVICE, "%s", e.text);
    return b;
}

int bk_host_gemm(int ordinal, const bk_gemm_t *g, cm_error_t *err)
{
    (void)ordinal;
    const cpu_blas_t *b = blas(err);
    if (!b)
        return -1;
    if (g->type == BK_BLAS_F16) {
        CM_ERROR(err, BK_E_DEVICE, "the CPU's BLAS has no float16: multiply in float32");
        return -1;
    }
    int ta = g->trans_a ? CPU_BLAS_TRANS : CPU_BLAS_NO_TRANS;
    int tb = g->trans_b ? CPU_BLAS_TRANS : CPU_BLAS_NO_TRANS;
    size_t es = g->type == BK_BLAS_F64 ? 8 : 4;
    for (int i = 0; i < g->batch; i++) {
        const char *pa = (const char *)g->a + (size_t)(i * g->stride_a) * es;
        const char *pb = (const char *)g->b + (size_t)(i * g->stride_b) * es;
        char *pc = (char *)g->c + (size_t)(i * g->stride_c) * es;
        if (g->type == BK_BLAS_F64)
            b->cblas_dgemm(CPU_BLAS_COL_MAJOR, ta, tb, g->m, g->n, g->k, 1.0,
                           (const double *)pa, g->lda, (const double *)pb, g->ldb, 0.0,
                           (double *)pc, g->ldc);
        else
            b->cblas_sgemm(CPU_BLAS_COL_MAJOR, ta, tb, g->m, g->n, g->k, 1.0f, (const float *)pa,
                           g->lda, (const float *)pb, g->ldb, 0.0f, (float *)pc, g->ldc);
    }
    return 0;
}

int bk_host_dot(int ordinal, int type, int n, const void *x, int incx, const void *y, int incy,
                void *result, cm_error_t *err)
{
    (void)ordinal;
    const cpu_blas_t *b = blas(err);
    if (!b)
        return -1;
    if (type == BK_BLAS_F64) {
        double r = b->cblas_ddot(n, x, incx, y, incy);
        memcpy(result, &r, sizeof r);
    } else if (type == BK_BLAS_F32) {
        float r = b->cblas_sdot(n, x, incx, y, incy);
        memcpy(result, &r, sizeof r);
    } else {
        CM_ERROR(err, BK_E_DEVICE, "the CPU's BLAS has no float16: take the dot in float32");
        return -1;
    }
    return 0;
}

/* FFTW's and LAPACKE's errors as the floor's (no library: BK_E_DEVICE). */
int bk_host_fft(int ordinal, const bk_fft_t *f, cm_error_t *err)
{
    (void)ordinal;
    cm_error_t e = {0};
    if (cpu_fft_run(f, &e) == 0)
        return 0;
    CM_ERROR(err, BK_E_DEVICE, "%s", e.text);
    return -1;
}

int bk_host_lapack(int ordinal, const bk_lapack_t *l, cm_error_t *err)
{
    (void)ordinal;
    cm_error_t e = {0};
    if (cpu_lapack_run(l, &e) == 0)
        return 0;
    CM_ERROR(err, BK_E_DEVICE, "%s", e.text);
    return -1;
}

static int one(void)
{
    return 1;
}

static void info(int ordinal, bk_device_info_t *info)
{
    (void)ordinal;
    snprintf(info->name, sizeof info->name, "CPU");
    info->sm_count = cpu_count();
    size_t avail;
    if (cpu_mem_info(&avail, &info->total_mem, NULL) != 0)
        info->total_mem = 0;
}

const bk_ops_t bk_cpu_ops = {
    .prefix = "cpu", .kind = "CPU", .clock = "host", .host_memory = 1, .lang = BK_LANG_C,
    .count = one, .info = info,
    .alloc = bk_host_alloc, .free = bk_host_free, .zero = bk_host_zero,
    .to_device = bk_host_move, .to_host = bk_host_move, .copy = bk_host_move,
    .mem_info = bk_host_info,
    .kernel = bk_host_kernel, .units = bk_host_units,
    .gemm = bk_host_gemm, .dot = bk_host_dot,
    .fft = bk_host_fft, .lapack = bk_host_lapack,
};
