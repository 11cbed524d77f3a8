/* rt_cxx: C++ host cells as text (see rt_cxx.h). */
#include "rt_cxx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "cm_vec.h"
#include "rt_lex.h"

typedef rt_tokens_t toks_t;

static int is(const toks_t *t, size_t i, const char *text)
{
    return i < t->n && rt_tok_is(t->src, &t->v[i], text);
}

static int is_ident(const toks_t *t, size_t i)
{
    return i < t->n && t->v[i].kind == RT_TOK_IDENT;
}

/* toks[i], toks[i + 1] are "::" (the lexer knows C: two ':'). */
static int is_scope(const toks_t *t, size_t i)
{
    return is(t, i, ":") && is(t, i + 1, ":") && t->v[i + 1].start == t->v[i].start + 1;
}

static int one_of(const toks_t *t, size_t i, const char *const *words)
{
    for (int k = 0; words[k]; k++)
        if (is(t, i, words[k]))
            return 1;
    return 0;
}

/* For the texts this file makes or is given as text (a C++ cell's parts
 * for the compiler, what later cells keep): the cell runner's tests take
 * the cell's tokens instead. */
static void lex(const char *code, toks_t *t)
{
    rt_tokens_lex(t, code, 0, strlen(code), 1);
}

/* ---- detection ------------------------------------------------------ */

/* #include <name> with no '.' in name: a C++ header (C headers end in .h). */
static int cxx_include(const char *src, const rt_tok_t *d)
{
    char name[256];
    const char *lt = memchr(src + d->start, '<', d->len);
    if (!lt || !rt_directive_include(src + d->start, d->len, name, sizeof name) || !name[0])
        return 0;
    return !strchr(name, '.') || strcmp(name, "bits/stdc++.h") == 0;
}

