/* rt_session_query: names, declarations and struct members the session
 * knows (see rt_session_query.h). Types are found by reading declaration
 * text: "struct point *p" gives p the struct point, "point_t p" the type
 * that point_t's typedef names, and so on, up to a small depth. */
#include "rt_session_query.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cm_log.h"
#include "rt_cell.h"
#include "rt_decl.h"
#include "rt_header.h"
#include "rt_lex.h"
#include "rt_session_internal.h"

#define MAX_DEPTH 8   /* typedefs of typedefs, members of members */
#define MAX_CHAIN 16  /* members in "a.b.c" */

/* ---- the header index -------------------------------------------------- */

rt_shake_t *rt_session_header_index(rt_session_t *s)
{
    char *key = rt_session_header_key(s, NULL, NULL);
    if (!key)
        key = cm_strndup(rt_session_header(s), strlen(rt_session_header(s))); /* gpuc.h at least */
    rt_shake_t *sh = rt_session_shaker(s, key); /* the one the next cell uses */
    free(key);
    return sh;
}

/* A typedef name of the session's cells or of its headers (FILE, size_t,
 * cudaError_t, dim3, pthread_t...): a declaration starts with one. */
int rt_session_is_type(void *ctx, const char *name, size_t len)
{
    rt_session_t *s = ctx;
    if (cm_names_find(&s->types, name, len) >= 0)
        return 1;
    char word[128];
    if (len >= sizeof word)
        return 0;
    memcpy(word, name, len);
    word[len] = '\0';
    rt_shake_t *sh = rt_session_header_index(s); /* made once; the next compile uses it */
    rt_shake_entry_t e;
    return sh && rt_shake_find(sh, word, &e) == 0 && e.kind == RT_SHAKE_TYPE;
}

/* ---- names --------------------------------------------------------------- */


/* The kind of key (as the prelude spells it) in entry e; *name gets the
 * bare name. RT_NAME_NONE for keys completion does not offer (#include). */
static rt_name_kind_t entry_key_kind(const rt_session_t *s, const rt_entry_t *e, const char *key,
                                     const char **name)
{
    *name = key;
    if (strncmp(key, "#define ", 8) == 0) {
        *name = key + 8;
        return RT_NAME_MACRO;
    }
    if (key[0] == '#')
        return RT_NAME_NONE;
    if (strchr(key, ' ')) {
        *name = strchr(key, ' ') + 1; /* "struct point" offers "point" */
        return RT_NAME_TYPE;
    }
    switch (e->kind) {
    case RT_ENTRY_VAR:
        return RT_NAME_VARIABLE;
    case RT_ENTRY_FUNC:
        return RT_NAME_FUNCTION;
    case RT_ENTRY_TYPE: /* a typedef name, or an enumerator */
        return cm_names_find(&s->types, key, (size_t)-1) >= 0 || strstr(e->text, "typedef")
                   ? RT_NAME_TYPE
                   : RT_NAME_VARIABLE;
    default:
        return rt_lex_is_function_name(e->text, key) ? RT_NAME_FUNCTION : RT_NAME_VARIABLE;
    }
}

void rt_session_names(rt_session_t *s, rt_session_name_fn fn, void *ctx)
{
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        for (size_t k = 0; k < e->nkeys; k++) {
            const char *name;
            rt_name_kind_t kind = entry_key_kind(s, e, e->keys[k], &name);
            if (kind != RT_NAME_NONE)
                fn(ctx, name, kind);
        }
    }
}

