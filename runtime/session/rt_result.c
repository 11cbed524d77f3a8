/* rt_result: formats a cell's final value (see rt_result.h). */
#include "rt_result.h"

#include <math.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"

static char *result; /* the text shown by the running cell, or NULL */
static char *result_html; /* an HTML form of it, or NULL */

void rt_result_reset(void)
{
    free(result);
    result = NULL;
    free(result_html);
    result_html = NULL;
}

char *rt_result_take(void)
{
    char *r = result;
    result = NULL;
    return r;
}

char *rt_result_take_html(void)
{
    char *r = result_html;
    result_html = NULL;
    return r;
}

void rt_result_set_html(const char *html)
{
    free(result_html);
    result_html = html ? cm_strndup(html, strlen(html)) : NULL;
}

/* A struct value being shown field by field: "type {x = 1, y = 2}". */
static cm_buf_t fields;
static int in_struct, nfields;

void rt_result_set(const char *text)
{
    if (in_struct) { /* the value of the field just named */
        cm_buf_adds(&fields, text);
        return;
    }
    free(result);
    result = cm_strndup(text, strlen(text));
    free(result_html); /* a new value: an HTML form, if any, comes after */
    result_html = NULL;
}

void rt_result_struct_begin(const char *type, unsigned long long size)
{
    cm_buf_free(&fields);
    cm_buf_addf(&fields, "%s {", type);
    in_struct = 1;
    nfields = 0;
    (void)size;
}

void rt_result_struct_field(const char *name)
{
    cm_buf_addf(&fields, "%s%s = ", nfields++ ? ", " : "", name);
}

void rt_result_struct_end(const char *type, unsigned long long size)
{
    in_struct = 0;
    if (nfields) {
        cm_buf_addc(&fields, '}');
        rt_result_set(cm_buf_str(&fields));
    } else {
        char b[300];
        snprintf(b, sizeof b, "%s (%llu bytes)", type, size);
        rt_result_set(b);
    }
    cm_buf_free(&fields);
}

/* Fields are read through their address: one signature for every type. */
static long long read_signed(const void *a, unsigned long long size)
{
    switch (size) {
    case 1: return *(const signed char *)a;
    case 2: return *(const short *)a;
    case 4: return *(const int *)a;
    default: return *(const long long *)a;
    }
}

static unsigned long long read_unsigned(const void *a, unsigned long long size)
{
    switch (size) {
    case 1: return *(const unsigned char *)a;
    case 2: return *(const unsigned short *)a;
    case 4: return *(const unsigned int *)a;
    default: return *(const unsigned long long *)a;
    }
}

void rt_result_field_sint(const void *a, unsigned long long size) { rt_result_show_int(read_signed(a, size)); }
void rt_result_field_uint(const void *a, unsigned long long size) { rt_result_show_uint(read_unsigned(a, size)); }
void rt_result_field_bool(const void *a, unsigned long long size) { rt_result_show_bool(*(const _Bool *)a); }
void rt_result_field_char(const void *a, unsigned long long size) { rt_result_show_char(*(const char *)a); }
void rt_result_field_float(const void *a, unsigned long long size) { rt_result_show_float(*(const float *)a); }
void rt_result_field_double(const void *a, unsigned long long size) { rt_result_show_double(*(const double *)a); }
void rt_result_field_ldouble(const void *a, unsigned long long size) { rt_result_show_ldouble(*(const long double *)a); }
void rt_result_field_str(const void *a, unsigned long long size) { rt_result_show_str(*(const char *const *)a); }

/* Pointers, nested structs and arrays: a pointer's address, else "{...}". */
void rt_result_field_other(const void *a, unsigned long long size)
{
    if (size == sizeof(void *))
        rt_result_show_ptr(*(void *const *)a);
    else
        rt_result_set("{...}");
}

void rt_result_show_int(long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    rt_result_set(b);
}

void rt_result_show_uint(unsigned long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", v);
    rt_result_set(b);
}

void rt_result_show_bool(_Bool v)
{
    rt_result_set(v ? "true" : "false");
}

static void escape_char(cm_buf_t *b, unsigned char c, char quote)
{
    switch (c) {
    case '\n': cm_buf_adds(b, "\\n"); return;
    case '\t': cm_buf_adds(b, "\\t"); return;
    case '\r': cm_buf_adds(b, "\\r"); return;
    case '\0': cm_buf_adds(b, "\\0"); return;
    case '\\': cm_buf_adds(b, "\\\\"); return;
    default: break;
    }
    if (c == (unsigned char)quote)
        cm_buf_addf(b, "\\%c", quote);
    else if (c < 0x20 || c == 0x7f)
        cm_buf_addf(b, "\\x%02x", c);
    else
        cm_buf_addc(b, (char)c); /* UTF-8 bytes pass through */
}

void rt_result_show_char(char v)
{
    cm_buf_t b = {0};
    cm_buf_addc(&b, '\'');
    escape_char(&b, (unsigned char)v, '\'');
    cm_buf_addf(&b, "' (%d)", (int)v);
    rt_result_set(cm_buf_str(&b));
    cm_buf_free(&b);
}

void rt_result_format_double(double d, char *out, size_t size)
{
    if (isnan(d)) {
        snprintf(out, size, "%s", signbit(d) ? "-nan" : "nan");
        return;
    }
    if (isinf(d)) {
        snprintf(out, size, "%s", d < 0 ? "-inf" : "inf");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            break;
    }
}

void rt_result_show_double(double v)
{
    char b[64];
    rt_result_format_double(v, b, sizeof b);
    rt_result_set(b);
}

void rt_result_show_float(float v)
{
    char b[64];
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, (double)v);
        if (strtof(b, NULL) == v || isnan(v))
            break;
    }
    rt_result_set(b);
}

void rt_result_show_ldouble(long double v)
{
    char b[80];
    for (int prec = 18; prec <= 21; prec++) {
        snprintf(b, sizeof b, "%.*Lg", prec, v);
        if (strtold(b, NULL) == v || isnan(v))
            break;
    }
    rt_result_set(b);
}

void rt_result_show_str(const char *s)
{
    if (!s) {
        rt_result_set("NULL");
        return;
    }
    cm_buf_t b = {0};
    cm_buf_addc(&b, '"');
    for (const char *p = s; *p; p++)
        escape_char(&b, (unsigned char)*p, '"');
    cm_buf_addc(&b, '"');
    rt_result_set(cm_buf_str(&b));
    cm_buf_free(&b);
}

void rt_result_show_ptr(const volatile void *p)
{
    char b[32];
    if (!p)
        snprintf(b, sizeof b, "NULL");
    else
        snprintf(b, sizeof b, "0x%" PRIxPTR, (uintptr_t)p);
    rt_result_set(b);
}
