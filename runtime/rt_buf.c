/* rt_buf: growable text buffer. */
#include "rt_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(rt_buf_t *b, size_t extra)
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

void rt_buf_add(rt_buf_t *b, const char *text, size_t n)
{
    reserve(b, n);
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void rt_buf_adds(rt_buf_t *b, const char *text)
{
    rt_buf_add(b, text, strlen(text));
}

void rt_buf_addc(rt_buf_t *b, char c)
{
    rt_buf_add(b, &c, 1);
}

void rt_buf_addf(rt_buf_t *b, const char *fmt, ...)
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

const char *rt_buf_str(const rt_buf_t *b)
{
    return b->s ? b->s : "";
}

char *rt_buf_steal(rt_buf_t *b)
{
    char *s = b->s;
    if (!s)
        s = rt_strndup("", 0);
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void rt_buf_free(rt_buf_t *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

char *rt_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        abort();
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void rt_names_add(rt_names_t *l, const char *name, size_t len)
{
    if (len == (size_t)-1)
        len = strlen(name);
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    l->v[l->n++] = rt_strndup(name, len);
}

long rt_names_find(const rt_names_t *l, const char *name, size_t len)
{
    if (len == (size_t)-1)
        len = strlen(name);
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == len && memcmp(l->v[i], name, len) == 0)
            return (long)i;
    return -1;
}

void rt_names_free(rt_names_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
