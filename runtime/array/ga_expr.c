/* ga_expr: parsing array expressions (see ga_expr.h) into the node tree
 * that ga_expr_type.c types and ga_expr_emit.c writes out as C. A
 * recursive-descent parser over C's precedence levels, with Python's `**`
 * above the unary operators' operand; the table of the language's
 * functions and the reductions' names live here. */
#include "ga_expr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_expr_internal.h"
#include "ga_udf.h"

/* ---- functions ----------------------------------------------------------- */

const ga_expr_func_t ga_expr_funcs[] = {
    {"sqrt", GA_RULE_FLOAT, "sqrt", 0},   {"cbrt", GA_RULE_FLOAT, "cbrt", 0},
    {"exp", GA_RULE_FLOAT, "exp", 0},     {"exp2", GA_RULE_FLOAT, "exp2", 0},
    {"expm1", GA_RULE_FLOAT, "expm1", 0}, {"log", GA_RULE_FLOAT, "log", 0},
    {"log2", GA_RULE_FLOAT, "log2", 0},   {"log10", GA_RULE_FLOAT, "log10", 0},
    {"log1p", GA_RULE_FLOAT, "log1p", 0}, {"sin", GA_RULE_FLOAT, "sin", 0},
    {"cos", GA_RULE_FLOAT, "cos", 0},     {"tan", GA_RULE_FLOAT, "tan", 0},
    {"arcsin", GA_RULE_FLOAT, "asin", 0}, {"arccos", GA_RULE_FLOAT, "acos", 0},
    {"arctan", GA_RULE_FLOAT, "atan", 0}, {"asin", GA_RULE_FLOAT, "asin", 0},
    {"acos", GA_RULE_FLOAT, "acos", 0},   {"atan", GA_RULE_FLOAT, "atan", 0},
    {"sinh", GA_RULE_FLOAT, "sinh", 0},   {"cosh", GA_RULE_FLOAT, "cosh", 0},
    {"tanh", GA_RULE_FLOAT, "tanh", 0},   {"arcsinh", GA_RULE_FLOAT, "asinh", 0},
    {"arccosh", GA_RULE_FLOAT, "acosh", 0}, {"arctanh", GA_RULE_FLOAT, "atanh", 0},
    {"asinh", GA_RULE_FLOAT, "asinh", 0}, {"acosh", GA_RULE_FLOAT, "acosh", 0},
    {"atanh", GA_RULE_FLOAT, "atanh", 0}, {"erf", GA_RULE_FLOAT, "erf", 0},
    {"erfc", GA_RULE_FLOAT, "erfc", 0},   {"rint", GA_RULE_FLOAT, "rint", 0},
    {"round", GA_RULE_FLOAT, "rint", 0},
    {"floor", GA_RULE_KEEP, "floor", 0},  {"ceil", GA_RULE_KEEP, "ceil", 0},
    {"trunc", GA_RULE_KEEP, "trunc", 0},  {"abs", GA_RULE_KEEP, "abs", 0},
    {"absolute", GA_RULE_KEEP, "abs", 0}, {"sign", GA_RULE_KEEP, "sign", 0},
    {"square", GA_RULE_KEEP, "square", 0}, {"negative", GA_RULE_KEEP, "neg", 0},
    {"isnan", GA_RULE_PRED, "isnan", 0},  {"isinf", GA_RULE_PRED, "isinf", 0},
    {"isfinite", GA_RULE_PRED, "isfinite", 0}, {"signbit", GA_RULE_PRED, "signbit", 0},
    {"atan2", GA_RULE_FLOAT2, "atan2", 0}, {"arctan2", GA_RULE_FLOAT2, "atan2", 0},
    {"hypot", GA_RULE_FLOAT2, "hypot", 0}, {"copysign", GA_RULE_FLOAT2, "copysign", 0},
    {"fmod", GA_RULE_KEEP2, "fmod", 0},
    {"pow", GA_RULE_KEEP2, "pow", 0},     {"power", GA_RULE_KEEP2, "pow", 0},
    {"maximum", GA_RULE_KEEP2, "max", 0}, {"minimum", GA_RULE_KEEP2, "min", 0},
    {"where", GA_RULE_WHERE, "", 0},      {"clip", GA_RULE_CLIP, "", 0},
    {"bool", GA_RULE_CAST, "", GA_BOOL},  {"int8", GA_RULE_CAST, "", GA_I8},
    {"uint8", GA_RULE_CAST, "", GA_U8},   {"int16", GA_RULE_CAST, "", GA_I16},
    {"uint16", GA_RULE_CAST, "", GA_U16}, {"int32", GA_RULE_CAST, "", GA_I32},
    {"uint32", GA_RULE_CAST, "", GA_U32}, {"int64", GA_RULE_CAST, "", GA_I64},
    {"uint64", GA_RULE_CAST, "", GA_U64}, {"float16", GA_RULE_CAST, "", GA_F16},
    {"float32", GA_RULE_CAST, "", GA_F32}, {"float64", GA_RULE_CAST, "", GA_F64},
};
#define NFUNCS ((int)(sizeof ga_expr_funcs / sizeof *ga_expr_funcs))

