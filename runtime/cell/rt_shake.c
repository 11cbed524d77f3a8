/* rt_shake: header tree-shaking (see rt_shake.h).
 *
 * Why one file of ~820 lines: the index (struct rt_shake) is private to
 * it, and its parts — interning symbols, reading declarations, macros,
 * building the shaken text, answering completion queries — all work on
 * that structure and its interning; split, the structure and half the
 * helpers would have to become a shared internal header. */
#include "rt_shake.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm_map.h"
#include "cm_vec.h"
#include "rt_decl.h"
#include "rt_lex.h"
#include "rt_tcc.h"


typedef struct sym {
    char *name;        /* an identifier, or "struct tag" / "union tag" / "enum tag" */
    int macro;         /* index in macros, -1 = none */
    int decl;          /* first link of the declarations declaring it, -1 = none */
    int is_typedef;
} sym_t;

typedef struct item {
    char *text;        /* one top-level declaration, preprocessed */
    size_t ref0, nref; /* the symbols it references: refs[ref0, ref0 + nref) */
    int always;        /* a #pragma: emitted whatever the cell uses */
    int file;          /* index in sources of the file it came from, -1 = unknown */
} item_t;

typedef struct macro {
    char *text;        /* "#define ..." in force at the end; NULL once #undef'd */
    size_t ref0, nref; /* the symbols in its body */
    int predefined;    /* libtcc defines it in every state */
    int changed;       /* defined or undefined by the headers afterwards */
    int pastes;        /* its body has ##: it can make names its text does not show */
    int file;          /* index in sources of the file that defined it, -1 = unknown */
} macro_t;

typedef struct dep_file {
    char *path;
    struct timespec mtime;
    off_t size;
} dep_file_t;

struct rt_shake {
    char *key;
    sym_t *syms;
    size_t nsyms, capsyms;
    cm_map_t names;        /* syms by name */
    item_t *items;
    size_t nitems, capitems;
    macro_t *macros;
    size_t nmacros, capmacros;
    int *refs;             /* symbol ids, in ranges owned by items and macros */
    size_t nrefs, caprefs;
    int *link_item, *link_next; /* lists of the items declaring a symbol */
    size_t nlinks, caplinks;
    dep_file_t *files;
    size_t nfiles, capfiles;
    int *stack;            /* symbols used and not yet closed over */
    size_t nstack, capstack;
    int *sorted;           /* symbol ids by name, for prefix searches; made on first use */
    size_t nsorted;
    char **sources;        /* the files line markers named, for rt_shake_find */
    size_t nsources, capsources;
    int source;            /* the file being indexed: index in sources, -1 = unknown */
};

/* ---- symbols --------------------------------------------------------- */

/* The symbol for name[0, n), created when create is set; -1 if absent. */
static int intern(rt_shake_t *sh, const char *name, size_t n, int create)
{
    long found = cm_map_get(&sh->names, name, n);
    if (found >= 0 || !create)
        return (int)found;
    CM_VEC_GROW(sh->syms, sh->nsyms, sh->capsyms);
    sh->syms[sh->nsyms] = (sym_t){cm_strndup(name, n), -1, -1, 0};
    cm_map_put(&sh->names, sh->syms[sh->nsyms].name, sh->nsyms);
    return (int)sh->nsyms++;
}

/* The symbol of "kw tag" for tokens kw and tag of src. */
static int intern_tag(rt_shake_t *sh, const char *src, const rt_tok_t *kw, const rt_tok_t *tag,
                      int create)
{
    char b[256];
    if (kw->len + 1 + tag->len >= sizeof b)
        return -1;
    memcpy(b, src + kw->start, kw->len);
    b[kw->len] = ' ';
    memcpy(b + kw->len + 1, src + tag->start, tag->len);
    return intern(sh, b, kw->len + 1 + tag->len, create);
}

static void add_ref(rt_shake_t *sh, int id)
{
    CM_VEC_GROW(sh->refs, sh->nrefs, sh->caprefs);
    sh->refs[sh->nrefs++] = id;
}

