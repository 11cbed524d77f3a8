/* rt_result: formats a cell's final value (see rt_result.h). */
#include "rt_result.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cm_buf.h"

/* The field readers read the user's memory where the cell's expression
 * says it is: a bad address faults there, inside the protected run, and
 * becomes the cell's SegmentationFault as the same read in C would. The
 * undefined-behaviour sanitizer must not stop them first. */
#define USER_READ __attribute__((no_sanitize("undefined")))

static char *result; /* the text shown by the running cell, or NULL */
static char *result_html; /* an HTML form of it, or NULL */

/* A struct value being shown member by member, as C would initialise it:
 * "point_t {.x = 3, .v = {1, 2}}". Nested braces (structs, arrays) are
 * levels; a cell that faults half-way leaves them open until the reset. */
#define MAX_LEVELS 32
#define MAX_ITEMS 16        /* array elements shown, then "..." */
#define MAX_CHARS 64        /* characters of a string member, then "..." */
#define MAX_TEXT 8192       /* the whole text, then "..." */
#define MAX_STRUCT (1 << 20) /* a bigger struct shows its size only */
static cm_buf_t fields;
static int level;               /* open braces; 0: not inside a struct */
static int items[MAX_LEVELS];   /* members or elements shown at each level */
static int summary;             /* the struct is too big: its size only */

static void struct_reset(void)
{
    cm_buf_free(&fields);
    level = 0;
    summary = 0;
}

void rt_result_reset(void)
{
    free(result);
    result = NULL;
    free(result_html);
    result_html = NULL;
    struct_reset();
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

/* Adds to the struct text, unless it is long enough already. */
static void add_text(const char *text)
{
    if (summary || fields.len > MAX_TEXT)
        return;
    cm_buf_adds(&fields, text);
    if (fields.len > MAX_TEXT)
        cm_buf_adds(&fields, "...");
}

void rt_result_set(const char *text)
{
    if (level > 0) { /* the value of the member just named */
        add_text(text);
        return;
    }
    free(result);
    result = cm_strndup(text, strlen(text));
    free(result_html); /* a new value: an HTML form, if any, comes after */
    result_html = NULL;
}

/* Opens a level of braces. */
static void open_level(void)
{
    if (level < MAX_LEVELS)
        items[level] = 0;
    level++;
    add_text("{");
}

/* Counts one item of the innermost level; adds ", " between items. */
static int next_item(void)
{
    int n = level > 0 && level <= MAX_LEVELS ? items[level - 1]++ : 1;
    if (n)
        add_text(", ");
    return n;
}

void rt_result_struct_begin(const char *type, unsigned long long size)
{
    if (level == 0) {
        struct_reset();
        summary = size > MAX_STRUCT;
        cm_buf_addf(&fields, "%s ", type ? type : "struct");
    }
    open_level();
}

void rt_result_struct_field(const char *name)
{
    next_item();
    if (!name) {
        add_text("...");
        return;
    }
    add_text(".");
    add_text(name);
    add_text(" = ");
}

void rt_result_struct_end(const char *type, unsigned long long size)
{
    if (level <= 0)
        return;
    int n = level <= MAX_LEVELS ? items[level - 1] : 1;
    add_text("}");
    if (--level > 0)
        return;
    char b[300];
    if (summary || !n) {
        snprintf(b, sizeof b, "%s (%llu bytes)", type ? type : "struct", size);
        summary = 0;
        rt_result_set(b);
    } else {
        rt_result_set(cm_buf_str(&fields));
    }
    cm_buf_free(&fields);
}

void rt_result_array_begin(void)
{
    open_level();
}

int rt_result_array_item(void)
{
    if (next_item() >= MAX_ITEMS) {
        add_text("...");
        return 0;
    }
    return 1;
}

void rt_result_array_end(void)
{
    if (level <= 0)
        return;
    add_text("}");
    level--;
}

/* Fields are read through their address: one signature for every type. */
USER_READ static long long read_signed(const void *a, unsigned long long size)
{
    switch (size) {
    case 1: return *(const signed char *)a;
    case 2: return *(const short *)a;
    case 4: return *(const int *)a;
    default: return *(const long long *)a;
    }
}

USER_READ static unsigned long long read_unsigned(const void *a, unsigned long long size)
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
USER_READ void rt_result_field_bool(const void *a, unsigned long long size) { rt_result_show_bool(*(const _Bool *)a); }
USER_READ void rt_result_field_char(const void *a, unsigned long long size) { rt_result_show_char(*(const char *)a); }
USER_READ void rt_result_field_float(const void *a, unsigned long long size) { rt_result_show_float(*(const float *)a); }
USER_READ void rt_result_field_double(const void *a, unsigned long long size) { rt_result_show_double(*(const double *)a); }
USER_READ void rt_result_field_ldouble(const void *a, unsigned long long size) { rt_result_show_ldouble(*(const long double *)a); }

/* Pointers (function pointers too): the address; never read through. */
USER_READ void rt_result_field_ptr(const void *a, unsigned long long size)
{
    rt_result_show_ptr(*(void *const *)a);
}

/* A member of a type gpuc cannot tell: not read. */
void rt_result_field_other(const void *a, unsigned long long size)
{
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

/* Up to n bytes at p that can be read, copied to out: a pointer member
 * may hold anything. Returns how many (0: none). Where the kernel refuses
 * process_vm_readv, the bytes are read directly (a fault is the cell's). */
static size_t read_memory(const void *p, char *out, size_t n)
{
    uintptr_t page = 4096, at = (uintptr_t)p;
    size_t first = page - at % page < n ? page - at % page : n;
    struct iovec local = {out, n};
    struct iovec remote[2] = {{(void *)p, first}, {(void *)(at + first), n - first}};
    ssize_t got = process_vm_readv(getpid(), &local, 1, remote, n > first ? 2 : 1, 0);
    if (got >= 0)
        return (size_t)got;
    if (errno == EFAULT)
        return 0;
    memcpy(out, p, n);
    return n;
}

/* s[0, n) up to its first NUL, quoted and escaped; capped at MAX_CHARS
 * characters, then "...". */
USER_READ static void show_chars(const char *s, size_t n)
{
    size_t len = 0;
    while (len < n && s[len]) /* not strnlen: the read may fault, in the cell's run */
        len++;
    cm_buf_t b = {0};
    cm_buf_addc(&b, '"');
    for (size_t i = 0; i < len && i < MAX_CHARS; i++)
        escape_char(&b, (unsigned char)s[i], '"');
    cm_buf_addc(&b, '"');
    if (len > MAX_CHARS)
        cm_buf_adds(&b, "...");
    rt_result_set(cm_buf_str(&b));
    cm_buf_free(&b);
}

/* A char array member: a string, though it may lack its NUL. */
void rt_result_field_chars(const void *a, unsigned long long size)
{
    show_chars(a, size);
}

/* A char * member: the string where it can be read, else the address. */
USER_READ void rt_result_field_str(const void *a, unsigned long long size)
{
    const char *s = *(const char *const *)a;
    char text[MAX_CHARS + 1];
    size_t n = s ? read_memory(s, text, sizeof text) : 0;
    if (!s || !n)
        rt_result_show_ptr(s);
    else
        show_chars(text, n);
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
