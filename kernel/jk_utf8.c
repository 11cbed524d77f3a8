#include "jk_utf8.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if the
 * bytes there are not a valid sequence, -1 if they could be the start of a
 * valid one that is cut off. */
static int sequence_length(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    int len;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0; /* no overlong forms */
        if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return -1;
        unsigned char min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xBF;
        if (s[i] < min || s[i] > max)
            return 0;
    }
    return len;
}

size_t jk_utf8_complete_prefix(const char *buf, size_t len)
{
    const unsigned char *s = (const unsigned char *)buf;
    size_t start = len > 3 ? len - 3 : 0;
    for (size_t i = start; i < len; i++)
        if (s[i] >= 0xC0 && sequence_length(s + i, len - i) < 0)
            return i;
    return len;
}

char *jk_utf8_sanitize(const char *buf, size_t len, size_t *out_len)
{
    char *out = malloc(len * 3 + 1); /* worst case: every byte becomes U+FFFD */
    if (!out)
        return NULL;
    const unsigned char *s = (const unsigned char *)buf;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        int n = sequence_length(s + i, len - i);
        if (n > 0) {
            memcpy(out + o, s + i, (size_t)n);
            o += (size_t)n;
            i += (size_t)n;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}
