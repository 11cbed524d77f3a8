/* rt_traceback: source lines and carets for tracebacks (see rt_traceback.h). */
#include "rt_traceback.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cm_error.h"
#include "rt_buf.h"

json_t *rt_error_reply(const char *ename, const char *fmt, ...)
{
    char msg[CM_ERROR_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return json_pack("{s:s, s:s, s:s, s:[s]}", "status", "error", "ename", ename, "evalue", msg,
                     "traceback", msg);
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

void rt_traceback_add_source(json_t *traceback, const char *src, size_t len, int col)
{
    rt_buf_t b = {0};
    rt_buf_adds(&b, "    ");
    rt_buf_add(&b, src, len);
    json_array_append_new(traceback, json_string(rt_buf_str(&b)));
    rt_buf_free(&b);
    if (col < 1)
        return;
    rt_buf_adds(&b, "    ");
    for (int k = 1; k < col; k++)
        rt_buf_addc(&b, (size_t)(k - 1) < len && src[k - 1] == '\t' ? '\t' : ' ');
    rt_buf_addc(&b, '^');
    json_array_append_new(traceback, json_string(rt_buf_str(&b)));
    rt_buf_free(&b);
}
