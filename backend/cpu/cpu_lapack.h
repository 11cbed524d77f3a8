/* cpu_lapack: LAPACK on host memory for the CPU backend and the
 * simulator — Debian's LAPACKE (liblapacke: liblapacke.so.3, over the
 * liblapack.so.3 alternative, which is OpenBLAS's where libopenblas0 is
 * installed), loaded with dlopen at first use so that gpuc starts without
 * it. Runs one common/cm_linalg.h step over its batch of column-major
 * matrices, one LAPACKE call per matrix. The floor (backend/bk_linalg.c)
 * calls it; layouts and what each step is for are
 * runtime/array/ga_linalg.c's. */
#ifndef CPU_LAPACK_H
#define CPU_LAPACK_H

#include "cm_error.h"
#include "cm_linalg.h"

/* Runs l (host addresses; l->info filled per matrix: > 0 for a singular,
 * not positive definite or unconverged matrix, which is the caller's to
 * report). 0, or -1 with err (CPU_E_NO_LAPACK): no LAPACKE (naming the
 * package to install), or an argument LAPACKE rejected. */
int cpu_lapack_run(const cm_lapack_t *l, cm_error_t *err);

#endif