int rt_session_name_info(rt_session_t *s, const char *name, rt_name_info_t *out)
{
    const rt_entry_t *e = rt_prelude_find(&s->prelude, name);
    const char *key = name;
    char defined[300];
    if (!e && !strchr(name, ' ') && strlen(name) < 256) {
        snprintf(defined, sizeof defined, "#define %s", name);
        e = rt_prelude_find(&s->prelude, defined);
        key = defined;
    }
    if (e) {
        const char *bare;
        out->kind = entry_key_kind(s, e, key, &bare);
        out->text = e->text;
        out->cell = e->cell;
        out->file = NULL;
        return out->kind == RT_NAME_NONE ? -1 : 0;
    }
    rt_shake_t *sh = rt_session_header_index(s);
    rt_shake_entry_t h;
    if (!sh || rt_shake_find(sh, name, &h) != 0)
        return -1;
    static const rt_name_kind_t kinds[] = {
        [RT_SHAKE_NONE] = RT_NAME_NONE,         [RT_SHAKE_VARIABLE] = RT_NAME_VARIABLE,
        [RT_SHAKE_FUNCTION] = RT_NAME_FUNCTION, [RT_SHAKE_TYPE] = RT_NAME_TYPE,
        [RT_SHAKE_TAG] = RT_NAME_TYPE,          [RT_SHAKE_MACRO] = RT_NAME_MACRO,
    };
    out->kind = kinds[h.kind];
    out->text = h.text;
    out->cell = 0;
    out->file = h.file;
    return 0;
}

/* ---- reading declarations ---------------------------------------------- */

/* GNU spellings that preprocessed glibc declarations are full of. */
static int is_gnu_word(const char *src, const rt_tok_t *t)
{
    static const char *const words[] = {
        "__restrict", "__restrict__", "__const", "__const__", "__volatile__", "__inline",
        "__inline__", "__extension__", "__signed__", "__signed", "__attribute", "__attribute__",
        "__asm__", "__asm", "__typeof__", "__typeof", "typeof", "__int128", "__thread", NULL};
    for (int i = 0; words[i]; i++)
        if (rt_tok_is(src, t, words[i]))
            return 1;
    return 0;
}

static int is_word(const char *src, const rt_tok_t *t)
{
    return t->kind == RT_TOK_IDENT && !rt_decl_is_keyword(src + t->start, t->len) &&
           !is_gnu_word(src, t);
}

/* The type a declaration gives one of its names. */
typedef struct type_ref {
    char *body;       /* "{ ... }" written in the declaration itself, or NULL; owned */
    int is_enum;
    char tag[160];    /* "struct point", or "" */
    char name[160];   /* a typedef name, or "" */
} type_ref_t;

static void copy_tok(char *dst, size_t cap, const char *src, const rt_tok_t *t)
{
    size_t n = t->len < cap - 1 ? t->len : cap - 1;
    memcpy(dst, src + t->start, n);
    dst[n] = '\0';
}

/* The token of decl's tokens t[0, n) that declares name (not a member of
 * a body written in decl, not a tag), or n. */
static size_t declared_name(const char *decl, const rt_tok_t *t, size_t n, const char *name)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (rt_tok_is(decl, &t[i], "{"))
            depth++;
        else if (rt_tok_is(decl, &t[i], "}"))
            depth--;
        else if (depth == 0 && t[i].kind == RT_TOK_IDENT && rt_tok_is(decl, &t[i], name) &&
                 !(i > 0 && rt_tok_is_tag_keyword(decl, &t[i - 1])))
            return i;
    }
    return n;
}