int rt_cxx_runtime_include(const char *directive, size_t len)
{
    static const char *const names[] = {"cuda_runtime.h", "cuda_runtime_api.h",
                                        "device_launch_parameters.h", "vector_types.h", NULL};
    char name[256];
    if (!rt_directive_include(directive, len, name, sizeof name))
        return 0;
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

int rt_cxx_library_include(const char *d, size_t len)
{
    char name[256];
    const char *open = memchr(d, '<', len);
    return rt_directive_include(d, len, name, sizeof name) && open &&
           !memchr(d, '"', (size_t)(open - d));
}

void rt_cxx_blank_runtime_includes(char *code)
{
    toks_t t;
    lex(code, &t);
    for (size_t i = 0; i < t.n; i++)
        if (t.v[i].kind == RT_TOK_DIRECTIVE &&
            rt_cxx_runtime_include(code + t.v[i].start, t.v[i].len))
            for (size_t k = t.v[i].start; k < t.v[i].start + t.v[i].len; k++)
                if (code[k] != '\n')
                    code[k] = ' ';
    free(t.v);
}

/* Where a declaration or statement may start: the cell's start or after
 * ; { } or a directive. */
static int at_item_start(const toks_t *t, size_t i)
{
    return i == 0 || t->v[i - 1].kind == RT_TOK_DIRECTIVE || is(t, i - 1, ";") ||
           is(t, i - 1, "{") || is(t, i - 1, "}");
}

static int marker(const toks_t *t, size_t i)
{
    static const char *const casts[] = {"static_cast", "dynamic_cast", "reinterpret_cast",
                                        "const_cast", NULL};
    if (t->v[i].kind == RT_TOK_DIRECTIVE)
        return cxx_include(t->src, &t->v[i]);
    if (is(t, i, "std") && is_scope(t, i + 1))
        return 1;
    if (is(t, i, "using") && is(t, i + 1, "namespace"))
        return 1;
    if (is(t, i, "extern") && i + 1 < t->n && t->v[i + 1].kind == RT_TOK_STRING)
        return 1;
    if (is(t, i, "namespace") && at_item_start(t, i) && is_ident(t, i + 1) && is(t, i + 2, "{"))
        return 1;
    if (is(t, i, "class") && at_item_start(t, i) && is_ident(t, i + 1) &&
        (is(t, i + 2, "{") || (is(t, i + 2, ":") && !is_scope(t, i + 2))))
        return 1;
    if (is(t, i, "template") && is(t, i + 1, "<") && at_item_start(t, i))
        return 1;
    if (one_of(t, i, casts) && is(t, i + 1, "<"))
        return 1;
    /* new T... where new is not a name being declared or used (`int new;`,
     * `new = 3`, `new(x)`, `p->new`) */
    if (is(t, i, "new") && is_ident(t, i + 1) && i > 0 && !is_ident(t, i - 1) &&
        !is(t, i - 1, "*") && !is(t, i - 1, ".") && !is(t, i - 1, "->"))
        return 1;
    if (is(t, i, "delete") && at_item_start(t, i) &&
        ((is(t, i + 1, "[") && is(t, i + 2, "]")) || (is_ident(t, i + 1) && is(t, i + 2, ";"))))
        return 1;
    return 0;
}

int rt_cxx_detect(const rt_tokens_t *t)
{
    int found = 0;
    for (size_t i = 0; i < t->n && !found; i++)
        found = marker(t, i);
    return found;
}

int rt_cxx_uses_any(const rt_tokens_t *t, const char *const *names, size_t n)
{
    int found = 0;
    for (size_t i = 0; i < t->n && !found; i++)
        for (size_t k = 0; k < n && !found && t->v[i].kind == RT_TOK_IDENT; k++)
            found = is(t, i, names[k]) && !(i > 0 && (is(t, i - 1, ".") || is(t, i - 1, "->")));
    return found;
}

int rt_cxx_has_device_words(const rt_tokens_t *t)
{
    static const char *const words[] = {"__global__", "__device__", "__constant__",
                                        "__managed__", "__shared__", NULL};
    int found = 0;
    for (size_t i = 0; i < t->n && !found; i++)
        found = one_of(t, i, words);
    return found;
}

/* ---- splitting ------------------------------------------------------ */

/* Words that start a declaration. */
static const char *const decl_words[] = {
    "template", "class", "struct", "union", "enum", "namespace", "using", "typedef", "extern",
    "static", "inline", "constexpr", "consteval", "constinit", "const", "volatile", "auto",
    "void", "int", "char", "short", "long", "float", "double", "signed", "unsigned", "bool",
    "wchar_t", "char8_t", "char16_t", "char32_t", "thread_local", "register", "static_assert",
    "virtual", "explicit", "friend", "mutable", "alignas", "__attribute__", "_Bool", NULL};

/* Words that start a statement. */
static const char *const stmt_words[] = {"if", "for", "while", "do", "switch", "return",
                                         "break", "continue", "goto", "try", "throw",
                                         "delete", "case", "default", NULL};

/* The index after a template argument list opening at toks[i] ('<'), or
 * 0 when it is not one (a comparison). */
static size_t skip_angles(const toks_t *t, size_t i, size_t end)
{
    int depth = 0;
    for (size_t k = i; k < end; k++) {
        if (is(t, k, "<"))
            depth++;
        else if (is(t, k, ">"))
            depth--;
        else if (is(t, k, ">>"))
            depth -= 2;
        else if (is(t, k, ";") || is(t, k, "{") || is(t, k, "}"))
            return 0;
        else if (rt_tok_opens(t->src, &t->v[k])) {
            k = rt_tok_match(t->src, t->v, end, k);
            if (k >= end)
                return 0;
        }
        if (depth <= 0)
            return depth == 0 ? k + 1 : 0;
    }
    return 0;
}

/* A qualified name with template arguments from toks[i] (`std::vector<int>`,
 * `::f`, `A<B>::C`, `Foo::~Foo`): the index after it, or i when none. */
static size_t skip_name(const toks_t *t, size_t i, size_t end)
{
    size_t k = i;
    if (is_scope(t, k))
        k += 2;
    for (;;) {
        if (is(t, k, "~"))
            k++;
        if (!is_ident(t, k) || k >= end)
            return i;
        k++;
        if (is(t, k, "<")) {
            size_t after = skip_angles(t, k, end);
            if (after)
                k = after;
        }
        if (!is_scope(t, k))
            return k;
        k += 2;
    }
}

/* Whether the item toks[i, end) that starts with a name is a declaration:
 * `Type name...`, `Type *name`, `Type &name`, or an out-of-class
 * definition `A::f(...) {` (a call `f(x);` is a statement). */
static int name_declares(const toks_t *t, size_t i, size_t end)
{
    size_t k = skip_name(t, i, end);
    if (k == i)
        return 0;
    if (is(t, k, "(")) {
        size_t close = rt_tok_match(t->src, t->v, end, k);
        return close < end && (is(t, close + 1, "{") || (is(t, close + 1, ":") && !is_scope(t, close + 1)) ||
                               is(t, close + 1, "const") || is(t, close + 1, "noexcept") ||
                               is(t, close + 1, "->") || is(t, close + 1, "override"));
    }
    size_t names = k;
    while (k < end && (is(t, k, "*") || is(t, k, "&") || is(t, k, "&&") || is(t, k, "const") ||
                       is(t, k, "volatile")))
        k++;
    if (is(t, k, "operator"))
        return 1;
    /* `a * b;` declares b, as C++ reads it; `x = 1`, `x.f()`, `a < b` do not */
    return k < end && is_ident(t, k) && (k > names || is_ident(t, names));
}

static rt_item_kind_t classify(const toks_t *t, size_t i, size_t end)
{
    if (one_of(t, i, stmt_words) || is(t, i, "{"))
        return RT_ITEM_STATEMENT;
    if (one_of(t, i, decl_words) || is(t, i, "[") /* [[attribute]] */)
        return RT_ITEM_DECLARATION;
    if (is_ident(t, i) || is_scope(t, i))
        return name_declares(t, i, end) ? RT_ITEM_DECLARATION : RT_ITEM_STATEMENT;
    return RT_ITEM_STATEMENT;
}

/* Whether the item toks[first, ...) is a class, struct, union or enum
 * definition (it ends at ';', not at its closing brace), with the brace
 * that just closed opening at toks[open]. */
static int class_like(const toks_t *t, size_t first, size_t open)
{
    size_t k = first;
    if (is(t, k, "template") && is(t, k + 1, "<"))
        k = skip_angles(t, k + 1, open);
    while (is(t, k, "typedef") || is(t, k, "static") || is(t, k, "const"))
        k++;
    return (is(t, k, "class") || is(t, k, "struct") || is(t, k, "union") || is(t, k, "enum")) &&
           open > 0 && !is(t, open - 1, ")");
}

static void add_item(rt_cell_t *out, size_t *cap, const toks_t *t, size_t first, size_t last)
{
    CM_VEC_GROW(out->items, out->n, *cap);
    const rt_tok_t *a = &t->v[first], *b = &t->v[last];
    rt_item_t *it = &out->items[out->n++];
    memset(it, 0, sizeof *it);
    it->kind = a->kind == RT_TOK_DIRECTIVE ? RT_ITEM_DIRECTIVE : classify(t, first, last + 1);
    it->start = a->start;
    it->end = b->start + b->len;
    it->line = a->line;
    it->end_line = b->line;
    for (size_t k = b->start; k < it->end; k++)
        it->end_line += t->src[k] == '\n';
    it->has_semicolon = is(t, last, ";");
}

static void split_toks(const toks_t *t, rt_cell_t *out)
{
    size_t cap = 0, first = 0;
    int depth = 0;
    size_t open = 0; /* the depth-0 '{' of the current item */
    out->items = NULL;
    out->n = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (depth == 0 && t->v[i].kind == RT_TOK_DIRECTIVE) {
            if (first < i)
                add_item(out, &cap, t, first, i - 1);
            add_item(out, &cap, t, i, i);
            first = i + 1;
            continue;
        }
        if (rt_tok_opens(t->src, &t->v[i])) {
            if (depth == 0 && is(t, i, "{"))
                open = i;
            depth++;
        } else if (rt_tok_closes(t->src, &t->v[i]) && depth > 0) {
            depth--;
        }
        int end = 0;
        if (depth == 0 && is(t, i, ";"))
            end = 1;
        else if (depth == 0 && is(t, i, "}")) {
            /* a body or block ends the item; a class or initialiser waits
             * for its ';', an if for its else, a try for its catch */
            size_t n = i + 1;
            end = !(is(t, n, ";") || is(t, n, ",") || is(t, n, "=") || is(t, n, "else") ||
                    is(t, n, "catch") || (is(t, n, "while") && is(t, first, "do")) ||
                    is(t, n, ")") || class_like(t, first, open));
        }
        if (end) {
            add_item(out, &cap, t, first, i);
            first = i + 1;
        }
    }
    if (first < t->n) {
        add_item(out, &cap, t, first, t->n - 1);
        rt_item_t *last = &out->items[out->n - 1];
        if (last->kind == RT_ITEM_STATEMENT && !last->has_semicolon)
            last->kind = RT_ITEM_EXPRESSION;
    }
}

