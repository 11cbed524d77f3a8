/* rt_error: the runtime's error value (see rt_error.h). */
#include "rt_error.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rt_error_set(rt_error_t *err, const char *kind, int cell, int line, const char *fmt, ...)
{
    if (!err || err->kind[0])
        return -1;
    snprintf(err->kind, sizeof err->kind, "%s", kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->cell = cell;
    err->line = line;
    return -1;
}

int rt_error_is_set(const rt_error_t *err)
{
    return err && err->kind[0];
}

void rt_error_add_line(rt_error_t *err, const char *fmt, ...)
{
    char text[CM_ERROR_TEXT + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cm_names_add(&err->traceback, text, (size_t)-1);
}

void rt_error_add_source(rt_error_t *err, const char *src, size_t len, int col)
{
    cm_buf_t b = {0};
    cm_buf_adds(&b, "    ");
    cm_buf_add(&b, src, len);
    cm_names_add(&err->traceback, cm_buf_str(&b), (size_t)-1);
    cm_buf_free(&b);
    if (col < 1)
        return;
    cm_buf_adds(&b, "    ");
    for (int k = 1; k < col; k++)
        cm_buf_addc(&b, (size_t)(k - 1) < len && src[k - 1] == '\t' ? '\t' : ' ');
    cm_buf_addc(&b, '^');
    cm_names_add(&err->traceback, cm_buf_str(&b), (size_t)-1);
    cm_buf_free(&b);
}

void rt_error_reword(rt_error_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    cm_names_free(&err->traceback);
}

void rt_error_hint(rt_error_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->hint, sizeof err->hint, fmt, ap);
    va_end(ap);
}

void rt_error_move(rt_error_t *dst, rt_error_t *src)
{
    rt_error_free(dst);
    *dst = *src;
    memset(src, 0, sizeof *src);
}

json_t *rt_error_json(const rt_error_t *err)
{
    json_t *tb = json_array();
    for (size_t i = 0; i < err->traceback.n; i++)
        json_array_append_new(tb, json_string(err->traceback.v[i]));
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:o}", "kind", err->kind, "message",
                          err->message, "cell", err->cell, "line", err->line, "column",
                          err->column, "hint", err->hint, "traceback", tb);
    if (!o) /* text that is not UTF-8 */
        o = json_pack("{s:s, s:s}", "kind", err->kind, "message", "<message is not valid UTF-8>");
    return o;
}

void rt_error_free(rt_error_t *err)
{
    cm_names_free(&err->traceback);
    memset(err, 0, sizeof *err);
}

const char *rt_source_line(const char *code, int line, size_t *len)
{
    const char *p = code;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p) {
        *len = 0;
        return "";
    }
    const char *e = strchr(p, '\n');
    *len = e ? (size_t)(e - p) : strlen(p);
    return p;
}

int rt_source_column(const char *msg, const char *line, size_t len)
{
    const char *q = strchr(msg, '\'');
    const char *q2 = q ? strchr(q + 1, '\'') : NULL;
    if (q && q2 && q2 > q + 1) {
        size_t n = (size_t)(q2 - q - 1);
        for (size_t i = 0; i + n <= len; i++) {
            if (memcmp(line + i, q + 1, n) != 0)
                continue;
            int left = i == 0 || !(line[i - 1] == '_' || isalnum((unsigned char)line[i - 1]));
            char c = i + n < len ? line[i + n] : ' ';
            int right = !(c == '_' || isalnum((unsigned char)c));
            if (left && right)
                return (int)i + 1;
        }
    }
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t')
            return (int)i + 1;
    return 1;
}

