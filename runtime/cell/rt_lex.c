/* rt_lex: a small C tokenizer (see rt_lex.h). */
#include "rt_lex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_lex_init(rt_lexer_t *lx, const char *src, size_t start, size_t end, int line)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->pos = start;
    lx->end = end;
    lx->line = line;
    lx->line_start = start;
    lx->bol = 1;
}

static void newline(rt_lexer_t *lx)
{
    lx->line++;
    lx->line_start = lx->pos + 1;
    lx->bol = 1;
}

/* Skips blanks and comments; stops at a token's first byte or the end. */
static void skip_space(rt_lexer_t *lx)
{
    const char *s = lx->src;
    while (lx->pos < lx->end) {
        char c = s[lx->pos];
        if (c == '\n') {
            newline(lx);
            lx->pos++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
        } else if (c == '\\' && lx->pos + 1 < lx->end && s[lx->pos + 1] == '\n') {
            lx->pos++; /* a stray line continuation outside a directive */
        } else if (c == '/' && lx->pos + 1 < lx->end && s[lx->pos + 1] == '/') {
            while (lx->pos < lx->end && s[lx->pos] != '\n')
                lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->end && s[lx->pos + 1] == '*') {
            lx->pos += 2;
            for (;;) {
                if (lx->pos + 1 >= lx->end) {
                    lx->pos = lx->end;
                    lx->unterminated = 1;
                    return;
                }
                if (s[lx->pos] == '*' && s[lx->pos + 1] == '/') {
                    lx->pos += 2;
                    break;
                }
                if (s[lx->pos] == '\n')
                    newline(lx);
                lx->pos++;
            }
        } else {
            return;
        }
    }
}

static void skip_literal(rt_lexer_t *lx, char quote)
{
    const char *s = lx->src;
    lx->pos++;
    while (lx->pos < lx->end) {
        char c = s[lx->pos];
        if (c == '\\' && lx->pos + 1 < lx->end) {
            if (s[lx->pos + 1] == '\n')
                newline(lx);
            lx->pos += 2;
            continue;
        }
        if (c == quote) {
            lx->pos++;
            return;
        }
        if (c == '\n') /* unterminated on this line: C forbids raw newlines */
            break;
        lx->pos++;
    }
    lx->unterminated = 1;
}

static size_t punct_len(const char *s, size_t avail)
{
    static const char *const three[] = {"<<=", ">>=", "...", NULL};
    static const char *const two[] = {"==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=",
                                      "&=", "|=", "^=", "->", "++", "--", "&&", "||", "<<",
                                      ">>", "##", NULL};
    for (int i = 0; three[i]; i++)
        if (avail >= 3 && memcmp(s, three[i], 3) == 0)
            return 3;
    for (int i = 0; two[i]; i++)
        if (avail >= 2 && memcmp(s, two[i], 2) == 0)
            return 2;
    return 1;
}

rt_tok_kind_t rt_lex_next(rt_lexer_t *lx, rt_tok_t *t)
{
    const char *s = lx->src;
    skip_space(lx);
    t->start = lx->pos;
    t->line = lx->line;
    t->col = (int)(lx->pos - lx->line_start) + 1;
    t->len = 0;
    if (lx->pos >= lx->end)
        return t->kind = RT_TOK_EOF;
    char c = s[lx->pos];
    int bol = lx->bol;
    lx->bol = 0;
    if (c == '#' && bol) {
        /* a directive runs to the first newline not escaped by a backslash */
        while (lx->pos < lx->end && s[lx->pos] != '\n') {
            if (s[lx->pos] == '\\' && lx->pos + 1 < lx->end && s[lx->pos + 1] == '\n') {
                lx->pos++;
                newline(lx);
                lx->bol = 0;
            } else if (s[lx->pos] == '/' && lx->pos + 1 < lx->end && s[lx->pos + 1] == '*') {
                skip_space(lx); /* a block comment inside the directive */
                lx->bol = 0;
                continue;
            }
            lx->pos++;
        }
        t->kind = RT_TOK_DIRECTIVE;
    } else if (isalpha((unsigned char)c) || c == '_' || c == '$') {
        while (lx->pos < lx->end &&
               (isalnum((unsigned char)s[lx->pos]) || s[lx->pos] == '_' || s[lx->pos] == '$'))
            lx->pos++;
        t->kind = RT_TOK_IDENT;
    } else if (isdigit((unsigned char)c) ||
               (c == '.' && lx->pos + 1 < lx->end && isdigit((unsigned char)s[lx->pos + 1]))) {
        while (lx->pos < lx->end) {
            char d = s[lx->pos];
            if ((d == '+' || d == '-') && strchr("eEpP", s[lx->pos - 1]))
                lx->pos++;
            else if (isalnum((unsigned char)d) || d == '.' || d == '_')
                lx->pos++;
            else
                break;
        }
        t->kind = RT_TOK_NUMBER;
    } else if (c == '"' || c == '\'') {
        skip_literal(lx, c);
        t->kind = c == '"' ? RT_TOK_STRING : RT_TOK_CHAR;
    } else {
        lx->pos += punct_len(s + lx->pos, lx->end - lx->pos);
        t->kind = RT_TOK_PUNCT;
    }
    t->len = lx->pos - t->start;
    return t->kind;
}

int rt_tok_is(const char *src, const rt_tok_t *t, const char *text)
{
    size_t n = strlen(text);
    return t->len == n && memcmp(src + t->start, text, n) == 0;
}

int rt_tok_punct(const char *src, const rt_tok_t *t, const char *p)
{
    return t->kind == RT_TOK_PUNCT && rt_tok_is(src, t, p);
}

