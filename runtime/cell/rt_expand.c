/* rt_expand: expanding user macros that open top-level items (see rt_expand.h). */
#include "rt_expand.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "rt_cell.h"
#include "rt_lex.h"
#include "rt_tcc.h"

#define MARKER "__gpuc_expansion_follows__"

/* Notes the name directive token d of text #define's (or forgets the one
 * it #undef's) in names, a list of "name\0" strings. */
static void note_directive(const char *text, const rt_tok_t *d, cm_names_t *names)
{
    const char *p = text + d->start + 1;
    const char *end = text + d->start + d->len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    int define = end - p > 6 && memcmp(p, "define", 6) == 0;
    int undef = end - p > 5 && memcmp(p, "undef", 5) == 0;
    if (!define && !undef)
        return;
    p += define ? 6 : 5;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *name = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    if (p == name)
        return;
    long at = cm_names_find(names, name, (size_t)(p - name));
    if (define && at < 0)
        cm_names_add(names, name, (size_t)(p - name));
    else if (undef && at >= 0)
        names->v[at][0] = '\0'; /* forgotten: an empty name matches nothing */
}

/* The names #define'd (and not #undef'd since) by the directive lines of
 * text: the session's macros, text it holds, read here. */
static void collect_macros(const char *text, size_t len, cm_names_t *names)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, text, 0, len, 1);
    for (size_t i = 0; i < t.n; i++)
        if (t.v[i].kind == RT_TOK_DIRECTIVE)
            note_directive(text, &t.v[i], names);
    rt_tokens_free(&t);
}

/* Non-zero when the planner must see the item expanded: its first token
 * is one of the macros, or it is a declaration that uses one anywhere
 * ("unsigned FIELD(x)", "static MAKE(y)"), which could make its names or
 * initializers. */
static int needs_expansion(const rt_tokens_t *read, const rt_item_t *it,
                           const cm_names_t *macros)
{
    const char *code = read->src;
    rt_tokens_t item = rt_tokens_view(read, it->start, it->end, NULL);
    for (size_t i = 0; i < item.n; i++) {
        rt_tok_t t = item.v[i];
        int first = i == 0;
        if (t.kind == RT_TOK_IDENT && cm_names_find(macros, code + t.start, t.len) >= 0)
            return 1;
        if (it->kind != RT_ITEM_DECLARATION && first)
            return 0;
    }
    return 0;
}

/* Preprocesses one item with the macros. Returns the expansion with the
 * item's line structure (a new string with no more lines than the item),
 * or NULL. */
static char *expand_item(const char *libdir, const char *defines, const char *item, size_t len,
                         int item_line, int item_lines, int cell)
{
    cm_buf_t src = {0};
    cm_buf_adds(&src, defines);
    cm_buf_adds(&src, "\n" MARKER "\n");
    /* the item on its own line of its cell, so that __LINE__ and __FILE__
     * in the expansion are what they are in the cell's compile */
    cm_buf_addf(&src, "#line %d \"cell[%d]\"\n", item_line, cell);
    int first = item_line; /* the line number the item starts at */
    cm_buf_add(&src, item, len);
    cm_buf_addc(&src, '\n');
    cm_buf_t out = {0};
    cm_error_t err = {0};
    int rc = rt_tcc_preprocess(libdir, cm_buf_str(&src), &out, &err);
    cm_buf_free(&src);
    const char *mark = rc == 0 ? strstr(cm_buf_str(&out), MARKER) : NULL;
    if (!mark) {
        cm_buf_free(&out);
        return NULL;
    }
    /* each output line goes back to the item line it came from: libtcc
     * keeps lines in step with blank lines or "# N" markers */
    cm_buf_t *lines = calloc((size_t)item_lines, sizeof *lines);
    if (!lines)
        abort();
    int at = first - 1; /* the marker's line */
    const char *p = strchr(mark, '\n');
    p = p ? p + 1 : mark + strlen(mark);
    at++;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t'))
            q++;
        if (q < p + n && *q == '#') {
            int line;
            if (sscanf(q + 1, " %d", &line) == 1)
                at = line; /* a line marker: the next line is this one */
        } else {
            int k = at - first;
            if (k < 0)
                k = 0;
            if (k >= item_lines)
                k = item_lines - 1;
            cm_buf_add(&lines[k], p, n);
            cm_buf_addc(&lines[k], ' ');
            at++;
        }
        p += n + (eol ? 1 : 0);
    }
    cm_buf_free(&out);
    cm_buf_t one = {0};
    for (int k = 0; k < item_lines; k++) {
        if (k)
            cm_buf_addc(&one, '\n');
        cm_buf_add(&one, lines[k].s ? lines[k].s : "", lines[k].len);
        cm_buf_free(&lines[k]);
    }
    free(lines);
    return cm_buf_steal(&one);
}

char *rt_expand_cell(const char *libdir, const char *user_macros, const rt_tokens_t *read,
                     int cell_no, rt_is_type_fn is_type, void *ctx)
{
    const char *code = read->src;
    rt_cell_t cell;
    rt_cell_split_tokens(read, is_type, ctx, &cell);
    cm_names_t macros = {0};
    collect_macros(user_macros, strlen(user_macros), &macros);
    cm_buf_t defines = {0}; /* the user's, as of the item being looked at */
    cm_buf_adds(&defines, user_macros);
    cm_buf_t out = {0};
    size_t copied = 0;
    int expanded = 0;
    for (size_t i = 0; i < cell.n; i++) {
        const rt_item_t *it = &cell.items[i];
        if (it->kind == RT_ITEM_DIRECTIVE) {
            cm_buf_addc(&defines, '\n');
            cm_buf_add(&defines, code + it->start, it->end - it->start);
            note_directive(code, &read->v[rt_tokens_at(read, it->start)], &macros);
            continue;
        }
        if (!needs_expansion(read, it, &macros))
            continue;
        char *one = expand_item(libdir, cm_buf_str(&defines), code + it->start,
                                it->end - it->start, it->line, it->end_line - it->line + 1,
                                cell_no);
        if (!one)
            continue;
        cm_buf_add(&out, code + copied, it->start - copied);
        cm_buf_adds(&out, one); /* on the item's own lines: later lines keep their numbers */
        copied = it->end;
        expanded = 1;
        free(one);
    }
    cm_buf_adds(&out, code + copied);
    cm_buf_free(&defines);
    cm_names_free(&macros);
    rt_cell_free(&cell);
    if (!expanded) {
        cm_buf_free(&out);
        return NULL;
    }
    return cm_buf_steal(&out);
}