/* Appends to refs the symbols tokens t[0, n) of src name. */
static void collect_refs(rt_shake_t *sh, const char *src, const rt_tok_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (t[i].kind != RT_TOK_IDENT)
            continue;
        if (rt_tok_is_tag_keyword(src, &t[i]) && i + 1 < n && t[i + 1].kind == RT_TOK_IDENT) {
            int id = intern_tag(sh, src, &t[i], &t[i + 1], 1);
            if (id >= 0)
                add_ref(sh, id);
            continue;
        }
        if (!rt_decl_is_keyword(src + t[i].start, t[i].len))
            add_ref(sh, intern(sh, src + t[i].start, t[i].len, 1));
    }
}

/* ---- declarations ---------------------------------------------------- */

static void declare(rt_shake_t *sh, int id, int item)
{
    if (id < 0)
        return;
    if (sh->nlinks == sh->caplinks) {
        sh->caplinks = sh->caplinks ? sh->caplinks * 2 : 256;
        sh->link_item = realloc(sh->link_item, sh->caplinks * sizeof *sh->link_item);
        sh->link_next = realloc(sh->link_next, sh->caplinks * sizeof *sh->link_next);
        if (!sh->link_item || !sh->link_next)
            abort();
    }
    sh->link_item[sh->nlinks] = item;
    sh->link_next[sh->nlinks] = sh->syms[id].decl;
    sh->syms[id].decl = (int)sh->nlinks++;
}

static int is_attribute(const char *src, const rt_tok_t *t)
{
    static const char *const words[] = {"__attribute__", "__attribute", "__asm__", "__asm",
                                        "asm", "__declspec", "_Alignas", "_Static_assert",
                                        "__extension__", NULL};
    for (int i = 0; words[i]; i++)
        if (rt_tok_is(src, t, words[i]))
            return 1;
    return 0;
}

static int is_typeof(const char *src, const rt_tok_t *t)
{
    return rt_tok_is(src, t, "__typeof__") || rt_tok_is(src, t, "__typeof") ||
           rt_tok_is(src, t, "typeof");
}

static int is_type_keyword(const char *src, const rt_tok_t *t)
{
    static const char *const words[] = {"void", "char", "short", "int", "long", "float",
                                        "double", "signed", "unsigned", "_Bool", "_Complex",
                                        "__int128", "__signed__", NULL};
    for (int i = 0; words[i]; i++)
        if (rt_tok_is(src, t, words[i]))
            return 1;
    return 0;
}

/* Skips "__attribute__((...))" and friends starting at t[i]. */
static size_t skip_attributes(const char *src, const rt_tok_t *t, size_t n, size_t i)
{
    while (i < n && t[i].kind == RT_TOK_IDENT && is_attribute(src, &t[i])) {
        i++;
        if (i < n && rt_tok_punct(src, &t[i], "("))
            i = rt_tok_skip_group(src, t, n, i);
    }
    return i;
}

/* Records what tokens t[0, n) (one declaration) declare: tags with a body
 * or a forward declaration, enumerators, declarator names. */
