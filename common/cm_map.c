/* cm_map: strings to numbers (see cm_map.h). */
#include "cm_map.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s, size_t n)
{
    size_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int same(const char *stored, const char *key, size_t len)
{
    return strncmp(stored, key, len) == 0 && stored[len] == '\0';
}

static void place(cm_map_t *m, const char *key, size_t value)
{
    size_t mask = m->nslots - 1, k = hash(key, strlen(key)) & mask;
    while (m->keys[k])
        k = (k + 1) & mask;
    m->keys[k] = key;
    m->values[k] = value;
}

/* Twice the slots (at least 64), the entries placed again. */
static void grow(cm_map_t *m)
{
    const char **keys = m->keys;
    size_t *values = m->values, old = m->nslots;
    m->nslots = old ? old * 2 : 64;
    m->keys = calloc(m->nslots, sizeof *m->keys);
    m->values = calloc(m->nslots, sizeof *m->values);
    if (!m->keys || !m->values)
        abort();
    for (size_t i = 0; i < old; i++)
        if (keys[i])
            place(m, keys[i], values[i]);
    free(keys);
    free(values);
}

void cm_map_put(cm_map_t *m, const char *key, size_t value)
{
    if (2 * (m->n + 1) > m->nslots)
        grow(m);
    place(m, key, value);
    m->n++;
}

long cm_map_get(const cm_map_t *m, const char *key, size_t len)
{
    if (len == (size_t)-1)
        len = strlen(key);
    if (!m->nslots)
        return -1;
    size_t mask = m->nslots - 1;
    for (size_t k = hash(key, len) & mask; m->keys[k]; k = (k + 1) & mask)
        if (same(m->keys[k], key, len))
            return (long)m->values[k];
    return -1;
}

void cm_map_each(const cm_map_t *m, const char *key, size_t len,
                 void (*fn)(void *ctx, size_t value), void *ctx)
{
    if (len == (size_t)-1)
        len = strlen(key);
    if (!m->nslots)
        return;
    size_t mask = m->nslots - 1;
    for (size_t k = hash(key, len) & mask; m->keys[k]; k = (k + 1) & mask)
        if (same(m->keys[k], key, len))
            fn(ctx, m->values[k]);
}

void cm_map_clear(cm_map_t *m)
{
    if (m->nslots)
        memset(m->keys, 0, m->nslots * sizeof *m->keys);
    m->n = 0;
}

void cm_map_free(cm_map_t *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}
