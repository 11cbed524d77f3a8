/* jk_params: papermill-style parameters for gpuc notebooks (see jk_params.h). */
#include "jk_params.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "jk_nbformat.h"

static int is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* Non-zero when text holds name as a whole word. */
static int mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text ? strstr(text, name) : NULL; p; p = strstr(p + 1, name)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

typedef enum kind { K_INT, K_DOUBLE, K_BOOL, K_NULL, K_STRING } kind_t;

/* What a command-line value is, read as papermill's -p reads it (Python's
 * int() and float(), True/False, None) and C's true/false. */
static kind_t kind_of(const char *v)
{
    char *end;
    if (!*v)
        return K_STRING;
    errno = 0;
    (void)strtoll(v, &end, 10);
    if (!*end && !errno)
        return K_INT;
    errno = 0;
    (void)strtod(v, &end);
    /* Python's float() reads no hexadecimal and no leading space */
    if (!*end && !errno && !isspace((unsigned char)*v) && !strpbrk(v, "xX"))
        return K_DOUBLE;
    if (!strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "True") || !strcmp(v, "False"))
        return K_BOOL;
    if (!strcmp(v, "None"))
        return K_NULL;
    return K_STRING;
}

/* An integer as C source: decimal, whatever the spelling given (010 is
 * ten, as papermill reads it, not C's octal eight). */
static void c_integer(cm_buf_t *b, long long v)
{
    if (v == LLONG_MIN)
        cm_buf_adds(b, "(-9223372036854775807LL - 1)");
    else
        cm_buf_addf(b, "%lld", v);
}

/* A double as C source: the shortest %.Ng that reads back the same, with
 * ".0" when it would read as an integer; INFINITY and NAN by name. */
static void c_double(cm_buf_t *b, double v)
{
    if (isnan(v)) {
        cm_buf_adds(b, "NAN");
        return;
    }
    if (isinf(v)) {
        cm_buf_adds(b, v < 0 ? "-INFINITY" : "INFINITY");
        return;
    }
    char text[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v)
            break;
    }
    cm_buf_adds(b, text);
    if (!strpbrk(text, ".e"))
        cm_buf_adds(b, ".0");
}

static void c_string(cm_buf_t *b, const char *s)
{
    cm_buf_addc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            cm_buf_addf(b, "\\%c", c);
        else if (c == '\n')
            cm_buf_adds(b, "\\n");
        else if (c < 0x20 || c == 0x7f)
            cm_buf_addf(b, "\\%03o", c);
        else
            cm_buf_addc(b, (char)c);
    }
    cm_buf_addc(b, '"');
}

char *jk_params_source(const jk_param_t *params, int n, const char *defaults)
{
    cm_buf_t b = {0};
    cm_buf_adds(&b, "// Parameters\n");
    for (int i = 0; i < n; i++) {
        const char *v = params[i].value;
        kind_t k = kind_of(v);
        if (!mentions(defaults, params[i].name))
            cm_buf_adds(&b, k == K_INT ? "long long " : k == K_DOUBLE ? "double "
                            : k == K_BOOL ? "int " : k == K_NULL ? "void *" : "const char *");
        cm_buf_addf(&b, "%s = ", params[i].name);
        if (k == K_INT)
            c_integer(&b, strtoll(v, NULL, 10));
        else if (k == K_DOUBLE)
            c_double(&b, strtod(v, NULL));
        else if (k == K_BOOL)
            cm_buf_adds(&b, v[0] == 't' || v[0] == 'T' ? "1" : "0");
        else if (k == K_NULL)
            cm_buf_adds(&b, "NULL");
        else
            c_string(&b, v);
        cm_buf_adds(&b, ";\n");
    }
    return cm_buf_steal(&b);
}

/* Non-zero when cell's metadata.tags holds tag. */
static int has_tag(const json_t *cell, const char *tag)
{
    const json_t *tags = json_object_get(json_object_get(cell, "metadata"), "tags"), *t;
    size_t i;
    json_array_foreach(tags, i, t)
        if (json_is_string(t) && !strcmp(json_string_value(t), tag))
            return 1;
    return 0;
}

int jk_params_inject(json_t *nb, const jk_param_t *params, int n, cm_error_t *err)
{
    for (int i = 0; i < n; i++)
        if (!is_identifier(params[i].name)) {
            CM_ERROR(err, 1, "parameter '%s' is not a C name", params[i].name);
            return -1;
        }
    json_t *cells = json_object_get(nb, "cells");
    size_t i, at = 0;
    json_t *cell;
    char *defaults = NULL;
    /* an earlier injected cell goes; the new one follows "parameters" */
    for (i = json_array_size(cells); i-- > 0;)
        if (has_tag(json_array_get(cells, i), "injected-parameters"))
            json_array_remove(cells, i);
    json_array_foreach(cells, i, cell)
        if (has_tag(cell, "parameters")) {
            defaults = jk_nb_cell_source(cell);
            at = i + 1;
            break;
        }
    char *src = jk_params_source(params, n, defaults);
    free(defaults);
    json_t *injected = json_pack("{s:s, s:n, s:{s:[s]}, s:[], s:s, s:s}", "cell_type", "code",
                                 "execution_count", "metadata", "tags", "injected-parameters",
                                 "outputs", "source", src, "id", "injected-parameters");
    free(src);
    if (!injected || json_array_insert_new(cells, at, injected) != 0) {
        CM_ERROR(err, 1, "out of memory");
        return -1;
    }
    return 0;
}
