/* ga_expr_emit: writing a typed expression (see ga_expr.h) as C that is
 * also CUDA, for the kernels ga_gen, ga_map and ga_reduce generate on
 * both backends: NumPy's integer rules through ga_kernel's prelude
 * helpers, float16 rounded where NumPy rounds, one definition per dtype
 * combination of each user's function called; and the C types of dtypes. */
#include "ga_expr.h"

#include <stdio.h>
#include <string.h>

#include "ga_expr_internal.h"
#include "ga_udf.h"

/* The C names of each dtype but the complex ones, which array math does
 * not compute in (double and "d" stand in for them and invalid dtypes). */
typedef struct c_names {
    const char *compute; /* the type values are computed in: ga_expr_ctype */
    const char *store;   /* the type they are stored as: ga_expr_stype */
    const char *suffix;  /* of the prelude's helpers: ga_mod_i32, ga_pow_f ... */
} c_names_t;

static const c_names_t c_names[GA_NDTYPES] = {
    [GA_BOOL] = {"int", "ga_u8", "i32"},     [GA_I8] = {"ga_i8", "ga_i8", "i8"},
    [GA_U8] = {"ga_u8", "ga_u8", "u8"},      [GA_I16] = {"ga_i16", "ga_i16", "i16"},
    [GA_U16] = {"ga_u16", "ga_u16", "u16"},  [GA_I32] = {"ga_i32", "ga_i32", "i32"},
    [GA_U32] = {"ga_u32", "ga_u32", "u32"},  [GA_I64] = {"ga_i64", "ga_i64", "i64"},
    [GA_U64] = {"ga_u64", "ga_u64", "u64"},  [GA_F16] = {"float", "ga_u16", "f"},
    [GA_F32] = {"float", "float", "f"},      [GA_F64] = {"double", "double", "d"},
};

static const c_names_t *c_names_of(ga_dtype_t d)
{
    static const c_names_t other = {"double", "double", "d"};
    return ga_dtype_valid(d) && c_names[d].compute ? &c_names[d] : &other;
}

const char *ga_expr_ctype(ga_dtype_t d)
{
    return c_names_of(d)->compute;
}

const char *ga_expr_stype(ga_dtype_t d)
{
    return c_names_of(d)->store;
}

static const char *suffix(ga_dtype_t d)
{
    return c_names_of(d)->suffix;
}

/* The unsigned type integer arithmetic of d wraps in. */
static const char *wrap_type(ga_dtype_t d)
{
    return ga_dtype_size(d) == 8 ? "ga_u64" : "unsigned";
}

static void emit(const ga_expr_t *e, int i, cm_buf_t *b);

/* ---- the user's functions --------------------------------------------------- */

static ga_dtype_t udf_param_dtype(const ga_expr_t *e, const ga_node_t *n, int j)
{
    return ga_expr_udf_type(e, n, ga_udf_at(n->op)->ptypes[j]);
}

/* name__<dtype of each parameter>_<result>: one instantiation. */
static void udf_mangle(const ga_expr_t *e, const ga_node_t *n, char *buf, size_t len)
{
    const ga_udf_t *f = ga_udf_at(n->op);
    size_t k = (size_t)snprintf(buf, len, "%s__", f->name);
    for (int j = 0; j < n->nkids && k < len; j++)
        k += (size_t)snprintf(buf + k, len - k, "%s", ga_dtype_npy(udf_param_dtype(e, n, j)) + 1);
    if (k < len)
        snprintf(buf + k, len - k, "_%s", ga_dtype_npy(n->dtype) + 1);
}

void ga_expr_emit_type_vars(const ga_expr_t *e, int node, int undef, cm_buf_t *out)
{
    const ga_node_t *n = &e->nodes[node];
    const ga_udf_t *f = ga_udf_at(n->op);
    char done[GA_UDF_MAX_PARAMS + 1][32];
    int ndone = 0;
    for (int j = 0; j <= f->nparams; j++) {
        const char *t = j < f->nparams ? f->ptypes[j] : f->otype;
        int seen = ga_udf_type(t) != -1;
        for (int d = 0; d < ndone && !seen; d++)
            seen = !strcmp(done[d], t);
        if (seen)
            continue;
        snprintf(done[ndone++], sizeof done[0], "%s", t);
        if (undef)
            cm_buf_addf(out, "#undef %s\n", t);
        else
            cm_buf_addf(out, "#define %s %s\n", t, ga_expr_ctype(ga_expr_udf_type(e, n, t)));
    }
}

