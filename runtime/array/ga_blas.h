/* ga_blas: matrix products through the backend floor (bk_gemm, bk_dot:
 * cuBLAS on a GPU, a CBLAS such as OpenBLAS on host memory). Layouts,
 * batches and float16 where the device's BLAS has none are decided here.
 *
 * matmul follows NumPy's rules: 2-d @ 2-d; a 1-d first operand is a row
 * (its dimension dropped from the result), a 1-d second operand a column;
 * more dimensions are batches of matrices whose batch dimensions
 * broadcast. dtypes promote as NumPy's (ga_dtype_promote) and must come
 * out float16, float32 or float64: integer, bool and complex products are
 * a GA_E_DTYPE error (convert to float64 first). float16 is computed in
 * float32 (cuBLAS's 32F compute type, as CuPy; on the CPU converted to
 * float32, multiplied, rounded back). float32 on a GPU may use TF32 tensor
 * cores when asked (ga_blas_set_tf32; off by default, as CuPy).
 *
 * Layouts. A matrix whose last two axes have one unit stride (C order, or
 * a transposed view: ga_transpose) goes to BLAS as it is, with the
 * transpose flag; other layouts (steps, negative strides) are copied to C
 * order first. Batches whose matrices lie at one fixed stride (broadcast
 * ones at stride 0) are one strided-batched call on a GPU; others one call
 * per matrix. Dimensions above 2^31 - 1 are a GA_E_SHAPE error. */
#ifndef GA_BLAS_H
#define GA_BLAS_H

#include "cm_error.h"
#include "ga_array.h"

/* A new array a @ b on their device. NULL with err: GA_E_SHAPE (0-d
 * operands, "shapes (3, 4) and (5, 2) do not align: 4 != 5", batch
 * dimensions that do not broadcast), GA_E_DTYPE, GA_E_DEVICE (different
 * devices, no BLAS), GA_E_FREED, GA_E_MEMORY, or cuBLAS's error. */
ga_array_t *ga_blas_matmul(ga_array_t *a, ga_array_t *b, cm_error_t *err);

/* The dot product of the vectors a and b (1-d, of one length) into *out,
 * accumulated in the promoted dtype's BLAS (float16 in float32, and
 * rounded to float16). 0 / -1 with err, as ga_blas_matmul. */
int ga_blas_dot(ga_array_t *a, ga_array_t *b, double *out, cm_error_t *err);

/* TF32 for float32 products on a GPU: on (1) or off (0, the default).
 * Returns the previous setting. */
int ga_blas_set_tf32(int on);

/* ---- what cells call (runtime/cell/rt_api.h); failures end the cell ---- */
ga_array_t *ga_api_matmul(ga_array_t *a, ga_array_t *b);
double ga_api_dot(ga_array_t *a, ga_array_t *b);
int ga_api_set_tf32(int on);

#endif
