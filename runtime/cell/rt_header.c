/* rt_header: what host cells are compiled after (see rt_header.h): gpuc.h
 * (rt_gpuc_h.c) and the CUDA runtime API of rt_cuda_header.c. */
#include "rt_header.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_dtype.h"
#include "gpu.h"
#include "rt_cuda_header.h"

/* The names diagnostics and inspection give the two parts. */
#define GPUC_H_LINE "#line 1 \"gpuc.h\"\n"
#define CUDA_LINE "#line 1 \"cuda_runtime_api.h\"\n"

#define SHORT_NAME(n) #n,
static const char *const short_names[] = {GA_DTYPES(SHORT_NAME) NULL};

/* The short dtype name that src declares (the token before it is a name or
 * a '*': `typedef unsigned char U8;`, `float F32 = 1;`), or NULL. */
static const char *declared_short_name(const char *src, size_t len)
{
    char before = 0; /* the last character of the token before */
    for (size_t i = 0; i < len;) {
        if (isalpha((unsigned char)src[i]) || src[i] == '_') {
            size_t j = i;
            while (j < len && (isalnum((unsigned char)src[j]) || src[j] == '_'))
                j++;
            for (int k = 0; short_names[k]; k++)
                if (strlen(short_names[k]) == j - i && memcmp(src + i, short_names[k], j - i) == 0 &&
                    (before == '*' || isalnum((unsigned char)before) || before == '_'))
                    return short_names[k];
            before = src[j - 1];
            i = j;
        } else {
            if (!isspace((unsigned char)src[i]))
                before = src[i];
            i++;
        }
    }
    return NULL;
}

int rt_header_hint(const char *msg, const char *src, size_t len, char *out, size_t size)
{
    const char *name;
    if (strstr(msg, "to 'struct ga_dtype'")) {
        snprintf(out, size, "a dtype is GA_F32, F32, GA_I64... (a ga_dtype_t), not a number: "
                            "ga_zeros(F32, 4, 4)");
        return 1;
    }
    if (strstr(msg, "invalid operand types") && src && memmem(src, len, "ga_dtype(", 9)) {
        snprintf(out, size, "ga_dtype(a) is the dtype's code, an int: compare it with "
                            "GA_CODE_F32...; GA_DTYPE(ga_dtype(a)) is the dtype itself");
        return 1;
    }
    if (src && (name = declared_short_name(src, len)) != NULL) {
        snprintf(out, size, "%s is gpuc.h's short name of the dtype GA_%s (a macro): put "
                 "`#undef %s` on a line before your own %s (later cells see yours)", name, name,
                 name, name);
        return 1;
    }
    return 0;
}

const char *rt_header(int cuda_toolkit)
{
    static char *text[2];
    cuda_toolkit = cuda_toolkit != 0;
    if (!text[cuda_toolkit]) {
        const char *cuda = rt_cuda_header(cuda_toolkit);
        size_t a = strlen(GPUC_H_LINE), b = strlen(rt_gpuc_h), c = strlen(CUDA_LINE),
               d = strlen(cuda);
        char *t = malloc(a + b + c + d + 1);
        if (!t)
            abort();
        memcpy(t, GPUC_H_LINE, a);
        memcpy(t + a, rt_gpuc_h, b);
        memcpy(t + a + b, CUDA_LINE, c);
        memcpy(t + a + b + c, cuda, d + 1);
        text[cuda_toolkit] = t;
    }
    return text[cuda_toolkit];
}

