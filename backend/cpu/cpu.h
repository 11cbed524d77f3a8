/* cpu: the CPU backend's own parts, below the floor (backend/bk_cpu.c
 * turns them into the floor's table): host memory's size (cpu_mem), a
 * CBLAS (cpu_blas.h) and the system compiler's JIT (cpu_jit.h). */
#ifndef CPU_H
#define CPU_H

#include <stddef.h>

#include "cm_error.h"

enum {
    CPU_E_NO_BLAS = 40001,  /* no CBLAS library: install libopenblas0 */
    CPU_E_MEMINFO = 40002,  /* /proc/meminfo cannot be read */
    CPU_E_NO_LAPACK = 40003, /* no LAPACKE: install liblapacke (cpu_lapack.h) */
    CPU_E_NO_FFT = 40004,    /* no FFTW: install libfftw3-single3 libfftw3-double3 (cpu_fft.h) */
};

/* MemAvailable and MemTotal of /proc/meminfo, in bytes. 0 / -1 with err. */
int cpu_mem_info(size_t *free_bytes, size_t *total_bytes, cm_error_t *err);

/* The number of CPUs this process may run on (at least 1). */
int cpu_count(void);

#endif
