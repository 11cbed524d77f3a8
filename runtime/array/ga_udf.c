/* ga_udf: the user's functions for array math (see ga_udf.h). */
#include "ga_udf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_array.h" /* GA_E_EXPR */

static ga_udf_t udfs[GA_UDF_MAX];
static int nudfs;

void ga_udf_clear(ga_udf_t *f)
{
    free(f->body);
    free(f->map);
    free(f->reduce);
    free(f->identity);
    free(f->post);
    memset(f, 0, sizeof *f);
}

void ga_udf_reset(void)
{
    for (int i = 0; i < nudfs; i++)
        ga_udf_clear(&udfs[i]);
    nudfs = 0;
}

int ga_udf_index(const char *name, size_t len)
{
    for (int i = 0; i < nudfs; i++)
        if (strlen(udfs[i].name) == len && !memcmp(udfs[i].name, name, len))
            return i;
    return -1;
}

const ga_udf_t *ga_udf_at(int index)
{
    return index >= 0 && index < nudfs ? &udfs[index] : NULL;
}

const ga_udf_t *ga_udf_find(const char *name, size_t len)
{
    return ga_udf_at(ga_udf_index(name, len));
}

int ga_udf_type(const char *type)
{
    if (isupper((unsigned char)type[0]) && !type[1])
        return -1;
    static const struct { const char *c; ga_dtype_t d; } c_names[] = {
        {"float", GA_F32}, {"double", GA_F64}, {"int", GA_I32}, {"long", GA_I64},
        {"bool", GA_BOOL}, {"half", GA_F16},
    };
    for (size_t i = 0; i < sizeof c_names / sizeof *c_names; i++)
        if (!strcmp(type, c_names[i].c))
            return c_names[i].d;
    int d = ga_dtype_from_name(type);
    return d >= 0 && d != GA_C64 && d != GA_C128 ? d : -2;
}

static const char *skip(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* An identifier at p into out; the text after it, or NULL. */
static const char *word(const char *p, char *out, size_t len)
{
    p = skip(p);
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    if (!n || n >= len || isdigit((unsigned char)*p))
        return NULL;
    memcpy(out, p, n);
    out[n] = '\0';
    return p + n;
}

static int bad(cm_error_t *err, const char *text, const char *what)
{
    CM_ERROR(err, GA_E_EXPR, "\"%s\": %s (the form is: name(T a, T b) -> T c)", text, what);
    return -1;
}

int ga_udf_signature(const char *text, ga_udf_t *f, cm_error_t *err)
{
    memset(f, 0, sizeof *f);
    const char *p = word(text, f->name, sizeof f->name);
    if (!p)
        return bad(err, text, "expected the function's name");
    p = skip(p);
    if (*p++ != '(')
        return bad(err, text, "expected '(' after the name");
    p = skip(p);
    while (*p != ')') {
        if (f->nparams == GA_UDF_MAX_PARAMS)
            return bad(err, text, "too many parameters (at most 8)");
        char *t = f->ptypes[f->nparams], *n = f->pnames[f->nparams];
        p = word(p, t, 32);
        if (!p || !(p = word(p, n, 32)))
            return bad(err, text, "each parameter is a type and a name");
        if (ga_udf_type(t) == -2) {
            char msg[96];
            snprintf(msg, sizeof msg, "unknown type '%s'", t);
            return bad(err, text, msg);
        }
        f->nparams++;
        p = skip(p);
        if (*p == ',')
            p = skip(p + 1);
        else if (*p != ')')
            return bad(err, text, "expected ',' or ')' after a parameter");
    }
    p = skip(p + 1);
    if (strncmp(p, "->", 2))
        return bad(err, text, "expected '-> TYPE NAME' for the result");
    p = word(p + 2, f->otype, sizeof f->otype);
    if (!p || !(p = word(p, f->oname, sizeof f->oname)))
        return bad(err, text, "the result is a type and a name");
    if (*skip(p))
        return bad(err, text, "unexpected text after the result");
    int ot = ga_udf_type(f->otype);
    if (ot == -2)
        return bad(err, text, "unknown result type");
    if (ot == -1) {
        int bound = 0;
        for (int i = 0; i < f->nparams; i++)
            bound |= !strcmp(f->ptypes[i], f->otype);
        if (!bound)
            return bad(err, text, "the result's type variable is not a parameter's type");
    }
    if (!f->nparams)
        return bad(err, text, "a function needs at least one parameter");
    return 0;
}

int ga_udf_define(ga_udf_t *f, cm_error_t *err)
{
    for (int i = 0; i < nudfs; i++)
        if (!strcmp(udfs[i].name, f->name)) {
            ga_udf_clear(&udfs[i]);
            udfs[i] = *f;
            return 0;
        }
    if (nudfs == GA_UDF_MAX) {
        CM_ERROR(err, GA_E_EXPR, "too many functions (at most %d)", GA_UDF_MAX);
        ga_udf_clear(f);
        return -1;
    }
    udfs[nudfs++] = *f;
    return 0;
}