void rt_cxx_split(const char *code, rt_cell_t *out)
{
    toks_t t;
    lex(code, &t);
    split_toks(&t, out);
    free(t.v);
}

/* ---- what C cells see ----------------------------------------------- */

/* The index of `main` declared as a function at depth 0 in toks[i, end),
 * or end. */
static size_t find_function(const toks_t *t, size_t i, size_t end, const char *name)
{
    int depth = 0;
    for (size_t k = i; k < end; k++) {
        depth += rt_tok_opens(t->src, &t->v[k]) - rt_tok_closes(t->src, &t->v[k]);
        if (depth == 0 && is(t, k, name) && is(t, k + 1, "(") && (k == i || !is(t, k - 1, ".")))
            return k;
    }
    return end;
}

int rt_cxx_main_kind(const char *code, const rt_cell_t *items)
{
    toks_t t;
    lex(code, &t);
    int kind = 0;
    for (size_t i = 0, k = 0; i < items->n && !kind; i++) {
        const rt_item_t *it = &items->items[i];
        if (it->kind != RT_ITEM_DECLARATION)
            continue;
        while (k < t.n && t.v[k].start < it->start)
            k++;
        size_t end = k;
        while (end < t.n && t.v[end].start < it->end)
            end++;
        size_t m = find_function(&t, k, end, "main");
        if (m < end && is(&t, m + 2, ")"))
            kind = 1;
        else if (m < end)
            kind = is(&t, m + 2, "void") && is(&t, m + 3, ")") ? 1 : 2;
    }
    free(t.v);
    return kind;
}

/* Whether toks[i, end) names only C things: C type words, session types,
 * struct/union/enum tags, '*' and const. */
