/* rt_launch: rewriting launches and dim3 constructors (see rt_launch.h). */
#include "rt_launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "gpu.h"
#include "rt_kprelude.h"
#include "rt_lex.h"

typedef struct span {
    size_t from, to; /* byte range of the source */
} span_t;

/* Splits toks[first, last) at commas outside brackets. Returns the count. */
static int split_args(const char *src, const rt_tok_t *toks, size_t first, size_t last,
                      span_t *out, int max)
{
    int n = 0, depth = 0;
    size_t start = first;
    if (first >= last)
        return 0;
    for (size_t i = first; i <= last; i++) {
        int end = i == last;
        if (!end && (rt_tok_punct(src, &toks[i], "(") || rt_tok_punct(src, &toks[i], "[") ||
                     rt_tok_punct(src, &toks[i], "{")))
            depth++;
        else if (!end && (rt_tok_punct(src, &toks[i], ")") || rt_tok_punct(src, &toks[i], "]") ||
                          rt_tok_punct(src, &toks[i], "}")))
            depth--;
        if (end || (depth == 0 && rt_tok_punct(src, &toks[i], ","))) {
            if (n < max)
                out[n] = (span_t){toks[start].start, toks[i - 1].start + toks[i - 1].len};
            n++;
            start = i + 1;
        }
    }
    return n;
}

/* Appends src[from, to) with its newlines kept and nothing else changed. */
static void add_text(cm_buf_t *b, const char *src, size_t from, size_t to)
{
    cm_buf_add(b, src + from, to - from);
}

/* Appends the newlines of src[from, to), so the lines after keep their numbers. */
static void add_newlines(cm_buf_t *b, const char *src, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (src[i] == '\n')
            cm_buf_addc(b, '\n');
}

#define MAX_ARGS 64

/* The token after a template instance's arguments when toks[i] is a name
 * followed by `<...>` (`scale<float>`, `tile<float, 16>`), else i + 1. */
static size_t after_template_args(const char *src, const rt_tok_t *toks, size_t n, size_t i)
{
    if (i + 1 >= n || !rt_tok_punct(src, &toks[i + 1], "<"))
        return i + 1;
    int depth = 0;
    for (size_t k = i + 1; k < n; k++) {
        if (rt_tok_punct(src, &toks[k], "<"))
            depth++;
        else if (rt_tok_punct(src, &toks[k], ">"))
            depth--;
        else if (rt_tok_punct(src, &toks[k], ">>"))
            depth -= 2;
        else if (rt_tok_punct(src, &toks[k], ";") || rt_tok_punct(src, &toks[k], "{") ||
                 rt_tok_punct(src, &toks[k], "}") || depth < 0)
            return i + 1;
        if (depth == 0)
            return k + 1;
    }
    return i + 1;
}

/* The kernel's name, toks[i, end): a template instance's tokens with a
 * blank only between two words ("tile<float,16>"). */
static void add_kernel_name(cm_buf_t *out, const char *src, const rt_tok_t *toks, size_t i,
                            size_t end)
{
    for (size_t k = i; k < end; k++) {
        int word = toks[k].kind == RT_TOK_IDENT || toks[k].kind == RT_TOK_NUMBER;
        if (k > i && word && (toks[k - 1].kind == RT_TOK_IDENT || toks[k - 1].kind == RT_TOK_NUMBER))
            cm_buf_addc(out, ' ');
        cm_buf_add(out, src + toks[k].start, toks[k].len);
    }
}

/* name<<<config>>>(args), or name<targs><<<config>>>(args): toks[i] is the
 * name. Returns the index after the closing ')' with the call appended to
 * out, or 0 when it is not a launch. */
