/* rt_device: splitting a .cu-style cell, and what of a host cell device
 * code may use (see rt_device.h). */
#include "rt_device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "rt_cell.h"
#include "rt_lex.h"

static int word_in(const char *w, size_t n, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == n && memcmp(w, words[i], n) == 0)
            return 1;
    return 0;
}

/* The CUDA words that make a top-level item device code. */
static int device_word(const char *w, size_t n)
{
    static const char *const words[] = {"__global__", "__device__", "__constant__",
                                        "__managed__", "__shared__", NULL};
    return word_in(w, n, words);
}

static int cuda_word(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    return device_word(name, len) || (len == 8 && memcmp(name, "__host__", 8) == 0) ||
           (len == 15 && memcmp(name, "__forceinline__", 15) == 0);
}

/* An item's tokens: a view of the cell's (borrowed; items begin and end
 * at tokens of the cell). */
typedef struct item_toks {
    const rt_tok_t *v;
    size_t n;
} item_toks_t;

static item_toks_t item_tokens(const rt_tokens_t *cell, const rt_item_t *it)
{
    rt_tokens_t view = rt_tokens_view(cell, it->start, it->end, NULL);
    item_toks_t t = {view.v, view.n};
    return t;
}

static int has_word(const char *code, const item_toks_t *t, const char *word)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].kind == RT_TOK_IDENT && rt_tok_is(code, &t->v[i], word))
            return 1;
    return 0;
}

/* Which side an item goes to, as nvcc's two compilers see one .cu file. */
enum { DEVICE = 1, HOST = 2, BOTH = 3 };

/* The side of an item with CUDA words, or 0 when it has none: a
 * `__host__ __device__` function is compiled for both, other items with
 * device words for the device. */
static int cuda_side(const char *code, const item_toks_t *t)
{
    int device = 0;
    for (size_t i = 0; i < t->n && !device; i++)
        device = t->v[i].kind == RT_TOK_IDENT && device_word(code + t->v[i].start, t->v[i].len);
    if (!device)
        return 0;
    return has_word(code, t, "__host__") && !has_word(code, t, "__global__") ? BOTH : DEVICE;
}

/* ---- C++ items ---------------------------------------------------------- */

/* Whether the '{' at toks[i] opens a function's body: it follows the
 * parameter list (and its const / noexcept). */
static int opens_body(const char *code, const rt_tok_t *toks, size_t i)
{
    if (i == 0)
        return 0;
    const rt_tok_t *p = &toks[i - 1];
    return rt_tok_punct(code, p, ")") || rt_tok_is(code, p, "const") ||
           rt_tok_is(code, p, "noexcept") || rt_tok_is(code, p, "override");
}

static void add_item(rt_cell_t *out, size_t *cap, rt_item_t it)
{
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        out->items = realloc(out->items, *cap * sizeof *out->items);
        if (!out->items)
            abort();
    }
    out->items[out->n++] = it;
}

/* The cell's items, with those the C splitter took together split again
 * at C++'s top-level ends (a template's declaration or definition is
 * C++, and the C splitter runs it into the items after it): a ';' or a
 * function body's '}' outside brackets. */
static void split_items(const rt_tokens_t *cell, rt_cell_t *out)
{
    const char *code = cell->src;
    rt_cell_t c;
    rt_cell_split_tokens(cell, cuda_word, NULL, &c);
    size_t cap = 0;
    out->items = NULL;
    out->n = 0;
    for (size_t i = 0; i < c.n; i++) {
        rt_item_t it = c.items[i];
        if (it.kind == RT_ITEM_DIRECTIVE || !memmem(code + it.start, it.end - it.start, "template", 8)) {
            add_item(out, &cap, it);
            continue;
        }
        item_toks_t own = item_tokens(cell, &it);
        const rt_tok_t *toks = own.v;
        size_t n = own.n, from = 0;
        int depth = 0, body = 0;
        for (size_t k = 0; k < n; k++) {
            const rt_tok_t *t = &toks[k];
            if (depth == 0 && rt_tok_punct(code, t, "{"))
                body = opens_body(code, toks, k);
            depth += rt_tok_opens(code, t) - rt_tok_closes(code, t);
            int end = depth == 0 && (rt_tok_punct(code, t, ";") ||
                                     (body && rt_tok_punct(code, t, "}")));
            if (!end && k + 1 < n)
                continue;
            rt_item_t sub = {body ? RT_ITEM_FUNCTION : RT_ITEM_DECLARATION,
                             toks[from].start, t->start + t->len, 0, toks[from].line, t->line,
                             rt_tok_punct(code, t, ";")};
            if (k + 1 == n && from == 0)
                sub = it; /* one item after all */
            add_item(out, &cap, sub);
            from = k + 1;
            body = 0;
        }
    }
    rt_cell_free(&c);
}

