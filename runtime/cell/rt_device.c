/* rt_device: splitting a .cu-style cell (see rt_device.h). */
#include "rt_device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
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

/* Non-zero when the item (of cell, a view of the cell's tokens) is device
 * code. */
static int is_device_item(const rt_tokens_t *cell, const rt_item_t *it)
{
    rt_tokens_t item = rt_tokens_view(cell, it->start, it->end, NULL);
    const char *code = item.src;
    const rt_tok_t *toks = item.v;
    size_t n = item.n;
    int device = 0;
    for (size_t i = 0; i < n && !device; i++)
        device = toks[i].kind == RT_TOK_IDENT && device_word(code + toks[i].start, toks[i].len);
    if (!device && n && toks[0].kind == RT_TOK_IDENT && rt_tok_is(code, &toks[0], "template"))
        device = 1;
    return device;
}

/* Non-zero when the item defines a type (struct, union, enum, typedef with
 * a body) and has no CUDA words. names gets the names it declares,
 * space-separated (its tag, a typedef's name); tag gets "struct T" for
 * `struct T {...};` (or union, enum) alone, else "". */
static int is_type_definition(const rt_tokens_t *cell, const rt_item_t *it, char *names,
                              size_t ncap, char *tag, size_t cap)
{
    tag[0] = names[0] = '\0';
    if (it->kind != RT_ITEM_DECLARATION)
        return 0;
    rt_tokens_t item = rt_tokens_view(cell, it->start, it->end, NULL);
    const char *code = item.src;
    const rt_tok_t *toks = item.v;
    size_t n = item.n;
    int type = n > 2 && toks[0].kind == RT_TOK_IDENT &&
               (rt_tok_is(code, &toks[0], "struct") || rt_tok_is(code, &toks[0], "union") ||
                rt_tok_is(code, &toks[0], "enum") || rt_tok_is(code, &toks[0], "typedef"));
    int depth = 0, body = 0;
    size_t o = 0;
    for (size_t i = 0; i < n && type; i++) {
        const rt_tok_t *t = &toks[i];
        if (t->kind == RT_TOK_IDENT && cuda_word(NULL, code + t->start, t->len))
            type = 0;
        depth += rt_tok_punct(code, t, "{") - rt_tok_punct(code, t, "}");
        body |= rt_tok_punct(code, t, "{");
        int named = t->kind == RT_TOK_IDENT && depth == 0 && i > 0 &&
                    !rt_tok_is(code, t, "struct") && !rt_tok_is(code, t, "union") &&
                    !rt_tok_is(code, t, "enum");
        if (named && o + t->len + 2 < ncap)
            o += (size_t)snprintf(names + o, ncap - o, "%.*s ", (int)t->len, code + t->start);
    }
    type &= body;
    if (type && !rt_tok_is(code, &toks[0], "typedef") && toks[1].kind == RT_TOK_IDENT && rt_tok_punct(code, &toks[2], "{") &&
        rt_tok_punct(code, &toks[n - 1], ";") && rt_tok_punct(code, &toks[n - 2], "}") &&
        toks[1].len + toks[0].len + 2 < cap)
        snprintf(tag, cap, "%.*s %.*s", (int)toks[0].len, code + toks[0].start,
                 (int)toks[1].len, code + toks[1].start);
    return type;
}

/* Non-zero when text uses one of the space-separated names as a word. */
static int uses_name(const char *text, const char *names)
{
    for (const char *w = names; *w;) {
        size_t len = strcspn(w, " ");
        for (const char *p = strstr(text, w); len && p; p = strstr(p + 1, w)) {
            char before = p > text ? p[-1] : ' ', after = p[len];
            if (!isalnum((unsigned char)before) && before != '_' &&
                !isalnum((unsigned char)after) && after != '_' && strncmp(p, w, len) == 0)
                return 1;
        }
        w += len + (w[len] == ' ');
    }
    return 0;
}

/* host with " typedef struct T T;" after each struct definition named in
 * tags (at[i]: the end of the definition). */
static char *add_typedefs(char *host, char **tags, const size_t *at, int n)
{
    cm_buf_t b = {0};
    size_t from = 0;
    for (int i = 0; i < n; i++) {
        const char *name = strchr(tags[i], ' ') + 1;
        cm_buf_add(&b, host + from, at[i] - from);
        cm_buf_addf(&b, " typedef %s %s;", tags[i], name);
        from = at[i];
        free(tags[i]);
    }
    cm_buf_adds(&b, host + from);
    free(host);
    return cm_buf_steal(&b);
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

int rt_device_split(const rt_tokens_t *cell, char **device, char **host)
{
    const char *code = cell->src;
    *device = *host = NULL;
    if (!strstr(code, "__global__") && !strstr(code, "__device__"))
        return 0;
    rt_cell_t items;
    rt_cell_split_tokens(cell, cuda_word, NULL, &items);
    size_t n = strlen(code);
    char *dev = malloc(n + 1), *rest = malloc(n + 1);
    if (!dev || !rest)
        abort();
    for (size_t i = 0; i < n; i++)
        dev[i] = rest[i] = code[i] == '\n' ? '\n' : ' ';
    dev[n] = rest[n] = '\0';
    int any = 0, ntags = 0;
    char **tags = calloc(items.n + 1, sizeof *tags);
    size_t *at = calloc(items.n + 1, sizeof *at);
    int *types = calloc(items.n + 1, sizeof *types); /* the items that define a type */
    if (!tags || !at || !types)
        abort();
    for (size_t i = 0; i < items.n; i++) {
        const rt_item_t *it = &items.items[i];
        char names[256], tag[140];
        int side = it->kind == RT_ITEM_DIRECTIVE ? directive_side(code, it)
                   : is_device_item(cell, it)    ? 1
                                                 : 2;
        if (side == 2 && is_type_definition(cell, it, names, sizeof names, tag, sizeof tag))
            types[i] = 1;
        if (side == 1 && it->kind != RT_ITEM_DIRECTIVE)
            any = 1;
        if (side & 1)
            memcpy(dev + it->start, code + it->start, it->end - it->start);
        if (side & 2)
            memcpy(rest + it->start, code + it->start, it->end - it->start);
    }
    /* a type the device code uses goes there too, as a .cu file gives it to
     * both sides; last first, so that a type it uses in turn follows */
    for (size_t i = items.n; i-- > 0;) {
        const rt_item_t *it = &items.items[i];
        char names[256], tag[140];
        if (!types[i] || !is_type_definition(cell, it, names, sizeof names, tag, sizeof tag) ||
            !uses_name(dev, names))
            continue;
        memcpy(dev + it->start, code + it->start, it->end - it->start);
        if (tag[0]) {
            tags[ntags] = strdup(tag);
            at[ntags++] = it->end;
        }
    }
    free(types);
    /* in order of position, for add_typedefs */
    for (int a = 0, b = ntags - 1; a < b; a++, b--) {
        char *t = tags[a];
        size_t e = at[a];
        tags[a] = tags[b], at[a] = at[b];
        tags[b] = t, at[b] = e;
    }
    rt_cell_free(&items);
    if (!any) {
        for (int i = 0; i < ntags; i++)
            free(tags[i]);
        free(tags);
        free(at);
        free(dev);
        free(rest);
        return 0;
    }
    *device = dev;
    *host = add_typedefs(rest, tags, at, ntags);
    free(tags);
    free(at);
    return 1;
}
