/* ga_expr: array expressions — "(a - b) * (a - b) + alpha * c" — parsed,
 * typed as NumPy types them, and written out as C for the kernels of both
 * backends (ga_kernel).
 *
 * The language is C's expressions (arithmetic, comparisons, logic, bit
 * operations, ?:) plus `**` for powers, the math functions (sqrt, exp,
 * sin, ..., pow, atan2, minimum, maximum, where, clip, isnan, ...) and
 * casts written as dtype names (float32(x)). At the root only, a
 * reduction: sum(e), prod, min, max, mean, var, std, argmin, argmax,
 * any, all, count_nonzero, with an optional integer axis: sum(e, 1).
 *
 * Operands are named by the identifiers of the expression in order of
 * first appearance ("(a - b) * (a - b)": a, then b), unless the text
 * starts with a list "x, y: y - x". Each operand is an array or a scalar
 * given at the call; scalars are "weak" as NumPy 2 treats Python numbers:
 * a float32 array times 2.5 stays float32.
 *
 * Errors (cm_error_t, codes GA_E_EXPR / GA_E_DTYPE) name the expression
 * and the column. */
#ifndef GA_EXPR_H
#define GA_EXPR_H

#include "cm_buf.h"
#include "cm_error.h"
#include "ga_array.h" /* GA_E_EXPR */
#include "ga_dtype.h"

#define GA_EXPR_MAX_NODES 256
#define GA_EXPR_MAX_VARS 16
#define GA_EXPR_MAX_TEXT 2048
#define GA_AXIS_ALL (-1000)   /* a reduction of every element */


typedef enum ga_reduce_op {
    GA_R_NONE = 0,
    GA_R_SUM, GA_R_PROD, GA_R_MIN, GA_R_MAX, GA_R_MEAN, GA_R_VAR, GA_R_STD,
    GA_R_ARGMIN, GA_R_ARGMAX, GA_R_ANY, GA_R_ALL, GA_R_COUNT_NONZERO,
    GA_R_USER,                 /* a %%reduce function (ga_expr_t.user) */
} ga_reduce_op_t;

typedef struct ga_node {
    int kind;                  /* GA_N_* (ga_expr_internal.h) */
    int op;                    /* operator or function */
    int kids[8], nkids;
    double num;                /* a number literal */
    int num_is_int;
    int var;                   /* an operand: its index */
    int column;                /* 1-based, for messages */
    ga_dtype_t dtype;          /* the result, after typing */
    ga_dtype_t compute;        /* the dtype the operation computes in */
    int weak;                  /* a scalar's type, not yet resolved */
} ga_node_t;

typedef struct ga_expr {
    char text[GA_EXPR_MAX_TEXT];
    ga_node_t nodes[GA_EXPR_MAX_NODES];
    int nnodes, root;          /* root: the mapped expression (under a reduction) */
    char names[GA_EXPR_MAX_VARS][32];
    int nvars;
    ga_reduce_op_t reduce;     /* GA_R_NONE: elementwise */
    int axis;                  /* of the reduction; GA_AXIS_ALL when not given */
    int user;                  /* GA_R_USER: the function's index (ga_udf) */
} ga_expr_t;

/* Parses text into e. 0 / -1 with err (GA_E_EXPR: "ga_map: "(a - ) * b":
 * column 6: expected a value"). */
int ga_expr_parse(const char *text, ga_expr_t *e, cm_error_t *err);

/* Types e for operands of dtypes[i] (weak[i] non-zero: a scalar — GA_I64
 * for an integer, GA_F64 for a float). 0, or -1 with err (GA_E_DTYPE:
 * "ga_map: "a - b": subtracting bool arrays is not supported, use ^"). The
 * result dtype is then ga_expr_dtype(e). */
int ga_expr_type(ga_expr_t *e, const ga_dtype_t *dtypes, const int *weak, cm_error_t *err);

/* The operand the elementwise part is when it is just one ("sum(a)"),
 * else -1. */
int ga_expr_operand(const ga_expr_t *e);

/* The dtype of the elementwise part (before a reduction). */
ga_dtype_t ga_expr_dtype(const ga_expr_t *e);

/* Writes the C expression of node (e->root for the whole) that computes
 * its value in the C type of ga_expr_ctype(dtype); operand i is the
 * identifier v<i> of type ga_expr_ctype of its dtype (arrays) or
 * double / long long (scalars). Valid C and CUDA with ga_kernel's prelude. */
void ga_expr_emit(const ga_expr_t *e, int node, cm_buf_t *out);

/* The C type values of dtype d are computed in: "int" (bool, 0/1),
 * "ga_i8" ... "ga_u64", "float" (float16 and float32), "double". */
const char *ga_expr_ctype(ga_dtype_t d);

/* The C type d is stored as: "ga_u8" (bool), ..., "ga_u16" (float16). */
const char *ga_expr_stype(ga_dtype_t d);

/* NumPy's result dtype of a reduction of elements of d (sum of int8 is
 * int64, mean of int32 is float64, argmax is int64, any is bool...). */
ga_dtype_t ga_expr_reduce_dtype(ga_reduce_op_t op, ga_dtype_t d);

/* "sum", "mean", ... Static. */
const char *ga_expr_reduce_name(ga_reduce_op_t op);

/* Adds the user's function f to the language (ga_udf_define), taking over
 * its strings even on failure: 0, or -1 with err (GA_E_EXPR) where its
 * name is a built-in function or reduction, or the list is full. */
struct ga_udf;
int ga_expr_define(struct ga_udf *f, cm_error_t *err);

/* The definitions of the user's functions (ga_udf) that e calls, one per
 * dtype combination, to put before code that uses ga_expr_emit's text. */
void ga_expr_emit_functions(const ga_expr_t *e, cm_buf_t *out);

/* The C type of dtype d (ga_expr_ctype), with "T" style type variables of
 * udf bound as node n binds them: for ga_reduce's user reductions. Writes
 * "#define V ctype" lines for each variable of the user's function of e,
 * and "#undef" lines when undef is set. */
void ga_expr_emit_type_vars(const ga_expr_t *e, int node, int undef, cm_buf_t *out);

#endif