/* The definition of the instantiation at n: %%elementwise's body, or a
 * %%reduce function's map. */
static void udf_define(const ga_expr_t *e, int node, cm_buf_t *b)
{
    const ga_node_t *n = &e->nodes[node];
    const ga_udf_t *f = ga_udf_at(n->op);
    char mangled[160];
    udf_mangle(e, n, mangled, sizeof mangled);
    const char *rt = ga_expr_ctype(n->dtype);
    ga_expr_emit_type_vars(e, node, 0, b);
    cm_buf_addf(b, "GA_FN %s %s(", rt, mangled);
    for (int j = 0; j < f->nparams; j++)
        cm_buf_addf(b, "%s%s %s", j ? ", " : "", ga_expr_ctype(udf_param_dtype(e, n, j)), f->pnames[j]);
    cm_buf_adds(b, ")\n{\n");
    if (f->body)
        cm_buf_addf(b, "    %s %s = 0;\n#line %d\n%s\n", rt, f->oname, f->line, f->body);
    else
        cm_buf_addf(b, "    %s %s;\n#line %d\n    %s = (%s)(%s);\n", rt, f->oname, f->line, f->oname,
                    rt, f->map);
    cm_buf_addf(b, "    return %s%s%s;\n}\n", n->dtype == GA_F16 ? "ga_h(" : "", f->oname,
                n->dtype == GA_F16 ? ")" : "");
    ga_expr_emit_type_vars(e, node, 1, b);
}

void ga_expr_emit_functions(const ga_expr_t *e, cm_buf_t *out)
{
    char seen[GA_EXPR_MAX_NODES][160];
    int nseen = 0;
    for (int i = 0; i < e->nnodes; i++) {
        if (e->nodes[i].kind != GA_N_UDF)
            continue;
        char mangled[160];
        udf_mangle(e, &e->nodes[i], mangled, sizeof mangled);
        int dup = 0;
        for (int k = 0; k < nseen && !dup; k++)
            dup = !strcmp(seen[k], mangled);
        if (dup)
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", mangled);
        udf_define(e, i, out);
    }
}

/* ---- the expression --------------------------------------------------------- */

/* Node i's value converted to dtype `to`. */
static void emit_as(const ga_expr_t *e, int i, ga_dtype_t to, cm_buf_t *b)
{
    const ga_node_t *n = &e->nodes[i];
    if (n->dtype == to && !n->weak) {
        emit(e, i, b);
        return;
    }
    if (to == GA_BOOL) {
        cm_buf_adds(b, "((");
        emit(e, i, b);
        cm_buf_adds(b, ") != 0)");
    } else if (to == GA_F16) {
        cm_buf_adds(b, "ga_h((float)(");
        emit(e, i, b);
        cm_buf_adds(b, "))");
    } else {
        cm_buf_addf(b, "((%s)(", ga_expr_ctype(to));
        emit(e, i, b);
        cm_buf_adds(b, "))");
    }
}

/* Rounds a float result to float16 where the node is float16. */
static void open_round(const ga_node_t *n, cm_buf_t *b)
{
    if (n->dtype == GA_F16)
        cm_buf_adds(b, "ga_h(");
}

static void close_round(const ga_node_t *n, cm_buf_t *b)
{
    if (n->dtype == GA_F16)
        cm_buf_adds(b, ")");
}

static const char *op_text(int op)
{
    switch (op) {
    case GA_T_LE: return "<=";
    case GA_T_GE: return ">=";
    case GA_T_EQ: return "==";
    case GA_T_NE: return "!=";
    default: {
        static char one[4][2];
        static int k;
        char *s = one[k++ & 3];
        s[0] = (char)op;
        s[1] = '\0';
        return s;
    }
    }
}

/* c ? a : b, and where(c, a, b): a and b in n's compute dtype. */
static void emit_select(const ga_expr_t *e, const ga_node_t *n, cm_buf_t *b)
{
    cm_buf_adds(b, "(");
    emit_as(e, n->kids[0], GA_BOOL, b);
    cm_buf_adds(b, " ? ");
    emit_as(e, n->kids[1], n->compute, b);
    cm_buf_adds(b, " : ");
    emit_as(e, n->kids[2], n->compute, b);
    cm_buf_adds(b, ")");
}

