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
        /* a name given again keeps its first place and takes its last
         * value, as a Python dict (papermill's parameters) does */
        int seen = 0, last = i;
        for (int j = 0; j < n; j++)
            if (!strcmp(params[j].name, params[i].name)) {
                seen |= j < i;
                last = j;
            }
        if (seen)
            continue;
        const jk_param_t *p = &params[last];
        const char *v = p->value;
        kind_t k = p->quoted ? K_STRING : kind_of(v);
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

/* One file's parameters, kept as JSON strings in owner (an array). */
typedef struct loader {
    jk_param_t *params;
    int *n, max;
    json_t *owner;
    const char *path;
    cm_error_t *err;
} loader_t;

static int add(loader_t *l, const char *name, const char *value, int quoted, int line)
{
    if (*l->n == l->max) {
        CM_ERROR(l->err, 1, "%s: more than %d parameters", l->path, l->max);
        return -1;
    }
    if (!is_identifier(name)) {
        CM_ERROR(l->err, 1, "%s: line %d: '%s' is not a C name", l->path, line, name);
        return -1;
    }
    json_array_append_new(l->owner, json_string(name));
    json_array_append_new(l->owner, json_string(value));
    size_t k = json_array_size(l->owner);
    l->params[*l->n] = (jk_param_t){json_string_value(json_array_get(l->owner, k - 2)),
                                    json_string_value(json_array_get(l->owner, k - 1)), quoted};
    ++*l->n;
    return 0;
}

/* A JSON object: numbers, true/false, null and strings. */
static int load_json(loader_t *l, const json_t *obj)
{
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)obj, name, v) {
        char text[64];
        if (json_is_integer(v))
            snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        else if (json_is_real(v))
            snprintf(text, sizeof text, "%.17g", json_real_value(v));
        else if (json_is_boolean(v) || json_is_null(v))
            snprintf(text, sizeof text, "%s", json_is_null(v) ? "None" : json_is_true(v) ? "true" : "false");
        else if (!json_is_string(v)) {
            CM_ERROR(l->err, 1, "%s: '%s' is a list or an object; parameters are numbers, "
                     "booleans, strings or null", l->path, name);
            return -1;
        }
        if (add(l, name, json_is_string(v) ? json_string_value(v) : text, json_is_string(v), 0) != 0)
            return -1;
    }
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* "text" (with \\ \" \n \t) or 'text' (with '') in place; the rest of
 * the line may hold only a comment. 0, or -1 when it is not closed. */
static int unquote(char *v)
{
    char q = *v, *out = v, *p = v + 1;
    for (; *p && *p != q; p++) {
        if (q == '"' && *p == '\\' && p[1]) {
            p++;
            *out++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else if (q == '\'' && *p == '\'' && p[1] == '\'') {
            *out++ = *p++;
        } else {
            *out++ = *p;
        }
    }
    if (*p != q)
        return -1;
    char *rest = trim(p + 1);
    *out = '\0';
    return *rest && *rest != '#' ? -1 : 0;
}

/* The YAML papermill's -f files mostly are: one "name: value" a line,
 * blank lines, # comments, "---". */
static int load_yaml(loader_t *l, char *text)
{
    int line = 0;
    for (char *next, *s = text; s; s = next) {
        line++;
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        s = trim(s);
        if (!*s || *s == '#' || !strcmp(s, "---"))
            continue;
        char *colon = strchr(s, ':');
        if (!colon || (colon[1] && !isspace((unsigned char)colon[1]))) {
            CM_ERROR(l->err, 1, "%s: line %d: expected 'name: value' (a flat YAML mapping)",
                     l->path, line);
            return -1;
        }
        *colon = '\0';
        char *name = trim(s), *v = trim(colon + 1);
        int quoted = *v == '"' || *v == '\'';
        if (quoted && unquote(v) != 0) {
            CM_ERROR(l->err, 1, "%s: line %d: a quoted value must end with its quote", l->path, line);
            return -1;
        }
        if (!quoted) {
            char *hash = strstr(v, " #");
            if (hash)
                *hash = '\0';
            v = trim(v);
            if (*v == '[' || *v == '{') {
                CM_ERROR(l->err, 1, "%s: line %d: '%s' is a list or a mapping; parameters are "
                         "numbers, booleans, strings or null", l->path, line, name);
                return -1;
            }
            if (!*v || !strcmp(v, "null") || !strcmp(v, "~"))
                v = "None";
        }
        if (add(l, name, v, quoted, line) != 0)
            return -1;
    }
    return 0;
}

int jk_params_load(const char *path, jk_param_t *params, int *n, int max, json_t *owner,
                   cm_error_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        CM_ERROR(err, 1, "%s: %s", path, strerror(errno));
        return -1;
    }
    cm_buf_t b = {0};
    cm_buf_add_stream(&b, f);
    fclose(f);
    char *text = cm_buf_steal(&b);
    loader_t l = {params, n, max, owner, path, err};
    int rc;
    if (*trim(text) == '{') {
        json_error_t jerr;
        json_t *obj = json_loads(text, 0, &jerr);
        if (!obj)
            CM_ERROR(err, 1, "%s: line %d: %s", path, jerr.line, jerr.text);
        rc = obj ? load_json(&l, obj) : -1;
        json_decref(obj);
    } else {
        rc = load_yaml(&l, text);
    }
    free(text);
    return rc;
}