/* ---- declarations both sides may need -------------------------------- */

/* The scalar types whose namespace-scope constants device code may use
 * (nvcc: scalar, not long double, initialised with a constant). */
static int scalar_word(const char *w, size_t n)
{
    static const char *const words[] = {
        "const", "constexpr", "static", "unsigned", "signed", "int", "long", "short", "char",
        "float", "double", "bool", "_Bool", "size_t", "ptrdiff_t", "int8_t", "int16_t",
        "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", NULL};
    return word_in(w, n, words);
}

/* The words an initialiser of a constant may hold besides numbers,
 * operators and other names: casts to scalar types, sizeof. */
static int constant_word(const char *w, size_t n)
{
    return scalar_word(w, n) || (n == 6 && memcmp(w, "sizeof", 6) == 0);
}

/* Appends name t to names (space-separated). */
static void add_name(const char *code, const rt_tok_t *t, char *names, size_t cap)
{
    size_t o = strlen(names);
    if (o + t->len + 2 < cap)
        snprintf(names + o, cap - o, "%.*s ", (int)t->len, code + t->start);
}

/* `const int N = 1024;`, `constexpr float a = 2.5f, b = 2 * a;`: a
 * namespace-scope constant of scalar type with a constant initialiser
 * (numbers, operators, other names, casts; no call, no array, no
 * pointer, no `long double`). names gets the names it declares. */
static int is_constant(const char *code, const item_toks_t *t, char *names, size_t cap)
{
    int konst = 0, longs = 0, dbl = 0;
    size_t i = 0;
    for (; i < t->n && t->v[i].kind == RT_TOK_IDENT && scalar_word(code + t->v[i].start, t->v[i].len);
         i++) {
        konst |= rt_tok_is(code, &t->v[i], "const") || rt_tok_is(code, &t->v[i], "constexpr");
        longs += rt_tok_is(code, &t->v[i], "long");
        dbl |= rt_tok_is(code, &t->v[i], "double");
    }
    if (!konst || i == 0 || (longs && dbl))
        return 0;
    names[0] = '\0';
    /* declarators: NAME = INIT, ... ; */
    while (i + 2 < t->n && t->v[i].kind == RT_TOK_IDENT && rt_tok_punct(code, &t->v[i + 1], "=")) {
        add_name(code, &t->v[i], names, cap);
        size_t j = i + 2;
        int depth = 0;
        for (; j < t->n; j++) {
            const rt_tok_t *u = &t->v[j];
            if (depth == 0 && (rt_tok_punct(code, u, ",") || rt_tok_punct(code, u, ";")))
                break;
            depth += rt_tok_opens(code, u) - rt_tok_closes(code, u);
            if (u->kind == RT_TOK_STRING || u->kind == RT_TOK_DIRECTIVE || rt_tok_punct(code, u, "{"))
                return 0;
            if (u->kind == RT_TOK_IDENT && j + 1 < t->n && rt_tok_punct(code, &t->v[j + 1], "(") &&
                !constant_word(code + u->start, u->len))
                return 0; /* a call: not a constant expression of C */
        }
        if (j >= t->n)
            return 0;
        if (rt_tok_punct(code, &t->v[j], ";"))
            return j + 1 == t->n;
        i = j + 1;
    }
    return 0;
}

/* `typedef T NAME;` / `typedef struct {...} NAME;`, `using NAME = T;`,
 * `struct T {...};` (or union, enum, with declarators after), and
 * `template <...> struct T {...};`: a declaration of types both sides may
 * need. names gets the names it declares; tag gets "struct T" for a
 * `struct T {...};` alone (the host names it T too), else "". */