static int arity(ga_expr_rule_t r)
{
    if (r == GA_RULE_WHERE || r == GA_RULE_CLIP)
        return 3;
    return r == GA_RULE_FLOAT2 || r == GA_RULE_KEEP2 ? 2 : 1;
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
        {"**", GA_T_POW}, {"<<", GA_T_SHL}, {">>", GA_T_SHR}, {"<=", GA_T_LE}, {">=", GA_T_GE},
        {"==", GA_T_EQ},  {"!=", GA_T_NE},  {"&&", GA_T_AND}, {"||", GA_T_OR},
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

static const ga_expr_func_t *find_func(const char *name)
{
    for (int i = 0; i < NFUNCS; i++)
        if (!strcmp(ga_expr_funcs[i].name, name))
            return &ga_expr_funcs[i];
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
    int id = node(p, GA_N_UDF, u, -1, -1, -1, at);
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
        int n = node(p, GA_N_NUM, 0, -1, -1, -1, at);
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
            int n = node(p, GA_N_VAR, 0, -1, -1, -1, at);
            if (n >= 0)
                p->e->nodes[n].var = v;
            return n;
        }
        const ga_expr_func_t *f = find_func(name);
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
        return node(p, GA_N_CALL, (int)(f - ga_expr_funcs), kids[0], kids[1], kids[2], at);
    }
    if (p->tok == 0)
        return fail(p, p->tok_start, "expected a value at the end", NULL);
    return fail(p, p->tok_start, "expected a value", NULL);
}

/* primary ** unary: right associative; -a ** 2 is -(a ** 2), as in Python */
static int parse_power(parser_t *p)
{
    int left = parse_primary(p);
    if (left < 0 || p->tok != GA_T_POW)
        return left;
    size_t at = p->tok_start;
    next(p);
    int right = parse_unary(p);
    return right < 0 ? -1 : node(p, GA_N_BINARY, GA_T_POW, left, right, -1, at);
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
        return op == '+' ? kid : node(p, GA_N_UNARY, op, kid, -1, -1, at);
    }
    return parse_power(p);
}

/* The binary levels, loosest first. */
static const int levels[][5] = {
    {GA_T_OR, 0},       {GA_T_AND, 0}, {'|', 0},        {'^', 0},         {'&', 0},
    {GA_T_EQ, GA_T_NE, 0}, {'<', '>', GA_T_LE, GA_T_GE, 0},   {GA_T_SHL, GA_T_SHR, 0}, {'+', '-', 0},
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
        left = node(p, GA_N_BINARY, op, left, right, -1, at);
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
    return b < 0 ? -1 : node(p, GA_N_TERNARY, '?', c, a, b, at);
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
            e->root = node(&p, GA_N_UDF, u, -1, -1, -1, save_start);
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

int ga_expr_define(ga_udf_t *f, cm_error_t *err)
{
    ga_expr_t *probe = malloc(sizeof *probe);
    char text[96];
    snprintf(text, sizeof text, "%s(x)", f->name);
    cm_error_t perr = {0};
    int builtin = probe && ga_expr_parse(text, probe, &perr) == 0 &&
                  !ga_udf_find(f->name, strlen(f->name));
    free(probe);
    if (builtin) {
        CM_ERROR(err, GA_E_EXPR, "%s is a built-in function or reduction of array math: choose "
                 "another name", f->name);
        ga_udf_clear(f);
        return -1;
    }
    return ga_udf_define(f, err);
}

int ga_expr_operand(const ga_expr_t *e)
{
    const ga_node_t *n = &e->nodes[e->root];
    return n->kind == GA_N_VAR ? n->var : -1;
}
