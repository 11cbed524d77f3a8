/* rt_symbols: the session's symbol table — the latest definition of each
 * name cells define, every function ever compiled and the library
 * functions cells call (for fault reports). See rt_session_internal.h. */
#include <stdlib.h>
#include <string.h>

#include "rt_session_internal.h"

static size_t name_hash(const char *name)
{
    size_t h = 2166136261u;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 16777619u;
    return h;
}

/* The index of name in s->syms, or -1. */
long rt_session_find_symbol(const rt_session_t *s, const char *name)
{
    if (!s->nsym_slots)
        return -1;
    size_t m = s->nsym_slots - 1;
    for (size_t k = name_hash(name) & m; s->sym_slots[k]; k = (k + 1) & m)
        if (strcmp(s->syms[s->sym_slots[k] - 1].name, name) == 0)
            return (long)s->sym_slots[k] - 1;
    return -1;
}

static void index_symbols(rt_session_t *s)
{
    free(s->sym_slots);
    s->nsym_slots = s->nsym_slots ? s->nsym_slots * 2 : 256;
    s->sym_slots = calloc(s->nsym_slots, sizeof *s->sym_slots);
    if (!s->sym_slots)
        abort();
    for (size_t i = 0; i < s->nsyms; i++) {
        size_t k = name_hash(s->syms[i].name) & (s->nsym_slots - 1);
        while (s->sym_slots[k])
            k = (k + 1) & (s->nsym_slots - 1);
        s->sym_slots[k] = i + 1;
    }
}

static void index_symbols_add(rt_session_t *s, size_t i)
{
    size_t k = name_hash(s->syms[i].name) & (s->nsym_slots - 1);
    while (s->sym_slots[k])
        k = (k + 1) & (s->nsym_slots - 1);
    s->sym_slots[k] = i + 1;
}

void rt_session_set_symbol(rt_session_t *s, const char *name, void *addr, int cell, int is_func)
{
    s->generation++;
    long i = rt_session_find_symbol(s, name);
    if (i >= 0) {
        s->syms[i].addr = addr;
        s->syms[i].cell = cell;
        s->syms[i].is_func = is_func;
        return;
    }
    if (s->nsyms == s->capsyms) {
        s->capsyms = s->capsyms ? s->capsyms * 2 : 64;
        s->syms = realloc(s->syms, s->capsyms * sizeof *s->syms);
        if (!s->syms)
            abort();
    }
    s->syms[s->nsyms++] = (rt_sym_t){cm_strndup(name, strlen(name)), addr, cell, is_func};
    if (s->nsyms * 2 > s->nsym_slots)
        index_symbols(s);
    else
        index_symbols_add(s, s->nsyms - 1);
}

void rt_session_add_code(rt_session_t *s, const char *name, void *addr, int cell)
{
    if (s->ncode == s->capcode) {
        s->capcode = s->capcode ? s->capcode * 2 : 64;
        s->code = realloc(s->code, s->capcode * sizeof *s->code);
        if (!s->code)
            abort();
    }
    s->code[s->ncode++] = (rt_sym_t){cm_strndup(name, strlen(name)), addr, cell, 1};
}

void rt_session_add_library_symbol(void *ctx, const char *name, const void *addr)
{
    rt_session_t *s = ctx;
    if (!addr || rt_tcc_owns_code(addr) || strncmp(name, "__gpuc", 6) == 0)
        return;
    for (size_t i = 0; i < s->nlibs; i++)
        if (s->libs[i].addr == addr)
            return;
    if (s->nlibs == s->caplibs) {
        s->caplibs = s->caplibs ? s->caplibs * 2 : 64;
        s->libs = realloc(s->libs, s->caplibs * sizeof *s->libs);
        if (!s->libs)
            abort();
    }
    s->libs[s->nlibs++] = (rt_sym_t){cm_strndup(name, strlen(name)), (void *)addr, 0, 1};
}

void rt_session_define(rt_session_t *s, const char *name, void *addr, int cell, int is_func)
{
    rt_session_set_symbol(s, name, addr, cell, is_func);
    if (is_func)
        rt_session_add_code(s, name, addr, cell);
}

void *rt_session_symbol(const rt_session_t *s, const char *name)
{
    long i = rt_session_find_symbol(s, name);
    return i >= 0 ? s->syms[i].addr : NULL;
}
