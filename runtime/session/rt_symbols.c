/* rt_symbols: the session's symbol table — the latest definition of each
 * name cells define, every function ever compiled and the library
 * functions cells call (for fault reports). See rt_session_internal.h. */
#include <stdlib.h>
#include <string.h>

#include "cm_vec.h"
#include "rt_session_internal.h"

long rt_session_find_symbol(const rt_session_t *s, const char *name)
{
    return cm_map_get(&s->sym_index, name, (size_t)-1);
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
    CM_VEC_GROW(s->syms, s->nsyms, s->capsyms);
    s->syms[s->nsyms] = (rt_sym_t){cm_strndup(name, strlen(name)), addr, cell, is_func};
    cm_map_put(&s->sym_index, s->syms[s->nsyms].name, s->nsyms);
    s->nsyms++;
}

void rt_session_add_code(rt_session_t *s, const char *name, void *addr, int cell)
{
    CM_VEC_GROW(s->code, s->ncode, s->capcode);
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
    CM_VEC_GROW(s->libs, s->nlibs, s->caplibs);
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
