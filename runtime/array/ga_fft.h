/* ga_fft: numpy.fft on device arrays — fft, ifft, rfft, irfft over one
 * axis, two (the last two: fft2 ...) or all (fftn ...), with NumPy's norm
 * ("backward" the default, "ortho", "forward") — through the backend
 * floor's bk_fft: cuFFT on a GPU, FFTW on the CPU backend and the
 * simulator (backend/cpu/cpu_fft.h says why FFTW).
 *
 * dtypes as NumPy 2's: complex64 and float32 stay single precision
 * (float16 too: it is computed as float32); float64, integers and bool give
 * complex128 / float64. fft and ifft of a real array transform it as
 * complex (imaginary 0), as NumPy; rfft of a complex array is a GA_E_DTYPE
 * error (NumPy's TypeError). Complex arrays are (re, im) pairs
 * (ga_dtype.h's complex64 / complex128).
 *
 * Layout: the transformed axes are brought last and the data made dense
 * (no copy when it is already so, except for the inverse real transforms,
 * whose input the libraries overwrite: always a copy there, as CuPy);
 * the other axes are the batch. The result is in the input's axis order
 * (a view when the axes were moved). One axis that is not the last (fft
 * along axis 0), of the dtype the library reads, is not copied: the
 * library reads it in place with strides (cuFFT's and FFTW's advanced
 * layout, when its other axes are one uniform run) and writes a dense
 * result in the input's order. fft of dense real data along the last
 * axis is an R2C into the whole length, its upper half then mirrored
 * (X[n - j] = conj(X[j])) by one kernel; other transforms of real input
 * widen it to complex with one kernel first (CuPy's astype). Scaling for norm is one elementwise
 * kernel over the result, as CuPy's. More than three axes: the last three
 * in one transform, then the others.
 *
 * Errors (cm_error_t): GA_E_SHAPE (an axis out of range, n < 1, an empty
 * axis), GA_E_VALUE (an unknown norm), GA_E_DTYPE, GA_E_DEVICE (no FFT
 * library: the package to install), GA_E_MEMORY, GA_E_FREED. */
#ifndef GA_FFT_H
#define GA_FFT_H

#include "cm_error.h"
#include "ga_array.h"

typedef enum ga_fft_kind {
    GA_FFT_FORWARD = 0, /* fft: complex (real promoted) -> complex */
    GA_FFT_INVERSE,     /* ifft */
    GA_FFT_REAL,        /* rfft: real -> complex, n / 2 + 1 along the last transformed axis */
    GA_FFT_REAL_INVERSE /* irfft: complex (n / 2 + 1) -> real (n) */
} ga_fft_kind_t;

/* The transform kind of a over axes[0, naxes) (negative count from the
 * end; distinct), in that order; n: the length of the last of them (for
 * the real-side data: rfft's input, irfft's output), <= 0 for NumPy's
 * default (the input's; irfft: 2 * (m - 1)); a longer n pads with zeros,
 * a shorter one crops, as NumPy's n. norm: NULL, "backward", "ortho",
 * "forward". A new array, or NULL with err. */
ga_array_t *ga_fft_run(ga_fft_kind_t kind, ga_array_t *a, int naxes, const int *axes,
                       long long n, const char *norm, cm_error_t *err);

/* The CUDA or C text (prelude included) of the kernels of fft of real
 * input (widening to complex; the R2C's upper half mirrored): for tests.
 * Caller frees. */
char *ga_fft_kernel_source(void);

/* ---- what cells call (runtime/cell/rt_api.h); failures end the cell ---- */
/* one axis; n <= 0: the default length */
ga_array_t *ga_api_fft(ga_array_t *a, long long n, int axis, const char *norm);
ga_array_t *ga_api_ifft(ga_array_t *a, long long n, int axis, const char *norm);
ga_array_t *ga_api_rfft(ga_array_t *a, long long n, int axis, const char *norm);
ga_array_t *ga_api_irfft(ga_array_t *a, long long n, int axis, const char *norm);
/* the last two axes */
ga_array_t *ga_api_fft2(ga_array_t *a, const char *norm);
ga_array_t *ga_api_ifft2(ga_array_t *a, const char *norm);
ga_array_t *ga_api_rfft2(ga_array_t *a, const char *norm);
ga_array_t *ga_api_irfft2(ga_array_t *a, const char *norm);
/* all axes */
ga_array_t *ga_api_fftn(ga_array_t *a, const char *norm);
ga_array_t *ga_api_ifftn(ga_array_t *a, const char *norm);
ga_array_t *ga_api_rfftn(ga_array_t *a, const char *norm);
ga_array_t *ga_api_irfftn(ga_array_t *a, const char *norm);

#endif
