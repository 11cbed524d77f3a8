/* rt_decl: recognises the parts of a top-level declaration (see rt_decl.h). */
#include "rt_decl.h"

#include <stdlib.h>
#include <string.h>

/* Keywords that may begin or continue declaration specifiers (with
 * <complex.h>'s `complex`, a macro for _Complex: `double complex z;`). */
static const char *const decl_keywords[] = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
    "_Bool", "_Complex", "complex", "_Imaginary", "const", "volatile", "restrict", "static", "extern", "inline",
    "typedef", "register", "auto", "_Thread_local", "__thread", "_Atomic", "_Noreturn",
    "_Alignas", "struct", "union", "enum", "__attribute__", "__attribute", "__extension__",
    "__restrict", "__restrict__", "__inline", "__inline__", "__const", "__volatile__",
    "__signed__", "__typeof__", "typeof", "__typeof", "_Static_assert", "__int128", NULL};

/* Keywords that are type specifiers (a declaration has seen its type). */
static const char *const type_keywords[] = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
    "_Bool", "_Complex", "__int128", "__signed__", NULL};

static const char *const std_types[] = {
    "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "intmax_t", "uintmax_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "int_least8_t", "int_least16_t", "int_least32_t", "int_least64_t", "uint_least8_t",
    "uint_least16_t", "uint_least32_t", "uint_least64_t", "int_fast8_t", "int_fast16_t",
    "int_fast32_t", "int_fast64_t", "uint_fast8_t", "uint_fast16_t", "uint_fast32_t",
    "uint_fast64_t", "bool", "FILE", "fpos_t", "off_t", "time_t", "clock_t", "va_list",
    "wchar_t", "wint_t", "max_align_t", "div_t", "ldiv_t", "lldiv_t", "pid_t", "uid_t",
    "gid_t", "mode_t", "float_t", "double_t", "jmp_buf", "sigjmp_buf", "sig_atomic_t",
    "pthread_t", "pthread_mutex_t", "pthread_cond_t", "u_char", "u_int", "u_long",
    "char16_t", "char32_t", NULL};

const char *const rt_decl_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof",
    "_Atomic", "_Bool", "_Complex", "_Generic", "_Noreturn", "_Static_assert",
    "_Thread_local", "__attribute__", "__typeof__", NULL};

static int in_list(const char *const *list, const char *name, size_t len)
{
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == len && memcmp(list[i], name, len) == 0)
            return 1;
    return 0;
}

int rt_decl_is_decl_keyword(const char *name, size_t len)
{
    return in_list(decl_keywords, name, len);
}

int rt_decl_is_std_type(const char *name, size_t len)
{
    return in_list(std_types, name, len);
}

int rt_decl_is_keyword(const char *name, size_t len)
{
    return in_list(rt_decl_keywords, name, len) || in_list(decl_keywords, name, len);
}

static int is_attribute(const char *src, const rt_tok_t *t)
{
    return rt_tok_is(src, t, "__attribute__") || rt_tok_is(src, t, "__attribute") ||
           rt_tok_is(src, t, "_Alignas") || rt_tok_is(src, t, "__typeof__") ||
           rt_tok_is(src, t, "typeof") || rt_tok_is(src, t, "__typeof") ||
           rt_tok_is(src, t, "__asm__") || rt_tok_is(src, t, "asm") || rt_tok_is(src, t, "__asm");
}

static int init_is_constant(const char *src, const rt_tok_t *toks, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++) {
        const rt_tok_t *t = &toks[i];
        if (t->kind != RT_TOK_IDENT)
            continue;
        if (rt_tok_is(src, t, "sizeof") || in_list(type_keywords, src + t->start, t->len))
            continue;
        return 0;
    }
    return 1;
}

