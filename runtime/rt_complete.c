/* rt_complete: completion, inspection and is_complete for the session. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cell.h"
#include "rt_decl.h"
#include "rt_session_internal.h"

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

static void add_match(json_t *matches, const char *name, const char *prefix, size_t plen)
{
    if (strncmp(name, prefix, plen) != 0)
        return;
    size_t n = json_array_size(matches);
    for (size_t i = 0; i < n; i++)
        if (strcmp(json_string_value(json_array_get(matches, i)), name) == 0)
            return;
    json_array_append_new(matches, json_string(name));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

json_t *rt_session_complete(rt_session_t *s, const char *code, int cursor_pos)
{
    size_t end = byte_offset(code, cursor_pos);
    size_t start = end;
    while (start > 0 && ident_char(code[start - 1]))
        start--;
    char prefix[256];
    size_t plen = end - start < sizeof prefix - 1 ? end - start : sizeof prefix - 1;
    memcpy(prefix, code + start, plen);
    prefix[plen] = '\0';
    json_t *matches = json_array();
    {
        for (size_t i = 0; i < s->prelude.n; i++) {
            const rt_entry_t *e = &s->prelude.v[i];
            for (size_t k = 0; k < e->nkeys; k++) {
                const char *key = e->keys[k];
                if (strncmp(key, "#define ", 8) == 0)
                    key += 8;
                else if (key[0] == '#')
                    continue;
                else if (strchr(key, ' '))
                    key = strchr(key, ' ') + 1; /* "struct p" completes "p" */
                add_match(matches, key, prefix, plen);
            }
        }
        for (int i = 0; rt_decl_keywords[i]; i++)
            add_match(matches, rt_decl_keywords[i], prefix, plen);
        static const char *const builtins[] = {
            "display_text", "display_html", "display_markdown", "display_svg", "display_json",
            "display_png", "display_mime", "clear_output", "printf", "malloc", "calloc",
            "free", "memcpy", "memset", "strlen", "sqrt", "size_t", "uint8_t", "int32_t",
            "int64_t", "uint32_t", "uint64_t", "bool", "true", "false", "NULL", NULL};
        for (int i = 0; builtins[i]; i++)
            add_match(matches, builtins[i], prefix, plen);
    }
    /* sort (jansson has no sort: go through a C array) */
    size_t n = json_array_size(matches);
    json_t **v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = json_incref(json_array_get(matches, i));
    if (v) {
        qsort(v, n, sizeof *v, by_name);
        json_array_clear(matches);
        for (size_t i = 0; i < n; i++)
            json_array_append_new(matches, v[i]);
        free(v);
    }
    return json_pack("{s:s, s:o, s:i, s:i, s:{}}", "status", "ok", "matches", matches,
                     "cursor_start", code_points(code, start), "cursor_end",
                     code_points(code, end), "metadata");
}

json_t *rt_session_inspect(rt_session_t *s, const char *code, int cursor_pos, int detail_level)
{
    size_t at = byte_offset(code, cursor_pos);
    size_t a = at, b = at;
    while (a > 0 && ident_char(code[a - 1]))
        a--;
    while (code[b] && ident_char(code[b]))
        b++;
    char name[256];
    size_t n = b - a < sizeof name - 1 ? b - a : sizeof name - 1;
    memcpy(name, code + a, n);
    name[n] = '\0';
    const rt_entry_t *e = n ? rt_prelude_find(&s->prelude, name) : NULL;
    if (!e && n) {
        char key[300];
        static const char *const kws[] = {"struct ", "union ", "enum ", "#define ", NULL};
        for (int i = 0; kws[i] && !e; i++) {
            snprintf(key, sizeof key, "%s%s", kws[i], name);
            e = rt_prelude_find(&s->prelude, key);
        }
    }
    if (!e)
        return json_pack("{s:s, s:b, s:{}, s:{}}", "status", "ok", "found", 0, "data",
                         "metadata");
    rt_buf_t text = {0};
    rt_buf_adds(&text, e->text);
    const char *what = e->kind == RT_ENTRY_VAR    ? "variable"
                       : e->kind == RT_ENTRY_FUNC ? "function"
                       : e->kind == RT_ENTRY_TYPE ? "type"
                       : e->kind == RT_ENTRY_DIRECTIVE ? "directive"
                                                       : "declaration";
    rt_buf_addf(&text, "\n%s, defined in cell %d", what, e->cell);
    for (size_t i = 0; i < s->nsyms; i++)
        if (strcmp(s->syms[i].name, name) == 0 && detail_level > 0)
            rt_buf_addf(&text, "\naddress %p", s->syms[i].addr);
    json_t *reply = json_pack("{s:s, s:b, s:{s:s}, s:{}}", "status", "ok", "found", 1, "data",
                              "text/plain", rt_buf_str(&text), "metadata");
    rt_buf_free(&text);
    return reply;
}

json_t *rt_session_is_complete(rt_session_t *s, const char *code)
{
    (void)s;
    const char *status = rt_cell_completeness(code);
    if (strcmp(status, "incomplete") == 0)
        return json_pack("{s:s, s:s}", "status", status, "indent", "    ");
    return json_pack("{s:s}", "status", status);
}