static void emit_binary(const ga_expr_t *e, const ga_node_t *n, cm_buf_t *b)
{
    ga_dtype_t c = n->compute;
    int l = n->kids[0], r = n->kids[1];
    const char *ct = ga_expr_ctype(c);
    int wraps = ga_dtype_kind(c) == GA_KIND_INT || ga_dtype_kind(c) == GA_KIND_UINT;
    switch (n->op) {
    case '+': case '-': case '*':
    case '/': /* computes in a float dtype (ga_expr_type.c) */
        if (c == GA_BOOL) { /* bool + is or, * is and, as NumPy */
            cm_buf_addf(b, "(");
            emit_as(e, l, GA_BOOL, b);
            cm_buf_adds(b, n->op == '+' ? " | " : " & ");
            emit_as(e, r, GA_BOOL, b);
            cm_buf_adds(b, ")");
        } else if (wraps) {
            cm_buf_addf(b, "((%s)((%s)", ct, wrap_type(c));
            emit_as(e, l, c, b);
            cm_buf_addf(b, " %c (%s)", n->op, wrap_type(c));
            emit_as(e, r, c, b);
            cm_buf_adds(b, "))");
        } else {
            open_round(n, b);
            cm_buf_adds(b, "(");
            emit_as(e, l, c, b);
            cm_buf_addf(b, " %c ", n->op);
            emit_as(e, r, c, b);
            cm_buf_adds(b, ")");
            close_round(n, b);
        }
        return;
    case '%': case GA_T_POW: case GA_T_SHL: case GA_T_SHR:
        open_round(n, b);
        cm_buf_addf(b, "ga_%s_%s(", n->op == '%' ? "mod" : n->op == GA_T_POW ? "pow"
                                      : n->op == GA_T_SHL ? "shl" : "shr", suffix(c));
        emit_as(e, l, c, b);
        cm_buf_adds(b, ", ");
        emit_as(e, r, c, b);
        cm_buf_adds(b, ")");
        close_round(n, b);
        return;
    case '&': case '|': case '^':
        cm_buf_addf(b, "((%s)(", ct);
        emit_as(e, l, c, b);
        cm_buf_addf(b, " %c ", n->op);
        emit_as(e, r, c, b);
        cm_buf_adds(b, "))");
        return;
    case GA_T_AND: case GA_T_OR:
        cm_buf_adds(b, "(");
        emit_as(e, l, GA_BOOL, b);
        cm_buf_adds(b, n->op == GA_T_AND ? " && " : " || ");
        emit_as(e, r, GA_BOOL, b);
        cm_buf_adds(b, ")");
        return;
    default: /* comparisons */
        cm_buf_adds(b, "(");
        emit_as(e, l, c, b);
        cm_buf_addf(b, " %s ", op_text(n->op));
        emit_as(e, r, c, b);
        cm_buf_adds(b, ")");
        return;
    }
}

