/* rt_cell: splits a cell into top-level items (see rt_cell.h). */
#include "rt_cell.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cm_vec.h"
#include "rt_lex.h"

/* Typedef names declared earlier in the cell being split, plus the session's. */
typedef struct types {
    rt_is_type_fn outer;
    void *outer_ctx;
    const char *src;
    size_t (*names)[2];
    size_t n, cap;
} types_t;

static int is_type(void *ctx, const char *name, size_t len)
{
    types_t *ty = ctx;
    for (size_t i = 0; i < ty->n; i++)
        if (ty->names[i][1] == len && memcmp(ty->src + ty->names[i][0], name, len) == 0)
            return 1;
    return ty->outer ? ty->outer(ty->outer_ctx, name, len) : 0;
}

static void types_add(types_t *ty, size_t start, size_t len)
{
    CM_VEC_GROW(ty->names, ty->n, ty->cap);
    ty->names[ty->n][0] = start;
    ty->names[ty->n][1] = len;
    ty->n++;
}

static int punct(const char *src, const rt_tok_t *t, char c)
{
    return t->kind == RT_TOK_PUNCT && t->len == 1 && src[t->start] == c;
}

static int starts_statement(const char *src, const rt_tok_t *t)
{
    static const char *const kw[] = {"if", "for", "while", "do", "switch", "return", "break",
                                     "continue", "goto", "case", "default", "else", NULL};
    if (punct(src, t, '{'))
        return 1;
    if (t->kind != RT_TOK_IDENT)
        return 0;
    for (int i = 0; kw[i]; i++)
        if (rt_tok_is(src, t, kw[i]))
            return 1;
    return 0;
}

static int starts_declaration(const char *src, const rt_tok_t *t, types_t *ty)
{
    if (t->kind != RT_TOK_IDENT)
        return 0;
    const char *w = src + t->start;
    if (rt_decl_is_decl_keyword(w, t->len) || rt_decl_is_std_type(w, t->len))
        return 1;
    return is_type(ty, w, t->len);
}

static void push(rt_cell_t *out, size_t *cap, rt_item_t item)
{
    CM_VEC_GROW(out->items, out->n, *cap);
    out->items[out->n++] = item;
}

static int end_line(const char *src, const rt_tok_t *t)
{
    int line = t->line;
    for (size_t i = 0; i + 1 < t->len; i++) /* multi-line literals and directives */
        if (src[t->start + i] == '\n')
            line++;
    return line;
}

int rt_cell_split(const char *code, rt_is_type_fn outer, void *ctx, rt_cell_t *out)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, code, 0, strlen(code), 1); /* a text not read before */
    int rc = rt_cell_split_tokens(&t, outer, ctx, out);
    rt_tokens_free(&t);
    return rc;
}

