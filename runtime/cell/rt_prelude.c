/* rt_prelude: the session's persistent declarations (see rt_prelude.h). */
#include "rt_prelude.h"

#include <stdlib.h>
#include <string.h>

#include "cm_map.h"
#include "cm_vec.h"
#include "rt_lex.h"

/* Non-zero when text uses the type key: a typedef name, or "struct tag". */
static int uses_type(const char *text, const char *key)
{
    const char *space = strchr(key, ' ');
    const char *name = space ? space + 1 : key;
    if (key[0] == '#')
        return 0;
    rt_tok_t *toks; /* an entry's text, which the plan wrote */
    size_t n = rt_lex_all(text, 0, strlen(text), 1, &toks, NULL);
    int used = 0;
    for (size_t i = 0; i < n && !used; i++) {
        if (toks[i].kind != RT_TOK_IDENT || toks[i].len != strlen(name) ||
            memcmp(text + toks[i].start, name, toks[i].len) != 0)
            continue;
        if (!space)
            used = 1;
        else if (i > 0 && toks[i - 1].len == (size_t)(space - key) &&
                 memcmp(text + toks[i - 1].start, key, toks[i - 1].len) == 0)
            used = 1;
    }
    free(toks);
    return used;
}

static int has_key(const rt_entry_t *e, const char *key)
{
    for (size_t k = 0; k < e->nkeys; k++)
        if (strcmp(e->keys[k], key) == 0)
            return 1;
    return 0;
}

/* An #include key: the same header included again stays where it was
 * first included (earlier cells' declarations use its types; its guard
 * makes the second a no-op), rather than moving after them. */
static int is_include(const char *key)
{
    if (*key++ != '#')
        return 0;
    key += strspn(key, " \t");
    return strncmp(key, "include", 7) == 0;
}

void rt_prelude_exclude(const rt_prelude_t *p, char *const *keys, size_t nkeys, char *excluded)
{
    memset(excluded, 0, p->n);
    for (size_t i = 0; i < p->n; i++)
        for (size_t k = 0; k < nkeys && !excluded[i]; k++)
            if (has_key(&p->v[i], keys[k]) && !is_include(keys[k]))
                excluded[i] = 1;
    /* entries written with a type that goes away go with it */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < p->n; i++) {
            if (!excluded[i] || p->v[i].kind != RT_ENTRY_TYPE)
                continue;
            for (size_t j = 0; j < p->n; j++) {
                if (excluded[j])
                    continue;
                for (size_t k = 0; k < p->v[i].nkeys; k++) {
                    if (uses_type(p->v[j].text, p->v[i].keys[k])) {
                        excluded[j] = 1;
                        changed = 1;
                        break;
                    }
                }
            }
        }
    }
}

void rt_prelude_render(const rt_prelude_t *p, const char *excluded, cm_buf_t *out)
{
    for (size_t i = 0; i < p->n; i++) {
        if (excluded && excluded[i])
            continue;
        cm_buf_adds(out, p->v[i].text);
        cm_buf_addc(out, '\n');
    }
}

static void entry_free(rt_entry_t *e)
{
    free(e->text);
    cm_names_free(&e->uses);
    for (size_t k = 0; k < e->nkeys; k++)
        free(e->keys[k]);
    free(e->keys);
}

void rt_prelude_macros(const rt_prelude_t *p, cm_buf_t *out)
{
    for (size_t i = 0; i < p->n; i++) {
        const rt_entry_t *e = &p->v[i];
        if (e->kind == RT_ENTRY_DIRECTIVE && e->nkeys && strncmp(e->keys[0], "#define ", 8) == 0) {
            cm_buf_adds(out, e->text);
            cm_buf_addc(out, '\n');
        }
    }
}

void rt_prelude_remove(rt_prelude_t *p, const char *excluded)
{
    size_t w = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (excluded[i])
            entry_free(&p->v[i]);
        else
            p->v[w++] = p->v[i];
    }
    p->n = w;
}

static void add_use(void *ctx, const char *name, size_t len)
{
    cm_names_add(ctx, name, len);
}