int rt_tok_opens(const char *src, const rt_tok_t *t)
{
    return t->kind == RT_TOK_PUNCT && t->len == 1 && strchr("([{", src[t->start]);
}

int rt_tok_closes(const char *src, const rt_tok_t *t)
{
    return t->kind == RT_TOK_PUNCT && t->len == 1 && strchr(")]}", src[t->start]);
}

size_t rt_tok_match(const char *src, const rt_tok_t *toks, size_t n, size_t i)
{
    int depth = 0;
    for (; i < n; i++) {
        if (rt_tok_opens(src, &toks[i]))
            depth++;
        else if (rt_tok_closes(src, &toks[i]) && --depth <= 0)
            return i;
    }
    return n;
}

size_t rt_tok_skip_group(const char *src, const rt_tok_t *toks, size_t n, size_t i)
{
    size_t close = rt_tok_match(src, toks, n, i);
    return close < n ? close + 1 : n;
}

int rt_tok_is_tag_keyword(const char *src, const rt_tok_t *t)
{
    return t->kind == RT_TOK_IDENT && (rt_tok_is(src, t, "struct") ||
                                       rt_tok_is(src, t, "union") || rt_tok_is(src, t, "enum"));
}

void rt_tokens_lex(rt_tokens_t *t, const char *src, size_t start, size_t end, int line)
{
    t->src = src;
    t->n = rt_lex_all(src, start, end, line, &t->v, &t->unterminated);
}

size_t rt_tokens_at(const rt_tokens_t *t, size_t at)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].start < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

rt_tokens_t rt_tokens_view(const rt_tokens_t *t, size_t from, size_t to, const char *src)
{
    size_t a = rt_tokens_at(t, from), b = rt_tokens_at(t, to);
    rt_tokens_t v = {src ? src : t->src, t->v + a, b > a ? b - a : 0, 0};
    return v;
}

void rt_tokens_free(rt_tokens_t *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

size_t rt_lex_all(const char *src, size_t start, size_t end, int line, rt_tok_t **toks,
                  int *unterminated)
{
    rt_lexer_t lx;
    rt_lex_init(&lx, src, start, end, line);
    size_t n = 0, cap = 64;
    rt_tok_t *v = malloc(cap * sizeof *v);
    if (!v)
        abort();
    for (;;) {
        rt_tok_t t;
        if (rt_lex_next(&lx, &t) == RT_TOK_EOF)
            break;
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            if (!v)
                abort();
        }
        v[n++] = t;
    }
    *toks = v;
    if (unterminated)
        *unterminated = lx.unterminated;
    return n;
}

void rt_lex_names(const char *text, size_t len, rt_name_fn fn, void *ctx)
{
    rt_lexer_t lx;
    rt_lex_init(&lx, text, 0, len, 1);
    rt_tok_t t, prev = {0};
    while (rt_lex_next(&lx, &t) != RT_TOK_EOF) {
        if (t.kind == RT_TOK_DIRECTIVE && t.len > 1) {
            rt_lex_names(text + t.start + 1, t.len - 1, fn, ctx);
        } else if (t.kind == RT_TOK_IDENT) {
            if (prev.kind == RT_TOK_IDENT &&
                (rt_tok_is(text, &prev, "struct") || rt_tok_is(text, &prev, "union") ||
                 rt_tok_is(text, &prev, "enum"))) {
                char b[256];
                if (prev.len + 1 + t.len < sizeof b) {
                    memcpy(b, text + prev.start, prev.len);
                    b[prev.len] = ' ';
                    memcpy(b + prev.len + 1, text + t.start, t.len);
                    fn(ctx, b, prev.len + 1 + t.len);
                }
            }
            fn(ctx, text + t.start, t.len);
        }
        prev = t;
    }
}

/* The first byte after d's '#' and the spaces after it. */
static const char *directive_word(const char *d, const char *end)
{
    if (d < end && *d == '#')
        d++;
    while (d < end && (*d == ' ' || *d == '\t'))
        d++;
    return d;
}

int rt_directive_is(const char *d, size_t len, const char *word)
{
    const char *end = d + len, *p = directive_word(d, end);
    size_t n = strlen(word);
    return len && d[0] == '#' && (size_t)(end - p) >= n && memcmp(p, word, n) == 0 &&
           ((size_t)(end - p) == n || !(isalnum((unsigned char)p[n]) || p[n] == '_'));
}

int rt_directive_defines(const char *d, size_t len)
{
    return rt_directive_is(d, len, "define") || rt_directive_is(d, len, "undef");
}

int rt_directive_include(const char *d, size_t len, char *name, size_t cap)
{
    const char *end = d + len;
    if (!rt_directive_is(d, len, "include"))
        return 0;
    const char *p = directive_word(d, end) + 7;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || (*p != '<' && *p != '"'))
        return 0;
    char close = *p == '<' ? '>' : '"';
    const char *q = memchr(p + 1, close, (size_t)(end - p - 1));
    if (!q || (size_t)(q - p) > cap)
        return 0;
    snprintf(name, cap, "%.*s", (int)(q - p - 1), p + 1);
    return 1;
}

int rt_lex_is_function_name(const char *text, const char *name)
{
    rt_tok_t *t; /* its callers hold the text: prelude and header index entries */
    size_t n = rt_lex_all(text, 0, strlen(text), 1, &t, NULL);
    int yes = 0;
    for (size_t i = 0; i + 1 < n && !yes; i++)
        yes = t[i].kind == RT_TOK_IDENT && rt_tok_is(text, &t[i], name) &&
              t[i + 1].kind == RT_TOK_PUNCT && rt_tok_is(text, &t[i + 1], "(");
    free(t);
    return yes;
}