int rt_cell_split_tokens(const rt_tokens_t *tokens, rt_is_type_fn outer, void *ctx,
                         rt_cell_t *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    const char *code = tokens->src;
    types_t ty = {outer, ctx, code, NULL, 0, 0};
    const rt_tok_t *toks = tokens->v;
    size_t n = tokens->n;
    size_t i = 0;
    while (i < n) {
        rt_item_t item = {0};
        item.start = toks[i].start;
        item.line = toks[i].line;
        if (toks[i].kind == RT_TOK_DIRECTIVE) {
            item.kind = RT_ITEM_DIRECTIVE;
            item.end = toks[i].start + toks[i].len;
            item.end_line = end_line(code, &toks[i]);
            push(out, &cap, item);
            i++;
            continue;
        }
        const rt_tok_t *first = &toks[i];
        int stmt = starts_statement(code, first);
        int decl = !stmt && starts_declaration(code, first, &ty);
        int is_if = rt_tok_is(code, first, "if");
        int is_do = rt_tok_is(code, first, "do");
        int saw_while = 0, saw_eq = 0, depth = 0;
        size_t j = i, last = i;
        int done = 0;
        for (; j < n && !done; j++) {
            const rt_tok_t *t = &toks[j];
            if (t->kind == RT_TOK_DIRECTIVE && depth == 0)
                break; /* a directive ends an unterminated item */
            last = j;
            if (t->kind == RT_TOK_PUNCT && t->len == 1) {
                char c = code[t->start];
                if (c == '(' || c == '[' || c == '{') {
                    if (c == '{' && depth == 0 && decl && !saw_eq && j > i &&
                        punct(code, &toks[j - 1], ')')) {
                        /* a function definition: the body ends the item */
                        size_t k = j;
                        int d = 0;
                        for (; k < n; k++) {
                            if (toks[k].kind == RT_TOK_PUNCT && toks[k].len == 1) {
                                char e = code[toks[k].start];
                                if (e == '(' || e == '[' || e == '{')
                                    d++;
                                else if ((e == ')' || e == ']' || e == '}') && --d == 0)
                                    break;
                            }
                        }
                        item.kind = RT_ITEM_FUNCTION;
                        item.body = t->start;
                        last = k < n ? k : n - 1;
                        j = last;
                        done = 1;
                        continue;
                    }
                    depth++;
                } else if (c == ')' || c == ']' || c == '}') {
                    if (depth > 0)
                        depth--;
                    if (c == '}' && depth == 0 && stmt && !is_do) {
                        int more = j + 1 < n && is_if && rt_tok_is(code, &toks[j + 1], "else");
                        if (!more)
                            done = 1;
                    }
                } else if (c == '=' && depth == 0) {
                    saw_eq = 1;
                } else if (c == ';' && depth == 0) {
                    if (is_do && !saw_while)
                        continue;
                    int more = j + 1 < n && is_if && rt_tok_is(code, &toks[j + 1], "else");
                    if (!more) {
                        item.has_semicolon = 1;
                        done = 1;
                    }
                }
            } else if (t->kind == RT_TOK_IDENT && depth == 0 && is_do && j > i &&
                       rt_tok_is(code, t, "while")) {
                saw_while = 1;
            }
        }
        item.end = toks[last].start + toks[last].len;
        item.end_line = end_line(code, &toks[last]);
        if (item.kind != RT_ITEM_FUNCTION) {
            if (decl)
                item.kind = RT_ITEM_DECLARATION;
            else if (stmt || item.has_semicolon || last + 1 < n)
                item.kind = RT_ITEM_STATEMENT;
            else
                item.kind = RT_ITEM_EXPRESSION;
        }
        if (item.kind == RT_ITEM_DECLARATION && rt_tok_is(code, first, "typedef")) {
            rt_decl_t d;
            size_t dend = item.has_semicolon ? item.end - 1 : item.end;
            rt_decl_parse_tokens(tokens, item.start, dend, is_type, &ty, &d);
            for (int k = 0; k < d.n; k++)
                if (d.d[k].name_len)
                    types_add(&ty, d.d[k].name, d.d[k].name_len);
        }
        push(out, &cap, item);
        i = last + 1;
    }
    free(ty.names);
    return 0;
}

void rt_cell_free(rt_cell_t *cell)
{
    free(cell->items);
    cell->items = NULL;
    cell->n = 0;
}

/* Keywords after which a name and parentheses are an expression, not a
 * function's head: `return f(x)`. */
static int expression_keyword(const char *code, const rt_tok_t *t)
{
    static const char *const words[] = {"return", "sizeof", "case", "else", "goto", "do",
                                        "_Alignof", "alignof", NULL};
    for (int i = 0; words[i]; i++)
        if (rt_tok_is(code, t, words[i]))
            return 1;
    return 0;
}

/* A binary operator, assignment or comma that needs a right operand. */
static int wants_more(const char *code, const rt_tok_t *t)
{
    static const char *const ops[] = {
        "+", "-", "*", "/", "%", "=", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "&", "|",
        "^", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ",",
        "?", ":", "!", "~", ".", "->", NULL};
    if (t->kind != RT_TOK_PUNCT)
        return 0;
    for (int i = 0; ops[i]; i++)
        if (rt_tok_punct(code, t, ops[i]))
            return 1;
    return 0;
}