static int is_type_declaration(const char *code, const item_toks_t *t, char *names, size_t ncap,
                               char *tag, size_t cap)
{
    tag[0] = names[0] = '\0';
    size_t n = t->n, first = 0;
    const rt_tok_t *v = t->v;
    if (n < 3 || v[0].kind != RT_TOK_IDENT)
        return 0;
    if (rt_tok_is(code, &v[0], "using")) { /* an alias; `using namespace` is not */
        if (v[1].kind != RT_TOK_IDENT || rt_tok_is(code, &v[1], "namespace") ||
            !rt_tok_punct(code, &v[2], "="))
            return 0;
        add_name(code, &v[1], names, ncap);
        return 1;
    }
    if (rt_tok_is(code, &v[0], "template")) { /* a class template, not a function's */
        if (!rt_tok_punct(code, &v[1], "<"))
            return 0;
        int depth = 0;
        for (first = 1; first < n; first++) {
            depth += rt_tok_punct(code, &v[first], "<") - rt_tok_punct(code, &v[first], ">");
            depth -= 2 * rt_tok_punct(code, &v[first], ">>");
            if (depth <= 0)
                break;
        }
        if (++first + 2 >= n || !(rt_tok_is(code, &v[first], "struct") ||
                                  rt_tok_is(code, &v[first], "class")) ||
            v[first + 1].kind != RT_TOK_IDENT || !rt_tok_punct(code, &v[n - 1], ";"))
            return 0;
        add_name(code, &v[first + 1], names, ncap);
        return 1;
    }
    int typedef_ = rt_tok_is(code, &v[0], "typedef");
    if (!typedef_ && !rt_tok_is_tag_keyword(code, &v[0]))
        return 0;
    if (typedef_ && n == 5 && rt_tok_is_tag_keyword(code, &v[1]) && v[2].len == v[3].len &&
        memcmp(code + v[2].start, code + v[3].start, v[2].len) == 0)
        return 0; /* `typedef struct T T;` names what C++ names already */
    int depth = 0, body = 0;
    for (size_t i = 0; i < n; i++) {
        const rt_tok_t *u = &v[i];
        if (u->kind == RT_TOK_IDENT && cuda_word(NULL, code + u->start, u->len))
            return 0;
        depth += rt_tok_punct(code, u, "{") - rt_tok_punct(code, u, "}");
        body |= rt_tok_punct(code, u, "{");
        if (depth == 0 && rt_tok_punct(code, u, "(") && !typedef_)
            return 0; /* a function returning a struct */
        int named = u->kind == RT_TOK_IDENT && depth == 0 && i > 0 &&
                    !rt_tok_is_tag_keyword(code, u) && (i + 1 >= n || !rt_tok_punct(code, &v[i + 1], "{"));
        int enumerator = depth == 1 && i > 0 && u->kind == RT_TOK_IDENT &&
                         (rt_tok_punct(code, &v[i - 1], "{") || rt_tok_punct(code, &v[i - 1], ",")) &&
                         (rt_tok_is(code, &v[0], "enum") || rt_tok_is(code, &v[1], "enum"));
        if ((named && (typedef_ || body)) || enumerator)
            add_name(code, u, names, ncap);
    }
    if (!body && !typedef_)
        return 0; /* `struct T x;`: a variable */
    if (v[1].kind == RT_TOK_IDENT && !typedef_)
        add_name(code, &v[1], names, ncap); /* the tag */
    if (!typedef_ && v[1].kind == RT_TOK_IDENT && rt_tok_punct(code, &v[2], "{") &&
        rt_tok_punct(code, &v[n - 1], ";") && rt_tok_punct(code, &v[n - 2], "}") &&
        v[1].len + v[0].len + 2 < cap)
        snprintf(tag, cap, "%.*s %.*s", (int)v[0].len, code + v[0].start, (int)v[1].len,
                 code + v[1].start);
    return 1;
}

/* A declaration that device code may use as written in host code: types
 * and constants (names: what it declares; tag as in is_type_declaration). */
static int is_shared_declaration(const rt_tokens_t *cell, const rt_item_t *it, char *names,
                                 size_t ncap, char *tag, size_t cap)
{
    const char *code = cell->src;
    tag[0] = names[0] = '\0';
    if (it->kind != RT_ITEM_DECLARATION && it->kind != RT_ITEM_STATEMENT &&
        it->kind != RT_ITEM_FUNCTION)
        return 0;
    item_toks_t t = item_tokens(cell, it);
    int shared = !cuda_side(code, &t) &&
                 (is_type_declaration(code, &t, names, ncap, tag, cap) ||
                  is_constant(code, &t, names, ncap));
    return shared && names[0];
}

/* `using namespace N;` or `namespace A = N;`: N's length and start into
 * *len and *at, else 0. */
static int namespace_use(const rt_tokens_t *cell, const rt_item_t *it, size_t *at, size_t *len)
{
    const char *code = cell->src;
    item_toks_t t = item_tokens(cell, it);
    size_t from = 0;
    if (t.n >= 4 && rt_tok_is(code, &t.v[0], "using") && rt_tok_is(code, &t.v[1], "namespace"))
        from = 2;
    else if (t.n >= 5 && rt_tok_is(code, &t.v[0], "namespace") && rt_tok_punct(code, &t.v[2], "="))
        from = 3;
    int found = from && rt_tok_punct(code, &t.v[t.n - 1], ";");
    for (size_t i = from; found && i + 1 < t.n; i++)
        found = t.v[i].kind == RT_TOK_IDENT || rt_tok_punct(code, &t.v[i], "::");
    if (found) {
        *at = t.v[from].start;
        *len = t.v[t.n - 2].start + t.v[t.n - 2].len - *at;
    }
    return found;
}