static int c_type_words(const toks_t *t, size_t i, size_t end, rt_is_type_fn is_type, void *ctx)
{
    static const char *const words[] = {"void", "int", "char", "short", "long", "float",
                                        "double", "signed", "unsigned", "bool", "_Bool",
                                        "const", "volatile", NULL};
    for (size_t k = i; k < end; k++) {
        if (is(t, k, "*") || one_of(t, k, words))
            continue;
        if (rt_tok_is_tag_keyword(t->src, &t->v[k]) && is_ident(t, k + 1)) {
            k++;
            continue;
        }
        if (is_ident(t, k) && is_type && is_type(ctx, t->src + t->v[k].start, t->v[k].len))
            continue;
        return 0;
    }
    return 1;
}

static void add_span(cm_buf_t *b, const toks_t *t, size_t from, size_t to)
{
    cm_buf_add(b, t->src + t->v[from].start, t->v[to - 1].start + t->v[to - 1].len - t->v[from].start);
}

/* A function from toks[i, end), defined (with an empty body, so that C
 * takes it for a definition of the cell's) or declared. */
static void add_prototype(cm_buf_t *b, const toks_t *t, size_t i, size_t end)
{
    size_t k = i;
    while (k < end && !is(t, k, "{") && !is(t, k, ";"))
        k++;
    if (k > i) {
        add_span(b, t, i, k);
        cm_buf_adds(b, is(t, k, "{") ? " {}\n" : ";\n");
    }
}

typedef struct declarator {
    size_t start, name, stop; /* its first token, its name, the token after its [dims] */
    size_t end;               /* the ',' or ';' after its initialiser */
} declarator_t;

#define MAX_DECLARATORS 32

/* Whether toks[k] ends a declarator's name: = ( [ , ; { follows. */
static int ends_name(const toks_t *t, size_t k)
{
    return is(t, k, "=") || is(t, k, "(") || is(t, k, "[") || is(t, k, ",") || is(t, k, ";") ||
           is(t, k, "{");
}

/* The declarators of the variable declaration toks[i, end), `float *a,
 * *b = 0;` or `std::vector<int> v(10), w;`: their count (at most
 * MAX_DECLARATORS), and *type_end the end of the type they share. */
static int declarators(const toks_t *t, size_t i, size_t end, size_t *type_end, declarator_t *d)
{
    size_t first = end;
    for (size_t k = i + 1; k < end && first == end; k++) {
        if (is(t, k, "<")) {
            size_t after = skip_angles(t, k, end);
            if (!after)
                return 0;
            k = after - 1;
        } else if (is_ident(t, k) && !is(t, k, "const") && ends_name(t, k + 1)) {
            first = k;
        }
    }
    if (first >= end)
        return 0;
    size_t te = first;
    while (te > i && (is(t, te - 1, "*") || is(t, te - 1, "&") || is(t, te - 1, "&&") ||
                      (is(t, te - 1, "const") && te - 1 > i && is(t, te - 2, "*"))))
        te--;
    *type_end = te;
    int n = 0;
    size_t k = te;
    while (k < end && n < MAX_DECLARATORS) {
        declarator_t *x = &d[n];
        x->start = k;
        while (k < end && !(is_ident(t, k) && !is(t, k, "const") && ends_name(t, k + 1)))
            k++;
        if (k >= end)
            break;
        x->name = k++;
        while (is(t, k, "["))
            k = rt_tok_skip_group(t->src, t->v, end, k);
        x->stop = k;
        n++;
        int depth = 0; /* on past the initialiser, to the next declarator */
        while (k < end && !(depth == 0 && (is(t, k, ",") || is(t, k, ";")))) {
            depth += rt_tok_opens(t->src, &t->v[k]) - rt_tok_closes(t->src, &t->v[k]);
            k++;
        }
        x->end = k;
        if (!is(t, k, ","))
            break;
        k++;
    }
    return n;
}

/* The global variables of C types of a declaration, each declared again
 * without its initialiser (`int total;`), when they have external
 * linkage (not static, not const objects: those are internal in C++). */
static void add_variable(cm_buf_t *b, const toks_t *t, size_t i, size_t end,
                         rt_is_type_fn is_type, void *ctx)
{
    declarator_t d[MAX_DECLARATORS];
    size_t type_end;
    int n = declarators(t, i, end, &type_end, d);
    if (!n || is(t, i, "static") || is(t, i, "extern") || is(t, i, "typedef") ||
        !c_type_words(t, i, type_end, is_type, ctx))
        return;
    for (int k = 0; k < n; k++) {
        int top_const = 0, reference = 0;
        for (size_t j = i; j < d[k].name; j++) {
            if (j == type_end)
                j = d[k].start;
            top_const = is(t, j, "const") ? 1 : is(t, j, "*") ? 0 : top_const;
            reference |= is(t, j, "&") || is(t, j, "&&"); /* `int &alias = n;`: not C */
        }
        if (top_const || reference || is(t, d[k].stop, "(") || is(t, d[k].stop, "{"))
            continue;
        add_span(b, t, i, type_end);
        cm_buf_addc(b, ' ');
        add_span(b, t, d[k].start, d[k].stop);
        cm_buf_adds(b, ";\n");
    }
}

