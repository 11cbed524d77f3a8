/* ga_einsum: NumPy's einsum for one or two operands — "ij,jk->ik",
 * "bij,bjk->bik", "ii->i", "ij->", "i,i->", implicit outputs ("ij,jk":
 * the letters seen once, in alphabetical order), as numpy.einsum.
 *
 * Two float operands whose subscripts are a matrix product (a letter
 * summed; each letter in the output or in the other operand; no letter
 * twice in one operand)
 * go to ga_blas's matmul (cuBLAS, a CBLAS): batch letters, the left's own,
 * the summed, the right's own are grouped by views (copied only where a
 * view cannot be merged) and the result is a view in the output's order.
 * Anything else (traces, diagonals, outer products, integer operands, a
 * letter summed within one operand) runs by a generic kernel: the
 * operands as views over all the letters (a letter twice in one operand
 * is its diagonal, by strides), their product in one elementwise kernel,
 * then one sum over the summed letters. The result dtype is the operands'
 * promoted dtype, as NumPy's.
 *
 * Not here (a GA_E_VALUE error that says so): "..." (ellipsis), more than
 * two operands (chain two einsums), more than 8 distinct letters; a
 * GA_E_SHAPE error for a letter whose sizes differ, or subscripts that do
 * not match an operand's dimensions. */
#ifndef GA_EINSUM_H
#define GA_EINSUM_H

#include "cm_error.h"
#include "ga_array.h"

/* subscripts over ops[0, nops). A new array, or NULL with err. */
ga_array_t *ga_einsum(const char *subscripts, int nops, ga_array_t *const *ops, cm_error_t *err);

/* What cells call (runtime/cell/rt_api.h; gpuc.h's ga_einsum(s, a, b)
 * counts the operands); failures end the cell. */
ga_array_t *ga_api_einsum(const char *subscripts, int nargs, ga_array_t *const *args);

#endif
