/* cm_map: an index from strings to numbers — open addressing, FNV-1a.
 *
 * The keys are BORROWED: the map keeps their pointers, so each key must
 * stay valid and unchanged while it is in the map (typically a name owned
 * by the array the values index). A key may be put several times: get
 * finds the first, cm_map_each visits all. A zeroed cm_map_t is empty. */
#ifndef CM_MAP_H
#define CM_MAP_H

#include <stddef.h>

typedef struct cm_map {
    const char **keys; /* (nslots) borrowed; NULL = empty slot */
    size_t *values;    /* (nslots) */
    size_t nslots;     /* 0 or a power of two */
    size_t n;          /* keys put */
} cm_map_t;

/* Adds key -> value (another entry when key is there already). */
void cm_map_put(cm_map_t *m, const char *key, size_t value);

/* The value of the first entry for key[0, len) (len (size_t)-1 = strlen),
 * or -1. */
long cm_map_get(const cm_map_t *m, const char *key, size_t len);

/* Calls fn with the value of every entry for key[0, len). */
void cm_map_each(const cm_map_t *m, const char *key, size_t len,
                 void (*fn)(void *ctx, size_t value), void *ctx);

/* Empties the map, keeping its slots. */
void cm_map_clear(cm_map_t *m);

void cm_map_free(cm_map_t *m);

#endif