static void find_declared(rt_shake_t *sh, const char *src, const rt_tok_t *t, size_t n, int item)
{
    size_t i = 0;
    int saw_type = 0, is_typedef = 0;
    while (i < n) {
        i = skip_attributes(src, t, n, i);
        if (i >= n || t[i].kind != RT_TOK_IDENT)
            break;
        const rt_tok_t *w = &t[i];
        if (is_typeof(src, w)) {
            i = rt_tok_skip_group(src, t, n, i + 1);
            saw_type = 1;
        } else if (rt_tok_is(src, w, "typedef")) {
            is_typedef = 1;
            i++;
        } else if (rt_tok_is_tag_keyword(src, w)) {
            i = skip_attributes(src, t, n, i + 1);
            int tag = -1;
            if (i < n && t[i].kind == RT_TOK_IDENT && !rt_decl_is_keyword(src + t[i].start, t[i].len))
                tag = intern_tag(sh, src, w, &t[i++], 1);
            i = skip_attributes(src, t, n, i);
            if (i < n && rt_tok_punct(src, &t[i], "{")) {
                declare(sh, tag, item);
                size_t end = rt_tok_skip_group(src, t, n, i);
                if (rt_tok_is(src, w, "enum")) {
                    int depth = 0;
                    for (size_t k = i; k < end; k++) {
                        if (t[k].kind == RT_TOK_PUNCT && t[k].len == 1 &&
                            strchr("([{", src[t[k].start]))
                            depth++;
                        else if (t[k].kind == RT_TOK_PUNCT && t[k].len == 1 &&
                                 strchr(")]}", src[t[k].start]))
                            depth--;
                        else if (depth == 1 && t[k].kind == RT_TOK_IDENT &&
                                 (rt_tok_punct(src, &t[k - 1], "{") || rt_tok_punct(src, &t[k - 1], ",")))
                            declare(sh, intern(sh, src + t[k].start, t[k].len, 1), item);
                    }
                }
                i = end;
            } else if (i + 1 == n && rt_tok_punct(src, &t[i], ";")) {
                declare(sh, tag, item); /* struct tag; */
            }
            saw_type = 1;
        } else if (rt_decl_is_decl_keyword(src + w->start, w->len) ||
                   rt_decl_is_keyword(src + w->start, w->len)) {
            saw_type |= is_type_keyword(src, w);
            i++;
        } else if (!saw_type) {
            /* a type name: known, or followed by what can only be a declarator */
            int id = intern(sh, src + w->start, w->len, 0);
            int known = id >= 0 && sh->syms[id].is_typedef;
            int before_declarator = i + 1 < n && (t[i + 1].kind == RT_TOK_IDENT ||
                                                  rt_tok_punct(src, &t[i + 1], "*"));
            if (!known && !before_declarator)
                break;
            saw_type = 1;
            i++;
        } else {
            break;
        }
    }
    /* declarators, separated by top-level commas */
    while (i < n) {
        int named = 0, depth = 0;
        for (; i < n; i++) {
            const rt_tok_t *k = &t[i];
            if (k->kind == RT_TOK_PUNCT && k->len == 1) {
                char c = src[k->start];
                if (c == '{' && depth == 0)
                    return; /* a function body */
                if (c == '(' || c == '[' || c == '{')
                    depth++;
                else if (c == ')' || c == ']' || c == '}')
                    depth--;
                else if ((c == ',' || c == '=' || c == ';') && depth == 0)
                    break;
                continue;
            }
            if (named || k->kind != RT_TOK_IDENT)
                continue;
            if (is_attribute(src, k)) {
                if (i + 1 < n && rt_tok_punct(src, &t[i + 1], "("))
                    i = rt_tok_skip_group(src, t, n, i + 1) - 1;
                continue;
            }
            if (rt_decl_is_decl_keyword(src + k->start, k->len) ||
                rt_decl_is_keyword(src + k->start, k->len))
                continue;
            int id = intern(sh, src + k->start, k->len, 1);
            declare(sh, id, item);
            if (is_typedef)
                sh->syms[id].is_typedef = 1;
            named = 1;
        }
        /* skip an initializer up to the next top-level comma */
        for (depth = 0; i < n; i++) {
            const rt_tok_t *k = &t[i];
            if (k->kind != RT_TOK_PUNCT || k->len != 1)
                continue;
            char c = src[k->start];
            if (c == '(' || c == '[' || c == '{')
                depth++;
            else if (c == ')' || c == ']' || c == '}')
                depth--;
            else if (c == ',' && depth == 0) {
                i++;
                break;
            }
        }
    }
}

/* The source of tokens t[0, n), separated by one space where they were apart. */
static char *join_tokens(const char *src, const rt_tok_t *t, size_t n)
{
    cm_buf_t b = {0};
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && t[i].start != t[i - 1].start + t[i - 1].len)
            cm_buf_addc(&b, t[i].line != t[i - 1].line ? '\n' : ' ');
        cm_buf_add(&b, src + t[i].start, t[i].len);
    }
    return cm_buf_steal(&b);
}

static void add_item(rt_shake_t *sh, const char *src, const rt_tok_t *t, size_t n, int always)
{
    CM_VEC_GROW(sh->items, sh->nitems, sh->capitems);
    int index = (int)sh->nitems++;
    item_t *it = &sh->items[index];
    it->text = join_tokens(src, t, n);
    it->always = always;
    it->file = sh->source;
    it->ref0 = sh->nrefs;
    if (!always)
        collect_refs(sh, src, t, n);
    sh->items[index].nref = sh->nrefs - sh->items[index].ref0;
    if (!always)
        find_declared(sh, src, t, n, index);
}

/* Does the '{' that t[n] is begin a function body? Only when no '=' came
 * before at the top level and a parameter list did. */