/* Non-zero when text uses one of the space-separated names as a word. */
static int uses_name(const char *text, const char *names)
{
    size_t n = strlen(text);
    for (const char *w = names; *w;) {
        size_t len = strcspn(w, " ");
        for (const char *p = memmem(text, n, w, len); len && p;
             p = memmem(p + 1, n - (size_t)(p + 1 - text), w, len)) {
            char before = p > text ? p[-1] : ' ', after = p[len];
            if (!isalnum((unsigned char)before) && before != '_' &&
                !isalnum((unsigned char)after) && after != '_')
                return 1;
        }
        w += len + (w[len] == ' ');
    }
    return 0;
}

/* ---- the two parts ----------------------------------------------------- */

/* Text inserted into a part at a byte offset (on that byte's line, so
 * lines stay). */
typedef struct insert {
    size_t at;
    char *text;
    int side; /* DEVICE, HOST or BOTH */
} insert_t;

typedef struct inserts {
    insert_t *v;
    size_t n;
} inserts_t;

static void insert_add(inserts_t *l, size_t at, int side, char *text)
{
    l->v[l->n++] = (insert_t){at, text, side};
}

static int by_offset(const void *a, const void *b)
{
    const insert_t *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* part with the inserts of its side put in (part is freed). */
static char *apply_inserts(char *part, const inserts_t *l, int side)
{
    cm_buf_t b = {0};
    size_t from = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!(l->v[i].side & side))
            continue;
        cm_buf_add(&b, part + from, l->v[i].at - from);
        cm_buf_adds(&b, l->v[i].text);
        from = l->v[i].at;
    }
    cm_buf_adds(&b, part + from);
    free(part);
    return cm_buf_steal(&b);
}

/* 1: device, 2: host, 3: both. */
static int directive_side(const char *code, const rt_item_t *it)
{
    const char *d = code + it->start;
    size_t n = it->end - it->start;
    if (!memmem(d, n, "include", 7))
        return BOTH;
    if (memmem(d, n, "cuda", 4) || memmem(d, n, "curand", 6) || memmem(d, n, "cooperative", 11) ||
        memmem(d, n, "cub/", 4) || memmem(d, n, "thrust/", 7))
        return DEVICE;
    return HOST;
}

/* The side of an item with no CUDA words: host, but a type declaration or
 * constant both sides may need is marked 4 (host, and the device through
 * rt_device_declarations), a namespace use goes to both. */
static int plain_side(const rt_tokens_t *cell, const rt_item_t *it)
{
    char names[256], tag[140];
    size_t at, len;
    if (is_shared_declaration(cell, it, names, sizeof names, tag, sizeof tag))
        return 4;
    if (namespace_use(cell, it, &at, &len))
        return BOTH;
    return HOST;
}

/* Blanks __host__, __device__ and __forceinline__ in text[from, to), for
 * the host's copy of a `__host__ __device__` function. */
static void blank_cuda_words(char *text, const rt_tokens_t *cell, const rt_item_t *it)
{
    const char *code = cell->src;
    item_toks_t t = item_tokens(cell, it);
    for (size_t i = 0; i < t.n; i++)
        if (t.v[i].kind == RT_TOK_IDENT && cuda_word(NULL, code + t.v[i].start, t.v[i].len))
            memset(text + t.v[i].start, ' ', t.v[i].len);
}