static size_t declared_name(const toks_t *t, size_t i, size_t end, char *kind);

/* The type declarator d declares, for a declaration of its own: the
 * declaration's, or for `auto v = init` the type of init. */
static void add_type(cm_buf_t *b, const toks_t *t, size_t i, size_t type_end,
                     const declarator_t *d)
{
    if (!is(t, i, "auto")) {
        add_span(b, t, i, type_end);
        return;
    }
    cm_buf_adds(b, "std::decay_t<decltype(");
    add_span(b, t, d->stop + 1, d->end);
    cm_buf_adds(b, ")>");
}

/* How declarator d's initialiser runs: 0 as written (when the cell's
 * object loads: constants, static, auto, const, arrays, references), 'a'
 * assigned at its place among the statements (C types and pointers), 'p'
 * constructed there, in storage of its own (class types). */
static int defer_kind(const toks_t *t, size_t i, size_t type_end, const declarator_t *d,
                      rt_is_type_fn is_type, void *ctx)
{
    static const char *const kept[] = {"static", "extern", "constexpr", "typedef",
                                       "thread_local", "inline", "template", "using", NULL};
    if (!(is(t, d->stop, "=") || is(t, d->stop, "(") || is(t, d->stop, "{")) ||
        d->stop != d->name + 1 || one_of(t, i, kept))
        return 0;
    if (is(t, i, "auto")) /* auto t0 = clock::now();: its type is its initialiser's */
        return type_end == i + 1 && d->start == d->name && is(t, d->stop, "=") &&
                       !is(t, d->stop + 1, "{")
                   ? 'p'
                   : 0;
    int pointer = 0, top_const = 0;
    for (size_t j = i; j < d->name; j++) {
        if (j == type_end)
            j = d->start;
        if (j >= d->name)
            break;
        if (j >= d->start && (is(t, j, "&") || is(t, j, "&&") || is(t, j, "(") ||
                              is(t, j, ":")))
            return 0; /* a reference, a function pointer, A::x */
        pointer |= is(t, j, "*");
        top_const = is(t, j, "const") ? 1 : is(t, j, "*") ? 0 : top_const;
    }
    if (top_const)
        return 0;
    if (is(t, d->stop, "(") && (pointer || c_type_words(t, i, type_end, is_type, ctx)))
        return 0; /* int x(3): rare; as written */
    return pointer || c_type_words(t, i, type_end, is_type, ctx) ? 'a' : 'p';
}

static void add_name(cm_buf_t *b, const toks_t *t, size_t k)
{
    cm_buf_add(b, t->src + t->v[k].start, t->v[k].len);
}

/* The declarators of toks[i, end) (a declaration item), 0 when it is not
 * a variable declaration of this cell's. */
static int variable_declarators(const toks_t *t, size_t i, size_t end, size_t *type_end,
                                declarator_t *d)
{
    char kind = 0;
    size_t n = declared_name(t, i, end, &kind);
    if (n >= end || kind != 'v' || (is(t, i, "extern") && i + 1 < end))
        return 0;
    return declarators(t, i, end, type_end, d);
}

static void item_tokens(const toks_t *all, const rt_item_t *it, size_t *i, size_t *end)
{
    size_t k = 0;
    while (k < all->n && all->v[k].start < it->start)
        k++;
    *i = k;
    while (k < all->n && all->v[k].start < it->end)
        k++;
    *end = k;
}

/* When every initialiser of the item is assigned ('a', `= init`): *init
 * becomes the item's own text with all but `name = init` blanked and each
 * declarator's end a ';', from the item's column (newlines kept). */
static int assigned_in_place(const toks_t *t, const char *code, const rt_item_t *it, size_t i,
                             size_t type_end, const declarator_t *d, int n,
                             rt_is_type_fn is_type, void *ctx, cm_buf_t *init)
{
    for (int k = 0; k < n; k++) {
        int how = defer_kind(t, i, type_end, &d[k], is_type, ctx);
        if (how == 'p' || (how == 'a' && !is(t, d[k].stop, "=")))
            return 0;
    }
    cm_buf_t b = {0};
    size_t line_start = it->start;
    while (line_start > 0 && code[line_start - 1] != '\n')
        line_start--;
    for (size_t k = line_start; k < it->start; k++)
        cm_buf_addc(&b, ' ');
    size_t at = it->start;
    for (int k = 0; k < n; k++) {
        if (!defer_kind(t, i, type_end, &d[k], is_type, ctx))
            continue;
        size_t from = t->v[d[k].name].start, to = t->v[d[k].end].start;
        for (; at < from; at++)
            cm_buf_addc(&b, code[at] == '\n' ? '\n' : ' ');
        cm_buf_add(&b, code + from, to - from);
        cm_buf_addc(&b, ';');
        at = to + 1;
    }
    for (; at < it->end; at++)
        if (code[at] == '\n')
            cm_buf_addc(&b, '\n');
    init->len = 0;
    cm_buf_add(init, b.s, b.len);
    cm_buf_free(&b);
    return 1;
}

