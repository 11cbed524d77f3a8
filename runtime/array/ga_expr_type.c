/* ga_expr_type: NumPy's result dtypes for a parsed expression (see
 * ga_expr.h): NEP 50's weak scalars, each operator's and function's rule,
 * the type variables of the user's functions, and the dtypes of
 * reductions. For ga_map and ga_reduce, which type an expression for
 * their operands before ga_expr_emit.c writes it out. */
#include "ga_expr.h"

#include <string.h>

#include "ga_array.h"
#include "ga_expr_internal.h"
#include "ga_udf.h"

static int is_float(ga_dtype_t d) { return ga_dtype_kind(d) == GA_KIND_FLOAT; }
static int is_intlike(ga_dtype_t d)
{
    char k = ga_dtype_kind(d);
    return k == GA_KIND_INT || k == GA_KIND_UINT || k == GA_KIND_BOOL;
}

typedef struct typed {
    ga_dtype_t d;
    int weak;
} typed_t;

/* NEP 50: a weak scalar takes the kind-compatible dtype of the other side. */
static typed_t combine(typed_t a, typed_t b)
{
    if (a.weak && b.weak)
        return (typed_t){(is_float(a.d) || is_float(b.d)) ? GA_F64 : GA_I64, 1};
    if (a.weak || b.weak) {
        typed_t s = a.weak ? b : a, w = a.weak ? a : b;
        if (is_float(w.d))
            return (typed_t){is_intlike(s.d) ? GA_F64 : s.d, 0};
        return (typed_t){s.d == GA_BOOL ? GA_I64 : s.d, 0};
    }
    return (typed_t){ga_dtype_promote(a.d, b.d), 0};
}

static typed_t float_of(typed_t t)
{
    if (t.weak)
        return (typed_t){GA_F64, 1};
    return (typed_t){ga_dtype_float_of(t.d), 0};
}

static int type_error(const ga_expr_t *e, const ga_node_t *n, cm_error_t *err, const char *what,
                      ga_dtype_t d)
{
    CM_ERROR(err, GA_E_DTYPE, "\"%s\": column %d: %s %s", e->text, n->column, what,
             ga_dtype_name(d));
    return -1;
}

static typed_t udf_binding(const ga_expr_t *e, const ga_node_t *n, const char *var);