int rt_device_split(const rt_tokens_t *cell, char **device, char **host)
{
    const char *code = cell->src;
    *device = *host = NULL;
    if (!strstr(code, "__global__") && !strstr(code, "__device__"))
        return 0;
    rt_cell_t items;
    split_items(cell, &items);
    size_t n = strlen(code);
    char *dev = malloc(n + 1), *rest = malloc(n + 1);
    int *sides = calloc(items.n + 1, sizeof *sides);
    inserts_t ins = {calloc(2 * items.n + 1, sizeof *ins.v), 0};
    if (!dev || !rest || !sides || !ins.v)
        abort();
    for (size_t i = 0; i < n; i++)
        dev[i] = rest[i] = code[i] == '\n' ? '\n' : ' ';
    dev[n] = rest[n] = '\0';
    int any = 0;
    for (size_t i = 0; i < items.n; i++) {
        const rt_item_t *it = &items.items[i];
        if (it->kind == RT_ITEM_DIRECTIVE) {
            sides[i] = directive_side(code, it);
        } else {
            item_toks_t t = item_tokens(cell, it);
            sides[i] = cuda_side(code, &t);
            any |= sides[i] != 0;
            if (!sides[i])
                sides[i] = plain_side(cell, it);
        }
        if (sides[i] & DEVICE && sides[i] != 4)
            memcpy(dev + it->start, code + it->start, it->end - it->start);
        if (sides[i] & HOST || sides[i] == 4)
            memcpy(rest + it->start, code + it->start, it->end - it->start);
        if (sides[i] == BOTH && it->kind != RT_ITEM_DIRECTIVE)
            blank_cuda_words(rest, cell, it);
    }
    /* a struct the device code uses (last first, so that what it uses in
     * turn follows) is named without `struct` on the host too, as C++ does;
     * the device gets it through rt_device_declarations */
    char *uses = strdup(dev);
    if (!uses)
        abort();
    for (size_t i = items.n; any && i-- > 0;) {
        const rt_item_t *it = &items.items[i];
        char names[256], tag[140];
        if (sides[i] != 4 ||
            !is_shared_declaration(cell, it, names, sizeof names, tag, sizeof tag) ||
            !uses_name(uses, names))
            continue;
        memcpy(uses + it->start, code + it->start, it->end - it->start);
        if (tag[0]) {
            char *td = malloc(2 * strlen(tag) + 16);
            if (!td)
                abort();
            sprintf(td, " typedef %s %s;", tag, strchr(tag, ' ') + 1);
            insert_add(&ins, it->end, HOST, td);
        }
    }
    /* `using namespace N;` on a side that does not declare N: an empty
     * `namespace N {}` in front makes it valid, as one file declares N for
     * both compilers */
    for (size_t i = 0; any && i < items.n; i++) {
        size_t at, len;
        const rt_item_t *it = &items.items[i];
        if (it->kind == RT_ITEM_DIRECTIVE || sides[i] != BOTH || !namespace_use(cell, it, &at, &len))
            continue;
        char *ns = malloc(len + 16);
        if (!ns)
            abort();
        snprintf(ns, len + 16, "namespace %.*s {} ", (int)len, code + at);
        insert_add(&ins, it->start, BOTH, ns);
    }
    free(uses);
    free(sides);
    rt_cell_free(&items);
    qsort(ins.v, ins.n, sizeof *ins.v, by_offset);
    if (any) {
        *device = apply_inserts(dev, &ins, DEVICE);
        *host = apply_inserts(rest, &ins, HOST);
    } else {
        free(dev);
        free(rest);
    }
    for (size_t i = 0; i < ins.n; i++)
        free(ins.v[i].text);
    free(ins.v);
    return any;
}

int rt_device_has_code(const char *text)
{
    rt_lexer_t lx;
    rt_tok_t t;
    rt_lex_init(&lx, text, 0, strlen(text), 1);
    rt_tok_kind_t k;
    while ((k = rt_lex_next(&lx, &t)) == RT_TOK_DIRECTIVE)
        ;
    return k != RT_TOK_EOF;
}

/* ---- a host cell's declarations for later device code ----------------- */

int rt_device_declarations(const rt_tokens_t *read, rt_device_decl_fn fn, void *ctx)
{
    const char *code = read->src;
    if (!strstr(code, "define") && !strstr(code, "typedef") && !strstr(code, "using") &&
        !strstr(code, "const") && !strstr(code, "struct") && !strstr(code, "union") &&
        !strstr(code, "enum"))
        return 0;
    rt_cell_t items;
    split_items(read, &items);
    int count = 0;
    for (size_t i = 0; i < items.n; i++) {
        const rt_item_t *it = &items.items[i];
        char names[256], tag[140];
        int macro = it->kind == RT_ITEM_DIRECTIVE &&
                    rt_directive_is(code + it->start, it->end - it->start, "define");
        if (!macro && !is_shared_declaration(read, it, names, sizeof names, tag, sizeof tag))
            continue;
        cm_buf_t b = {0};
        for (int l = 1; l < it->line; l++)
            cm_buf_adds(&b, "\n");
        cm_buf_add(&b, code + it->start, it->end - it->start);
        cm_buf_adds(&b, "\n");
        fn(ctx, cm_buf_str(&b));
        cm_buf_free(&b);
        count++;
    }
    rt_cell_free(&items);
    return count;
}