int rt_cxx_defer(const char *code, const rt_item_t *it, rt_is_type_fn is_type, void *ctx,
                 cm_buf_t *global, cm_buf_t *init)
{
    if (it->kind != RT_ITEM_DECLARATION)
        return 0;
    toks_t all;
    lex(code, &all);
    const toks_t *t = &all;
    size_t i, end, type_end;
    item_tokens(t, it, &i, &end);
    declarator_t d[MAX_DECLARATORS];
    int n = variable_declarators(t, i, end, &type_end, d), deferred = 0;
    for (int k = 0; k < n; k++)
        deferred |= defer_kind(t, i, type_end, &d[k], is_type, ctx) != 0;
    if (!deferred) {
        free(all.v);
        return 0;
    }
    for (int k = 0; k < n; k++) {
        int how = defer_kind(t, i, type_end, &d[k], is_type, ctx);
        size_t stop = how ? d[k].stop : d[k].end; /* kept as written: with its initialiser */
        if (how == 'p') { /* storage, and the name a reference to it */
            cm_buf_t type = {0};
            add_type(&type, t, i, type_end, &d[k]);
            const char *ty = cm_buf_str(&type), *nm = t->src + t->v[d[k].name].start;
            int len = (int)t->v[d[k].name].len;
            cm_buf_addf(global, "alignas(%s) static unsigned char __gpuc_store_%.*s[sizeof(%s)]; "
                                "%s &%.*s = *reinterpret_cast<%s *>(__gpuc_store_%.*s); ",
                        ty, len, nm, ty, ty, len, nm, ty, len, nm);
            cm_buf_addf(init, "new (&%.*s) %s", len, nm, ty);
            cm_buf_free(&type);
            size_t from = d[k].stop + is(t, d[k].stop, "=");
            int wrap = is(t, d[k].stop, "=") && !is(t, from, "{");
            cm_buf_adds(init, wrap ? "(" : "");
            add_span(init, t, from, d[k].end);
            cm_buf_adds(init, wrap ? "); " : "; ");
            continue;
        }
        add_span(global, t, i, type_end);
        cm_buf_addc(global, ' ');
        add_span(global, t, d[k].start, stop);
        cm_buf_adds(global, "; ");
        if (how == 'a') {
            add_name(init, t, d[k].name);
            cm_buf_adds(init, " = ");
            add_span(init, t, d[k].stop + is(t, d[k].stop, "="), d[k].end);
            cm_buf_adds(init, "; ");
        }
    }
    for (size_t k = it->start; k < it->end; k++) /* the item's lines stay */
        if (code[k] == '\n')
            cm_buf_addc(global, '\n');
    /* the assignments where the user wrote them, if they are all: the
     * compiler's columns are right */
    assigned_in_place(t, code, it, i, type_end, d, n, is_type, ctx, init);
    free(all.v);
    return 1;
}

/* The exports of toks[i, end), one item; in_c: inside extern "C" { }. */
static void add_exports(cm_buf_t *b, const toks_t *t, size_t i, size_t end, int in_c,
                        rt_is_type_fn is_type, void *ctx)
{
    if (is(t, i, "extern") && i + 1 < end && t->v[i + 1].kind == RT_TOK_STRING) {
        if (!is(t, i + 2, "{")) {
            add_exports(b, t, i + 2, end, 1, is_type, ctx);
            return;
        }
        size_t close = rt_tok_match(t->src, t->v, end, i + 2);
        toks_t inner = {t->src, t->v + i + 3, (close < end ? close : end) - (i + 3), 0};
        rt_cell_t items;
        split_toks(&inner, &items);
        size_t k = 0;
        for (size_t n = 0; n < items.n; n++) {
            while (k < inner.n && inner.v[k].start < items.items[n].start)
                k++;
            size_t e = k;
            while (e < inner.n && inner.v[e].start < items.items[n].end)
                e++;
            if (items.items[n].kind == RT_ITEM_DECLARATION)
                add_exports(b, &inner, k, e, 1, is_type, ctx);
        }
        rt_cell_free(&items);
        return;
    }
    int depth = 0, function = 0;
    for (size_t k = i; k < end && !function; k++) {
        if (depth == 0 && is(t, k, "=")) /* an initialiser, not a parameter list */
            break;
        function = depth == 0 && is(t, k, "(") && k > i && is_ident(t, k - 1) &&
                   !is(t, k - 1, "__attribute__");
        depth += rt_tok_opens(t->src, &t->v[k]) - rt_tok_closes(t->src, &t->v[k]);
    }
    if (function) {
        if (in_c && !is(t, i, "static") && !is(t, i, "inline"))
            add_prototype(b, t, i, end);
        return;
    }
    add_variable(b, t, i, end, is_type, ctx);
}

/* Whether the directive item it is #define or #undef. */
static int defines(const char *code, const rt_item_t *it)
{
    return rt_directive_defines(code + it->start, it->end - it->start);
}

