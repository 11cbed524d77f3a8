/* ga_linalg: NumPy's numpy.linalg on device arrays — solve, inv, det,
 * cholesky, qr, svd, eigh, lstsq, norm — through the backend floor's
 * bk_lapack (cuSOLVER on a GPU, LAPACKE on the CPU backend and the
 * simulator) and ga_blas's matmul.
 *
 * dtypes as NumPy's: float32 stays float32, float64 stays float64, bool
 * and integers are computed in float64; float16 and complex are a
 * GA_E_DTYPE error (NumPy refuses float16 too; complex matrices: not yet).
 * Stacks of matrices (..., m, n) are batches wherever NumPy takes them
 * (all but lstsq, and norm, which takes one vector or matrix); solve's
 * batch dimensions broadcast. How a batch runs is the floor's (bk_lapack:
 * one batched call for small matrices on a GPU, else a call per matrix).
 *
 * Layout: each operand is copied once, converted and column-major (the
 * copy LAPACK overwrites); results are views of LAPACK's column-major
 * output (transposed views: no copy back), or, for cholesky and qr's R,
 * a new C-order array with the other triangle zeroed.
 *
 * Errors (cm_error_t): GA_E_LINALG for a singular matrix (solve, inv), one
 * not positive definite (cholesky), an SVD or eigensolver that did not
 * converge — NumPy's LinAlgError, with its words; GA_E_SHAPE (not
 * square, fewer than 2 dimensions, shapes that do not align),
 * GA_E_DTYPE, GA_E_DEVICE (no LAPACK / cuSOLVER, naming the package;
 * operands on different devices), GA_E_MEMORY, GA_E_FREED. */
#ifndef GA_LINALG_H
#define GA_LINALG_H

#include "cm_error.h"
#include "ga_array.h"

/* x with a @ x = b: a (..., n, n); b (n,) or (..., n, k) (NumPy 2: b is
 * one vector only when 1-d). A new array (a view), or NULL with err. */
ga_array_t *ga_linalg_solve(ga_array_t *a, ga_array_t *b, cm_error_t *err);

/* The inverse of each matrix of a (..., n, n). */
ga_array_t *ga_linalg_inv(ga_array_t *a, cm_error_t *err);

/* The determinants of a (..., n, n): shape (...), 0-d for one matrix. A
 * singular matrix gives 0 (no error), as NumPy. */
ga_array_t *ga_linalg_det(ga_array_t *a, cm_error_t *err);

/* L (lower, C order) with a = L L^T, from a's lower triangle. */
ga_array_t *ga_linalg_cholesky(ga_array_t *a, cm_error_t *err);

/* NumPy's qr(a, mode="reduced"): *q (..., m, k) and *r (..., k, n), k =
 * min(m, n); q may be NULL (NumPy's mode="r"). 0 / -1 with err (*q, *r
 * untouched). */
int ga_linalg_qr(ga_array_t *a, ga_array_t **q, ga_array_t **r, cm_error_t *err);

/* NumPy's svd(a, full_matrices): *u (..., m, m or k), *s (..., k)
 * descending, *vh (..., n or k, n); u and vh both NULL: singular values
 * only (compute_uv=False). 0 / -1 with err. */
int ga_linalg_svd(ga_array_t *a, int full_matrices, ga_array_t **u, ga_array_t **s,
                  ga_array_t **vh, cm_error_t *err);

/* NumPy's eigh(a) (UPLO="L"): *w (..., n) ascending, *v (..., n, n) with
 * the eigenvectors in its columns; v NULL: values only (eigvalsh). */
int ga_linalg_eigh(ga_array_t *a, ga_array_t **w, ga_array_t **v, cm_error_t *err);

/* NumPy's lstsq(a, b, rcond) for a (m, n), b (m,) or (m, k), through the
 * SVD (as CuPy): x (n,) or (n, k); rcond < 0: NumPy's default, machine
 * epsilon times max(m, n). *residuals (may be NULL): the squared
 * residuals per column, (k,) or (1,), when the rank is n and m > n, else
 * (0,); *rank and *s likewise optional. */
ga_array_t *ga_linalg_lstsq(ga_array_t *a, ga_array_t *b, double rcond, ga_array_t **residuals,
                            long long *rank, ga_array_t **s, cm_error_t *err);

/* NumPy's norm(a, ord) of a vector (1-d) or a matrix (2-d), in float64:
 * ord NULL (the 2-norm of the flattened array, any dimensions), "fro",
 * "nuc", "inf", "-inf", or a number ("1", "-2", "3"; matrices: 1, -1, 2,
 * -2). 0 / -1 with err (GA_E_VALUE: an ord NumPy refuses for the shape). */
int ga_linalg_norm(ga_array_t *a, const char *ord, double *out, cm_error_t *err);

/* ---- what cells call (runtime/cell/rt_api.h); failures end the cell ---- */
ga_array_t *ga_api_solve(ga_array_t *a, ga_array_t *b);
ga_array_t *ga_api_inv(ga_array_t *a);
ga_array_t *ga_api_det(ga_array_t *a);
ga_array_t *ga_api_cholesky(ga_array_t *a);
void ga_api_qr(ga_array_t *a, ga_array_t **q, ga_array_t **r);
void ga_api_svd(ga_array_t *a, int full_matrices, ga_array_t **u, ga_array_t **s,
                ga_array_t **vh);
void ga_api_eigh(ga_array_t *a, ga_array_t **w, ga_array_t **v);
ga_array_t *ga_api_lstsq(ga_array_t *a, ga_array_t *b, double rcond, ga_array_t **residuals,
                         long long *rank, ga_array_t **s);
double ga_api_norm(ga_array_t *a, const char *ord);

#endif