static int opens_function(const char *src, const rt_tok_t *t, size_t n)
{
    int depth = 0, params = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].kind != RT_TOK_PUNCT || t[i].len != 1)
            continue;
        char c = src[t[i].start];
        if (c == '(' && depth == 0 && i > 0 && t[i - 1].kind == RT_TOK_IDENT &&
            !is_attribute(src, &t[i - 1]) && !is_typeof(src, &t[i - 1]))
            params = 1;
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}')
            depth--;
        else if (c == '=' && depth == 0)
            return 0;
    }
    return params;
}

/* ---- macros ---------------------------------------------------------- */

/* This libtcc prints the ## of a macro body as "<a6>" (its token number). */
static char *macro_text(const char *src, const rt_tok_t *d)
{
    cm_buf_t b = {0};
    char quote = 0;
    for (size_t i = d->start; i < d->start + d->len; i++) {
        char c = src[i];
        if (quote) {
            if (c == '\\' && i + 1 < d->start + d->len)
                cm_buf_addc(&b, src[i++]);
            else if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '<' && i + 4 <= d->start + d->len && memcmp(src + i, "<a6>", 4) == 0) {
            cm_buf_adds(&b, " ## ");
            i += 3;
            continue;
        }
        cm_buf_addc(&b, src[i]);
    }
    return cm_buf_steal(&b);
}

static void on_define(rt_shake_t *sh, const char *src, const rt_tok_t *d, int predefined)
{
    /* d: "#define NAME..." or "#undef NAME" */
    char *text = macro_text(src, d);
    rt_tok_t *t; /* the macro's text, cut from the preprocessed headers */
    size_t n = rt_lex_all(text, 1, strlen(text), d->line, &t, NULL);
    if (n < 2 || t[1].kind != RT_TOK_IDENT) {
        free(t);
        free(text);
        return;
    }
    int undef = rt_tok_is(text, &t[0], "undef");
    int id = intern(sh, text + t[1].start, t[1].len, 1);
    sym_t *s = &sh->syms[id];
    if (s->macro < 0) {
        CM_VEC_GROW(sh->macros, sh->nmacros, sh->capmacros);
        s->macro = (int)sh->nmacros++;
        memset(&sh->macros[s->macro], 0, sizeof(macro_t));
        sh->macros[s->macro].predefined = predefined;
    }
    macro_t *m = &sh->macros[s->macro];
    m->file = sh->source;
    free(m->text);
    m->text = NULL;
    m->changed |= !predefined;
    m->ref0 = sh->nrefs;
    if (!undef)
        collect_refs(sh, text, t + 2, n - 2);
    m->nref = sh->nrefs - m->ref0;
    m->pastes = !undef && strstr(text, "##") != NULL;
    if (!undef)
        m->text = text;
    else
        free(text);
    free(t);
}

/* "# 12 "/usr/include/stdio.h" 1": remembers the file. Returns 1 for
 * "<command line>" (libtcc's predefined macros), 0 otherwise. */
