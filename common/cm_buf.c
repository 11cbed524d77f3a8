/* cm_buf: growable text buffer. */
#include "cm_buf.h"
#include "cm_vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(cm_buf_t *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s)
        abort();
    b->s = s;
    b->cap = cap;
}

void cm_buf_add(cm_buf_t *b, const char *text, size_t n)
{
    if (!n) /* text may be NULL then (an empty buffer's) */
        return;
    reserve(b, n);
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void cm_buf_adds(cm_buf_t *b, const char *text)
{
    cm_buf_add(b, text, strlen(text));
}

void cm_buf_addc(cm_buf_t *b, char c)
{
    cm_buf_add(b, &c, 1);
}

void cm_buf_add_stream(cm_buf_t *b, FILE *f)
{
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cm_buf_add(b, chunk, n);
}

void cm_buf_addf(cm_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *cm_buf_str(const cm_buf_t *b)
{
    return b->s ? b->s : "";
}

char *cm_buf_steal(cm_buf_t *b)
{
    char *s = b->s;
    if (!s)
        s = cm_strndup("", 0);
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void cm_buf_free(cm_buf_t *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

char *cm_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        abort();
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void cm_names_add(cm_names_t *l, const char *name, size_t len)
{
    if (len == (size_t)-1)
        len = strlen(name);
    CM_VEC_GROW(l->v, l->n, l->cap);
    l->v[l->n++] = cm_strndup(name, len);
}

long cm_names_find(const cm_names_t *l, const char *name, size_t len)
{
    if (len == (size_t)-1)
        len = strlen(name);
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == len && memcmp(l->v[i], name, len) == 0)
            return (long)i;
    return -1;
}

void cm_names_free(cm_names_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
