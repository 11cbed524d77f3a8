#include "cm_error.h"

#include <stdio.h>
#include <string.h>

void cm_error_clear(cm_error_t *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

void cm_error_setf(cm_error_t *err, const char *file, int line, int code,
                   const char *fmt, ...)
{
    if (!err || err->code)
        return;
    err->code = code ? code : -1;
    err->file = file;
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
}