static int on_line_marker(rt_shake_t *sh, const char *src, const rt_tok_t *d)
{
    const char *q = memchr(src + d->start, '"', d->len);
    if (!q)
        return 0;
    const char *e = memchr(q + 1, '"', (size_t)(src + d->start + d->len - (q + 1)));
    if (!e)
        return 0;
    size_t len = (size_t)(e - q - 1);
    if (len == 14 && memcmp(q + 1, "<command line>", 14) == 0)
        return 1;
    if (len == 0 || q[1] == '<')
        return 0;
    char *path = cm_strndup(q + 1, len);
    for (size_t i = 0; i < sh->nfiles; i++) {
        if (strcmp(sh->files[i].path, path) == 0) {
            free(path);
            return 0;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        free(path);
        return 0;
    }
    CM_VEC_GROW(sh->files, sh->nfiles, sh->capfiles);
    sh->files[sh->nfiles++] = (dep_file_t){path, st.st_mtim, st.st_size};
    return 0;
}

/* "# 12 "/usr/include/stdio.h" 2": makes that file the current source. */
static void on_source(rt_shake_t *sh, const char *src, const rt_tok_t *d)
{
    const char *q = memchr(src + d->start, '"', d->len);
    const char *e = q ? memchr(q + 1, '"', (size_t)(src + d->start + d->len - (q + 1))) : NULL;
    if (!e)
        return;
    size_t len = (size_t)(e - q - 1);
    for (size_t i = 0; i < sh->nsources; i++) {
        if (strncmp(sh->sources[i], q + 1, len) == 0 && sh->sources[i][len] == '\0') {
            sh->source = (int)i;
            return;
        }
    }
    CM_VEC_GROW(sh->sources, sh->nsources, sh->capsources);
    sh->sources[sh->nsources] = cm_strndup(q + 1, len);
    sh->source = (int)sh->nsources++;
}

/* ---- building -------------------------------------------------------- */

static void index_text(rt_shake_t *sh, const char *src, size_t len)
{
    rt_tok_t *t; /* the preprocessed headers: text the compiler wrote, read once here */
    size_t n = rt_lex_all(src, 0, len, 1, &t, NULL);
    rt_tok_t *cur = malloc(n ? n * sizeof *cur : 1); /* the open item's tokens */
    if (!cur)
        abort();
    size_t ncur = 0;
    int depth = 0, in_function = 0, predefined = 0;
    for (size_t i = 0; i < n; i++) {
        const rt_tok_t *k = &t[i];
        if (k->kind == RT_TOK_DIRECTIVE) {
            if (rt_directive_defines(src + k->start, k->len))
                on_define(sh, src, k, predefined);
            else if (rt_directive_is(src + k->start, k->len, "pragma"))
                add_item(sh, src, k, 1, 1);
            else {
                predefined = on_line_marker(sh, src, k);
                on_source(sh, src, k);
            }
            continue;
        }
        cur[ncur++] = *k;
        if (k->kind != RT_TOK_PUNCT || k->len != 1)
            continue;
        char c = src[k->start];
        if (c == '{' && depth == 0)
            in_function = opens_function(src, cur, ncur - 1);
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            depth--;
            if (c == '}' && depth == 0 && in_function) {
                add_item(sh, src, cur, ncur, 0);
                ncur = 0;
                in_function = 0;
            }
        } else if (c == ';' && depth == 0) {
            add_item(sh, src, cur, ncur, 0);
            ncur = 0;
        }
    }
    if (ncur)
        add_item(sh, src, cur, ncur, 0);
    free(cur);
    free(t);
}

rt_shake_t *rt_shake_new(const char *libdir, const char *headers, cm_error_t *err)
{
    cm_buf_t text = {0};
    if (rt_tcc_preprocess(libdir, headers, &text, err) != 0) {
        cm_buf_free(&text);
        return NULL;
    }
    rt_shake_t *sh = calloc(1, sizeof *sh);
    if (!sh)
        abort();
    sh->key = cm_strndup(headers, strlen(headers));
    sh->source = -1;
    index_text(sh, cm_buf_str(&text), text.len);
    cm_buf_free(&text);
    return sh;
}

const char *rt_shake_key(const rt_shake_t *sh)
{
    return sh->key;
}

/* System headers (the distribution's, TCC's own) do not change while a
 * session runs: only the others are looked at again, which saves a stat
 * of every header per cell (about 140 for stdio/stdlib/string/math). */
static int system_header(const char *path)
{
    return strncmp(path, "/usr/include/", 13) == 0 || strncmp(path, "/usr/lib/", 9) == 0;
}

int rt_shake_stale(const rt_shake_t *sh)
{
    for (size_t i = 0; i < sh->nfiles; i++) {
        struct stat st;
        const dep_file_t *f = &sh->files[i];
        if (system_header(f->path))
            continue;
        if (stat(f->path, &st) != 0 || st.st_size != f->size ||
            st.st_mtim.tv_sec != f->mtime.tv_sec || st.st_mtim.tv_nsec != f->mtime.tv_nsec)
            return 1;
    }
    return 0;
}

static void push(rt_shake_t *sh, int id)
{
    if (id < 0)
        return;
    CM_VEC_GROW(sh->stack, sh->nstack, sh->capstack);
    sh->stack[sh->nstack++] = id;
}

void rt_shake_use_name(void *ctx, const char *name, size_t len)
{
    rt_shake_t *sh = ctx;
    push(sh, intern(sh, name, len, 0));
}

void rt_shake_use(rt_shake_t *sh, const char *text, size_t len)
{
    rt_lex_names(text, len, rt_shake_use_name, sh);
}