void rt_prelude_add(rt_prelude_t *p, rt_entry_kind_t kind, const char *text, char *const *keys,
                    size_t nkeys, int cell)
{
    if (nkeys == 1 && is_include(keys[0]) && rt_prelude_find(p, keys[0]))
        return; /* included already: it stays where it is */
    /* an entry of the same cell declaring the same key (a prototype, then
     * the definition) is replaced by the later one */
    for (size_t i = 0; i < p->n; i++) {
        for (size_t k = 0; k < nkeys; k++) {
            if (p->v[i].cell == cell && has_key(&p->v[i], keys[k])) {
                entry_free(&p->v[i]);
                memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof *p->v);
                p->n--;
                i--;
                break;
            }
        }
    }
    CM_VEC_GROW(p->v, p->n, p->cap);
    rt_entry_t *e = &p->v[p->n++];
    e->kind = kind;
    e->text = cm_strndup(text, strlen(text));
    e->keys = malloc((nkeys ? nkeys : 1) * sizeof *e->keys);
    if (!e->keys)
        abort();
    for (size_t k = 0; k < nkeys; k++)
        e->keys[k] = cm_strndup(keys[k], strlen(keys[k]));
    e->nkeys = nkeys;
    e->cell = cell;
    memset(&e->uses, 0, sizeof e->uses);
    rt_lex_names(e->text, strlen(e->text), add_use, &e->uses);
}

/* ---- selecting what a cell needs ----------------------------------- */

typedef struct select {
    const rt_prelude_t *p;
    const char *skip;
    char *emit;
    cm_map_t keys;          /* each key of each entry -> the entry */
    size_t *stack;          /* entries marked, their uses not yet followed */
    size_t nstack;
    rt_name_fn fn;
    void *ctx;
} select_t;

static void mark(select_t *sel, size_t i)
{
    if (sel->emit[i])
        return;
    sel->emit[i] = 1;
    sel->stack[sel->nstack++] = i;
}

static void mark_entry(void *ctx, size_t i)
{
    mark(ctx, i);
}

/* Marks the entries declaring name (an rt_name_fn). */
static void use_name(void *ctx, const char *name, size_t len)
{
    select_t *sel = ctx;
    if (sel->fn)
        sel->fn(sel->ctx, name, len);
    cm_map_each(&sel->keys, name, len, mark_entry, sel);
}

void rt_prelude_select(const rt_prelude_t *p, const char *skip, const char *text, size_t len,
                       char *emit, rt_name_fn fn, void *ctx)
{
    select_t sel = {.p = p, .skip = skip, .emit = emit, .fn = fn, .ctx = ctx};
    sel.stack = malloc((p->n + 1) * sizeof *sel.stack);
    if (!sel.stack)
        abort();
    memset(emit, 0, p->n);
    for (size_t i = 0; i < p->n; i++) {
        const rt_entry_t *e = &p->v[i];
        if (skip && skip[i])
            continue;
        if (e->kind == RT_ENTRY_DIRECTIVE) {
            mark(&sel, i);
            continue;
        }
        for (size_t k = 0; k < e->nkeys; k++)
            cm_map_put(&sel.keys, e->keys[k], i);
    }
    rt_lex_names(text, len, use_name, &sel);
    while (sel.nstack) {
        const rt_entry_t *e = &p->v[sel.stack[--sel.nstack]];
        for (size_t k = 0; k < e->uses.n; k++)
            use_name(&sel, e->uses.v[k], strlen(e->uses.v[k]));
    }
    cm_map_free(&sel.keys);
    free(sel.stack);
}

const rt_entry_t *rt_prelude_find(const rt_prelude_t *p, const char *key)
{
    for (size_t i = p->n; i-- > 0;)
        if (has_key(&p->v[i], key))
            return &p->v[i];
    return NULL;
}

void rt_prelude_free(rt_prelude_t *p)
{
    for (size_t i = 0; i < p->n; i++)
        entry_free(&p->v[i]);
    free(p->v);
    memset(p, 0, sizeof *p);
}