/* Reads the type that decl gives name. Returns -1 when it does not declare it. */
static int decl_type(const char *decl, const char *name, type_ref_t *out)
{
    memset(out, 0, sizeof *out);
    rt_tok_t *t; /* a declaration the session holds (a prelude entry), not a cell's text */
    size_t n = rt_lex_all(decl, 0, strlen(decl), 1, &t, NULL);
    size_t k = declared_name(decl, t, n, name);
    char before[sizeof out->name] = ""; /* the name before the last word */
    int specifiers = 1;                  /* before the first declarator's end */
    for (size_t i = 0; i < k;) {
        if (specifiers && rt_tok_is(decl, &t[i], ",")) {
            memcpy(out->name, before, sizeof before); /* "point_t a, b": a was no type */
            specifiers = 0;
            i++;
        } else if (rt_tok_is_tag_keyword(decl, &t[i])) {
            out->is_enum = rt_tok_is(decl, &t[i], "enum");
            size_t kw = i++;
            if (i < k && is_word(decl, &t[i])) {
                size_t len = t[kw].len + 1 + t[i].len;
                if (len < sizeof out->tag) {
                    memcpy(out->tag, decl + t[kw].start, t[kw].len);
                    out->tag[t[kw].len] = ' ';
                    memcpy(out->tag + t[kw].len + 1, decl + t[i].start, t[i].len);
                    out->tag[len] = '\0';
                }
                i++;
            }
            if (i < k && rt_tok_is(decl, &t[i], "{")) {
                size_t end = rt_tok_skip_group(decl, t, n, i);
                free(out->body);
                out->body = cm_strndup(decl + t[i].start,
                                       t[end - 1].start + t[end - 1].len - t[i].start);
                i = end;
            }
        } else if (t[i].kind == RT_TOK_IDENT && i + 1 < k && rt_tok_is(decl, &t[i + 1], "(") &&
                   !(i + 2 < k && rt_tok_is(decl, &t[i + 2], "*"))) {
            i = rt_tok_skip_group(decl, t, n, i + 1); /* __attribute__((...)), typeof(...) */
        } else {
            if (specifiers && is_word(decl, &t[i])) {
                memcpy(before, out->name, sizeof before);
                copy_tok(out->name, sizeof out->name, decl, &t[i]);
            }
            i++;
        }
    }
    free(t);
    if (k == n) {
        free(out->body);
        out->body = NULL;
        return -1;
    }
    return 0;
}

/* The "{ ... }" of the definition of tag ("struct point") in text. */
static char *tag_body(const char *text, const char *tag)
{
    rt_tok_t *t; /* the session's declarations or a header's: text it holds */
    size_t n = rt_lex_all(text, 0, strlen(text), 1, &t, NULL);
    const char *sp = strchr(tag, ' ');
    char *body = NULL;
    for (size_t i = 0; sp && i + 2 < n && !body; i++) {
        if (t[i].len == (size_t)(sp - tag) && memcmp(text + t[i].start, tag, t[i].len) == 0 &&
            rt_tok_is(text, &t[i + 1], sp + 1) && rt_tok_is(text, &t[i + 2], "{")) {
            size_t end = rt_tok_skip_group(text, t, n, i + 2);
            body = cm_strndup(text + t[i + 2].start,
                              t[end - 1].start + t[end - 1].len - t[i + 2].start);
        }
    }
    free(t);
    return body;
}

/* The typedef declaration of name among cell's top-level items (a cell
 * not run yet), or NULL. New string. */
static char *cell_typedef(rt_session_t *s, const char *cell, const char *name)
{
    rt_cell_t items;
    rt_cell_split(cell, rt_session_is_type, s, &items);
    char *found = NULL;
    for (size_t i = items.n; i-- > 0 && !found;) {
        const rt_item_t *it = &items.items[i];
        if (it->kind != RT_ITEM_DECLARATION || strncmp(cell + it->start, "typedef", 7) != 0)
            continue;
        char *decl = cm_strndup(cell + it->start, it->end - it->start);
        type_ref_t ty;
        if (decl_type(decl, name, &ty) == 0)
            found = decl;
        else
            free(decl);
        free(ty.body);
    }
    rt_cell_free(&items);
    return found;
}

/* The body "{ ... }" of the struct or union that decl gives name, or NULL.
 * Its tag or typedef name is looked up in cell (the code before the
 * cursor, not run yet; may be NULL) first, then in the session. */