static int type_node(ga_expr_t *e, int i, const ga_dtype_t *dtypes, const int *weak, cm_error_t *err)
{
    ga_node_t *n = &e->nodes[i];
    typed_t k[8];
    for (int j = 0; j < n->nkids; j++) {
        if (type_node(e, n->kids[j], dtypes, weak, err))
            return -1;
        k[j] = (typed_t){e->nodes[n->kids[j]].dtype, e->nodes[n->kids[j]].weak};
    }
    typed_t r = {GA_F64, 0}, c = {GA_F64, 0};
    switch (n->kind) {
    case GA_N_NUM:
        r = (typed_t){n->num_is_int ? GA_I64 : GA_F64, 1};
        c = r;
        break;
    case GA_N_VAR:
        r = (typed_t){dtypes[n->var], weak[n->var] != 0};
        if (ga_dtype_kind(r.d) == GA_KIND_COMPLEX)
            return type_error(e, n, err, "array math does not support", r.d);
        c = r;
        break;
    case GA_N_UNARY:
        c = r = k[0];
        if (n->op == '!')
            r = (typed_t){GA_BOOL, 0};
        else if (n->op == '-' && r.d == GA_BOOL)
            return type_error(e, n, err, "negating (-) is not supported for", GA_BOOL);
        else if (n->op == '~' && !is_intlike(r.d))
            return type_error(e, n, err, "~ needs integers or bool, not", r.d);
        break;
    case GA_N_BINARY:
        c = r = combine(k[0], k[1]);
        switch (n->op) {
        case '-':
            if (r.d == GA_BOOL)
                return type_error(e, n, err, "subtracting is not supported for", GA_BOOL);
            break;
        case '/':
            if (is_intlike(r.d))
                c = r = (typed_t){GA_F64, r.weak};
            break;
        case '%':
        case GA_T_POW:
            if (r.d == GA_BOOL)
                return type_error(e, n, err, n->op == '%' ? "% is not supported for"
                                                          : "** is not supported for", GA_BOOL);
            break;
        case '&': case '|': case '^': case GA_T_SHL: case GA_T_SHR:
            if (!is_intlike(r.d))
                return type_error(e, n, err, "bit operations need integers or bool, not", r.d);
            break;
        case '<': case '>': case GA_T_LE: case GA_T_GE: case GA_T_EQ: case GA_T_NE:
        case GA_T_AND: case GA_T_OR:
            r = (typed_t){GA_BOOL, 0};
            break;
        }
        break;
    case GA_N_TERNARY:
        c = r = combine(k[1], k[2]);
        break;
    case GA_N_UDF: {
        const ga_udf_t *f = ga_udf_at(n->op);
        int ot = ga_udf_type(f->otype);
        if (ot >= 0)
            r = (typed_t){(ga_dtype_t)ot, 0};
        else /* a weak binding (only numbers bound to it) is NumPy's default */
            r = (typed_t){udf_binding(e, n, f->otype).d, 0};
        if (ga_dtype_kind(r.d) == GA_KIND_COMPLEX)
            return type_error(e, n, err, "array math does not support", r.d);
        c = r;
        break;
    }
    case GA_N_CALL: {
        const ga_expr_func_t *f = &ga_expr_funcs[n->op];
        switch (f->rule) {
        case GA_RULE_FLOAT: c = r = float_of(k[0]); break;
        case GA_RULE_KEEP:
            c = r = k[0];
            if (r.d == GA_BOOL && (!strcmp(f->c, "sign") || !strcmp(f->c, "neg")))
                return type_error(e, n, err, "this function is not supported for", GA_BOOL);
            break;
        case GA_RULE_PRED: c = float_of(k[0]); r = (typed_t){GA_BOOL, 0}; break;
        case GA_RULE_FLOAT2: c = r = float_of(combine(k[0], k[1])); break;
        case GA_RULE_KEEP2:
            c = r = combine(k[0], k[1]);
            if (r.d == GA_BOOL && !strcmp(f->c, "pow"))
                return type_error(e, n, err, "pow is not supported for", GA_BOOL);
            if (r.d == GA_BOOL && !strcmp(f->c, "fmod")) /* NumPy: int8 */
                c = r = (typed_t){GA_I8, 0};
            break;
        case GA_RULE_WHERE: c = r = combine(k[1], k[2]); break;
        case GA_RULE_CLIP: c = r = combine(k[0], combine(k[1], k[2])); break;
        case GA_RULE_CAST: c = r = (typed_t){f->cast, 0}; break;
        }
        break;
    }
    }
    n->dtype = r.d;
    n->weak = r.weak;
    n->compute = c.d;
    return 0;
}

int ga_expr_type(ga_expr_t *e, const ga_dtype_t *dtypes, const int *weak, cm_error_t *err)
{
    if (type_node(e, e->root, dtypes, weak, err))
        return -1;
    e->nodes[e->root].weak = 0; /* a weak result becomes int64 / float64 */
    return 0;
}

ga_dtype_t ga_expr_dtype(const ga_expr_t *e)
{
    return e->nodes[e->root].dtype;
}

ga_dtype_t ga_expr_reduce_dtype(ga_reduce_op_t op, ga_dtype_t d)
{
    char k = ga_dtype_kind(d);
    switch (op) {
    case GA_R_SUM:
    case GA_R_PROD:
        if (k == GA_KIND_BOOL || k == GA_KIND_INT)
            return GA_I64;
        return k == GA_KIND_UINT ? GA_U64 : d;
    case GA_R_MEAN:
    case GA_R_VAR:
    case GA_R_STD:
        return k == GA_KIND_FLOAT ? d : GA_F64;
    case GA_R_ARGMIN:
    case GA_R_ARGMAX:
    case GA_R_COUNT_NONZERO:
        return GA_I64;
    case GA_R_ANY:
    case GA_R_ALL:
        return GA_BOOL;
    default:
        return d;
    }
}

/* ---- the user's functions ------------------------------------------------- */

/* The dtype type variable `var` of the user's function at n is bound to:
 * the promotion of the arguments declared with it (typed already). */
static typed_t udf_binding(const ga_expr_t *e, const ga_node_t *n, const char *var)
{
    const ga_udf_t *f = ga_udf_at(n->op);
    typed_t r = {GA_F64, 1};
    int bound = 0;
    for (int j = 0; j < n->nkids; j++)
        if (!strcmp(f->ptypes[j], var)) {
            typed_t t = {e->nodes[n->kids[j]].dtype, e->nodes[n->kids[j]].weak};
            r = bound ? combine(r, t) : t;
            bound = 1;
        }
    return r;
}

ga_dtype_t ga_expr_udf_type(const ga_expr_t *e, const ga_node_t *n, const char *type)
{
    int d = ga_udf_type(type);
    return d >= 0 ? (ga_dtype_t)d : udf_binding(e, n, type).d;
}
