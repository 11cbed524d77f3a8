/* ga_map: elementwise operations — one expression (ga_expr) over arrays
 * and scalars, with NumPy's broadcasting and type promotion, compiled
 * into one kernel per expression and dtypes (ga_kernel) and run on the
 * arrays' device with no temporaries. Views of any strides; an optional
 * output array. An expression with a reduction at its root is ga_eval's
 * (above this and ga_reduce): ga_map runs no reduction, so ga_reduce can
 * run its elementwise pieces here. */
#ifndef GA_MAP_H
#define GA_MAP_H

#include "cm_error.h"
#include "ga_array.h"
#include "ga_expr.h"

/* An operand as cells pass it: an array or a number. The layout is part
 * of the cell API (gpuc.h declares the same struct). */
enum { GA_ARG_ARRAY = 1, GA_ARG_INT = 2, GA_ARG_FLOAT = 3 };
typedef struct ga_arg {
    int kind;
    ga_array_t *a;
    long long i;
    double f;
} ga_arg_t;

/* Evaluates the elementwise expression text over args[0, nargs) (bound
 * to the expression's operands in order). out: NULL for a new array, else
 * the array the result is written to (the operands must broadcast to its
 * shape, as NumPy's out=; the result must cast to its dtype as NumPy's
 * same_kind allows),
 * and returned. NULL with err: GA_E_EXPR (also for a reduction: ga_eval
 * runs those), GA_E_DTYPE, GA_E_SHAPE, GA_E_DEVICE, GA_E_FREED,
 * GA_E_MEMORY, GA_E_KERNEL. */
ga_array_t *ga_map_eval(const char *text, ga_array_t *out, int nargs, const ga_arg_t *args,
                        cm_error_t *err);

/* What runs a parsed and typed expression over its checked operands:
 * arrays[k] (NULL for scalars), dtypes, weak (scalars), all on device.
 * ga_map_run and ga_reduce_eval are such functions. */
typedef ga_array_t *ga_map_runner_t(const ga_expr_t *e, ga_array_t *out, int nargs,
                                    const ga_arg_t *args, ga_array_t *const *arrays,
                                    const ga_dtype_t *dtypes, const int *weak, int device,
                                    cm_error_t *err);

/* ga_map_eval where a reduction at the root is run by reduce (NULL: the
 * GA_E_EXPR error of ga_map_eval). ga_map has no reduction of its own:
 * ga_eval and ga_reduce pass ga_reduce_eval. */
ga_array_t *ga_map_eval_reducing(const char *text, ga_array_t *out, int nargs,
                                 const ga_arg_t *args, ga_map_runner_t *reduce, cm_error_t *err);

/* The elementwise part of e (typed; a reduction at its root is ignored)
 * over checked operands (ga_map_runner_t). For ga_reduce and ga_eval. */
ga_array_t *ga_map_run(const ga_expr_t *e, ga_array_t *out, int nargs, const ga_arg_t *args,
                       ga_array_t *const *arrays, const ga_dtype_t *dtypes, const int *weak,
                       int device, cm_error_t *err);

/* The whole source (prelude included) of the kernels ga_map_eval would
 * compile for text over operands of dtypes (weak: scalars) — for a GPU
 * (gpu: the flat kernels, or the strided one for strided_nd > 0) or the
 * CPU. For tests (NVRTC checks the GPU text where there is no GPU) and
 * for reading. Caller frees; NULL with err. */
char *ga_map_source(const char *text, int nargs, const ga_dtype_t *dtypes, const int *weak,
                    int gpu, int strided_nd, cm_error_t *err);

#endif
