/* ga_expr: parsing, typing and writing out array expressions (see
 * ga_expr.h). A recursive-descent parser over C's precedence levels, with
 * Python's `**` above the unary operators' operand. */
#include "ga_expr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_array.h"
#include "ga_udf.h"

enum { N_NUM = 1, N_VAR, N_UNARY, N_BINARY, N_TERNARY, N_CALL, N_UDF };

/* Two-character operators, as one code each. */
enum { T_POW = 256, T_SHL, T_SHR, T_LE, T_GE, T_EQ, T_NE, T_AND, T_OR };

/* ---- functions ----------------------------------------------------------- */

typedef enum rule {
    R_FLOAT,    /* a math function: computes in ga_dtype_float_of(x) */
    R_KEEP,     /* the dtype of x (abs, floor, sign, square) */
    R_PRED,     /* bool (isnan) */
    R_FLOAT2,   /* two operands, float (atan2, hypot) */
    R_KEEP2,    /* two operands, their promotion (pow, maximum) */
    R_WHERE,    /* where(c, a, b) */
    R_CLIP,     /* clip(x, lo, hi) */
    R_CAST,     /* float32(x) */
} rule_t;

typedef struct func {
    const char *name;
    rule_t rule;
    const char *c;   /* the C function (double; "f" suffix for float), or a helper stem */
    ga_dtype_t cast; /* R_CAST */
} func_t;

static const func_t funcs[] = {
    {"sqrt", R_FLOAT, "sqrt", 0},   {"cbrt", R_FLOAT, "cbrt", 0},
    {"exp", R_FLOAT, "exp", 0},     {"exp2", R_FLOAT, "exp2", 0},
    {"expm1", R_FLOAT, "expm1", 0}, {"log", R_FLOAT, "log", 0},
    {"log2", R_FLOAT, "log2", 0},   {"log10", R_FLOAT, "log10", 0},
    {"log1p", R_FLOAT, "log1p", 0}, {"sin", R_FLOAT, "sin", 0},
    {"cos", R_FLOAT, "cos", 0},     {"tan", R_FLOAT, "tan", 0},
    {"arcsin", R_FLOAT, "asin", 0}, {"arccos", R_FLOAT, "acos", 0},
    {"arctan", R_FLOAT, "atan", 0}, {"asin", R_FLOAT, "asin", 0},
    {"acos", R_FLOAT, "acos", 0},   {"atan", R_FLOAT, "atan", 0},
    {"sinh", R_FLOAT, "sinh", 0},   {"cosh", R_FLOAT, "cosh", 0},
    {"tanh", R_FLOAT, "tanh", 0},   {"arcsinh", R_FLOAT, "asinh", 0},
    {"arccosh", R_FLOAT, "acosh", 0}, {"arctanh", R_FLOAT, "atanh", 0},
    {"asinh", R_FLOAT, "asinh", 0}, {"acosh", R_FLOAT, "acosh", 0},
    {"atanh", R_FLOAT, "atanh", 0}, {"erf", R_FLOAT, "erf", 0},
    {"erfc", R_FLOAT, "erfc", 0},   {"rint", R_FLOAT, "rint", 0},
    {"round", R_FLOAT, "rint", 0},
    {"floor", R_KEEP, "floor", 0},  {"ceil", R_KEEP, "ceil", 0},
    {"trunc", R_KEEP, "trunc", 0},  {"abs", R_KEEP, "abs", 0},
    {"absolute", R_KEEP, "abs", 0}, {"sign", R_KEEP, "sign", 0},
    {"square", R_KEEP, "square", 0}, {"negative", R_KEEP, "neg", 0},
    {"isnan", R_PRED, "isnan", 0},  {"isinf", R_PRED, "isinf", 0},
    {"isfinite", R_PRED, "isfinite", 0}, {"signbit", R_PRED, "signbit", 0},
    {"atan2", R_FLOAT2, "atan2", 0}, {"arctan2", R_FLOAT2, "atan2", 0},
    {"hypot", R_FLOAT2, "hypot", 0}, {"copysign", R_FLOAT2, "copysign", 0},
    {"fmod", R_FLOAT2, "fmod", 0},
    {"pow", R_KEEP2, "pow", 0},     {"power", R_KEEP2, "pow", 0},
    {"maximum", R_KEEP2, "max", 0}, {"minimum", R_KEEP2, "min", 0},
    {"where", R_WHERE, "", 0},      {"clip", R_CLIP, "", 0},
    {"bool", R_CAST, "", GA_BOOL},  {"int8", R_CAST, "", GA_I8},
    {"uint8", R_CAST, "", GA_U8},   {"int16", R_CAST, "", GA_I16},
    {"uint16", R_CAST, "", GA_U16}, {"int32", R_CAST, "", GA_I32},
    {"uint32", R_CAST, "", GA_U32}, {"int64", R_CAST, "", GA_I64},
    {"uint64", R_CAST, "", GA_U64}, {"float16", R_CAST, "", GA_F16},
    {"float32", R_CAST, "", GA_F32}, {"float64", R_CAST, "", GA_F64},
};
#define NFUNCS ((int)(sizeof funcs / sizeof *funcs))

