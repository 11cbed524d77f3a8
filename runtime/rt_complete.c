/* rt_complete: completion, inspection and is_complete for the session.
 * Completion offers, by context: magics after '%' at the start of a line,
 * members after "expr." / "expr->", tags after "struct ", else the
 * session's names and those the cell declares before the cursor (not
 * yet run: its variables, functions, types; the parameters and locals of
 * the function the cursor is in), C keywords and the names of the
 * session's headers.
 * Names come from rt_session_query.c; documentation from rt_docs.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_complete.h"

#include "cm_vec.h"
#include "ga_array.h"
#include "rt_cell.h"
#include "rt_decl.h"
#include "rt_docs.h"
#include "rt_magic.h"
#include "rt_session_defs.h"
#include "rt_session_query.h"

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Jupyter cursor positions count Unicode code points; convert to bytes. */
static size_t byte_offset(const char *code, int cursor_pos)
{
    size_t i = 0;
    for (int cp = 0; code[i] && cp < cursor_pos; cp++) {
        i++;
        while (code[i] && ((unsigned char)code[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

static int code_points(const char *code, size_t bytes)
{
    int n = 0;
    for (size_t i = 0; i < bytes && code[i]; i++)
        if (((unsigned char)code[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* ---- matches ---------------------------------------------------------- */

typedef struct match {
    char *text;
    const char *type;   /* "keyword", "variable", ... (IPython's experimental types) */
    int rank;           /* 0 for the session's names: they come first */
} match_t;

typedef struct matches {
    match_t *v;
    size_t n, cap;
    const char *prefix; /* what a name must begin with */
    size_t plen;
    const char *lead;   /* put before each match ("%" for magics), or "" */
    int rank;           /* of the names added now */
    int skip_private;   /* leave out names beginning with '_' (header names) */
} matches_t;

static void add_match(matches_t *m, const char *name, size_t len, const char *type)
{
    if (len < m->plen || strncmp(name, m->prefix, m->plen) != 0)
        return;
    if (m->skip_private && name[0] == '_' && m->plen == 0)
        return;
    if (m->skip_private && name[0] == '_' && m->prefix[0] != '_')
        return;
    CM_VEC_GROW(m->v, m->n, m->cap);
    cm_buf_t b = {0};
    cm_buf_adds(&b, m->lead);
    cm_buf_add(&b, name, len);
    m->v[m->n++] = (match_t){cm_buf_steal(&b), type, m->rank};
}

static const char *const kind_names[] = {
    [RT_NAME_NONE] = "variable",    [RT_NAME_VARIABLE] = "variable",
    [RT_NAME_FUNCTION] = "function", [RT_NAME_TYPE] = "type",
    [RT_NAME_MACRO] = "macro",       [RT_NAME_MEMBER] = "member",
};

static void on_session_name(void *ctx, const char *name, rt_name_kind_t kind)
{
    add_match(ctx, name, strlen(name), kind_names[kind]);
}

static void on_header_name(void *ctx, const char *name, rt_shake_kind_t kind)
{
    static const char *const names[] = {
        [RT_SHAKE_NONE] = "variable",     [RT_SHAKE_VARIABLE] = "variable",
        [RT_SHAKE_FUNCTION] = "function", [RT_SHAKE_TYPE] = "type",
        [RT_SHAKE_TAG] = "type",          [RT_SHAKE_MACRO] = "macro",
    };
    matches_t *m = ctx;
    if (kind == RT_SHAKE_TAG) {
        const char *tag = strchr(name, ' ') + 1; /* offered after "struct " only */
        if (m->plen == 0 || strncmp(tag, m->prefix, m->plen) == 0)
            add_match(m, tag, strlen(tag), names[kind]);
        return;
    }
    add_match(m, name, strlen(name), names[kind]);
}

static void on_member(void *ctx, const char *name, size_t len, const char *decl, size_t decl_len)
{
    (void)decl;
    (void)decl_len;
    add_match(ctx, name, len, "member");
}

/* Tags the session declared: prelude keys "struct point" for tag kw. */
static void add_session_tags(rt_session_t *s, matches_t *m, const char *kw)
{
    size_t kwlen = strlen(kw);
    const rt_prelude_t *prelude = rt_session_prelude(s);
    for (size_t i = 0; i < prelude->n; i++) {
        const rt_entry_t *e = &prelude->v[i];
        for (size_t k = 0; k < e->nkeys; k++)
            if (strncmp(e->keys[k], kw, kwlen) == 0 && e->keys[k][kwlen] == ' ')
                add_match(m, e->keys[k] + kwlen + 1, strlen(e->keys[k] + kwlen + 1), "type");
    }
}

static int by_name(const void *a, const void *b)
{
    const match_t *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    return c ? c : x->rank - y->rank;
}

/* The session's names first; within each group, names beginning with '_'
 * (_Bool) after the others, as IPython does. */
static int by_rank_name(const void *a, const void *b)
{
    const match_t *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    if ((x->text[0] == '_') != (y->text[0] == '_'))
        return x->text[0] == '_' ? 1 : -1;
    return strcmp(x->text, y->text);
}

/* Sorts and de-duplicates the matches (a name keeps its best rank and the
 * type it had there), the session's first, into the reply's arrays. */
static void finish_matches(matches_t *m, json_t *texts, json_t *types, int start, int end)
{
    if (m->n == 0)
        return;
    qsort(m->v, m->n, sizeof *m->v, by_name);
    size_t w = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (w > 0 && strcmp(m->v[w - 1].text, m->v[i].text) == 0) {
            free(m->v[i].text);
            continue;
        }
        m->v[w++] = m->v[i];
    }
    m->n = w;
    qsort(m->v, m->n, sizeof *m->v, by_rank_name);
    for (size_t i = 0; i < m->n; i++) {
        json_array_append_new(texts, json_string(m->v[i].text));
        json_array_append_new(types, json_pack("{s:i, s:i, s:s, s:s, s:s}", "start", start, "end",
                                               end, "text", m->v[i].text, "type", m->v[i].type,
                                               "signature", ""));
        free(m->v[i].text);
    }
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

/* ---- names of the cell being typed ---------------------------------------- */

/* What the cell declares before the cursor, not yet run: its typedef
 * names (for rt_decl_parse) before the session's. */
typedef struct cell_names {
    rt_session_t *s;
    matches_t *m;
    char **types;
    size_t ntypes, cap;
} cell_names_t;

static int cell_is_type(void *ctx, const char *name, size_t len)
{
    cell_names_t *c = ctx;
    for (size_t i = 0; i < c->ntypes; i++)
        if (strlen(c->types[i]) == len && memcmp(c->types[i], name, len) == 0)
            return 1;
    return rt_session_is_type(c->s, name, len);
}

/* Offers the names that the declaration code[from, to) declares (without
 * its ';'); with need_type, only when it has a type ("int i = 0", not
 * "i = 0"). Returns the declaration's d[0].is_function. */
static int add_decl_names(cell_names_t *c, const char *code, size_t from, size_t to,
                          int need_type)
{
    rt_decl_t d;
    rt_decl_parse(code, from, to, 1, cell_is_type, c, &d);
    if (need_type && d.spec_end == d.spec_start)
        return 0;
    for (int k = 0; k < d.n; k++) {
        const rt_declarator_t *x = &d.d[k];
        if (!x->name_len)
            continue;
        add_match(c->m, code + x->name, x->name_len,
                  d.is_typedef ? "type" : x->is_function ? "function" : "variable");
        if (d.is_typedef) {
            CM_VEC_GROW(c->types, c->ntypes, c->cap);
            c->types[c->ntypes++] = cm_strndup(code + x->name, x->name_len);
        }
    }
    for (int k = 0; k < d.nenums; k++)
        add_match(c->m, code + d.enums[k][0], d.enums[k][1], "variable");
    return d.n > 0 && d.d[0].is_function;
}

/* Offers the parameters of the function head code[from, to): the
 * declarations separated by commas in its first (...) group. */
static void add_params(cell_names_t *c, const char *code, size_t from, size_t to)
{
    rt_tok_t *t; /* completion reads its own request's text: no cell ran it */
    size_t n = rt_lex_all(code, from, to, 1, &t, NULL), open = 0;
    while (open < n && !rt_tok_is(code, &t[open], "("))
        open++;
    size_t close = open < n ? rt_tok_match(code, t, n, open) : n;
    for (size_t a = open + 1; a < close;) {
        size_t b = a;
        while (b < close && !rt_tok_is(code, &t[b], ","))
            b = rt_tok_opens(code, &t[b]) ? rt_tok_skip_group(code, t, n, b) : b + 1;
        if (b > a)
            add_decl_names(c, code, t[a].start, t[b - 1].start + t[b - 1].len, 1);
        a = b + 1;
    }
    free(t);
}

/* The offset of the outermost '{' of code[from, to) left open at to, or
 * 0 when every brace there is closed. */
static size_t open_brace(const char *code, size_t from, size_t to)
{
    rt_tok_t *t; /* completion reads its own request's text: no cell ran it */
    size_t n = rt_lex_all(code, from, to, 1, &t, NULL), at = 0;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (rt_tok_is(code, &t[i], "{") && depth++ == 0)
            at = t[i].start;
        else if (rt_tok_is(code, &t[i], "}") && depth > 0)
            depth--;
    }
    free(t);
    return depth > 0 ? at : 0;
}

/* Offers the names that code[0, len) declares at its top level: variables,
 * functions, types, enumerators. When it ends inside a block, goes on
 * inside it: a function's parameters, a for loop's declaration, the
 * block's own declarations, down to the innermost block. */
static void add_block_names(cell_names_t *c, const char *code, size_t len, int depth)
{
    char *text = cm_strndup(code, len);
    rt_cell_t cell;
    rt_cell_split(text, cell_is_type, c, &cell);
    for (size_t i = 0; i < cell.n; i++) {
        const rt_item_t *it = &cell.items[i];
        int last = i + 1 == cell.n;
        size_t open = last && depth < 16 ? open_brace(text, it->start, it->end) : 0;
        if (it->kind == RT_ITEM_DECLARATION) {
            add_decl_names(c, text, it->start, it->has_semicolon ? it->end - 1 : it->end, 0);
        } else if (it->kind == RT_ITEM_FUNCTION) {
            add_decl_names(c, text, it->start, it->body, 0);
            if (open)
                add_params(c, text, it->start, it->body);
        } else if (last && it->kind == RT_ITEM_STATEMENT && (open || !it->has_semicolon) &&
                   strncmp(text + it->start, "for", 3) == 0 && !ident_char(text[it->start + 3])) {
            size_t a = it->start + 3; /* for (DECLARATION; ... */
            while (a < it->end && isspace((unsigned char)text[a]))
                a++;
            size_t b = text[a] == '(' ? a + 1 + strcspn(text + a + 1, ";") : a;
            if (b > a && b <= it->end)
                add_decl_names(c, text, a + 1, b, 1);
        }
        if (open)
            add_block_names(c, text + open + 1, it->end - open - 1, depth + 1);
    }
    rt_cell_free(&cell);
    free(text);
}

/* Offers what the cell declares before code[start]. */
static void add_cell_names(rt_session_t *s, matches_t *m, const char *code, size_t start)
{
    cell_names_t c = {s, m, NULL, 0, 0};
    add_block_names(&c, code, start, 0);
    for (size_t i = 0; i < c.ntypes; i++)
        free(c.types[i]);
    free(c.types);
}

/* ---- completion contexts ----------------------------------------------- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A magic being typed: the line so far is blanks, '%' or '%%', a name.
 * Returns 1 and sets *pct (offset of the first '%') and *cell. */
static int magic_context(const char *code, size_t start, size_t *pct, int *cell)
{
    size_t i = start;
    int n = 0;
    while (i > 0 && code[i - 1] == '%' && n < 2) {
        i--;
        n++;
    }
    if (n == 0)
        return 0;
    size_t j = i;
    while (j > 0 && is_blank(code[j - 1]))
        j--;
    if (j > 0 && code[j - 1] != '\n')
        return 0;
    *pct = i;
    *cell = n == 2;
    return 1;
}

/* A member being typed: "expr." or "expr->" right before start, expr a
 * chain such as a, a.b, v[i]->next. Returns 1 with expr at code[*a, *b),
 * -1 after a "." or "->" that does not follow such a chain, else 0. */
static int member_context(const char *code, size_t start, size_t *a, size_t *b)
{
    size_t i = start;
    while (i > 0 && is_blank(code[i - 1]))
        i--;
    if (i > 0 && code[i - 1] == '.')
        i--;
    else if (i > 1 && code[i - 1] == '>' && code[i - 2] == '-')
        i -= 2;
    else
        return 0;
    *b = i;
    for (;;) {
        while (i > 0 && isspace((unsigned char)code[i - 1]))
            i--;
        while (i > 0 && code[i - 1] == ']') { /* a subscript */
            int depth = 0;
            while (i > 0) {
                char c = code[--i];
                if (c == ']')
                    depth++;
                else if (c == '[' && --depth == 0)
                    break;
            }
            while (i > 0 && isspace((unsigned char)code[i - 1]))
                i--;
        }
        size_t e = i;
        while (i > 0 && ident_char(code[i - 1]))
            i--;
        if (i == e || isdigit((unsigned char)code[i]))
            return -1;
        size_t k = i;
        while (k > 0 && isspace((unsigned char)code[k - 1]))
            k--;
        if (k > 0 && code[k - 1] == '.' && !(k > 1 && isdigit((unsigned char)code[k - 2])))
            i = k - 1;
        else if (k > 1 && code[k - 1] == '>' && code[k - 2] == '-')
            i = k - 2;
        else
            break;
    }
    *a = i;
    return 1;
}

/* "struct ", "union " or "enum " right before start: the keyword, or NULL. */
static const char *tag_context(const char *code, size_t start)
{
    static const char *const kws[] = {"struct", "union", "enum", NULL};
    size_t i = start;
    if (i == 0 || !is_blank(code[i - 1]))
        return NULL;
    while (i > 0 && is_blank(code[i - 1]))
        i--;
    for (int k = 0; kws[k]; k++) {
        size_t n = strlen(kws[k]);
        if (i >= n && strncmp(code + i - n, kws[k], n) == 0 &&
            (i == n || !ident_char(code[i - n - 1])))
            return kws[k];
    }
    return NULL;
}

json_t *rt_complete(rt_session_t *s, const char *code, int cursor_pos)
{
    size_t end = byte_offset(code, cursor_pos);
    size_t start = end;
    while (start > 0 && ident_char(code[start - 1]))
        start--;
    char prefix[256];
    size_t plen = end - start < sizeof prefix - 1 ? end - start : sizeof prefix - 1;
    memcpy(prefix, code + start, plen);
    prefix[plen] = '\0';
    matches_t m = {.prefix = prefix, .plen = plen, .lead = ""};
    size_t pct, ea, eb;
    int cell, member;
    const char *kw;
    if (magic_context(code, start, &pct, &cell)) {
        size_t n;
        const rt_magic_info_t *magics = rt_magic_table(&n);
        int first_line = memchr(code, '\n', pct) == NULL;
        for (size_t i = 0; i < n; i++) {
            if (magics[i].cell && !first_line)
                continue; /* a cell magic is the cell's first line */
            if (!magics[i].cell && cell)
                continue;
            m.lead = magics[i].cell ? "%%" : "%";
            add_match(&m, magics[i].name, strlen(magics[i].name), "magic");
        }
        start = pct;
    } else if ((member = member_context(code, start, &ea, &eb)) != 0) {
        if (member > 0)
            rt_session_members(s, code, ea, eb, on_member, &m);
    } else if ((kw = tag_context(code, start)) != NULL) {
        add_session_tags(s, &m, kw);
        m.rank = 1;
        m.skip_private = 1;
        rt_shake_t *sh = rt_session_header_index(s);
        char tagged[300];
        snprintf(tagged, sizeof tagged, "%s %s", kw, prefix);
        if (sh)
            rt_shake_names(sh, tagged, on_header_name, &m);
    } else {
        rt_session_names(s, on_session_name, &m);
        add_cell_names(s, &m, code, start);
        m.rank = 1;
        for (int i = 0; rt_decl_keywords[i]; i++)
            if (strncmp(rt_decl_keywords[i], "__", 2) != 0)
                add_match(&m, rt_decl_keywords[i], strlen(rt_decl_keywords[i]), "keyword");
        m.skip_private = 1;
        rt_shake_t *sh = rt_session_header_index(s);
        if (sh && plen > 0)
            rt_shake_names(sh, prefix, on_header_name, &m);
    }
    json_t *texts = json_array(), *types = json_array();
    int cs = code_points(code, start), ce = code_points(code, end);
    finish_matches(&m, texts, types, cs, ce);
    return json_pack("{s:s, s:o, s:i, s:i, s:{s:o}}", "status", "ok", "matches", texts,
                     "cursor_start", cs, "cursor_end", ce, "metadata",
                     "_jupyter_types_experimental", types);
}

/* ---- inspection --------------------------------------------------------- */

/* The name to inspect at byte at: the identifier around it, else the
 * function whose call's parentheses hold it. *a gets its offset. */
static size_t name_at(const char *code, size_t at, size_t *a, char *name, size_t cap)
{
    size_t i = at, j = at;
    while (i > 0 && ident_char(code[i - 1]))
        i--;
    while (code[j] && ident_char(code[j]))
        j++;
    if (i == j || isdigit((unsigned char)code[i])) {
        int depth = 0; /* inside a call: "printf(|" */
        for (i = at; i > 0; i--) {
            char c = code[i - 1];
            if (c == ')')
                depth++;
            else if (c == '(' && depth-- == 0)
                break;
            else if (c == ';' || c == '{' || c == '}')
                return 0;
        }
        if (i == 0)
            return 0;
        j = i - 1;
        while (j > 0 && is_blank(code[j - 1]))
            j--;
        i = j;
        while (i > 0 && ident_char(code[i - 1]))
            i--;
        if (i == j || isdigit((unsigned char)code[i]))
            return 0;
    }
    size_t n = j - i < cap - 1 ? j - i : cap - 1;
    memcpy(name, code + i, n);
    name[n] = '\0';
    *a = i;
    return n;
}

/* "/usr/include/x86_64-linux-gnu/bits/types.h" -> "<bits/types.h>". */
static void add_header_name(cm_buf_t *b, const char *file)
{
    const char *inc = NULL;
    for (const char *p = strstr(file, "/include/"); p; p = strstr(p + 1, "/include/"))
        inc = p + 9;
    if (inc && strncmp(inc, "x86_64-linux-gnu/", 17) == 0)
        inc += 17;
    if (inc && strncmp(inc, "aarch64-linux-gnu/", 18) == 0)
        inc += 18;
    if (inc)
        cm_buf_addf(b, "<%s>", inc);
    else
        cm_buf_adds(b, file);
}

typedef struct member_pick {
    const char *name;
    char *decl;
} member_pick_t;

static void on_member_pick(void *ctx, const char *name, size_t len, const char *decl,
                           size_t decl_len)
{
    member_pick_t *p = ctx;
    if (!p->decl && strlen(p->name) == len && memcmp(p->name, name, len) == 0)
        p->decl = cm_strndup(decl, decl_len);
}

/* text without its __attribute((...)) groups (the prelude hides cells'
 * symbols with them), nor "extern " when drop_extern is set. New string. */
static char *clean_decl(const char *text, int drop_extern)
{
    cm_buf_t b = {0};
    if (drop_extern && strncmp(text, "extern ", 7) == 0)
        text += 7;
    const char *begin = text;
    while (*text) {
        if (strncmp(text, "__attribute", 11) == 0 && (text == begin || !ident_char(text[-1]))) {
            const char *p = text + 11;
            while (*p == '_')
                p++;
            while (*p == ' ')
                p++;
            if (*p == '(') {
                int depth = 0;
                for (; *p; p++) {
                    if (*p == '(')
                        depth++;
                    else if (*p == ')' && --depth == 0)
                        break;
                }
                text = *p ? p + 1 : p;
                while (b.len > 0 && b.s[b.len - 1] == ' ' && (*text == ';' || *text == ' '))
                    b.s[--b.len] = '\0';
                continue;
            }
        }
        cm_buf_addc(&b, *text++);
    }
    return cm_buf_steal(&b);
}

/* "float32 (3, 4), 48 bytes, gpu0" when the session variable name holds a
 * device array (a ga_t), in buf; 0 otherwise. */
static int array_of(rt_session_t *s, const char *name, char *buf, size_t len)
{
    const rt_entry_t *e = rt_prelude_find(rt_session_prelude(s), name);
    const char *t = e ? strstr(e->text, "ga_t ") : NULL;
    void *addr = rt_session_symbol(s, name);
    if (!t || !addr || strchr(e->text, '[') || strchr(e->text, '*'))
        return 0;
    const ga_array_t *a = *(ga_array_t *const *)addr;
    if (!a)
        return 0;
    ga_array_describe(a, buf, len);
    return 1;
}

static json_t *not_found(void)
{
    return json_pack("{s:s, s:b, s:{}, s:{}}", "status", "ok", "found", 0, "data", "metadata");
}

#define MAX_SHOWN 4000 /* bytes of a header declaration shown (inline functions run long) */
#define MAX_SOURCE 8000 /* bytes of a user function's text shown by name?? */

json_t *rt_inspect(rt_session_t *s, const char *code, int cursor_pos, int detail_level)
{
    size_t at = byte_offset(code, cursor_pos), a = 0;
    char name[256];
    if (!name_at(code, at, &a, name, sizeof name))
        return not_found();
    const char *what = NULL, *decl = NULL;
    char *owned = NULL, *definition = NULL;
    cm_buf_t where = {0};
    size_t ea, eb;
    rt_name_info_t info = {0};
    const rt_doc_t *doc = NULL;
    if (member_context(code, a, &ea, &eb) > 0) {
        member_pick_t pick = {name, NULL};
        rt_session_members(s, code, ea, eb, on_member_pick, &pick);
        if (!pick.decl)
            return not_found();
        what = "member";
        decl = owned = pick.decl;
        cm_buf_add(&where, code + ea, eb - ea);
        cm_buf_adds(&where, "'s type");
    } else if (rt_session_name_info(s, name, &info) == 0) {
        what = kind_names[info.kind];
        decl = info.text;
        if (info.cell > 0) {
            cm_buf_addf(&where, "defined in cell %d", info.cell);
            /* the prelude's extern declaration of what the cell defined */
            decl = owned = clean_decl(decl, info.kind == RT_NAME_VARIABLE);
        } else {
            doc = rt_docs_find(name);
            if (doc) {
                decl = doc->prototype;
                cm_buf_addf(&where, strcmp(doc->header, "gpuc.h") == 0 ? "declared in %s"
                                                                       : "declared in <%s>",
                            doc->header);
            } else if (info.file && strcmp(info.file, "gpuc.h") == 0) {
                cm_buf_adds(&where, "declared in gpuc.h");
            } else if (info.file) {
                cm_buf_adds(&where, "declared in ");
                add_header_name(&where, info.file);
            } else {
                cm_buf_adds(&where, "declared in a standard header");
            }
        }
        if (detail_level > 0 && info.kind != RT_NAME_MACRO && info.kind != RT_NAME_FUNCTION)
            definition = rt_session_definition(s, info.text, name);
    } else if ((doc = rt_docs_find(name)) != NULL) {
        what = "function"; /* documented, in a header the session has not included */
        decl = doc->prototype;
        cm_buf_addf(&where, "in <%s> (not included yet)", doc->header);
    } else {
        return not_found();
    }
    size_t shown = strlen(decl) > MAX_SHOWN ? MAX_SHOWN : strlen(decl);
    cm_buf_t plain = {0}, md = {0};
    cm_buf_addf(&plain, "%s: %s, %s\n", name, what, cm_buf_str(&where));
    cm_buf_add(&plain, decl, shown);
    cm_buf_adds(&plain, shown < strlen(decl) ? " ...\n" : "\n");
    cm_buf_addf(&md, "**%s**: %s, %s\n\n```c\n", name, what, cm_buf_str(&where));
    cm_buf_add(&md, decl, shown);
    cm_buf_adds(&md, shown < strlen(decl) ? " ...\n```\n" : "\n```\n");
    if (definition) {
        cm_buf_addf(&plain, "%s\n", definition);
        cm_buf_addf(&md, "\n```c\n%s\n```\n", definition);
    }
    if (doc) {
        cm_buf_addf(&plain, "\n%s\n", doc->text);
        cm_buf_addf(&md, "\n%s\n", doc->text);
    }
    char array[256];
    if (info.cell > 0 && info.kind == RT_NAME_VARIABLE && array_of(s, name, array, sizeof array)) {
        cm_buf_addf(&plain, "array: %s\n", array);
        cm_buf_addf(&md, "\narray: %s\n", array);
    }
    if (detail_level > 0 && info.cell > 0) {
        size_t nsyms;
        const rt_sym_t *syms = rt_session_symbols(s, &nsyms);
        for (size_t i = 0; i < nsyms; i++) {
            if (strcmp(syms[i].name, name) != 0)
                continue;
            const char *src = syms[i].source;
            if (src) { /* `name??`: the function as its cell wrote it */
                size_t n = strlen(src) > MAX_SOURCE ? MAX_SOURCE : strlen(src);
                const char *more = n < strlen(src) ? "\n..." : "";
                cm_buf_addf(&plain, "source:\n%.*s%s\n", (int)n, src, more);
                cm_buf_addf(&md, "\nsource:\n\n```c\n%.*s%s\n```\n", (int)n, src, more);
            }
            cm_buf_addf(&plain, "address %p\n", syms[i].addr);
        }
    }
    json_t *reply = json_pack("{s:s, s:b, s:{s:s, s:s}, s:{}}", "status", "ok", "found", 1,
                              "data", "text/plain", cm_buf_str(&plain), "text/markdown",
                              cm_buf_str(&md), "metadata");
    cm_buf_free(&plain);
    cm_buf_free(&md);
    cm_buf_free(&where);
    free(owned);
    free(definition);
    return reply;
}

/* The last non-blank line of the cell read once into cell is a
 * `!command` that starts a statement (shell text, not C: a quote in it
 * opens nothing). */
static int ends_with_shell_line(const rt_tokens_t *cell)
{
    const char *code = cell->src;
    size_t n = strlen(code);
    while (n > 0 && isspace((unsigned char)code[n - 1]))
        n--;
    rt_magic_walk_t w = rt_magic_walk(cell);
    rt_magic_line_t m;
    int shell = 0;
    while (rt_magic_next(&w, &m)) {
        if (m.end >= n) {
            shell = code[m.start] == '!';
            break;
        }
        if (m.cell)
            break;
    }
    rt_magic_walk_free(&w);
    return shell;
}

/* The cell starts with a cell magic whose body is not C (shell text, a
 * file's contents): -1 when not, else 1 when its last line is blank (the
 * body ends there, as in IPython's console), 0 while it is not. */
static int text_cell_done(const rt_tokens_t *cell)
{
    static const char *const text_magics[] = {"sh", "bash", "writefile", NULL};
    const char *code = cell->src;
    rt_magic_line_t m;
    if (!rt_magic_find(cell, 0, &m) || !m.cell || !m.first)
        return -1;
    int text = 0;
    for (int i = 0; text_magics[i] && !text; i++)
        text = strcmp(m.name, text_magics[i]) == 0;
    if (!text)
        return -1;
    size_t n = strlen(code);
    while (n > 0 && (code[n - 1] == ' ' || code[n - 1] == '\t'))
        n--;
    return n > m.next && n >= 2 && code[n - 1] == '\n' && code[n - 2] == '\n';
}

static json_t *is_complete(const rt_tokens_t *cell)
{
    const char *code = cell->src;
    /* a shortcut (`printf?`) runs at once in the console */
    if (rt_cell_shortcut(code, NULL) != RT_SHORTCUT_NONE || ends_with_shell_line(cell))
        return json_pack("{s:s}", "status", "complete");
    int text = text_cell_done(cell);
    if (text >= 0)
        return text ? json_pack("{s:s}", "status", "complete")
                    : json_pack("{s:s, s:s}", "status", "incomplete", "indent", "");
    rt_completeness_t c = rt_cell_check_complete(code);
    if (strcmp(c.status, "incomplete") == 0) {
        char indent[64];
        int n = c.indent > 15 ? 15 : c.indent;
        memset(indent, ' ', (size_t)n * 4);
        indent[n * 4] = '\0';
        return json_pack("{s:s, s:s}", "status", c.status, "indent", indent);
    }
    return json_pack("{s:s}", "status", c.status);
}

json_t *rt_is_complete(rt_session_t *s, const char *code)
{
    (void)s;
    rt_tokens_t cell; /* the request's one read of the code */
    rt_tokens_lex(&cell, code, 0, strlen(code), 1);
    json_t *reply = is_complete(&cell);
    rt_tokens_free(&cell);
    return reply;
}
