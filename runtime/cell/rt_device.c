/* rt_device: splitting a .cu-style cell (see rt_device.h). */
#include "rt_device.h"

#include <stdlib.h>
#include <string.h>

#include "rt_cell.h"
#include "rt_lex.h"

/* The CUDA words that make a top-level item device code. */
static int device_word(const char *w, size_t n)
{
    static const char *const words[] = {"__global__", "__device__", "__constant__",
                                        "__managed__", "__shared__", NULL};
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == n && memcmp(w, words[i], n) == 0)
            return 1;
    return 0;
}

static int cuda_word(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    return device_word(name, len) || (len == 8 && memcmp(name, "__host__", 8) == 0) ||
           (len == 15 && memcmp(name, "__forceinline__", 15) == 0);
}

/* Non-zero when the item is device code. */
static int is_device_item(const char *code, const rt_item_t *it)
{
    rt_tok_t *toks;
    size_t n = rt_lex_all(code, it->start, it->end, it->line, &toks, NULL);
    int device = 0;
    for (size_t i = 0; i < n && !device; i++)
        device = toks[i].kind == RT_TOK_IDENT && device_word(code + toks[i].start, toks[i].len);
    if (!device && n && toks[0].kind == RT_TOK_IDENT && rt_tok_is(code, &toks[0], "template"))
        device = 1;
    free(toks);
    return device;
}

/* 1: device, 2: host, 3: both. */
static int directive_side(const char *code, const rt_item_t *it)
{
    const char *d = code + it->start;
    size_t n = it->end - it->start;
    if (!memmem(d, n, "include", 7))
        return 3;
    if (memmem(d, n, "cuda", 4) || memmem(d, n, "curand", 6) || memmem(d, n, "cooperative", 11) ||
        memmem(d, n, "cub/", 4) || memmem(d, n, "thrust/", 7))
        return 1;
    return 2;
}

int rt_device_split(const char *code, char **device, char **host)
{
    *device = *host = NULL;
    if (!strstr(code, "__global__") && !strstr(code, "__device__"))
        return 0;
    rt_cell_t items;
    rt_cell_split(code, cuda_word, NULL, &items);
    size_t n = strlen(code);
    char *dev = malloc(n + 1), *rest = malloc(n + 1);
    if (!dev || !rest)
        abort();
    for (size_t i = 0; i < n; i++)
        dev[i] = rest[i] = code[i] == '\n' ? '\n' : ' ';
    dev[n] = rest[n] = '\0';
    int any = 0;
    for (size_t i = 0; i < items.n; i++) {
        const rt_item_t *it = &items.items[i];
        int side = it->kind == RT_ITEM_DIRECTIVE ? directive_side(code, it)
                   : is_device_item(code, it)    ? 1
                                                 : 2;
        if (side == 1 && it->kind != RT_ITEM_DIRECTIVE)
            any = 1;
        if (side & 1)
            memcpy(dev + it->start, code + it->start, it->end - it->start);
        if (side & 2)
            memcpy(rest + it->start, code + it->start, it->end - it->start);
    }
    rt_cell_free(&items);
    if (!any) {
        free(dev);
        free(rest);
        return 0;
    }
    *device = dev;
    *host = rest;
    return 1;
}