static int arity(rule_t r)
{
    return r == R_WHERE || r == R_CLIP ? 3 : r == R_FLOAT2 || r == R_KEEP2 ? 2 : 1;
}

static const char *const reduce_names[] = {
    [GA_R_SUM] = "sum",       [GA_R_PROD] = "prod",     [GA_R_MIN] = "min",
    [GA_R_MAX] = "max",       [GA_R_MEAN] = "mean",     [GA_R_VAR] = "var",
    [GA_R_STD] = "std",       [GA_R_ARGMIN] = "argmin", [GA_R_ARGMAX] = "argmax",
    [GA_R_ANY] = "any",       [GA_R_ALL] = "all",       [GA_R_COUNT_NONZERO] = "count_nonzero",
};

const char *ga_expr_reduce_name(ga_reduce_op_t op)
{
    return op > GA_R_NONE && op <= GA_R_COUNT_NONZERO ? reduce_names[op]
           : op == GA_R_USER ? "a user reduction" : "?";
}

/* ---- the parser ------------------------------------------------------------ */

typedef struct parser {
    ga_expr_t *e;
    const char *s;     /* the text */
    size_t pos;
    int tok;           /* current token: a character, a T_* code, 'n' number, 'i' name, 0 end */
    size_t tok_start;
    char name[64];
    double num;
    int num_is_int;
    int declared;      /* the operands were listed ("x, y: ...") */
    cm_error_t *err;
    int failed;
} parser_t;

static int fail(parser_t *p, size_t at, const char *fmt, const char *what)
{
    if (!p->failed)
        CM_ERROR(p->err, GA_E_EXPR, "\"%s\": column %zu: %s%s", p->s, at + 1, fmt, what ? what : "");
    p->failed = 1;
    return -1;
}

static void next(parser_t *p)
{
    const char *s = p->s;
    while (isspace((unsigned char)s[p->pos]))
        p->pos++;
    p->tok_start = p->pos;
    char c = s[p->pos];
    if (!c) {
        p->tok = 0;
        return;
    }
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[p->pos + 1]))) {
        char *end;
        size_t i = p->pos;
        while (isdigit((unsigned char)s[i]))
            i++;
        int is_int = s[i] != '.' && s[i] != 'e' && s[i] != 'E';
        p->num = strtod(s + p->pos, &end);
        p->pos = (size_t)(end - s);
        if (s[p->pos] == 'f' || s[p->pos] == 'F') {
            p->pos++;
            is_int = 0;
        }
        p->num_is_int = is_int;
        p->tok = 'n';
        if (isalnum((unsigned char)s[p->pos]) || s[p->pos] == '_')
            fail(p, p->tok_start, "a malformed number", NULL);
        return;
    }
    if (isalpha((unsigned char)c) || c == '_') {
        size_t i = p->pos;
        while (isalnum((unsigned char)s[i]) || s[i] == '_')
            i++;
        if (i - p->pos >= sizeof p->name) {
            fail(p, p->pos, "a name too long", NULL);
            p->tok = 0;
            return;
        }
        memcpy(p->name, s + p->pos, i - p->pos);
        p->name[i - p->pos] = '\0';
        p->pos = i;
        p->tok = 'i';
        return;
    }
    static const struct { const char *text; int tok; } two[] = {
        {"**", T_POW}, {"<<", T_SHL}, {">>", T_SHR}, {"<=", T_LE}, {">=", T_GE},
        {"==", T_EQ},  {"!=", T_NE},  {"&&", T_AND}, {"||", T_OR},
    };
    for (size_t k = 0; k < sizeof two / sizeof *two; k++)
        if (!strncmp(s + p->pos, two[k].text, 2)) {
            p->pos += 2;
            p->tok = two[k].tok;
            return;
        }
    if (strchr("+-*/%<>&|^!~?:(),", c)) {
        p->pos++;
        p->tok = c;
        return;
    }
    char what[8];
    snprintf(what, sizeof what, "'%c'", c);
    fail(p, p->pos, "unexpected ", what);
    p->tok = 0;
}