static const rt_shake_t *sort_ctx;

static int by_name(const void *a, const void *b)
{
    return strcmp(sort_ctx->syms[*(const int *)a].name, sort_ctx->syms[*(const int *)b].name);
}

/* Makes sorted[] list every symbol by name (after new symbols were made). */
static void sort_symbols(rt_shake_t *sh)
{
    if (sh->sorted && sh->nsorted == sh->nsyms)
        return;
    free(sh->sorted);
    sh->sorted = malloc((sh->nsyms + 1) * sizeof *sh->sorted);
    if (!sh->sorted)
        abort();
    for (size_t i = 0; i < sh->nsyms; i++)
        sh->sorted[i] = (int)i;
    sort_ctx = sh;
    qsort(sh->sorted, sh->nsyms, sizeof *sh->sorted, by_name);
    sh->nsorted = sh->nsyms;
}

/* The first position in sorted[] whose name is >= name. */
static size_t lower_bound(const rt_shake_t *sh, const char *name)
{
    size_t lo = 0, hi = sh->nsorted;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(sh->syms[sh->sorted[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A macro with ## can paste a name and a suffix (glibc's isinf(x) becomes
 * __isinff(x) for a float): pushes the names that begin with a name in the
 * body of a macro used (marked in in_macro). */
static void push_extensions(rt_shake_t *sh, const unsigned char *in_macro)
{
    sort_symbols(sh);
    for (size_t id = 0; id < sh->nsyms; id++) {
        const char *name = sh->syms[id].name;
        size_t len = strlen(name);
        if (!in_macro[id] || len < 3 || strchr(name, ' '))
            continue;
        for (size_t lo = lower_bound(sh, name); lo < sh->nsorted; lo++) {
            int other = sh->sorted[lo];
            if (strncmp(sh->syms[other].name, name, len) != 0)
                break;
            if (sh->syms[other].decl >= 0 || sh->syms[other].macro >= 0)
                push(sh, other);
        }
    }
}

size_t rt_shake_render(rt_shake_t *sh, cm_buf_t *out)
{
    unsigned char *done = calloc(sh->nsyms + 1, 1);
    unsigned char *item_used = calloc(sh->nitems + 1, 1);
    unsigned char *macro_used = calloc(sh->nmacros + 1, 1);
    unsigned char *in_macro = calloc(sh->nsyms + 1, 1);
    if (!done || !item_used || !macro_used || !in_macro)
        abort();
    int pastes = 0;
    for (;;) {
        if (!sh->nstack && pastes == 1) {
            pastes = 2; /* once: what it adds is declarations, pasted names are rare */
            push_extensions(sh, in_macro);
        }
        if (!sh->nstack)
            break;
        int id = sh->stack[--sh->nstack];
        if (done[id])
            continue;
        done[id] = 1;
        const sym_t *s = &sh->syms[id];
        if (s->macro >= 0 && !macro_used[s->macro]) {
            const macro_t *m = &sh->macros[s->macro];
            macro_used[s->macro] = 1;
            if (m->pastes && !pastes)
                pastes = 1;
            for (size_t r = 0; r < m->nref; r++) {
                in_macro[sh->refs[m->ref0 + r]] = 1;
                push(sh, sh->refs[m->ref0 + r]);
            }
        }
        for (int l = s->decl; l >= 0; l = sh->link_next[l]) {
            int it = sh->link_item[l];
            if (item_used[it])
                continue;
            item_used[it] = 1;
            for (size_t r = 0; r < sh->items[it].nref; r++)
                push(sh, sh->refs[sh->items[it].ref0 + r]);
        }
    }
    size_t emitted = 0;
    for (size_t i = 0; i < sh->nitems; i++) {
        if (!item_used[i] && !sh->items[i].always)
            continue;
        cm_buf_adds(out, sh->items[i].text);
        cm_buf_addc(out, '\n');
        emitted++;
    }
    for (size_t i = 0; i < sh->nsyms; i++) {
        const sym_t *s = &sh->syms[i];
        if (s->macro < 0 || !macro_used[s->macro])
            continue;
        const macro_t *m = &sh->macros[s->macro];
        if (m->predefined && !m->changed)
            continue; /* every state has it */
        if (m->predefined)
            cm_buf_addf(out, "#undef %s\n", s->name);
        if (m->text) {
            cm_buf_adds(out, m->text);
            cm_buf_addc(out, '\n');
        }
    }
    free(done);
    free(in_macro);
    free(item_used);
    free(macro_used);
    return emitted;
}

/* ---- queries (completion and inspection) ----------------------------- */

/* The item that best describes symbol id: for a tag, one with its body;
 * else the first declaration in the headers. -1 if none. */
static int describing_item(const rt_shake_t *sh, int id)
{
    int best = -1;
    int tag = strchr(sh->syms[id].name, ' ') != NULL;
    for (int l = sh->syms[id].decl; l >= 0; l = sh->link_next[l]) {
        int it = sh->link_item[l];
        if (tag && strchr(sh->items[it].text, '{'))
            return it;
        best = it; /* the list runs from the last declaration to the first */
    }
    return best;
}


/* What symbol id is, filling *out when out is not NULL. */
static rt_shake_kind_t describe(const rt_shake_t *sh, int id, rt_shake_entry_t *out)
{
    const sym_t *s = &sh->syms[id];
    int it = describing_item(sh, id);
    rt_shake_entry_t e = {RT_SHAKE_NONE, NULL, NULL};
    if (it >= 0) {
        e.text = sh->items[it].text;
        e.file = sh->items[it].file >= 0 ? sh->sources[sh->items[it].file] : NULL;
        e.kind = strchr(s->name, ' ')                  ? RT_SHAKE_TAG
                 : s->is_typedef                       ? RT_SHAKE_TYPE
                 : rt_lex_is_function_name(e.text, s->name) ? RT_SHAKE_FUNCTION
                                                       : RT_SHAKE_VARIABLE;
    } else if (s->macro >= 0 && sh->macros[s->macro].text && !(sh->macros[s->macro].predefined &&
                                                                !sh->macros[s->macro].changed)) {
        const macro_t *m = &sh->macros[s->macro];
        e.kind = RT_SHAKE_MACRO;
        e.text = m->text;
        e.file = m->file >= 0 ? sh->sources[m->file] : NULL;
    }
    if (out)
        *out = e;
    return e.kind;
}

int rt_shake_find(rt_shake_t *sh, const char *name, rt_shake_entry_t *out)
{
    int id = intern(sh, name, strlen(name), 0);
    if (id < 0 || describe(sh, id, out) == RT_SHAKE_NONE)
        return -1;
    return 0;
}

void rt_shake_names(rt_shake_t *sh, const char *prefix, rt_shake_name_fn fn, void *ctx)
{
    sort_symbols(sh);
    size_t plen = strlen(prefix);
    for (size_t i = lower_bound(sh, prefix); i < sh->nsorted; i++) {
        int id = sh->sorted[i];
        if (strncmp(sh->syms[id].name, prefix, plen) != 0)
            break;
        if (sh->syms[id].decl < 0 && sh->syms[id].macro < 0)
            continue; /* only referenced */
        rt_shake_kind_t kind = describe(sh, id, NULL);
        if (kind != RT_SHAKE_NONE)
            fn(ctx, sh->syms[id].name, kind);
    }
}

void rt_shake_sizes(const rt_shake_t *sh, size_t *ndecls, size_t *nmacros)
{
    *ndecls = sh->nitems;
    *nmacros = sh->nmacros;
}

void rt_shake_free(rt_shake_t *sh)
{
    if (!sh)
        return;
    free(sh->key);
    for (size_t i = 0; i < sh->nsyms; i++)
        free(sh->syms[i].name);
    free(sh->syms);
    cm_map_free(&sh->names);
    for (size_t i = 0; i < sh->nitems; i++)
        free(sh->items[i].text);
    free(sh->items);
    for (size_t i = 0; i < sh->nmacros; i++)
        free(sh->macros[i].text);
    free(sh->macros);
    free(sh->refs);
    free(sh->link_item);
    free(sh->link_next);
    for (size_t i = 0; i < sh->nfiles; i++)
        free(sh->files[i].path);
    free(sh->files);
    free(sh->stack);
    free(sh->sorted);
    for (size_t i = 0; i < sh->nsources; i++)
        free(sh->sources[i]);
    free(sh->sources);
    free(sh);
}