static char *find_body(rt_session_t *s, const char *cell, const char *decl, const char *name,
                       int depth)
{
    type_ref_t ty;
    if (depth > MAX_DEPTH || decl_type(decl, name, &ty) != 0)
        return NULL;
    if (ty.body || ty.is_enum)
        return ty.body;
    char *body = cell && ty.tag[0] ? tag_body(cell, ty.tag) : NULL;
    char *tdecl = cell && !ty.tag[0] && ty.name[0] ? cell_typedef(s, cell, ty.name) : NULL;
    rt_name_info_t info;
    if (body)
        return body;
    if (tdecl) {
        body = find_body(s, cell, tdecl, ty.name, depth + 1);
        free(tdecl);
        return body;
    }
    if (ty.tag[0])
        return rt_session_name_info(s, ty.tag, &info) == 0 ? tag_body(info.text, ty.tag) : NULL;
    if (ty.name[0] && rt_session_name_info(s, ty.name, &info) == 0 && info.kind == RT_NAME_TYPE)
        return find_body(s, NULL, info.text, ty.name, depth + 1);
    return NULL;
}

/* ---- members ------------------------------------------------------------- */

/* Calls fn for each member of body "{ ... }". */
static void members_of(const char *body, rt_member_fn fn, void *ctx, int depth)
{
    if (depth > MAX_DEPTH)
        return;
    rt_tok_t *t; /* a struct's body, cut from a declaration the session holds */
    size_t n = rt_lex_all(body, 0, strlen(body), 1, &t, NULL);
    size_t end = n && rt_tok_closes(body, &t[n - 1]) ? n - 1 : n;
    size_t a = 1; /* after '{' */
    while (a < end) {
        size_t b = a; /* one member declaration: t[a, b) */
        while (b < end && !rt_tok_is(body, &t[b], ";"))
            b = rt_tok_opens(body, &t[b]) ? rt_tok_skip_group(body, t, n, b) : b + 1;
        const char *decl = b > a ? body + t[a].start : "";
        size_t decl_len = b > a ? t[b - 1].start + t[b - 1].len - t[a].start : 0;
        int named = 0;
        size_t inner = 0, inner_end = 0; /* an anonymous struct's body */
        int found = 0;                   /* the current declarator has its name */
        for (size_t i = a; i < b;) {
            if (rt_tok_is(body, &t[i], ",")) {
                found = 0;
                i++;
            } else if (rt_tok_is_tag_keyword(body, &t[i])) {
                i++;
                if (i < b && is_word(body, &t[i]))
                    i++;
                if (i < b && rt_tok_is(body, &t[i], "{")) {
                    inner = i;
                    i = inner_end = rt_tok_skip_group(body, t, n, i);
                }
            } else if (rt_tok_is(body, &t[i], "[") || rt_tok_is(body, &t[i], "{")) {
                i = rt_tok_skip_group(body, t, n, i);
            } else if (t[i].kind == RT_TOK_IDENT && i + 1 < b && rt_tok_is(body, &t[i + 1], "(") &&
                       !(i + 2 < b && rt_tok_is(body, &t[i + 2], "*"))) {
                i = rt_tok_skip_group(body, t, n, i + 1); /* attributes; parameter lists */
            } else if (rt_tok_is(body, &t[i], ":")) {
                while (i < b && !rt_tok_is(body, &t[i], ","))
                    i++; /* a bit-field's width */
            } else {
                int is_type = i + 1 < b && (t[i + 1].kind == RT_TOK_IDENT ||
                                            rt_tok_is(body, &t[i + 1], "*") ||
                                            rt_tok_is(body, &t[i + 1], "("));
                if (!found && is_word(body, &t[i]) && !is_type) {
                    fn(ctx, body + t[i].start, t[i].len, decl, decl_len);
                    found = named = 1;
                }
                i++;
            }
        }
        if (!named && inner_end > inner) {
            char *sub = cm_strndup(body + t[inner].start,
                                   t[inner_end - 1].start + t[inner_end - 1].len - t[inner].start);
            members_of(sub, fn, ctx, depth + 1);
            free(sub);
        }
        a = b + 1;
    }
    free(t);
}

typedef struct member_find {
    const char *name;
    char *decl; /* the declaration of the member named name, once found */
} member_find_t;

static void on_member(void *ctx, const char *name, size_t len, const char *decl, size_t decl_len)
{
    member_find_t *f = ctx;
    if (!f->decl && strlen(f->name) == len && memcmp(f->name, name, len) == 0)
        f->decl = cm_strndup(decl, decl_len);
}