static int node(parser_t *p, int kind, int op, int a, int b, int c, size_t at)
{
    ga_expr_t *e = p->e;
    if (e->nnodes >= GA_EXPR_MAX_NODES)
        return fail(p, at, "the expression is too long", NULL);
    ga_node_t *n = &e->nodes[e->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->op = op;
    n->kids[0] = a;
    n->kids[1] = b;
    n->kids[2] = c;
    n->nkids = c >= 0 ? 3 : b >= 0 ? 2 : a >= 0 ? 1 : 0;
    n->column = (int)at + 1;
    return e->nnodes++;
}

static int var_index(parser_t *p, const char *name, size_t at)
{
    ga_expr_t *e = p->e;
    for (int i = 0; i < e->nvars; i++)
        if (!strcmp(e->names[i], name))
            return i;
    if (p->declared)
        return fail(p, at, "unknown name ", name);
    if (e->nvars >= GA_EXPR_MAX_VARS)
        return fail(p, at, "too many operands (at most 16)", NULL);
    snprintf(e->names[e->nvars], sizeof e->names[0], "%s", name);
    return e->nvars++;
}

static const func_t *find_func(const char *name)
{
    for (int i = 0; i < NFUNCS; i++)
        if (!strcmp(funcs[i].name, name))
            return &funcs[i];
    return NULL;
}

static int parse_expr(parser_t *p);
static int parse_unary(parser_t *p);
static int expect(parser_t *p, int tok, const char *what);

static int expect(parser_t *p, int tok, const char *what)
{
    if (p->tok != tok)
        return fail(p, p->tok_start, "expected ", what);
    next(p);
    return 0;
}

/* "NAME takes N arguments, got M". */
static int wrong_count(parser_t *p, size_t at, const char *name, int want, int got)
{
    char msg[128];
    snprintf(msg, sizeof msg, "%s takes %d argument%s, got %d", name, want, want == 1 ? "" : "s",
             got);
    return fail(p, at, msg, NULL);
}

/* name(args...) of the user's function u, the '(' next. */
static int parse_udf_call(parser_t *p, int u, size_t at)
{
    const ga_udf_t *f = ga_udf_at(u);
    int kids[GA_UDF_MAX_PARAMS], n = 0;
    next(p);
    while (1) {
        if (n == GA_UDF_MAX_PARAMS)
            return fail(p, at, "too many arguments for ", f->name);
        kids[n++] = parse_expr(p);
        if (kids[n - 1] < 0)
            return -1;
        if (p->tok != ',')
            break;
        next(p);
    }
    if (expect(p, ')', "')'"))
        return -1;
    if (n != f->nparams)
        return wrong_count(p, at, f->name, f->nparams, n);
    int id = node(p, N_UDF, u, -1, -1, -1, at);
    if (id < 0)
        return -1;
    for (int k = 0; k < n; k++)
        p->e->nodes[id].kids[k] = kids[k];
    p->e->nodes[id].nkids = n;
    return id;
}

static int parse_primary(parser_t *p)
{
    size_t at = p->tok_start;
    if (p->failed)
        return -1;
    if (p->tok == 'n') {
        int n = node(p, N_NUM, 0, -1, -1, -1, at);
        if (n >= 0) {
            p->e->nodes[n].num = p->num;
            p->e->nodes[n].num_is_int = p->num_is_int;
        }
        next(p);
        return n;
    }
    if (p->tok == '(') {
        next(p);
        int n = parse_expr(p);
        if (n < 0 || expect(p, ')', "')'"))
            return -1;
        return n;
    }
    if (p->tok == 'i') {
        char name[64];
        snprintf(name, sizeof name, "%s", p->name);
        next(p);
        if (p->tok != '(') {
            int v = var_index(p, name, at);
            if (v < 0)
                return -1;
            int n = node(p, N_VAR, 0, -1, -1, -1, at);
            if (n >= 0)
                p->e->nodes[n].var = v;
            return n;
        }
        const func_t *f = find_func(name);
        if (!f) {
            int u = ga_udf_index(name, strlen(name));
            const ga_udf_t *udf = ga_udf_at(u);
            if (udf && udf->body)
                return parse_udf_call(p, u, at);
            for (int r = GA_R_SUM; r <= GA_R_COUNT_NONZERO; r++)
                if (!strcmp(name, reduce_names[r]))
                    return fail(p, at, "a reduction is allowed only around the whole expression: ",
                                name);
            if (udf)
                return fail(p, at, "a reduction is allowed only around the whole expression: ", name);
            return fail(p, at, "unknown function ", name);
        }
        next(p);
        int kids[3] = {-1, -1, -1}, n = 0, want = arity(f->rule);
        while (n < 3) {
            kids[n++] = parse_expr(p);
            if (kids[n - 1] < 0)
                return -1;
            if (p->tok != ',')
                break;
            next(p);
        }
        if (expect(p, ')', "')'"))
            return -1;
        if (n != want)
            return wrong_count(p, at, f->name, want, n);
        return node(p, N_CALL, (int)(f - funcs), kids[0], kids[1], kids[2], at);
    }
    if (p->tok == 0)
        return fail(p, p->tok_start, "expected a value at the end", NULL);
    return fail(p, p->tok_start, "expected a value", NULL);
}

/* primary ** unary: right associative; -a ** 2 is -(a ** 2), as in Python */
static int parse_power(parser_t *p)
{
    int left = parse_primary(p);
    if (left < 0 || p->tok != T_POW)
        return left;
    size_t at = p->tok_start;
    next(p);
    int right = parse_unary(p);
    return right < 0 ? -1 : node(p, N_BINARY, T_POW, left, right, -1, at);
}

static int parse_unary(parser_t *p)
{
    if (p->tok == '-' || p->tok == '+' || p->tok == '!' || p->tok == '~') {
        int op = p->tok;
        size_t at = p->tok_start;
        next(p);
        int kid = parse_unary(p);
        if (kid < 0)
            return -1;
        return op == '+' ? kid : node(p, N_UNARY, op, kid, -1, -1, at);
    }
    return parse_power(p);
}

/* The binary levels, loosest first. */
static const int levels[][5] = {
    {T_OR, 0},       {T_AND, 0}, {'|', 0},        {'^', 0},         {'&', 0},
    {T_EQ, T_NE, 0}, {'<', '>', T_LE, T_GE, 0},   {T_SHL, T_SHR, 0}, {'+', '-', 0},
    {'*', '/', '%', 0},
};
#define NLEVELS ((int)(sizeof levels / sizeof *levels))

static int in_level(int level, int tok)
{
    for (int i = 0; levels[level][i]; i++)
        if (levels[level][i] == tok)
            return 1;
    return 0;
}

static int parse_level(parser_t *p, int level)
{
    if (level == NLEVELS)
        return parse_unary(p);
    int left = parse_level(p, level + 1);
    while (left >= 0 && in_level(level, p->tok)) {
        int op = p->tok;
        size_t at = p->tok_start;
        next(p);
        int right = parse_level(p, level + 1);
        if (right < 0)
            return -1;
        left = node(p, N_BINARY, op, left, right, -1, at);
    }
    return left;
}

static int parse_expr(parser_t *p)
{
    int c = parse_level(p, 0);
    if (c < 0 || p->tok != '?')
        return c;
    size_t at = p->tok_start;
    next(p);
    int a = parse_expr(p);
    if (a < 0 || expect(p, ':', "':'"))
        return -1;
    int b = parse_expr(p);
    return b < 0 ? -1 : node(p, N_TERNARY, '?', c, a, b, at);
}

/* The end of a reduction around the whole expression: its axis when one
 * follows (an integer, maybe negative), the ')', then nothing. */
static int reduction_close(parser_t *p, ga_expr_t *e, int axis_follows)
{
    if (axis_follows) {
        int neg = 0;
        if (p->tok == '-') {
            neg = 1;
            next(p);
        }
        if (p->tok != 'n' || !p->num_is_int)
            return fail(p, p->tok_start, "the axis of a reduction must be an integer", NULL);
        e->axis = (int)(neg ? -p->num : p->num);
        next(p);
    }
    if (expect(p, ')', "')'"))
        return -1;
    if (p->tok != 0)
        return fail(p, p->tok_start, "unexpected text after the reduction", NULL);
    return 0;
}

/* "x, y: ..." — the operands listed first. Returns 1 when there was a list. */
static int parse_declared(parser_t *p)
{
    const char *colon = strchr(p->s, ':'); /* a ?: before it has a '?' there: not a list */
    if (!colon)
        return 0;
    for (const char *c = p->s; c < colon; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_' || *c == ',' || isspace((unsigned char)*c)))
            return 0;
    next(p);
    while (p->tok == 'i') {
        var_index(p, p->name, p->tok_start);
        next(p);
        if (p->tok != ',')
            break;
        next(p);
    }
    if (p->failed || expect(p, ':', "':'"))
        return -1;
    p->declared = 1;
    return 1;
}

int ga_expr_parse(const char *text, ga_expr_t *e, cm_error_t *err)
{
    memset(e, 0, sizeof *e);
    e->axis = GA_AXIS_ALL;
    if (!text || strlen(text) >= GA_EXPR_MAX_TEXT) {
        CM_ERROR(err, GA_E_EXPR, "%s", text ? "the expression is too long" : "no expression");
        return -1;
    }
    snprintf(e->text, sizeof e->text, "%s", text);
    parser_t p = {.e = e, .s = e->text, .err = err};
    int listed = parse_declared(&p);
    if (listed < 0)
        return -1;
    if (!listed) {
        p.pos = 0;
        next(&p);
    }
    /* a reduction around the whole expression: sum(e) or sum(e, axis) */
    size_t save_start = p.tok_start;
    if (p.tok == 'i') {
        for (int r = GA_R_SUM; r <= GA_R_COUNT_NONZERO; r++) {
            if (strcmp(p.name, reduce_names[r]))
                continue;
            next(&p);
            if (p.tok != '(')
                break; /* a name that is not called: an operand */
            next(&p);
            e->reduce = (ga_reduce_op_t)r;
            e->root = parse_expr(&p);
            if (e->root < 0)
                return -1;
            int axis_follows = p.tok == ',';
            if (axis_follows)
                next(&p);
            return reduction_close(&p, e, axis_follows);
        }
        int u = ga_udf_index(p.name, strlen(p.name));
        const ga_udf_t *uf = ga_udf_at(u);
        if (!e->reduce && uf && !uf->body) {
            next(&p);
            if (p.tok != '(')
                return fail(&p, p.tok_start, "expected '(' after ", uf->name);
            /* its arguments, then maybe an axis: sumsq(a, b, 1) */
            e->reduce = GA_R_USER;
            e->user = u;
            int kids[GA_UDF_MAX_PARAMS], n = 0;
            next(&p);
            while (n < uf->nparams) {
                kids[n++] = parse_expr(&p);
                if (kids[n - 1] < 0)
                    return -1;
                if (p.tok != ',')
                    break;
                next(&p);
            }
            if (n != uf->nparams)
                return wrong_count(&p, save_start, uf->name, uf->nparams, n);
            if (reduction_close(&p, e, p.tok != ')'))
                return -1;
            e->root = node(&p, N_UDF, u, -1, -1, -1, save_start);
            if (e->root < 0)
                return -1;
            memcpy(e->nodes[e->root].kids, kids, sizeof kids);
            e->nodes[e->root].nkids = n;
            return 0;
        }
        p.pos = save_start; /* not a reduction: from the name again */
        next(&p);
    }
    e->root = parse_expr(&p);
    if (e->root < 0)
        return -1;
    if (p.tok != 0)
        return fail(&p, p.tok_start, "unexpected text", NULL);
    if (e->nvars == 0)
        return fail(&p, 0, "the expression names no operand", NULL);
    return 0;
}

/* ---- typing ----------------------------------------------------------------- */

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
    case N_NUM:
        r = (typed_t){n->num_is_int ? GA_I64 : GA_F64, 1};
        c = r;
        break;
    case N_VAR:
        r = (typed_t){dtypes[n->var], weak[n->var] != 0};
        if (ga_dtype_kind(r.d) == GA_KIND_COMPLEX)
            return type_error(e, n, err, "array math does not support", r.d);
        c = r;
        break;
    case N_UNARY:
        c = r = k[0];
        if (n->op == '!')
            r = (typed_t){GA_BOOL, 0};
        else if (n->op == '-' && r.d == GA_BOOL)
            return type_error(e, n, err, "negating (-) is not supported for", GA_BOOL);
        else if (n->op == '~' && !is_intlike(r.d))
            return type_error(e, n, err, "~ needs integers or bool, not", r.d);
        break;
    case N_BINARY:
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
        case T_POW:
            if (r.d == GA_BOOL)
                return type_error(e, n, err, n->op == '%' ? "% is not supported for"
                                                          : "** is not supported for", GA_BOOL);
            break;
        case '&': case '|': case '^': case T_SHL: case T_SHR:
            if (!is_intlike(r.d))
                return type_error(e, n, err, "bit operations need integers or bool, not", r.d);
            break;
        case '<': case '>': case T_LE: case T_GE: case T_EQ: case T_NE: case T_AND: case T_OR:
            r = (typed_t){GA_BOOL, 0};
            break;
        }
        break;
    case N_TERNARY:
        c = r = combine(k[1], k[2]);
        break;
    case N_UDF: {
        const ga_udf_t *f = ga_udf_at(n->op);
        int ot = ga_udf_type(f->otype);
        if (ot >= 0) {
            r = (typed_t){(ga_dtype_t)ot, 0};
        } else {
            int bound = 0;
            for (int j = 0; j < n->nkids; j++)
                if (!strcmp(f->ptypes[j], f->otype)) {
                    r = bound ? combine(r, k[j]) : k[j];
                    bound = 1;
                }
            if (r.weak) /* only numbers bound to it: NumPy's defaults */
                r.weak = 0;
        }
        if (ga_dtype_kind(r.d) == GA_KIND_COMPLEX)
            return type_error(e, n, err, "array math does not support", r.d);
        c = r;
        break;
    }
    case N_CALL: {
        const func_t *f = &funcs[n->op];
        switch (f->rule) {
        case R_FLOAT: c = r = float_of(k[0]); break;
        case R_KEEP:
            c = r = k[0];
            if (r.d == GA_BOOL && (!strcmp(f->c, "sign") || !strcmp(f->c, "neg")))
                return type_error(e, n, err, "this function is not supported for", GA_BOOL);
            break;
        case R_PRED: c = float_of(k[0]); r = (typed_t){GA_BOOL, 0}; break;
        case R_FLOAT2: c = r = float_of(combine(k[0], k[1])); break;
        case R_KEEP2:
            c = r = combine(k[0], k[1]);
            if (r.d == GA_BOOL && !strcmp(f->c, "pow"))
                return type_error(e, n, err, "pow is not supported for", GA_BOOL);
            break;
        case R_WHERE: c = r = combine(k[1], k[2]); break;
        case R_CLIP: c = r = combine(k[0], combine(k[1], k[2])); break;
        case R_CAST: c = r = (typed_t){f->cast, 0}; break;
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

int ga_expr_operand(const ga_expr_t *e)
{
    const ga_node_t *n = &e->nodes[e->root];
    return n->kind == N_VAR ? n->var : -1;
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

/* ---- writing C ----------------------------------------------------------- */

const char *ga_expr_ctype(ga_dtype_t d)
{
    static const char *const t[GA_NDTYPES] = {
        [GA_BOOL] = "int",   [GA_I8] = "ga_i8",   [GA_U8] = "ga_u8",   [GA_I16] = "ga_i16",
        [GA_U16] = "ga_u16", [GA_I32] = "ga_i32", [GA_U32] = "ga_u32", [GA_I64] = "ga_i64",
        [GA_U64] = "ga_u64", [GA_F16] = "float",  [GA_F32] = "float",  [GA_F64] = "double",
    };
    return ga_dtype_valid(d) && t[d] ? t[d] : "double";
}

const char *ga_expr_stype(ga_dtype_t d)
{
    static const char *const t[GA_NDTYPES] = {
        [GA_BOOL] = "ga_u8", [GA_I8] = "ga_i8",   [GA_U8] = "ga_u8",   [GA_I16] = "ga_i16",
        [GA_U16] = "ga_u16", [GA_I32] = "ga_i32", [GA_U32] = "ga_u32", [GA_I64] = "ga_i64",
        [GA_U64] = "ga_u64", [GA_F16] = "ga_u16", [GA_F32] = "float",  [GA_F64] = "double",
    };
    return ga_dtype_valid(d) && t[d] ? t[d] : "double";
}

/* The helper suffix of compute dtype d: ga_mod_i32, ga_pow_f ... */
static const char *suffix(ga_dtype_t d)
{
    static const char *const t[GA_NDTYPES] = {
        [GA_BOOL] = "i32", [GA_I8] = "i8",   [GA_U8] = "u8",   [GA_I16] = "i16", [GA_U16] = "u16",
        [GA_I32] = "i32",  [GA_U32] = "u32", [GA_I64] = "i64", [GA_U64] = "u64", [GA_F16] = "f",
        [GA_F32] = "f",    [GA_F64] = "d",
    };
    return ga_dtype_valid(d) && t[d] ? t[d] : "d";
}

/* The unsigned type integer arithmetic of d wraps in. */
static const char *wrap_type(ga_dtype_t d)
{
    return ga_dtype_size(d) == 8 ? "ga_u64" : "unsigned";
}

static void emit(const ga_expr_t *e, int i, cm_buf_t *b);

/* ---- the user's functions --------------------------------------------------- */

/* The dtype type variable `var` of the user's function at n is bound to:
 * the promotion of the arguments declared with it. */
static ga_dtype_t udf_binding(const ga_expr_t *e, const ga_node_t *n, const char *var)
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
    return r.d;
}

static ga_dtype_t udf_type(const ga_expr_t *e, const ga_node_t *n, const char *type)
{
    int d = ga_udf_type(type);
    return d >= 0 ? (ga_dtype_t)d : udf_binding(e, n, type);
}

static ga_dtype_t udf_param_dtype(const ga_expr_t *e, const ga_node_t *n, int j)
{
    return udf_type(e, n, ga_udf_at(n->op)->ptypes[j]);
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
            cm_buf_addf(out, "#define %s %s\n", t, ga_expr_ctype(udf_binding(e, n, t)));
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
        if (e->nodes[i].kind != N_UDF)
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
    case T_LE: return "<=";
    case T_GE: return ">=";
    case T_EQ: return "==";
    case T_NE: return "!=";
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

static void emit_binary(const ga_expr_t *e, const ga_node_t *n, cm_buf_t *b)
{
    ga_dtype_t c = n->compute;
    int l = n->kids[0], r = n->kids[1];
    const char *ct = ga_expr_ctype(c);
    int wraps = ga_dtype_kind(c) == GA_KIND_INT || ga_dtype_kind(c) == GA_KIND_UINT;
    switch (n->op) {
    case '+': case '-': case '*':
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
    case '/':
        open_round(n, b);
        cm_buf_adds(b, "(");
        emit_as(e, l, c, b);
        cm_buf_adds(b, " / ");
        emit_as(e, r, c, b);
        cm_buf_adds(b, ")");
        close_round(n, b);
        return;
    case '%': case T_POW: case T_SHL: case T_SHR:
        open_round(n, b);
        cm_buf_addf(b, "ga_%s_%s(", n->op == '%' ? "mod" : n->op == T_POW ? "pow"
                                      : n->op == T_SHL ? "shl" : "shr", suffix(c));
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
    case T_AND: case T_OR:
        cm_buf_adds(b, "(");
        emit_as(e, l, GA_BOOL, b);
        cm_buf_adds(b, n->op == T_AND ? " && " : " || ");
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
    const func_t *f = &funcs[n->op];
    ga_dtype_t c = n->compute;
    int fl = is_float(c);
    switch (f->rule) {
    case R_FLOAT:
    case R_FLOAT2:
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
    case R_KEEP:
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
    case R_PRED: /* computed in a float dtype, integers too (typing: float_of) */
        cm_buf_addf(b, "(%s(", f->c);
        emit_as(e, n->kids[0], c, b);
        cm_buf_adds(b, ") != 0)");
        return;
    case R_KEEP2:
        open_round(n, b);
        cm_buf_addf(b, "ga_%s_%s(", f->c, suffix(c));
        emit_as(e, n->kids[0], c, b);
        cm_buf_adds(b, ", ");
        emit_as(e, n->kids[1], c, b);
        cm_buf_adds(b, ")");
        close_round(n, b);
        return;
    case R_WHERE:
        cm_buf_adds(b, "(");
        emit_as(e, n->kids[0], GA_BOOL, b);
        cm_buf_adds(b, " ? ");
        emit_as(e, n->kids[1], c, b);
        cm_buf_adds(b, " : ");
        emit_as(e, n->kids[2], c, b);
        cm_buf_adds(b, ")");
        return;
    case R_CLIP: /* minimum(maximum(x, lo), hi), as NumPy */
        cm_buf_addf(b, "ga_min_%s(ga_max_%s(", suffix(c), suffix(c));
        emit_as(e, n->kids[0], c, b);
        cm_buf_adds(b, ", ");
        emit_as(e, n->kids[1], c, b);
        cm_buf_adds(b, "), ");
        emit_as(e, n->kids[2], c, b);
        cm_buf_adds(b, ")");
        return;
    case R_CAST:
        emit_as(e, n->kids[0], c, b);
        return;
    }
}

static void emit(const ga_expr_t *e, int i, cm_buf_t *b)
{
    const ga_node_t *n = &e->nodes[i];
    switch (n->kind) {
    case N_NUM:
        if (n->num_is_int)
            cm_buf_addf(b, "%.0fLL", n->num);
        else
            cm_buf_addf(b, "%.17g", n->num);
        return;
    case N_VAR:
        cm_buf_addf(b, "v%d", n->var);
        return;
    case N_UNARY:
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
        } else if (is_float(n->compute)) {
            cm_buf_adds(b, "(-");
            emit_as(e, n->kids[0], n->compute, b);
            cm_buf_adds(b, ")");
        } else {
            cm_buf_addf(b, "((%s)(0u - (%s)", ga_expr_ctype(n->compute), wrap_type(n->compute));
            emit_as(e, n->kids[0], n->compute, b);
            cm_buf_adds(b, "))");
        }
        return;
    case N_BINARY:
        emit_binary(e, n, b);
        return;
    case N_TERNARY:
        cm_buf_adds(b, "(");
        emit_as(e, n->kids[0], GA_BOOL, b);
        cm_buf_adds(b, " ? ");
        emit_as(e, n->kids[1], n->compute, b);
        cm_buf_adds(b, " : ");
        emit_as(e, n->kids[2], n->compute, b);
        cm_buf_adds(b, ")");
        return;
    case N_CALL:
        emit_call(e, n, b);
        return;
    case N_UDF: {
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
