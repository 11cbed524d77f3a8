/* cm_buf: a growable, always NUL-terminated text buffer for building
 * generated source, messages and declarations.
 *
 * A zeroed cm_buf_t is empty and valid. Allocation failure aborts the
 * process (out of memory in the executor cannot be reported anyway). */
#ifndef CM_BUF_H
#define CM_BUF_H

#include <stddef.h>
#include <stdio.h>

typedef struct cm_buf {
    char *s;      /* NUL-terminated text, or NULL while empty */
    size_t len;   /* bytes used, without the NUL */
    size_t cap;
} cm_buf_t;

void cm_buf_add(cm_buf_t *b, const char *text, size_t n);
void cm_buf_adds(cm_buf_t *b, const char *text);
void cm_buf_addf(cm_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cm_buf_addc(cm_buf_t *b, char c);

/* Appends what is left to read from f, up to its end or a read error. */
void cm_buf_add_stream(cm_buf_t *b, FILE *f);

/* The text so far ("" while empty); borrowed, valid until the next add. */
const char *cm_buf_str(const cm_buf_t *b);

/* Hands the text to the caller (free() it) and empties b. Never NULL. */
char *cm_buf_steal(cm_buf_t *b);

void cm_buf_free(cm_buf_t *b);

/* strndup that aborts on failure. */
char *cm_strndup(const char *s, size_t n);

/* cm_names: a growable list of owned strings. A zeroed one is empty. */
typedef struct cm_names {
    char **v;
    size_t n, cap;
} cm_names_t;

/* Appends a copy of name[0..len) (len (size_t)-1 = strlen). */
void cm_names_add(cm_names_t *l, const char *name, size_t len);
/* Index of name in l, or -1. */
long cm_names_find(const cm_names_t *l, const char *name, size_t len);
void cm_names_free(cm_names_t *l);

#endif