char *rt_cxx_c_exports(const char *code, const rt_cell_t *items, rt_is_type_fn is_type,
                       void *ctx)
{
    toks_t t;
    lex(code, &t);
    cm_buf_t b = {0};
    size_t k = 0;
    for (size_t n = 0; n < items->n; n++) {
        const rt_item_t *it = &items->items[n];
        while (k < t.n && t.v[k].start < it->start)
            k++;
        size_t e = k;
        while (e < t.n && t.v[e].start < it->end)
            e++;
        if (it->kind == RT_ITEM_DECLARATION && e > k)
            add_exports(&b, &t, k, e, 0, is_type, ctx);
        else if (it->kind == RT_ITEM_DIRECTIVE && defines(code, it)) {
            cm_buf_add(&b, code + it->start, it->end - it->start); /* float a[N] needs N */
            cm_buf_addc(&b, '\n');
        }
    }
    free(t.v);
    if (!b.len) {
        cm_buf_free(&b);
        return NULL;
    }
    return cm_buf_steal(&b);
}

/* ---- what later C++ cells see ----------------------------------------- */

static void set_name(const toks_t *t, size_t k, char *name, size_t cap)
{
    snprintf(name, cap, "%.*s", (int)t->v[k].len, t->src + t->v[k].start);
}

/* Whether the parenthesis at toks[open] holds a function's parameters
 * (a body follows, or it is empty or starts with a type word), not a
 * variable's initialiser. */
static int function_params(const toks_t *t, size_t open, size_t end)
{
    static const char *const types[] = {"void", "int", "char", "short", "long", "float",
                                        "double", "signed", "unsigned", "bool", "const",
                                        "struct", "auto", "size_t", NULL};
    size_t close = rt_tok_match(t->src, t->v, end, open);
    if (close >= end)
        return 0;
    if (!is(t, close + 1, ";") && !is(t, close + 1, ","))
        return 1; /* a body, const, noexcept, -> */
    if (close == open + 1 || one_of(t, open + 1, types))
        return 1;
    /* `Type name`, `Type *p`, `std::T<...> &r` are parameters; a name alone,
     * `v(n, 1.0f)`, is taken for an initialiser (as it nearly always is) */
    size_t k = skip_name(t, open + 1, close), after = k;
    while (k < close && (is(t, k, "*") || is(t, k, "&") || is(t, k, "&&")))
        k++;
    return after > open + 1 && (is_ident(t, k) || (k > after && (k == close || is(t, k, ","))));
}

/* The name a declaration toks[i, end) declares, into name; the index of
 * that name token, or end. kind: 'c' a class-like type, 't' typedef or
 * alias, 'n' namespace, 'f' function, 'v' variable. */
static size_t declared_name(const toks_t *t, size_t i, size_t end, char *kind)
{
    size_t k = i;
    if (is(t, k, "template") && is(t, k + 1, "<")) {
        k = skip_angles(t, k + 1, end);
        if (!k)
            return end;
    }
    while (is(t, k, "static") || is(t, k, "inline") || is(t, k, "constexpr") ||
           is(t, k, "typedef") || is(t, k, "const"))
        k++;
    if ((is(t, k, "class") || is(t, k, "struct") || is(t, k, "union") || is(t, k, "enum")) &&
        !is(t, i, "typedef")) {
        size_t n = k + 1 + is(t, k + 1, "class"); /* enum class */
        if (is_ident(t, n) && (is(t, n + 1, "{") || is(t, n + 1, ":") || is(t, n + 1, ";") ||
                               is(t, n + 1, "final"))) {
            *kind = 'c';
            return n;
        }
    }
    if (is(t, i, "using") && is_ident(t, i + 1) && is(t, i + 2, "=")) {
        *kind = 't';
        return i + 1;
    }
    if (is(t, i, "namespace") && is_ident(t, i + 1)) {
        *kind = 'n';
        return i + 1;
    }
    /* the last name before the first '(', '=', '[', '{' or ';' at depth 0 */
    size_t name = end;
    for (size_t j = k; j < end; j++) {
        if (is(t, j, "(") || is(t, j, "=") || is(t, j, "[") || is(t, j, "{") || is(t, j, ";")) {
            *kind = is(t, i, "typedef") ? 't' : is(t, j, "(") && name < end ? 'f' : 'v';
            if (*kind == 'f' && is(t, j + 1, "*"))
                *kind = 'v'; /* a function pointer is not handled */
            if (*kind == 'f' && !function_params(t, j, end))
                *kind = 'v'; /* std::vector<int> v(10); */
            if (name < end && name >= 2 && is_scope(t, name - 2))
                return end; /* A::f(), A::x: defines a member, not kept */
            break;
        }
        if (is(t, j, "<")) {
            size_t after = skip_angles(t, j, end);
            if (after) {
                j = after - 1;
                continue;
            }
        }
        if (is_ident(t, j) && !is(t, j, "const"))
            name = j;
    }
    return name;
}