static size_t rewrite_launch(const char *src, const rt_tok_t *toks, size_t n, size_t i, int cell,
                             cm_buf_t *out)
{
    size_t open = after_template_args(src, toks, n, i); /* the "<<" of "<<<" */
    if (open + 1 >= n || !rt_tok_punct(src, &toks[open], "<<") ||
        !rt_tok_punct(src, &toks[open + 1], "<"))
        return 0;
    size_t close = n; /* the ">>" of ">>>" at bracket depth 0 */
    int depth = 0;
    for (size_t k = open + 2; k + 1 < n; k++) {
        if (rt_tok_punct(src, &toks[k], "(") || rt_tok_punct(src, &toks[k], "["))
            depth++;
        else if (rt_tok_punct(src, &toks[k], ")") || rt_tok_punct(src, &toks[k], "]"))
            depth--;
        else if (depth == 0 && rt_tok_punct(src, &toks[k], ">>") && rt_tok_punct(src, &toks[k + 1], ">")) {
            close = k;
            break;
        }
    }
    if (close >= n || close + 2 >= n || !rt_tok_punct(src, &toks[close + 2], "("))
        return 0;
    size_t paren = close + 2;
    size_t end = rt_tok_match(src, toks, n, paren);
    if (end >= n)
        return 0;
    span_t config[4], args[MAX_ARGS];
    int nconfig = split_args(src, toks, open + 2, close, config, 4);
    int nargs = split_args(src, toks, paren + 1, end, args, MAX_ARGS);
    if (nconfig < 2 || nconfig > 4 || nargs > MAX_ARGS)
        return 0; /* TCC reports the syntax */
    /* grid and block go through temporaries of their own type (an integer
     * or a dim3), passed by address: no struct is returned or passed by
     * value, which this libtcc gets wrong inside loops */
    cm_buf_adds(out, "({ __typeof__(");
    add_text(out, src, config[0].from, config[0].to);
    cm_buf_adds(out, ") __gpuc_grid = (");
    add_text(out, src, config[0].from, config[0].to);
    cm_buf_adds(out, "); __typeof__(");
    add_text(out, src, config[1].from, config[1].to);
    cm_buf_adds(out, ") __gpuc_block = (");
    add_text(out, src, config[1].from, config[1].to);
    cm_buf_adds(out, "); ");
    /* each argument in a variable of its type: a struct is copied whole
     * (a compound literal `(T){s}` would take s for T's first member) */
    for (int a = 0; a < nargs; a++) {
        cm_buf_adds(out, "__typeof__(");
        add_text(out, src, args[a].from, args[a].to);
        cm_buf_addf(out, ") __gpuc_a%d = (", a);
        add_text(out, src, args[a].from, args[a].to);
        cm_buf_adds(out, "); ");
    }
    cm_buf_adds(out, "__gpuc_launch(\"");
    add_kernel_name(out, src, toks, i, open);
    cm_buf_adds(out, "\", &__gpuc_grid, __gpuc_is_dim3(__gpuc_grid), "
                     "sizeof __gpuc_grid, &__gpuc_block, __gpuc_is_dim3(__gpuc_block), "
                     "sizeof __gpuc_block, ");
    if (nconfig > 2)
        add_text(out, src, config[2].from, config[2].to);
    else
        cm_buf_addc(out, '0');
    cm_buf_adds(out, ", ");
    if (nconfig > 3)
        add_text(out, src, config[3].from, config[3].to);
    else
        cm_buf_addc(out, '0');
    cm_buf_addf(out, ", %d, (void *[]){", nargs);
    for (int a = 0; a < nargs; a++)
        cm_buf_addf(out, "%s&__gpuc_a%d", a ? ", " : "", a);
    cm_buf_adds(out, nargs ? "}, (const unsigned long long[]){" : "0}, (const unsigned long long[]){");
    for (int a = 0; a < nargs; a++)
        cm_buf_addf(out, "%ssizeof __gpuc_a%d", a ? ", " : "", a);
    cm_buf_adds(out, nargs ? "}, (const char[]){" : "0}, (const char[]){");
    for (int a = 0; a < nargs; a++)
        cm_buf_addf(out, "__gpuc_kind(__gpuc_a%d), ", a);
    cm_buf_adds(out, "0}, (const char *[]){");
    for (int a = 0; a < nargs; a++)
        cm_buf_addf(out, "__gpuc_type(__gpuc_a%d), ", a);
    cm_buf_addf(out, "0}, %d, %d); })", cell, toks[i].line);
    add_newlines(out, src, toks[i].start, toks[end].start);
    return end + 1;
}

/* A template kernel's instance as a value (`cudaFuncGetAttributes(&a,
 * scale<float>)`): its handle, the instance made when the cell runs.
 * toks[i] is the name. The index after the instance, or 0 when it is not
 * one. */
static size_t rewrite_instance(const char *src, const rt_tok_t *toks, size_t n, size_t i,
                               int cell, cm_buf_t *out)
{
    size_t end = after_template_args(src, toks, n, i);
    if (end == i + 1)
        return 0;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)toks[i].len, src + toks[i].start);
    if (!rt_kprelude_is_template(name))
        return 0;
    cm_buf_adds(out, "__gpuc_kernel_handle(\"");
    add_kernel_name(out, src, toks, i, end);
    cm_buf_addf(out, "\", %d, %d)", cell, toks[i].line);
    add_newlines(out, src, toks[i].start, toks[end - 1].start);
    return end;
}

