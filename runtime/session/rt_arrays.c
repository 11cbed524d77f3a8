/* rt_arrays: device arrays in the session (see rt_arrays.h). */
#include "rt_arrays.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cm_vec.h"
#include "ga_api.h"
#include "ga_copy.h"
#include "ga_print.h"
#include "rt_protect.h"
#include "rt_result.h"
#include "rt_session_internal.h"

void rt_arrays_show(const ga_array_t *a)
{
    cm_error_t err = {0};
    char *text = ga_array_check(a, &err) == 0 ? ga_print_repr(a, NULL, ga_copy_gather, NULL, &err)
                                              : NULL;
    if (!text)
        rt_protect_raise(ga_api_kind(err.code), err.text);
    char *html = ga_print_html(a, NULL, ga_copy_gather, NULL, &err);
    rt_result_set(text);
    rt_result_set_html(html);
    free(text);
    free(html);
}

void rt_session_begin_cell(rt_session_t *s, int cell)
{
    (void)s;
    ga_array_set_cell(cell);
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The first whole-word occurrence of word in text at or after from, or
 * NULL. */
static const char *find_word(const char *text, const char *from, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(from, word); p; p = strstr(p + 1, word))
        if ((p == text || !ident_char(p[-1])) && !ident_char(p[n]))
            return p;
    return NULL;
}

/* sizeof(name) through a compile, remembered per variable address (a
 * variable redefined gets a new address): the sweep runs every cell. */
static size_t compiled_size(rt_session_t *s, const char *name, const void *addr)
{
    static struct {
        const void *addr;
        size_t bytes;
    } known[64];
    static size_t next;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].addr == addr && addr)
            return known[i].bytes;
    char body[300];
    snprintf(body, sizeof body, "const unsigned long __gpuc_bytes = sizeof(%s);\n", name);
    cm_error_t err = {0};
    rt_tcc_t *t = rt_session_compile_aux(s, body, &err);
    const unsigned long *v = t ? rt_tcc_symbol(t, "__gpuc_bytes") : NULL;
    size_t bytes = v ? *v : 0;
    if (t)
        rt_tcc_free(t);
    known[next].addr = addr;
    known[next].bytes = bytes;
    next = (next + 1) % (sizeof known / sizeof known[0]);
    return bytes;
}

/* Bytes of the variable `name` declared by text ("extern ga_t xs[2][3]
 * __attribute(...);"): its [N] dimensions when they are numbers, else
 * sizeof through a compile. 0 when it cannot be told. */
static size_t variable_bytes(rt_session_t *s, const char *text, const char *name)
{
    const char *type = find_word(text, text, "ga_t");
    const char *p = type ? find_word(text, type + 4, name) : NULL;
    size_t bytes = sizeof(void *);
    if (!p)
        return 0;
    p += strlen(name);
    while (*p == ' ')
        p++;
    while (*p == '[') {
        char *end;
        unsigned long long n = strtoull(p + 1, &end, 0);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
            end++;
        if (end == p + 1 || *end != ']') /* a macro or an expression: ask the compiler */
            return compiled_size(s, name, rt_session_symbol(s, name));
        bytes *= n;
        p = end + 1;
        while (*p == ' ')
            p++;
    }
    return bytes;
}

/* The session variables that may hold arrays: their names, addresses and
 * sizes (n of them; the caller frees the three lists). */
typedef struct roots {
    const char **names;
    const void **addrs;
    size_t *bytes;
    size_t n, cap_names, cap_addrs, cap_bytes;
} roots_t;

static void find_roots(rt_session_t *s, roots_t *r)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        if (e->kind != RT_ENTRY_VAR || !e->nkeys || !find_word(e->text, e->text, "ga_t"))
            continue;
        void *addr = rt_session_symbol(s, e->keys[0]);
        size_t bytes = addr ? variable_bytes(s, e->text, e->keys[0]) : 0;
        if (!bytes)
            continue;
        CM_VEC_GROW(r->names, r->n, r->cap_names);
        CM_VEC_GROW(r->addrs, r->n, r->cap_addrs);
        CM_VEC_GROW(r->bytes, r->n, r->cap_bytes);
        r->names[r->n] = e->keys[0];
        r->addrs[r->n] = addr;
        r->bytes[r->n++] = bytes;
    }
}

static void free_roots(roots_t *r)
{
    free(r->names);
    free(r->addrs);
    free(r->bytes);
}

size_t rt_session_end_cell(rt_session_t *s)
{
    if (!ga_array_first())
        return 0;
    roots_t r;
    find_roots(s, &r);
    size_t freed = ga_array_sweep(r.addrs, r.bytes, r.n);
    free_roots(&r);
    return freed;
}

void rt_arrays_holders(rt_session_t *s, rt_array_holder_fn fn, void *ctx)
{
    roots_t r;
    find_roots(s, &r);
    for (size_t i = 0; i < r.n; i++) {
        size_t count = r.bytes[i] / sizeof(void *);
        for (size_t k = 0; k < count; k++) {
            void *word;
            memcpy(&word, (const char *)r.addrs[i] + k * sizeof word, sizeof word);
            if (ga_array_is_live(word))
                fn(ctx, r.names[i], r.bytes[i] == sizeof(void *) ? -1 : (long)k, word);
        }
    }
    free_roots(&r);
}
