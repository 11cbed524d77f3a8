/* rt_symbols: the session's symbol table — the latest definition of each
 * name cells define, every function ever compiled and the library
 * functions cells call (for fault reports). See rt_session_internal.h. */
#include <stdint.h>
#include <stdio.h>
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
        free(s->syms[i].source);
        s->syms[i].source = NULL;
        s->syms[i].addr = addr;
        s->syms[i].cell = cell;
        s->syms[i].is_func = is_func;
        return;
    }
    CM_VEC_GROW(s->syms, s->nsyms, s->capsyms);
    s->syms[s->nsyms] = (rt_sym_t){cm_strndup(name, strlen(name)), addr, cell, is_func, NULL};
    cm_map_put(&s->sym_index, s->syms[s->nsyms].name, s->nsyms);
    s->nsyms++;
}

void rt_session_set_source(rt_session_t *s, const char *name, const char *text)
{
    long i = rt_session_find_symbol(s, name);
    if (i < 0)
        return;
    free(s->syms[i].source);
    s->syms[i].source = cm_strndup(text, strlen(text));
}

void rt_session_add_code(rt_session_t *s, const char *name, void *addr, int cell)
{
    uint32_t at = RT_CODE_CELL;
    if (strncmp(name, "__gpuc_cell", 11) != 0) {
        long i = cm_map_get(&s->code_name_index, name, (size_t)-1);
        if (i < 0) {
            i = (long)s->code_names.n;
            cm_names_add(&s->code_names, name, (size_t)-1);
            cm_map_put(&s->code_name_index, s->code_names.v[i], (size_t)i);
        }
        at = (uint32_t)i;
    }
    CM_VEC_GROW(s->code, s->ncode, s->capcode);
    s->code[s->ncode++] = (rt_code_t){addr, at, cell};
}

const char *rt_session_code_name(const rt_session_t *s, const rt_code_t *code)
{
    return code->name == RT_CODE_CELL ? NULL : s->code_names.v[code->name];
}

static int in_code(const rt_tcc_code_t *code, const void *addr)
{
    for (int i = 0; i < code->n; i++)
        if ((uintptr_t)addr >= (uintptr_t)code->at[i] &&
            (uintptr_t)addr < (uintptr_t)code->at[i] + code->size[i])
            return 1;
    return 0;
}

void rt_session_forget_code(rt_session_t *s, const rt_tcc_code_t *code)
{
    size_t keep = 0;
    for (size_t i = 0; i < s->ncode; i++)
        if (!in_code(code, s->code[i].addr))
            s->code[keep++] = s->code[i];
    s->ncode = keep;
    keep = 0;
    for (size_t i = 0; i < s->nlines; i++)
        if (!in_code(code, s->lines[i].addr))
            s->lines[keep++] = s->lines[i];
    s->nlines = keep;
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
    s->libs[s->nlibs++] = (rt_sym_t){cm_strndup(name, strlen(name)), (void *)addr, 0, 1, NULL};
}

void rt_session_add_line(void *ctx, const void *addr, const char *file, int line)
{
    rt_session_t *s = ctx;
    int cell = 0;
    if (sscanf(file, "cell[%d]", &cell) != 1 || cell < 1)
        cell = 0;
    /* compilations fill the code arena upwards, so this is often the end */
    size_t at = s->nlines;
    while (at > 0 && (uintptr_t)s->lines[at - 1].addr > (uintptr_t)addr)
        at--;
    if (at > 0 && !cell && !s->lines[at - 1].cell)
        return; /* one entry marks where a stretch of code of no cell begins */
    CM_VEC_GROW(s->lines, s->nlines, s->caplines);
    memmove(&s->lines[at + 1], &s->lines[at], (s->nlines - at) * sizeof *s->lines);
    s->lines[at] = (struct rt_line){addr, cell, line};
    s->nlines++;
}

int rt_session_line_of(const rt_session_t *s, const void *ip, int *line)
{
    size_t lo = 0, hi = s->nlines; /* the last entry at or below ip */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)s->lines[mid].addr <= (uintptr_t)ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || !s->lines[lo - 1].cell)
        return 0;
    *line = s->lines[lo - 1].line;
    return s->lines[lo - 1].cell;
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

const rt_sym_t *rt_session_symbols(const rt_session_t *s, size_t *n)
{
    *n = s->nsyms;
    return s->syms;
}