static void emit_call(const ga_expr_t *e, const ga_node_t *n, cm_buf_t *b)
{
    const ga_expr_func_t *f = &ga_expr_funcs[n->op];
    ga_dtype_t c = n->compute;
    int fl = ga_dtype_kind(c) == GA_KIND_FLOAT;
    switch (f->rule) {
    case GA_RULE_FLOAT:
    case GA_RULE_FLOAT2:
        open_round(n, b);
        cm_buf_addf(b, "%s%s(", f->c, c == GA_F64 ? "" : "f");
        for (int j = 0; j < n->nkids; j++) {
            if (j)
                cm_buf_adds(b, ", ");
            emit_as(e, n->kids[j], c, b);
        }
        cm_buf_adds(b, ")");
        close_round(n, b);
        return;
    case GA_RULE_KEEP:
        if (!strcmp(f->c, "square") || !strcmp(f->c, "neg")) {
            int sq = f->c[0] == 's';
            if (fl) {
                open_round(n, b);
                cm_buf_adds(b, sq ? "(" : "(-");
                emit_as(e, n->kids[0], c, b);
                if (sq) {
                    cm_buf_adds(b, " * ");
                    emit_as(e, n->kids[0], c, b);
                }
                cm_buf_adds(b, ")");
                close_round(n, b);
            } else if (c == GA_BOOL) {
                emit_as(e, n->kids[0], c, b);
            } else {
                cm_buf_addf(b, "((%s)(", ga_expr_ctype(c));
                cm_buf_addf(b, sq ? "(%s)" : "0u - (%s)", wrap_type(c));
                emit_as(e, n->kids[0], c, b);
                if (sq) {
                    cm_buf_addf(b, " * (%s)", wrap_type(c));
                    emit_as(e, n->kids[0], c, b);
                }
                cm_buf_adds(b, "))");
            }
            return;
        }
        if (!fl && strcmp(f->c, "abs") && strcmp(f->c, "sign")) { /* floor of an integer */
            emit_as(e, n->kids[0], c, b);
            return;
        }
        if (fl && !strcmp(f->c, "abs"))
            cm_buf_addf(b, "fabs%s(", c == GA_F64 ? "" : "f");
        else if (fl && strcmp(f->c, "sign"))
            cm_buf_addf(b, "%s%s(", f->c, c == GA_F64 ? "" : "f");
        else
            cm_buf_addf(b, "ga_%s_%s(", f->c, suffix(c));
        emit_as(e, n->kids[0], c, b);
        cm_buf_adds(b, ")");
        return;
    case GA_RULE_PRED: /* computed in a float dtype, integers too (typing: float_of) */
        cm_buf_addf(b, "(%s(", f->c);
        emit_as(e, n->kids[0], c, b);
        cm_buf_adds(b, ") != 0)");
        return;
    case GA_RULE_KEEP2:
        open_round(n, b);
        cm_buf_addf(b, "ga_%s_%s(", f->c, suffix(c));
        emit_as(e, n->kids[0], c, b);
        cm_buf_adds(b, ", ");
        emit_as(e, n->kids[1], c, b);
        cm_buf_adds(b, ")");
        close_round(n, b);
        return;
    case GA_RULE_WHERE:
        emit_select(e, n, b);
        return;
    case GA_RULE_CLIP: /* minimum(maximum(x, lo), hi), as NumPy */
        cm_buf_addf(b, "ga_min_%s(ga_max_%s(", suffix(c), suffix(c));
        emit_as(e, n->kids[0], c, b);
        cm_buf_adds(b, ", ");
        emit_as(e, n->kids[1], c, b);
        cm_buf_adds(b, "), ");
        emit_as(e, n->kids[2], c, b);
        cm_buf_adds(b, ")");
        return;
    case GA_RULE_CAST:
        emit_as(e, n->kids[0], c, b);
        return;
    }
}

static void emit(const ga_expr_t *e, int i, cm_buf_t *b)
{
    const ga_node_t *n = &e->nodes[i];
    switch (n->kind) {
    case GA_N_NUM:
        if (n->num_is_int)
            cm_buf_addf(b, "%.0fLL", n->num);
        else
            cm_buf_addf(b, "%.17g", n->num);
        return;
    case GA_N_VAR:
        cm_buf_addf(b, "v%d", n->var);
        return;
    case GA_N_UNARY:
        if (n->op == '!') {
            cm_buf_adds(b, "(!");
            emit_as(e, n->kids[0], GA_BOOL, b);
            cm_buf_adds(b, ")");
        } else if (n->op == '~') {
            if (n->compute == GA_BOOL) {
                cm_buf_adds(b, "(!");
                emit_as(e, n->kids[0], GA_BOOL, b);
                cm_buf_adds(b, ")");
            } else {
                cm_buf_addf(b, "((%s)~", ga_expr_ctype(n->compute));
                emit_as(e, n->kids[0], n->compute, b);
                cm_buf_adds(b, ")");
            }
        } else if (ga_dtype_kind(n->compute) == GA_KIND_FLOAT) {
            cm_buf_adds(b, "(-");
            emit_as(e, n->kids[0], n->compute, b);
            cm_buf_adds(b, ")");
        } else {
            cm_buf_addf(b, "((%s)(0u - (%s)", ga_expr_ctype(n->compute), wrap_type(n->compute));
            emit_as(e, n->kids[0], n->compute, b);
            cm_buf_adds(b, "))");
        }
        return;
    case GA_N_BINARY:
        emit_binary(e, n, b);
        return;
    case GA_N_TERNARY:
        emit_select(e, n, b);
        return;
    case GA_N_CALL:
        emit_call(e, n, b);
        return;
    case GA_N_UDF: {
        char mangled[160];
        udf_mangle(e, n, mangled, sizeof mangled);
        cm_buf_addf(b, "%s(", mangled);
        for (int j = 0; j < n->nkids; j++) {
            if (j)
                cm_buf_adds(b, ", ");
            emit_as(e, n->kids[j], udf_param_dtype(e, n, j), b);
        }
        cm_buf_adds(b, ")");
        return;
    }
    }
}

void ga_expr_emit(const ga_expr_t *e, int node, cm_buf_t *out)
{
    const ga_node_t *n = &e->nodes[node];
    if (n->weak || node == e->root) /* the root in its own dtype */
        emit_as(e, node, n->dtype, out);
    else
        emit(e, node, out);
}