static void parse_declarator(const char *src, const rt_tok_t *toks, size_t a, size_t b,
                             rt_declarator_t *d)
{
    memset(d, 0, sizeof *d);
    d->start = toks[a].start;
    size_t eq = b;
    for (size_t i = a; i < b; i++) {
        if (rt_tok_opens(src, &toks[i])) {
            i = rt_tok_skip_group(src, toks, b, i) - 1;
            continue;
        }
        if (toks[i].kind == RT_TOK_PUNCT && rt_tok_is(src, &toks[i], "=")) {
            eq = i;
            break;
        }
    }
    d->end = eq > a ? toks[eq - 1].start + toks[eq - 1].len : d->start;
    if (eq < b) {
        d->init_start = toks[eq].start;
        d->init_end = toks[b - 1].start + toks[b - 1].len;
        d->init_line = eq + 1 < b ? toks[eq + 1].line : toks[eq].line;
        d->init_constant = init_is_constant(src, toks, eq + 1, b);
    }
    /* the name: the first identifier that is not a qualifier or attribute */
    for (size_t i = a; i < eq; i++) {
        const rt_tok_t *t = &toks[i];
        if (t->kind != RT_TOK_IDENT)
            continue;
        if (is_attribute(src, t)) {
            if (i + 1 < eq && rt_tok_opens(src, &toks[i + 1]))
                i = rt_tok_skip_group(src, toks, eq, i + 1) - 1;
            continue;
        }
        if (rt_decl_is_decl_keyword(src + t->start, t->len))
            continue;
        d->name = t->start;
        d->name_len = t->len;
        d->is_function = i + 1 < eq && rt_tok_is(src, &toks[i + 1], "(");
        if (i + 2 < eq && rt_tok_is(src, &toks[i + 1], "[") && rt_tok_is(src, &toks[i + 2], "]"))
            d->unsized = toks[i + 2].start;
        break;
    }
}

/* Ends a run of elements that started at index base (empty: 0) with off
 * elements: the array holds at least base + off, a member of the union
 * whose size is the largest of them. */
static void end_run(cm_buf_t *runs, int *nruns, const char *base, size_t blen, long off)
{
    if (!off)
        return;
    if (blen)
        cm_buf_addf(runs, " char m%d[(%.*s) + %ld];", *nruns, (int)blen, base, off);
    else
        cm_buf_addf(runs, " char m%d[%ld];", *nruns, off);
    (*nruns)++;
}

int rt_decl_count(const char *src, const rt_declarator_t *d, cm_buf_t *out)
{
    if (!d->unsized || d->init_end <= d->init_start)
        return -1;
    rt_tokens_t t;
    rt_tokens_lex(&t, src, d->init_start + 1, d->init_end, 1); /* a text not read before */
    int rc = rt_decl_count_tokens(&t, d, out);
    rt_tokens_free(&t);
    return rc;
}

int rt_decl_count_tokens(const rt_tokens_t *read, const rt_declarator_t *d, cm_buf_t *out)
{
    if (!d->unsized || d->init_end <= d->init_start)
        return -1;
    rt_tokens_t init = rt_tokens_view(read, d->init_start + 1, d->init_end, NULL);
    const char *src = init.src;
    const rt_tok_t *toks = init.v;
    size_t n = init.n;
    int rc = -1;
    if (n && toks[0].kind == RT_TOK_STRING) { /* char s[] = "text" "more" */
        size_t a = toks[0].start, e = toks[n - 1].start + toks[n - 1].len;
        cm_buf_addf(out, "sizeof (%.*s) / sizeof *(%.*s)", (int)(e - a), src + a, (int)(e - a),
                    src + a);
        rc = 0;
    } else if (n && rt_tok_is(src, &toks[0], "{")) {
        size_t close = rt_tok_match(src, toks, n, 0);
        cm_buf_t runs = {0};
        int nruns = 0, designated = 0;
        const char *base = "";
        size_t blen = 0;
        long off = 0;
        for (size_t i = 1; i < close;) {
            size_t e = i; /* the element: up to a ',' at this depth */
            while (e < close && !rt_tok_is(src, &toks[e], ","))
                e = rt_tok_opens(src, &toks[e]) ? rt_tok_skip_group(src, toks, close, e) : e + 1;
            if (e > i && rt_tok_is(src, &toks[i], "[")) {
                /* [index] = v, or GNU [first ... last] = v: a run starts there */
                size_t rb = rt_tok_match(src, toks, close, i), a = i + 1;
                for (size_t k = i + 1; k < rb; k++)
                    if (rt_tok_is(src, &toks[k], "..."))
                        a = k + 1;
                end_run(&runs, &nruns, base, blen, off);
                base = src + toks[a].start;
                blen = a < rb ? toks[rb - 1].start + toks[rb - 1].len - toks[a].start : 0;
                off = 0;
                designated = 1;
            }
            off += e > i;
            i = e + 1;
        }
        end_run(&runs, &nruns, base, blen, off);
        if (!designated)
            cm_buf_addf(out, "%ld", off);
        else
            cm_buf_addf(out, "sizeof (union {%s })", cm_buf_str(&runs));
        cm_buf_free(&runs);
        rc = 0;
    }
    return rc;
}

static void parse_enumerators(const char *src, const rt_tok_t *toks, size_t open, size_t close,
                              rt_decl_t *out)
{
    int expect = 1; /* an enumerator name may come next */
    for (size_t i = open + 1; i + 1 < close; i++) {
        const rt_tok_t *t = &toks[i];
        if (rt_tok_opens(src, t)) {
            i = rt_tok_skip_group(src, toks, close, i) - 1;
            continue;
        }
        if (expect && t->kind == RT_TOK_IDENT && out->nenums < RT_DECL_ENUMS) {
            out->enums[out->nenums][0] = t->start;
            out->enums[out->nenums][1] = t->len;
            out->nenums++;
        }
        expect = rt_tok_is(src, t, ",");
    }
}