rt_completeness_t rt_cell_check_complete(const char *code)
{
    rt_completeness_t r = {"complete", 0};
    size_t len = strlen(code);
    /* a cell magic alone waits for its body, as IPython's console does */
    const char *p = code;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (p[0] == '%' && p[1] == '%' && !strchr(p, '\n')) {
        r.status = "incomplete";
        return r;
    }
    rt_lexer_t lx;
    rt_lex_init(&lx, code, 0, len, 1);
    rt_tok_t toks[64]; /* the last tokens, as a ring */
    size_t n = 0;
    char stack[256];   /* the open brackets */
    int depth = 0, braces = 0;
    rt_tok_t t;
    while (rt_lex_next(&lx, &t) != RT_TOK_EOF) {
        if (t.kind == RT_TOK_DIRECTIVE)
            continue;
        toks[n % 64] = t;
        n++;
        if (t.kind != RT_TOK_PUNCT || t.len != 1)
            continue;
        char c = code[t.start];
        if (c == '(' || c == '[' || c == '{') {
            if (depth < 256)
                stack[depth] = c;
            depth++;
            braces += c == '{';
        } else if (c == ')' || c == ']' || c == '}') {
            char want = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (depth == 0 || (depth <= 256 && stack[depth - 1] != want)) {
                r.status = "invalid";
                return r;
            }
            depth--;
            braces -= c == '}';
        }
    }
    r.indent = braces > 0 ? braces : 1;
    if (lx.unterminated || depth > 0) {
        r.status = "incomplete";
        return r;
    }
    size_t e = len;
    while (e > 0 && (code[e - 1] == '\n' || code[e - 1] == '\r' || code[e - 1] == ' ' ||
                     code[e - 1] == '\t'))
        e--;
    if ((e > 0 && code[e - 1] == '\\') || n == 0) {
        r.status = e > 0 && code[e - 1] == '\\' ? "incomplete" : "complete";
        return r;
    }
    const rt_tok_t *last = &toks[(n - 1) % 64];
    /* else / do, or an operator waiting for its right side */
    if (rt_tok_is(code, last, "else") || rt_tok_is(code, last, "do") || wants_more(code, last)) {
        r.status = "incomplete";
        return r;
    }
    if (!rt_tok_punct(code, last, ")"))
        return r;
    /* the last token closes a parenthesis: what stands before its opener? */
    size_t k = n - 1, level = 0, open = (size_t)-1;
    for (size_t back = 0; back < 64 && back < n; back++, k--) {
        const rt_tok_t *x = &toks[k % 64];
        if (rt_tok_punct(code, x, ")"))
            level++;
        else if (rt_tok_punct(code, x, "(") && --level == 0) {
            open = k;
            break;
        }
        if (k == 0)
            break;
    }
    if (open == (size_t)-1 || open == 0 || n - open > 64 || open + 64 < n)
        return r;
    const rt_tok_t *before = &toks[(open - 1) % 64];
    /* a control header: if (...) / for (...) / while (...) / switch (...) */
    if (rt_tok_is(code, before, "if") || rt_tok_is(code, before, "for") ||
        rt_tok_is(code, before, "while") || rt_tok_is(code, before, "switch")) {
        r.status = "incomplete";
        return r;
    }
    /* a function's head: TYPE NAME (...) with no body yet (not a call: f(x)) */
    if (before->kind == RT_TOK_IDENT && open >= 2 && n - open < 63) {
        const rt_tok_t *type = &toks[(open - 2) % 64];
        if ((type->kind == RT_TOK_IDENT && !expression_keyword(code, type)) ||
            rt_tok_punct(code, type, "*"))
            r.status = "incomplete";
    }
    return r;
}

const char *rt_cell_completeness(const char *code)
{
    return rt_cell_check_complete(code).status;
}

/* ---- shortcuts ------------------------------------------------------ */

/* The cell trimmed of blanks: *len bytes from the returned pointer. */
static const char *trimmed(const char *code, size_t *len)
{
    while (isspace((unsigned char)*code))
        code++;
    size_t n = strlen(code);
    while (n > 0 && isspace((unsigned char)code[n - 1]))
        n--;
    *len = n;
    return code;
}

static int is_identifier(const char *p, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)p[0]) || p[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)p[i]) || p[i] == '_'))
            return 0;
    return 1;
}

/* `name?`, `name??`, `?name`, `??name`: the name's bounds and the detail
 * level (1 for ??), or 0 when the cell is not one. */
static int asks_help(const char *p, size_t n, size_t *a, size_t *b, int *detail)
{
    size_t lead = 0, trail = 0;
    while (lead < n && lead < 2 && p[lead] == '?')
        lead++;
    while (trail < n - lead && trail < 2 && p[n - 1 - trail] == '?')
        trail++;
    if ((lead == 0) == (trail == 0))
        return 0;
    *a = lead;
    *b = n - trail;
    *detail = (lead == 2 || trail == 2);
    return is_identifier(p + *a, *b - *a);
}

rt_shortcut_kind_t rt_cell_shortcut(const char *code, rt_shortcut_form_t *out)
{
    rt_shortcut_form_t none;
    if (!out)
        out = &none;
    memset(out, 0, sizeof *out);
    size_t n, a, b;
    const char *p = trimmed(code, &n);
    size_t word = n >= 2 && p[n - 2] == '(' && p[n - 1] == ')' ? n - 2 : n;
    if (word == 4 && (strncmp(p, "exit", 4) == 0 || strncmp(p, "quit", 4) == 0)) {
        memcpy(out->name, p, 4);
        return out->kind = RT_SHORTCUT_EXIT;
    }
    if (n < sizeof out->name && asks_help(p, n, &a, &b, &out->detail)) {
        memcpy(out->name, p + a, b - a);
        return out->kind = RT_SHORTCUT_HELP;
    }
    return RT_SHORTCUT_NONE;
}

const char *rt_item_kind_name(rt_item_kind_t kind)
{
    static const char *const names[] = {"directive", "function", "declaration", "statement",
                                        "expression"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
