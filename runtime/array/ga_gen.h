/* ga_gen: the pieces of kernel text that elementwise kernels (ga_map) and
 * reductions (ga_reduce) share — the element function ga_f of an
 * expression, reading the operands, storing a result, and the parameter
 * lists of both backends. */
#ifndef GA_GEN_H
#define GA_GEN_H

#include "cm_buf.h"
#include "ga_expr.h"

typedef struct ga_gen {
    const ga_expr_t *e;            /* typed */
    int nargs;
    ga_dtype_t dtypes[GA_EXPR_MAX_VARS];
    int weak[GA_EXPR_MAX_VARS];    /* a scalar (GA_I64 / GA_F64) */
} ga_gen_t;

/* GA_FN <ctype> ga_f(<operands>) { return <expression>; } */
void ga_gen_function(cm_buf_t *b, const ga_gen_t *g);

/* ga_f(...) with array operand k read as fmt(k, index): fmt's %1$d is k,
 * %2$s the index ("p%1$d[%2$s]"); scalars are v<k>. */
void ga_gen_value(cm_buf_t *b, const ga_gen_t *g, const char *fmt, const char *index);

/* Wraps a value of the C type of dtype from into the storage of dtype to:
 * open, then the value, then close. */
void ga_gen_store_open(cm_buf_t *b, ga_dtype_t to);
void ga_gen_store_close(cm_buf_t *b, ga_dtype_t to);

/* CPU: the declarations of p<k> (from char *const *ptrs) and v<k> (from
 * fs / is) at the top of a function. */
void ga_gen_cpu_operands(cm_buf_t *b, const ga_gen_t *g);

/* CPU: the step to the next position of an odometer over dimensions
 * [0, last] of (nd, shape) (last: a C expression, "nd - 2"), moving the
 * offsets o<k> of the array operands and of the output o<nargs> by their
 * strides st[k * nd + d]; idx[] counts. A loop statement. */
void ga_gen_cpu_next(cm_buf_t *b, const ga_gen_t *g, const char *last, const char *indent);

/* GPU: ", const T *p0, double v1, ..." for a kernel's parameter list. */
void ga_gen_gpu_params(cm_buf_t *b, const ga_gen_t *g, int restrict_);

/* "text|dtype,weak...|" into b: what identifies g in a signature. */
void ga_gen_signature(cm_buf_t *b, const ga_gen_t *g);

/* %%profile's row of a C loop over n elements of g (bk_profile_begin,
 * named `ga_map "TEXT"` as a GPU's launch of it is): the expression's
 * + - * per element as FLOPs of the precision they compute in, and `more`
 * FLOPs of more_dtype's (a reduction's adds); each array operand read
 * once per element, `written` bytes written. Returns the token for
 * bk_profile_end (0: no profile is on). */
int ga_gen_profile_begin(const ga_gen_t *g, long long n, double written, double more,
                         ga_dtype_t more_dtype, int device);

#endif
