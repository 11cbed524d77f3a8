/* rt_buf: a growable, always NUL-terminated text buffer for building
 * generated source, messages and declarations.
 *
 * A zeroed rt_buf_t is empty and valid. Allocation failure aborts the
 * process (out of memory in the executor cannot be reported anyway). */
#ifndef RT_BUF_H
#define RT_BUF_H

#include <stddef.h>

typedef struct rt_buf {
    char *s;      /* NUL-terminated text, or NULL while empty */
    size_t len;   /* bytes used, without the NUL */
    size_t cap;
} rt_buf_t;

void rt_buf_add(rt_buf_t *b, const char *text, size_t n);
void rt_buf_adds(rt_buf_t *b, const char *text);
void rt_buf_addf(rt_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_buf_addc(rt_buf_t *b, char c);

/* The text so far ("" while empty); borrowed, valid until the next add. */
const char *rt_buf_str(const rt_buf_t *b);

/* Hands the text to the caller (free() it) and empties b. Never NULL. */
char *rt_buf_steal(rt_buf_t *b);

void rt_buf_free(rt_buf_t *b);

/* strndup that aborts on failure. */
char *rt_strndup(const char *s, size_t n);

/* rt_names: a growable list of owned strings. A zeroed one is empty. */
typedef struct rt_names {
    char **v;
    size_t n, cap;
} rt_names_t;

/* Appends a copy of name[0..len) (len (size_t)-1 = strlen). */
void rt_names_add(rt_names_t *l, const char *name, size_t len);
/* Index of name in l, or -1. */
long rt_names_find(const rt_names_t *l, const char *name, size_t len);
void rt_names_free(rt_names_t *l);

#endif
