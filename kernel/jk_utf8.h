/* jk_utf8: making a cell's raw output bytes into valid UTF-8 for JSON. */
#ifndef JK_UTF8_H
#define JK_UTF8_H

#include <stddef.h>

/* The length of the longest prefix of buf that does not end inside a
 * possibly-valid multi-byte sequence (at most 3 bytes are held back). */
size_t jk_utf8_complete_prefix(const char *buf, size_t len);

/* A new NUL-terminated copy of buf in which every byte that is not part of
 * a valid UTF-8 sequence is replaced by U+FFFD; its length in *out_len.
 * Returns NULL when out of memory. Caller frees. */
char *jk_utf8_sanitize(const char *buf, size_t len, size_t *out_len);

#endif