int rt_cxx_carry(const char *code, const rt_item_t *it, int which, rt_is_type_fn is_type,
                 void *ctx, cm_buf_t *text, char *name, size_t cap, int *is_var)
{
    toks_t all;
    lex(code, &all);
    size_t i = 0, end;
    while (i < all.n && all.v[i].start < it->start)
        i++;
    for (end = i; end < all.n && all.v[end].start < it->end; end++)
        ;
    toks_t *t = &all;
    int kept = 0;
    *is_var = 0;
    name[0] = '\0';
    if (it->kind == RT_ITEM_DIRECTIVE) {
        kept = rt_directive_is(code + it->start, it->end - it->start, "include") ||
               defines(code, it);
    } else if (it->kind == RT_ITEM_DECLARATION && i < end) {
        char kind = 0;
        size_t n = declared_name(t, i, end, &kind);
        int linkage_c = is(t, i, "extern") && i + 1 < end && t->v[i + 1].kind == RT_TOK_STRING;
        if (is(t, i, "using") && kind != 't')
            kept = 1; /* using namespace std; using std::vector; */
        else if (n < end && !linkage_c && !is(t, n, "main") && kind) {
            set_name(t, n, name, cap);
            int copied = kind != 'v' || is(t, i, "static") || is(t, i, "const") ||
                         is(t, i, "constexpr");
            declarator_t d[MAX_DECLARATORS];
            size_t type_end;
            int nd = !copied ? declarators(t, i, end, &type_end, d) : 0;
            if (nd && is(t, i, "auto") && defer_kind(t, i, type_end, &d[0], is_type, ctx) != 'p')
                nd = 0; /* an auto variable whose type cannot be written */
            kept = copied;
            if (nd) { /* extern T name[...] __asm__("name"); */
                kept = which < nd;
                if (kept) {
                    set_name(t, d[which].name, name, cap);
                    cm_buf_adds(text, "extern ");
                    add_type(text, t, i, type_end, &d[which]);
                    cm_buf_adds(text, defer_kind(t, i, type_end, &d[which], is_type, ctx) == 'p'
                                          ? " &" : " ");
                    add_span(text, t, d[which].start, d[which].stop);
                    cm_buf_addf(text, " __asm__(\"%s\");\n", name);
                    *is_var = 1;
                }
                free(all.v);
                return kept;
            }
        }
    }
    kept = kept && which == 0;
    if (kept) {
        cm_buf_add(text, code + it->start, it->end - it->start);
        cm_buf_addc(text, '\n');
    }
    free(all.v);
    return kept;
}

int rt_cxx_has_keyword(const char *text)
{
    static const char *const words[] = {
        "new", "delete", "class", "template", "typename", "namespace", "using", "this",
        "operator", "private", "protected", "public", "virtual", "friend", "explicit",
        "mutable", "throw", "try", "catch", "nullptr", "export", "concept", "requires",
        "constexpr", "decltype", "noexcept", "static_cast", "dynamic_cast", "const_cast",
        "reinterpret_cast", "typeid", "and", "or", "not", "xor", "bitand", "bitor", "compl",
        "and_eq", "or_eq", "xor_eq", "not_eq", "char8_t", "char16_t", "char32_t", NULL};
    toks_t t;
    lex(text, &t); /* prelude entries: text the session holds */
    int used = rt_cxx_uses_any(&t, words, sizeof words / sizeof *words - 1);
    rt_tokens_free(&t);
    return used;
}

/* Whether the identifier toks[k] names a parameter of the list opened at
 * toks[open]: an identifier of it followed by ',', ')' or '['. */
static int names_parameter(const toks_t *t, size_t open, size_t k)
{
    int depth = 0;
    for (size_t i = open; i < t->n; i++) {
        if (is(t, i, "(") || is(t, i, "["))
            depth++;
        else if ((is(t, i, ")") || is(t, i, "]")) && --depth == 0)
            return 0;
        else if (depth == 1 && is_ident(t, i) && i != k &&
                 (is(t, i + 1, ",") || is(t, i + 1, ")") || is(t, i + 1, "[")) &&
                 t->v[i].len == t->v[k].len &&
                 memcmp(t->src + t->v[i].start, t->src + t->v[k].start, t->v[k].len) == 0)
            return 1;
    }
    return 0;
}

int rt_cxx_c_only(const char *text)
{
    static const char *const complex_words[] = {"_Complex", "complex", "_Imaginary", NULL};
    toks_t t;
    lex(text, &t);
    int found = 0, depth = 0;
    size_t open = 0;
    for (size_t i = 0; i < t.n && !found; i++) {
        if (one_of(&t, i, complex_words))
            found = 1;
        else if (is(&t, i, "(") && depth++ == 0)
            open = i;
        else if (is(&t, i, ")"))
            depth--;
        else if (depth > 0 && is(&t, i, "[") && is_ident(&t, i + 1))
            found = names_parameter(&t, open, i + 1);
    }
    free(t.v);
    return found;
}
