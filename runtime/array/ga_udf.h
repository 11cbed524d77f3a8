/* ga_udf: functions users define for array math — %%elementwise
 * (a body of C statements per element) and %%reduce (a map expression, a
 * combining expression and an identity). Once defined, a function is
 * part of the expression language (ga_expr): "sqdiff(a, b)" or, for a
 * reduction, "sumsq(x)" / "sumsq(x, 1)" around the whole expression.
 *
 * Parameter and result types are a dtype name ("float32", "int64", ...)
 * or a type variable, one capital letter ("T"): the arguments bound to
 * one variable are promoted together as NumPy promotes, and the function
 * is instantiated once per dtype combination it is called with. */
#ifndef GA_UDF_H
#define GA_UDF_H

#include "cm_error.h"
#include "ga_dtype.h"

#define GA_UDF_MAX_PARAMS 8
#define GA_UDF_MAX 64

typedef struct ga_udf {
    char name[64];
    int nparams;
    char pnames[GA_UDF_MAX_PARAMS][32];
    char ptypes[GA_UDF_MAX_PARAMS][32];  /* "T" or a dtype name */
    char oname[32];
    char otype[32];
    char *body;        /* %%elementwise: statements that set oname; NULL for a reduction */
    /* %%reduce: over parameters ... */
    char *map;         /* an expression of the parameters */
    char *reduce;      /* an expression of a and b */
    char *identity;    /* an expression */
    char *post;        /* an expression of a (the total) and n (the count); NULL: a */
    int cell, line;    /* where the body starts, for messages */
} ga_udf_t;

/* Parses a signature "sqdiff(T a, T b) -> T c" into f (name, parameters,
 * result). 0 / -1 with err (GA_E_EXPR, saying what is wrong). */
int ga_udf_signature(const char *text, ga_udf_t *f, cm_error_t *err);

/* Defines (or redefines) f, taking over its strings. 0 / -1 with err
 * (too many functions). A name the language has as a built-in is
 * ga_expr_define's to refuse: this list knows no built-ins. */
int ga_udf_define(ga_udf_t *f, cm_error_t *err);

/* Frees f's strings and zeroes it. */
void ga_udf_clear(ga_udf_t *f);

/* The function named name[0, len), or NULL. Borrowed. */
const ga_udf_t *ga_udf_find(const char *name, size_t len);

/* The index of the function named name[0, len), or -1; the function of
 * an index (borrowed; an index stays the same when a function is
 * redefined). */
int ga_udf_index(const char *name, size_t len);
const ga_udf_t *ga_udf_at(int index);

/* The dtype a type name stands for, or -1 for a type variable ("T") and
 * -2 for an unknown name. */
int ga_udf_type(const char *type);

/* Forgets every function (%reset). */
void ga_udf_reset(void);

#endif