/* A declaration of name in code[0, limit) that gives it a struct: a local
 * variable or a parameter ("struct node *n" of a for loop). New, or NULL. */
static char *local_decl(rt_session_t *s, const char *code, size_t limit, const char *cell,
                        const char *name)
{
    /* code is a cell being planned (a struct result's hint) or a completion
     * request: a second read of a cell left for now, see docs/architecture.md */
    rt_tok_t *t;
    size_t n = rt_lex_all(code, 0, limit, 1, &t, NULL);
    char *found = NULL;
    for (size_t i = n; i-- > 1 && !found;) {
        if (!(t[i].kind == RT_TOK_IDENT && rt_tok_is(code, &t[i], name)))
            continue;
        if (!(t[i - 1].kind == RT_TOK_IDENT || rt_tok_is(code, &t[i - 1], "*")))
            continue;
        size_t a = i;
        while (a > 0 && !rt_tok_is(code, &t[a - 1], ";") && !rt_tok_is(code, &t[a - 1], "{") &&
               !rt_tok_is(code, &t[a - 1], "}") && !rt_tok_is(code, &t[a - 1], "(") &&
               !rt_tok_is(code, &t[a - 1], ",") && t[a - 1].kind != RT_TOK_DIRECTIVE)
            a--;
        char *decl = cm_strndup(code + t[a].start, t[i].start + t[i].len - t[a].start);
        char *body = find_body(s, cell, decl, name, 0);
        if (body) {
            free(body);
            found = decl;
        } else {
            free(decl);
        }
    }
    free(t);
    return found;
}

int rt_session_members(rt_session_t *s, const char *code, size_t start, size_t end,
                       rt_member_fn fn, void *ctx)
{
    /* an expression of a completion request, or a cell's final expression
     * for its struct hint (read again: left for now, see local_decl) */
    rt_tok_t *t;
    size_t n = rt_lex_all(code, start, end, 1, &t, NULL);
    char base[160], chain[MAX_CHAIN][160];
    size_t nchain = 0;
    int ok = n > 0 && is_word(code, &t[0]);
    if (ok)
        copy_tok(base, sizeof base, code, &t[0]);
    for (size_t i = 1; ok && i < n;) {
        if (rt_tok_is(code, &t[i], "[")) {
            i = rt_tok_skip_group(code, t, n, i);
        } else if ((rt_tok_is(code, &t[i], ".") || rt_tok_is(code, &t[i], "->")) && i + 1 < n &&
                   is_word(code, &t[i + 1]) && nchain < MAX_CHAIN) {
            copy_tok(chain[nchain++], sizeof chain[0], code, &t[i + 1]);
            i += 2;
        } else {
            ok = 0;
        }
    }
    free(t);
    if (!ok)
        return -1;
    char *cell = cm_strndup(code, start); /* where the cell's own types may be */
    char *decl = local_decl(s, code, start, cell, base);
    rt_name_info_t info;
    if (!decl && rt_session_name_info(s, base, &info) == 0 && info.kind == RT_NAME_VARIABLE)
        decl = cm_strndup(info.text, strlen(info.text));
    char *body = decl ? find_body(s, cell, decl, base, 0) : NULL;
    free(decl);
    for (size_t i = 0; body && i < nchain; i++) {
        member_find_t f = {chain[i], NULL};
        members_of(body, on_member, &f, 0);
        free(body);
        body = f.decl ? find_body(s, cell, f.decl, chain[i], 0) : NULL;
        free(f.decl);
    }
    free(cell);
    if (!body)
        return -1;
    members_of(body, fn, ctx, 0);
    free(body);
    return 0;
}

void rt_session_body_members(const char *body, rt_member_fn fn, void *ctx)
{
    members_of(body, fn, ctx, 0);
}

