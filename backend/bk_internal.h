/* bk_internal: the table each backend fills (bk_cuda.c, bk_sim.c,
 * bk_cpu.c), and what the floor's files share. The floor's functions take
 * a device, find its backend's table (bk_ops_of) and call it with the
 * ordinal; a NULL entry is a capability the backend lacks. */
#ifndef BK_INTERNAL_H
#define BK_INTERNAL_H

#include "bk.h"

typedef struct bk_ops {
    const char *prefix;        /* "gpu", "sim", "cpu": labels are prefix + ordinal */
    const char *kind, *how, *clock; /* bk_device_info_t's */
    int host_memory, lang, f16_blas, streams, runs_kernel_cells; /* as bk_device_info_t */
    int (*count)(void);        /* usable devices of the backend */
    void (*info)(int ordinal, bk_device_info_t *info); /* name, major, minor, sm_count, total_mem */

    /* memory */
    int (*alloc)(int ordinal, size_t bytes, void **ptr, cm_error_t *err);
    void (*free)(int ordinal, void *ptr);
    int (*zero)(int ordinal, void *dst, size_t bytes, cm_error_t *err);
    int (*to_device)(int ordinal, void *dst, const void *host, size_t bytes, cm_error_t *err);
    int (*to_host)(int ordinal, void *host, const void *src, size_t bytes, cm_error_t *err);
    int (*copy)(int ordinal, void *dst, const void *src, size_t bytes, cm_error_t *err);
    int (*mem_info)(int ordinal, size_t *free_bytes, size_t *total_bytes, cm_error_t *err);
    /* between two devices of the backend (NULL: through the host); peer
     * returns 1 when it cannot (then through the host) */
    int (*peer)(int dst_ordinal, void *dst, int src_ordinal, const void *src, size_t bytes,
                cm_error_t *err);
    int (*peer_link)(int a, int b); /* 1: direct (bk_peer_link) */
    /* the flags (bk_flag): pinned host memory the device's kernels write,
     * and the wait for the device's own queued work (NULL: its memory is
     * the host's, its kernels done at the call) */
    int (*mapped)(int ordinal, size_t bytes, void **host, void **dev, cm_error_t *err);
    int (*wait)(int ordinal, cm_error_t *err);
    /* sum / max / min of count elements in place on n devices at once (a
     * collective library: NCCL); 1 when it cannot (the floor then copies) */
    int (*allreduce)(int n, const int *ordinals, void *const *bufs, size_t count, int type,
                     int op, cm_error_t *err);
    const char *(*allreduce_library)(void); /* its file, or NULL */

    /* events on the user's streams (NULL: no streams) */
    void *(*mark)(void *stream, void *mark);
    int (*mark_pending)(void *mark);
    void (*mark_drop)(void *mark);

    /* array kernels */
    void *(*kernel)(int ordinal, const char *source, const char *options, const char *name,
                    cm_error_t *err);
    int (*units)(int ordinal); /* multiprocessors, or cores; 0 when unknown */
    int (*cub)(int ordinal);   /* 1: kernels may include CCCL's CUB (NULL: never) */
    int (*launch)(int ordinal, void *kernel, const unsigned grid[3], const unsigned block[3],
                  unsigned shared, void **args, const char *what, cm_error_t *err);

    /* kernel cells (NULL: it runs none) */
    int (*cell_launch)(int ordinal, const bk_cell_launch_t *l, cm_error_t *err);

    /* timing of kernels (NULL: none; the host's clock is the time) */
    void *(*timer_new)(void);
    int (*timer_start)(void *timer, cm_error_t *err);
    int (*timer_stop)(void *timer, double *seconds, cm_error_t *err);
    void (*timer_free)(void *timer);
    int (*clock_start)(void);
    int (*clock_stop)(double *seconds);
    int (*synchronize)(int ordinal, cm_error_t *err);

    /* BLAS */
    int (*gemm)(int ordinal, const bk_gemm_t *g, cm_error_t *err);
    int (*dot)(int ordinal, int type, int n, const void *x, int incx, const void *y, int incy,
               void *result, cm_error_t *err);

    /* FFT and LAPACK (bk_fft, bk_lapack) */
    int (*fft)(int ordinal, const bk_fft_t *f, cm_error_t *err);
    int (*lapack)(int ordinal, const bk_lapack_t *l, cm_error_t *err);
} bk_ops_t;

extern const bk_ops_t bk_cuda_ops, bk_sim_ops, bk_cpu_ops;

/* Sets how many devices the simulator presents (bk_sim.c), unchecked: for
 * bk_sim_set_device_count (bk_pool.c), which checks their pools first. */
void bk_sim_count_set(int n);

/* The table of d's backend and d's ordinal, or NULL (err set when not
 * NULL: BK_E_DEVICE) for no such device. */
const bk_ops_t *bk_ops_of(bk_device_t d, int *ordinal, cm_error_t *err);

/* Kernel timing through backend/cuda's gpu_timing (bk_cuda.c), which
 * serves the simulator's kernels too: its clock is the simulator's. */
void *bk_gpu_timer_new(void);
int bk_gpu_timer_start(void *timer, cm_error_t *err);
int bk_gpu_timer_stop(void *timer, double *seconds, cm_error_t *err);
void bk_gpu_timer_free(void *timer);
int bk_gpu_synchronize(int ordinal, cm_error_t *err);

/* A kernel cell's launch through backend/cuda's registry (gpu_launch),
 * which runs it on the selected GPU or the simulator (bk_cuda.c). */
int bk_gpu_cell_launch(const bk_cell_launch_t *l, cm_error_t *err);

/* Host memory: the CPU's and the simulator's (bk_cpu.c). */
int bk_host_alloc(int ordinal, size_t bytes, void **ptr, cm_error_t *err);
void bk_host_free(int ordinal, void *ptr);
int bk_host_zero(int ordinal, void *dst, size_t bytes, cm_error_t *err);
int bk_host_move(int ordinal, void *dst, const void *src, size_t bytes, cm_error_t *err);
int bk_host_info(int ordinal, size_t *free_bytes, size_t *total_bytes, cm_error_t *err);
void *bk_host_kernel(int ordinal, const char *source, const char *options, const char *name,
                     cm_error_t *err);
int bk_host_units(int ordinal);
int bk_host_gemm(int ordinal, const bk_gemm_t *g, cm_error_t *err);
int bk_host_dot(int ordinal, int type, int n, const void *x, int incx, const void *y, int incy,
                void *result, cm_error_t *err);
int bk_host_fft(int ordinal, const bk_fft_t *f, cm_error_t *err);
int bk_host_lapack(int ordinal, const bk_lapack_t *l, cm_error_t *err);

#endif
