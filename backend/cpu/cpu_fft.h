/* cpu_fft: FFTs on host memory for the CPU backend and the simulator —
 * FFTW 3 (Debian's libfftw3-single3 and libfftw3-double3:
 * libfftw3f.so.3, libfftw3.so.3), loaded with dlopen at first use so that
 * gpuc starts without it. FFTW rather than pocketfft: it is a C library
 * with a stable ABI that can be loaded at run time as the CBLAS is (no
 * C++ to build into gpuc), it has both precisions, batched
 * ("many") plans of rank 1 to 3 and real transforms, and it is what
 * SciPy's and Octave's users know. Plans are made with FFTW_ESTIMATE
 * (fast to make, never touching the data) and kept: the last few by
 * shape are used again with fftw_execute_dft's new-array form. */
#ifndef CPU_FFT_H
#define CPU_FFT_H

#include "cm_error.h"
#include "cm_linalg.h"

/* Runs f (host addresses; out of place; a C2R's input is overwritten).
 * 0, or -1 with err (CPU_E_NO_FFT: no FFTW, naming the packages; a plan
 * FFTW would not make). */
int cpu_fft_run(const cm_fft_t *f, cm_error_t *err);

#endif