/* The declarator of name in decl, t[k] being name: pointer, array, bits. */
static void read_declarator(const char *decl, const rt_tok_t *t, size_t n, size_t k,
                            rt_member_type_t *out)
{
    size_t a = k; /* back to the ',' or the '}' of a body before the declarator */
    while (a > 0 && !rt_tok_is(decl, &t[a - 1], ",") && !rt_tok_closes(decl, &t[a - 1]))
        a--;
    int pointer = 0;
    for (size_t i = a; i < k; i++)
        pointer |= rt_tok_is(decl, &t[i], "*");
    size_t i = k + 1;
    while (i < n && rt_tok_is(decl, &t[i], "[")) {
        if (i + 1 < n && rt_tok_is(decl, &t[i + 1], "]"))
            out->kind = RT_MEMBER_OPAQUE; /* int data[] */
        out->ndims++;
        i = rt_tok_skip_group(decl, t, n, i);
    }
    if (out->kind == RT_MEMBER_OPAQUE)
        return;
    if (i < n && rt_tok_is(decl, &t[i], ":"))
        out->kind = RT_MEMBER_BITS;
    else if (pointer || (i < n && rt_tok_is(decl, &t[i], "(")))
        out->kind = RT_MEMBER_POINTER;
}

static int member_type(rt_session_t *s, const char *decl, const char *name,
                       rt_member_type_t *out, int depth)
{
    rt_tok_t *t; /* a member's declaration, from a struct body the session holds */
    size_t n = rt_lex_all(decl, 0, strlen(decl), 1, &t, NULL);
    size_t k = declared_name(decl, t, n, name);
    if (k < n)
        read_declarator(decl, t, n, k, out);
    free(t);
    if (k == n)
        return -1;
    if (out->kind != RT_MEMBER_SCALAR || depth > MAX_DEPTH)
        return 0;
    type_ref_t ty;
    if (decl_type(decl, name, &ty) != 0)
        return 0;
    rt_name_info_t info;
    if (!ty.body && ty.tag[0] && !ty.is_enum && rt_session_name_info(s, ty.tag, &info) == 0)
        ty.body = tag_body(info.text, ty.tag);
    if (ty.body && !ty.is_enum) {
        out->kind = RT_MEMBER_STRUCT;
        out->body = ty.body;
        return 0;
    }
    free(ty.body);
    if (!ty.tag[0] && ty.name[0] && rt_session_name_info(s, ty.name, &info) == 0 &&
        info.kind == RT_NAME_TYPE) { /* a typedef: what it names, and its own dimensions */
        rt_member_type_t named = {0};
        if (member_type(s, info.text, ty.name, &named, depth + 1) == 0) {
            out->kind = named.kind;
            out->ndims += named.ndims;
            out->body = named.body;
        }
    }
    return 0;
}

int rt_session_member_type(rt_session_t *s, const char *decl, const char *name,
                           rt_member_type_t *out)
{
    memset(out, 0, sizeof *out);
    return member_type(s, decl, name, out, 0);
}

char *rt_session_definition(rt_session_t *s, const char *decl, const char *name)
{
    type_ref_t ty;
    if (decl_type(decl, name, &ty) != 0)
        return NULL;
    if (ty.body) {
        free(ty.body);
        return NULL; /* decl shows it already */
    }
    rt_name_info_t info;
    for (int depth = 0; depth < MAX_DEPTH && !ty.tag[0] && ty.name[0]; depth++) {
        char tname[sizeof ty.name];
        memcpy(tname, ty.name, sizeof tname);
        if (rt_session_name_info(s, tname, &info) != 0 || info.kind != RT_NAME_TYPE ||
            decl_type(info.text, tname, &ty) != 0)
            return NULL;
        if (ty.body) {
            free(ty.body);
            return cm_strndup(info.text, strlen(info.text));
        }
    }
    if (!ty.tag[0] || rt_session_name_info(s, ty.tag, &info) != 0)
        return NULL;
    char *body = tag_body(info.text, ty.tag);
    if (!body)
        return NULL;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "%s %s;", ty.tag, body);
    free(body);
    return cm_buf_steal(&b);
}
