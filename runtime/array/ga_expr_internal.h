/* ga_expr_internal: what the files of ga_expr share and its callers do
 * not see: the node kinds and operator codes of the tree ga_expr.c
 * parses, the table of the language's functions, and the type variables
 * of the user's functions. Included by ga_expr.c (parsing), ga_expr_type.c
 * (NumPy's dtypes) and ga_expr_emit.c (writing C) only. */
#ifndef GA_EXPR_INTERNAL_H
#define GA_EXPR_INTERNAL_H

#include "ga_dtype.h"
#include "ga_expr.h"

/* ga_node_t.kind. */
enum { GA_N_NUM = 1, GA_N_VAR, GA_N_UNARY, GA_N_BINARY, GA_N_TERNARY, GA_N_CALL, GA_N_UDF };

/* ga_node_t.op of the two-character operators, one code each (a
 * one-character operator is its character). */
enum { GA_T_POW = 256, GA_T_SHL, GA_T_SHR, GA_T_LE, GA_T_GE, GA_T_EQ, GA_T_NE, GA_T_AND, GA_T_OR };

/* ---- ga_expr.c: the functions ------------------------------------------- */

/* How a function's dtype follows from its operands' (ga_expr_type.c). */
typedef enum ga_expr_rule {
    GA_RULE_FLOAT,  /* a math function: computes in ga_dtype_float_of(x) */
    GA_RULE_KEEP,   /* the dtype of x (abs, floor, sign, square) */
    GA_RULE_PRED,   /* bool (isnan) */
    GA_RULE_FLOAT2, /* two operands, float (atan2, hypot) */
    GA_RULE_KEEP2,  /* two operands, their promotion (pow, maximum) */
    GA_RULE_WHERE,  /* where(c, a, b) */
    GA_RULE_CLIP,   /* clip(x, lo, hi) */
    GA_RULE_CAST,   /* float32(x) */
} ga_expr_rule_t;

typedef struct ga_expr_func {
    const char *name;
    ga_expr_rule_t rule;
    const char *c;   /* the C function (double; "f" suffix for float), or a helper stem */
    ga_dtype_t cast; /* GA_RULE_CAST */
} ga_expr_func_t;

/* Every function of the language; a GA_N_CALL node's op is its index. */
extern const ga_expr_func_t ga_expr_funcs[];

/* ---- ga_expr_type.c: the user's functions ------------------------------ */

/* The dtype `type` (a dtype name, or a type variable such as "T") stands
 * for at n, a typed GA_N_UDF node: a variable is bound to the promotion
 * of the arguments declared with it. */
ga_dtype_t ga_expr_udf_type(const ga_expr_t *e, const ga_node_t *n, const char *type);

#endif