/* dim3 name(x, y) -> dim3 name = {x, y, 1}; dim3(x) -> ((dim3){x, 1, 1}).
 * toks[i] is "dim3". Returns the index after what was rewritten, or 0. */
static size_t rewrite_dim3(const char *src, const rt_tok_t *toks, size_t n, size_t i,
                           cm_buf_t *out)
{
    size_t k = i + 1;
    int named = k + 1 < n && toks[k].kind == RT_TOK_IDENT && rt_tok_punct(src, &toks[k + 1], "(");
    size_t paren = named ? k + 1 : k;
    if (paren >= n || !rt_tok_punct(src, &toks[paren], "("))
        return 0;
    size_t end = rt_tok_match(src, toks, n, paren);
    if (end >= n)
        return 0;
    span_t v[3];
    int count = split_args(src, toks, paren + 1, end, v, 3);
    if (count < 1 || count > 3)
        return 0;
    if (named) {
        cm_buf_adds(out, "dim3 ");
        add_text(out, src, toks[k].start, toks[k].start + toks[k].len);
        cm_buf_adds(out, " = {");
    } else {
        cm_buf_adds(out, "((dim3){");
    }
    for (int c = 0; c < 3; c++) {
        if (c)
            cm_buf_adds(out, ", ");
        if (c < count) {
            cm_buf_addc(out, '(');
            add_text(out, src, v[c].from, v[c].to);
            cm_buf_addc(out, ')');
        } else {
            cm_buf_addc(out, '1');
        }
    }
    cm_buf_adds(out, named ? "}" : "})");
    add_newlines(out, src, toks[i].start, toks[end].start);
    return end + 1;
}

/* One pass over the text read into t: dim3 constructors (launches 0) or
 * launches (1). */
static char *rewrite_pass(const rt_tokens_t *t, int cell, int launches)
{
    const char *code = t->src;
    const rt_tok_t *toks = t->v;
    size_t n = t->n;
    cm_buf_t out = {0};
    size_t copied = 0; /* bytes of code already in out */
    int changed = 0;
    for (size_t i = 0; i < n;) {
        size_t next = 0;
        cm_buf_t piece = {0};
        int prev_member = i > 0 && (rt_tok_punct(code, &toks[i - 1], ".") ||
                                    rt_tok_punct(code, &toks[i - 1], "->"));
        if (toks[i].kind == RT_TOK_IDENT && !prev_member) {
            if (!launches && rt_tok_is(code, &toks[i], "dim3"))
                next = rewrite_dim3(code, toks, n, i, &piece);
            else if (launches && !(next = rewrite_launch(code, toks, n, i, cell, &piece)))
                next = rewrite_instance(code, toks, n, i, cell, &piece);
        }
        if (!next) {
            cm_buf_free(&piece);
            i++;
            continue;
        }
        cm_buf_add(&out, code + copied, toks[i].start - copied);
        cm_buf_add(&out, piece.s, piece.len);
        cm_buf_free(&piece);
        copied = toks[next - 1].start + toks[next - 1].len;
        changed = 1;
        i = next;
    }
    if (!changed) {
        cm_buf_free(&out);
        return NULL;
    }
    cm_buf_adds(&out, code + copied);
    return cm_buf_steal(&out);
}

char *rt_launch_rewrite_tokens(const rt_tokens_t *t, int cell)
{
    /* dim3 first, so that a dim3(...) inside a launch's <<< >>> is C too */
    char *dims = rewrite_pass(t, cell, 0);
    rt_tokens_t dims_read = {0};
    if (dims) /* text this pass wrote: read for the launches */
        rt_tokens_lex(&dims_read, dims, 0, strlen(dims), 1);
    char *launches = rewrite_pass(dims ? &dims_read : t, cell, 1);
    rt_tokens_free(&dims_read);
    if (!launches)
        return dims;
    free(dims);
    return launches;
}

char *rt_launch_rewrite(const char *code, int cell)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, code, 0, strlen(code), 1); /* a text not read before */
    char *out = rt_launch_rewrite_tokens(&t, cell);
    rt_tokens_free(&t);
    return out;
}