void rt_decl_parse(const char *src, size_t start, size_t end, int line, rt_is_type_fn is_type,
                   void *ctx, rt_decl_t *out)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, src, start, end, line); /* a text not read before */
    rt_decl_parse_tokens(&t, start, end, is_type, ctx, out);
    rt_tokens_free(&t);
}

void rt_decl_parse_tokens(const rt_tokens_t *read, size_t start, size_t end,
                          rt_is_type_fn is_type, void *ctx, rt_decl_t *out)
{
    rt_tokens_t view = rt_tokens_view(read, start, end, NULL);
    const char *src = view.src;
    memset(out, 0, sizeof *out);
    out->spec_start = out->spec_end = start;
    const rt_tok_t *toks = view.v;
    size_t n = view.n;
    size_t i = 0;
    int saw_type = 0;
    while (i < n) {
        const rt_tok_t *t = &toks[i];
        const char *w = src + t->start;
        if (t->kind != RT_TOK_IDENT)
            break;
        if (is_attribute(src, t)) {
            i = i + 1 < n && rt_tok_opens(src, &toks[i + 1]) ? rt_tok_skip_group(src, toks, n, i + 1) : i + 1;
            if (!rt_tok_is(src, t, "_Alignas") && !rt_tok_is(src, t, "__attribute__") &&
                !rt_tok_is(src, t, "__attribute"))
                saw_type = 1; /* typeof(...) is a type */
            continue;
        }
        if (rt_tok_is(src, t, "struct") || rt_tok_is(src, t, "union") || rt_tok_is(src, t, "enum")) {
            /* a body stays with its keyword ("struct {} struct e" is no
             * C, but its text must not run backwards) */
            int had_body = out->body_end > out->body_start;
            if (!had_body) {
                out->tagkw = t->start;
                out->tagkw_len = t->len;
            }
            i++;
            while (i < n && is_attribute(src, &toks[i]))
                i = i + 1 < n && rt_tok_opens(src, &toks[i + 1]) ? rt_tok_skip_group(src, toks, n, i + 1) : i + 1;
            if (i < n && toks[i].kind == RT_TOK_IDENT) {
                if (!had_body) {
                    out->tag = toks[i].start;
                    out->tag_len = toks[i].len;
                }
                i++;
            }
            if (i < n && rt_tok_is(src, &toks[i], "{")) {
                size_t close = rt_tok_skip_group(src, toks, n, i);
                out->body_start = toks[i].start;
                out->body_end = toks[close - 1].start + toks[close - 1].len;
                if (w[0] == 'e')
                    parse_enumerators(src, toks, i, close, out);
                i = close;
            }
            saw_type = 1;
            continue;
        }
        if (rt_decl_is_decl_keyword(w, t->len)) {
            if (rt_tok_is(src, t, "typedef"))
                out->is_typedef = 1;
            if (rt_tok_is(src, t, "extern"))
                out->is_extern = 1;
            if ((rt_tok_is(src, t, "static") || rt_tok_is(src, t, "inline") ||
                 rt_tok_is(src, t, "__inline") || rt_tok_is(src, t, "__inline__") ||
                 rt_tok_is(src, t, "register") || rt_tok_is(src, t, "extern")) &&
                out->ndrop < RT_DECL_DROPS) {
                out->drop[out->ndrop][0] = t->start;
                out->drop[out->ndrop][1] = t->len;
                out->ndrop++;
            }
            if (in_list(type_keywords, w, t->len))
                saw_type = 1;
            i++;
            continue;
        }
        if (!saw_type && (rt_decl_is_std_type(w, t->len) || (is_type && is_type(ctx, w, t->len)))) {
            saw_type = 1;
            i++;
            continue;
        }
        break;
    }
    out->spec_end = i > 0 ? toks[i - 1].start + toks[i - 1].len : start;
    /* declarators, separated by commas at depth 0 */
    size_t a = i;
    while (a < n && out->n < RT_DECL_MAX) {
        size_t b = a;
        while (b < n && !rt_tok_is(src, &toks[b], ",")) {
            if (rt_tok_opens(src, &toks[b]))
                b = rt_tok_skip_group(src, toks, n, b);
            else
                b++;
        }
        if (b > a)
            parse_declarator(src, toks, a, b, &out->d[out->n++]);
        a = b + 1;
    }
}
