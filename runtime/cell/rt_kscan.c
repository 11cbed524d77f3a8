/* rt_kscan: a light scanner over a kernel cell's CUDA C++ source
 * (rt_kscan.h). It does not parse C++; it finds __global__ definitions at
 * the top level (and in extern "C" blocks), their parameter lists, and the
 * top-level names a cell defines, which is what launches and the device
 * prelude need. The backend is given what it finds (gpu_compile_unit),
 * and never reads device source itself. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "rt_kscan.h"

typedef struct token {
    const char *p;   /* into the cleaned text */
    int len;
    int line;
    size_t off;
} token_t;

typedef struct scan {
    char *text;      /* the source with comments, literals and directives blanked */
    token_t *toks;
    int ntoks;
    char **macros;
    int nmacros;
} scan_t;

static int is_ident_start(int c) { return isalpha(c) || c == '_'; }
int rt_kscan_ident_char(int c) { return isalnum((unsigned char)c) || c == '_'; }

static int push_name(char ***names, int *n, const char *p, size_t len)
{
    char **grown = realloc(*names, (size_t)(*n + 1) * sizeof **names);
    if (!grown)
        return -1;
    *names = grown;
    grown[*n] = strndup(p, len);
    if (!grown[*n])
        return -1;
    (*n)++;
    return 0;
}

/* Blanks comments, string and character literals and preprocessor lines,
 * keeping newlines so that lines still count; records #define names. */
static int clean(scan_t *s, const char *src)
{
    size_t n = strlen(src);
    char *t = malloc(n + 1);
    if (!t)
        return -1;
    memcpy(t, src, n + 1);
    int line_start = 1;
    for (size_t i = 0; i < n;) {
        char c = t[i];
        if (line_start && (c == ' ' || c == '\t')) {
            i++;
            continue;
        }
        if (line_start && c == '#') {
            size_t j = i + 1;
            while (j < n && (t[j] == ' ' || t[j] == '\t'))
                j++;
            if (strncmp(t + j, "define", 6) == 0) {
                size_t k = j + 6;
                while (k < n && (t[k] == ' ' || t[k] == '\t'))
                    k++;
                size_t e = k;
                while (e < n && rt_kscan_ident_char(t[e]))
                    e++;
                if (e > k && push_name(&s->macros, &s->nmacros, t + k, e - k))
                    return free(t), -1;
            }
            while (i < n && t[i] != '\n') {
                if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n')
                    t[i++] = ' ';
                else if (t[i] != '\n')
                    t[i] = ' ';
                i++;
            }
            continue;
        }
        line_start = 0;
        if (c == '\n') {
            line_start = 1;
            i++;
        } else if (c == '/' && t[i + 1] == '/') {
            while (i < n && t[i] != '\n')
                t[i++] = ' ';
        } else if (c == '/' && t[i + 1] == '*') {
            t[i++] = ' ';
            t[i++] = ' ';
            while (i < n && !(t[i] == '*' && t[i + 1] == '/')) {
                if (t[i] != '\n')
                    t[i] = ' ';
                i++;
            }
            if (i < n) {
                t[i++] = ' ';
                t[i++] = ' ';
            }
        } else if (c == '"' || (c == '\'' && !(i > 0 && isalnum((unsigned char)t[i - 1])))) {
            t[i++] = ' ';
            while (i < n && t[i] != c && t[i] != '\n') {
                if (t[i] == '\\' && i + 1 < n && t[i + 1] != '\n')
                    t[i++] = ' ';
                t[i++] = ' ';
            }
            if (i < n && t[i] == c)
                t[i++] = ' ';
        } else {
            i++;
        }
    }
    s->text = t;
    return 0;
}

static int tokenize(scan_t *s)
{
    int cap = 256, line = 1;
    s->toks = malloc((size_t)cap * sizeof *s->toks);
    if (!s->toks)
        return -1;
    for (const char *p = s->text; *p;) {
        if (*p == '\n') {
            line++;
            p++;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *start = p;
        if (is_ident_start((unsigned char)*p) || isdigit((unsigned char)*p)) {
            while (rt_kscan_ident_char((unsigned char)*p) || *p == '.')
                p++;
        } else if (p[0] == ':' && p[1] == ':') {
            p += 2;
        } else {
            p++;
        }
        if (s->ntoks == cap) {
            token_t *grown = realloc(s->toks, (size_t)(cap *= 2) * sizeof *grown);
            if (!grown)
                return -1;
            s->toks = grown;
        }
        s->toks[s->ntoks++] = (token_t){start, (int)(p - start), line, (size_t)(start - s->text)};
    }
    return 0;
}

static int tok_is(const token_t *t, const char *word)
{
    return (size_t)t->len == strlen(word) && memcmp(t->p, word, (size_t)t->len) == 0;
}

static int tok_ident(const token_t *t) { return is_ident_start((unsigned char)t->p[0]); }

static void scan_free(scan_t *s)
{
    free(s->text);
    free(s->toks);
    rt_kscan_names_free(s->macros, s->nmacros);
}

static int scan_open(scan_t *s, const char *src)
{
    memset(s, 0, sizeof *s);
    if (clean(s, src) || tokenize(s)) {
        scan_free(s);
        return -1;
    }
    return 0;
}

/* ---- parameters ------------------------------------------------------ */

typedef struct scalar_type {
    const char *name;
    size_t size;
} scalar_type_t;

static const scalar_type_t scalar_types[] = {
    {"bool", 1}, {"char", 1}, {"signed char", 1}, {"unsigned char", 1},
    {"int8_t", 1}, {"uint8_t", 1}, {"short", 2}, {"short int", 2},
    {"unsigned short", 2}, {"unsigned short int", 2}, {"int16_t", 2}, {"uint16_t", 2},
    {"half", 2}, {"__half", 2}, {"__nv_bfloat16", 2}, {"nv_bfloat16", 2},
    {"int", 4}, {"signed", 4}, {"signed int", 4}, {"unsigned", 4}, {"unsigned int", 4},
    {"float", 4}, {"int32_t", 4}, {"uint32_t", 4},
    {"long", 8}, {"long int", 8}, {"unsigned long", 8}, {"unsigned long int", 8},
    {"long long", 8}, {"long long int", 8}, {"unsigned long long", 8},
    {"unsigned long long int", 8}, {"double", 8}, {"size_t", 8}, {"ssize_t", 8},
    {"ptrdiff_t", 8}, {"int64_t", 8}, {"uint64_t", 8},
    {"char2", 2}, {"uchar2", 2}, {"char4", 4}, {"uchar4", 4}, {"short2", 4},
    {"float2", 8}, {"float3", 12}, {"float4", 16}, {"int2", 8}, {"int3", 12},
    {"int4", 16}, {"uint2", 8}, {"uint3", 12}, {"uint4", 16}, {"double2", 16},
    {"long2", 16}, {"longlong2", 16}, {"dim3", 12},
};

static int is_type_word(const char *w, size_t len)
{
    static const char *const words[] = {"int", "char", "short", "long", "float", "double",
                                        "unsigned", "signed", "bool"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == len && memcmp(words[i], w, len) == 0)
            return 1;
    return 0;
}

static int is_qualifier(const char *w, size_t len)
{
    static const char *const words[] = {"const", "volatile", "__restrict__", "__restrict",
                                        "restrict", "register", "struct", "class",
                                        "union", "enum", "__grid_constant__"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == len && memcmp(words[i], w, len) == 0)
            return 1;
    return 0;
}

/* "float  * x" -> "float *x": single spaces, stars against the name. */
static void normalise(const char *text, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    int space = 0;
    for (size_t i = 0; i < len && o + 2 < cap; i++) {
        char c = text[i];
        if (isspace((unsigned char)c)) {
            space = o > 0;
            continue;
        }
        if (c == '*' || c == '&') {
            if (o > 0 && out[o - 1] != '*' && out[o - 1] != '&')
                out[o++] = ' ';
            out[o++] = c;
            space = 0;
            continue;
        }
        if (space && o + 3 < cap && out[o - 1] != '*' && out[o - 1] != '&')
            out[o++] = ' ';
        space = 0;
        out[o++] = c;
    }
    out[o] = '\0';
}

void rt_kscan_param(const char *text, size_t len, gpu_param_t *p)
{
    memset(p, 0, sizeof *p);
    normalise(text, len, p->decl, sizeof p->decl);
    if (memchr(text, '*', len) || memchr(text, '[', len)) {
        p->kind = GPU_PARAM_POINTER;
        p->size = sizeof(void *);
        return;
    }
    p->kind = GPU_PARAM_BYVALUE;
    if (memchr(text, '&', len) || memchr(text, '<', len) || memchr(text, ':', len))
        return;
    /* the identifiers, without qualifiers */
    const char *words[16];
    size_t lens[16];
    int n = 0;
    for (size_t i = 0; i < len;) {
        if (is_ident_start((unsigned char)text[i])) {
            size_t j = i;
            while (j < len && rt_kscan_ident_char((unsigned char)text[j]))
                j++;
            if (!is_qualifier(text + i, j - i) && n < 16) {
                words[n] = text + i;
                lens[n++] = j - i;
            }
            i = j;
        } else {
            i++;
        }
    }
    if (n >= 2 && !is_type_word(words[n - 1], lens[n - 1]))
        n--; /* the last word is the parameter's name */
    char type[96];
    size_t o = 0;
    for (int i = 0; i < n && o + lens[i] + 2 < sizeof type; i++) {
        if (i)
            type[o++] = ' ';
        memcpy(type + o, words[i], lens[i]);
        o += lens[i];
    }
    type[o] = '\0';
    for (size_t i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++) {
        if (strcmp(type, scalar_types[i].name) == 0) {
            p->kind = GPU_PARAM_SCALAR;
            p->size = scalar_types[i].size;
            return;
        }
    }
}

static int parse_params(const char *text, size_t len, gpu_kernel_info_t *k)
{
    k->nparams = 0;
    k->params = NULL;
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? text[i] : ',';
        if (c == '(' || c == '<' || c == '[')
            depth++;
        else if ((c == ')' || c == '>' || c == ']') && depth > 0)
            depth--;
        if (c != ',' || depth > 0)
            continue;
        size_t a = start, b = i;
        start = i + 1;
        while (a < b && isspace((unsigned char)text[a]))
            a++;
        while (b > a && isspace((unsigned char)text[b - 1]))
            b--;
        if (a == b || (b - a == 4 && memcmp(text + a, "void", 4) == 0))
            continue;
        gpu_param_t *grown = realloc(k->params, (size_t)(k->nparams + 1) * sizeof *grown);
        if (!grown)
            return -1;
        k->params = grown;
        rt_kscan_param(text + a, b - a, &k->params[k->nparams++]);
    }
    return 0;
}

/* ---- declarations ---------------------------------------------------- */

/* Calls visit for each top-level declaration: tokens [a, b) up to the '{' of
 * a body or the ';' that ends it; body = 1 when a '{' follows. */
typedef int (*visit_fn)(scan_t *s, int a, int b, int body, void *ctx);

/* 1 when tokens [a, b) before a '{' open a type's body (struct, class,
 * union, enum), which declarators may follow; the `class` of a template
 * parameter (`template <class T>`) does not count. */
static int defines_type(const scan_t *s, int a, int b)
{
    for (int j = a; j < b && j < s->ntoks; j++) {
        const token_t *t = &s->toks[j];
        int param = j > a && (tok_is(&s->toks[j - 1], "<") || tok_is(&s->toks[j - 1], ","));
        if (tok_is(t, "struct") || tok_is(t, "union") || tok_is(t, "enum") ||
            (tok_is(t, "class") && !param))
            return 1;
    }
    return 0;
}

static int walk(scan_t *s, visit_fn visit, void *ctx)
{
    int a = 0;
    for (int i = 0; i < s->ntoks; i++) {
        const token_t *t = &s->toks[i];
        if (tok_is(t, ";")) {
            if (visit(s, a, i, 0, ctx))
                return -1;
            a = i + 1;
        } else if (tok_is(t, "{")) {
            /* extern "C" { ... } is transparent */
            if (i - a == 1 && tok_is(&s->toks[a], "extern")) {
                a = i + 1;
                continue;
            }
            if (visit(s, a, i, 1, ctx))
                return -1;
            int depth = 0;
            for (; i < s->ntoks; i++) {
                if (tok_is(&s->toks[i], "{"))
                    depth++;
                else if (tok_is(&s->toks[i], "}") && --depth == 0)
                    break;
            }
            /* a function body ends the declaration; a struct body may be
             * followed by declarators up to ';' */
            if (!defines_type(s, a, i))
                a = i + 1;
        } else if (tok_is(t, "}")) {
            a = i + 1; /* the end of an extern "C" block */
        }
    }
    return 0;
}

/* The last top-level '(' of [a, b): the parameter list of a function. */
static int last_paren(scan_t *s, int a, int b, int *close)
{
    int open = -1, depth = 0;
    for (int i = a; i < b; i++) {
        if (tok_is(&s->toks[i], "(")) {
            if (depth++ == 0)
                open = i;
        } else if (tok_is(&s->toks[i], ")") && depth > 0 && --depth == 0) {
            *close = i;
        }
    }
    return open;
}

typedef struct kernels_ctx {
    gpu_kernel_info_t *list;
    int n;
} kernels_ctx_t;

static int visit_kernel(scan_t *s, int a, int b, int body, void *ctx)
{
    kernels_ctx_t *kc = ctx;
    int global = -1, close = -1;
    if (!body)
        return 0;
    for (int i = a; i < b; i++) {
        if (tok_is(&s->toks[i], "template"))
            return 0;
        if (tok_is(&s->toks[i], "__global__") && global < 0)
            global = i;
    }
    if (global < 0)
        return 0;
    int open = last_paren(s, a, b, &close);
    if (open < 1 || close < open || !tok_ident(&s->toks[open - 1]))
        return 0;
    const token_t *name = &s->toks[open - 1];
    for (int i = 0; i < kc->n; i++)
        if (strlen(kc->list[i].name) == (size_t)name->len &&
            memcmp(kc->list[i].name, name->p, (size_t)name->len) == 0)
            return 0; /* an overload: launches go by name, the first one wins */
    gpu_kernel_info_t *grown = realloc(kc->list, (size_t)(kc->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    kc->list = grown;
    gpu_kernel_info_t *k = &grown[kc->n];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%.*s", name->len, name->p);
    k->line = s->toks[global].line;
    size_t from = s->toks[open].off + 1, to = s->toks[close].off;
    kc->n++;
    return parse_params(s->text + from, to - from, k);
}

int rt_kscan_kernels(const char *src, gpu_kernel_info_t **out)
{
    scan_t s;
    kernels_ctx_t kc = {NULL, 0};
    *out = NULL;
    if (scan_open(&s, src))
        return -1;
    int rc = walk(&s, visit_kernel, &kc);
    scan_free(&s);
    if (rc) {
        gpu_kernels_free(kc.list, kc.n);
        return -1;
    }
    *out = kc.list;
    return kc.n;
}

typedef struct names_ctx {
    char **names;
    int n;
} names_ctx_t;

static int add_token_name(names_ctx_t *nc, const token_t *t)
{
    for (int i = 0; i < nc->n; i++)
        if (strlen(nc->names[i]) == (size_t)t->len && memcmp(nc->names[i], t->p, (size_t)t->len) == 0)
            return 0;
    return push_name(&nc->names, &nc->n, t->p, (size_t)t->len);
}

/* The enumerators of the enum whose body opens at toks[open]: each
 * identifier after '{' or a ',' of the body's own level. */
static int add_enumerators(scan_t *s, int open, names_ctx_t *nc)
{
    int depth = 0;
    for (int i = open; i + 1 < s->ntoks; i++) {
        const token_t *t = &s->toks[i];
        depth += (tok_is(t, "{") || tok_is(t, "(")) - (tok_is(t, "}") || tok_is(t, ")"));
        if (depth == 0)
            break;
        if (depth == 1 && (tok_is(t, "{") || tok_is(t, ",")) && tok_ident(&s->toks[i + 1]) &&
            add_token_name(nc, &s->toks[i + 1]))
            return -1;
    }
    return 0;
}

static int visit_name(scan_t *s, int a, int b, int body, void *ctx)
{
    names_ctx_t *nc = ctx;
    int close = -1, storage = 0, has_paren = 0;
    if (a >= b)
        return 0;
    /* `enum {BLOCK = 256};` declares BLOCK */
    int en = tok_is(&s->toks[a], "enum") ||
             (a + 1 < b && tok_is(&s->toks[a], "typedef") && tok_is(&s->toks[a + 1], "enum"));
    if (body && en && add_enumerators(s, b, nc))
        return -1;
    for (int i = a; i < b; i++) {
        const token_t *t = &s->toks[i];
        if (body && (tok_is(t, "struct") || tok_is(t, "class") || tok_is(t, "union") ||
                     tok_is(t, "enum")) &&
            i + 1 < b && tok_ident(&s->toks[i + 1]))
            return add_token_name(nc, &s->toks[i + 1]);
        /* a variable of device code, or a constant (`const int N = 4;`) */
        if (tok_is(t, "__device__") || tok_is(t, "__constant__") || tok_is(t, "__managed__") ||
            tok_is(t, "const") || tok_is(t, "constexpr"))
            storage = 1;
        if (tok_is(t, "("))
            has_paren = 1;
        if (tok_is(t, "="))
            break;
    }
    if (tok_is(&s->toks[a], "using") && a + 1 < b && tok_is(&s->toks[a + 1], "namespace"))
        return 0; /* a using directive declares nothing */
    if (body && tok_is(&s->toks[a], "namespace") && a + 1 < b && tok_ident(&s->toks[a + 1]))
        return b + 1 < s->ntoks && tok_is(&s->toks[b + 1], "}")
                   ? 0 /* `namespace N {}` only says that N exists */
                   : add_token_name(nc, &s->toks[a + 1]); /* used by name: `N::`, `using` */
    if (tok_is(&s->toks[a], "typedef") || tok_is(&s->toks[a], "using")) {
        if (tok_is(&s->toks[a], "using") && a + 1 < b && tok_ident(&s->toks[a + 1]))
            return add_token_name(nc, &s->toks[a + 1]);
        for (int i = b - 1; i > a; i--)
            if (tok_ident(&s->toks[i]))
                return add_token_name(nc, &s->toks[i]);
        return 0;
    }
    if (body && has_paren) {
        int open = last_paren(s, a, b, &close);
        if (open >= 1 && tok_ident(&s->toks[open - 1]))
            return add_token_name(nc, &s->toks[open - 1]);
        return 0;
    }
    if (!body && storage && !has_paren) {
        for (int i = a; i < b; i++) {
            if (tok_is(&s->toks[i], "=") || tok_is(&s->toks[i], "[")) {
                b = i;
                break;
            }
        }
        if (b - 1 > a && tok_ident(&s->toks[b - 1]))
            return add_token_name(nc, &s->toks[b - 1]);
    }
    return 0;
}

int rt_kscan_names(const char *src, char ***out)
{
    scan_t s;
    names_ctx_t nc = {NULL, 0};
    *out = NULL;
    if (scan_open(&s, src))
        return -1;
    int rc = walk(&s, visit_name, &nc);
    for (int i = 0; rc == 0 && i < s.nmacros; i++) {
        token_t t = {s.macros[i], (int)strlen(s.macros[i]), 0, 0};
        rc = add_token_name(&nc, &t);
    }
    scan_free(&s);
    if (rc) {
        rt_kscan_names_free(nc.names, nc.n);
        return -1;
    }
    *out = nc.names;
    return nc.n;
}

void rt_kscan_names_free(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- device variables -------------------------------------------------- */

typedef struct vars_ctx {
    gpu_var_info_t *list;
    int n;
} vars_ctx_t;

/* [a, b) is `... __device__ TYPE NAME[...] ... (= INIT)?`: a variable at the
 * top level when it names __device__/__constant__/__managed__, has no
 * parameter list and is not extern, static, a template or __shared__. The
 * initializer runs from '=' to end (the ';' offset). */
static int visit_var(scan_t *s, int a, int b, size_t end, vars_ctx_t *vc)
{
    int storage = 0, eq = -1;
    for (int i = a; i < b; i++) {
        const token_t *t = &s->toks[i];
        if (tok_is(t, "=") && eq < 0)
            eq = i;
        if (eq >= 0)
            continue;
        if (tok_is(t, "(") || tok_is(t, "extern") || tok_is(t, "static") ||
            tok_is(t, "template") || tok_is(t, "__shared__") || tok_is(t, "typedef") ||
            tok_is(t, "using") || tok_is(t, ","))
            return 0;
        if (tok_is(t, "__device__") || tok_is(t, "__managed__"))
            storage = storage ? storage : 'd';
        if (tok_is(t, "__constant__"))
            storage = 'c';
    }
    if (!storage)
        return 0;
    int last = eq >= 0 ? eq : b, name = -1;
    for (int i = a; i < last; i++) { /* the name: the identifier before the first '[' */
        if (tok_is(&s->toks[i], "["))
            break;
        if (tok_ident(&s->toks[i]))
            name = i;
    }
    if (name < 0)
        return 0;
    gpu_var_info_t *grown = realloc(vc->list, (size_t)(vc->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    vc->list = grown;
    gpu_var_info_t *v = &grown[vc->n++];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%.*s", s->toks[name].len, s->toks[name].p);
    v->constant = storage == 'c';
    v->line = s->toks[name].line;
    v->init_from = eq >= 0 ? s->toks[eq].off : 0;
    v->init_to = eq >= 0 ? end : 0;
    /* the C declaration: every token but the storage words, up to the initializer */
    size_t n = 0;
    for (int i = a; i < last && n + 2 < sizeof v->decl; i++) {
        const token_t *t = &s->toks[i];
        if (tok_is(t, "__device__") || tok_is(t, "__constant__") || tok_is(t, "__managed__") ||
            tok_is(t, "volatile") || tok_is(t, "__restrict__"))
            continue;
        int glue = n && (rt_kscan_ident_char(v->decl[n - 1]) && rt_kscan_ident_char((unsigned char)t->p[0]));
        n += (size_t)snprintf(v->decl + n, sizeof v->decl - n, "%s%.*s", glue ? " " : "", t->len,
                              t->p);
    }
    return 0;
}

int rt_kscan_vars(const char *src, gpu_var_info_t **out)
{
    scan_t s;
    vars_ctx_t vc = {NULL, 0};
    *out = NULL;
    if (scan_open(&s, src))
        return -1;
    int a = 0, depth = 0, rc = 0;
    /* top-level declarations, ';' ending each; a '{' after '=' is an
     * initializer; other braces (bodies, extern "C" blocks) are skipped
     * except that extern "C" { is transparent */
    for (int i = 0; i < s.ntoks && rc == 0; i++) {
        const token_t *t = &s.toks[i];
        if (tok_is(t, "{")) {
            int init = 0;
            for (int j = a; j < i; j++)
                init |= tok_is(&s.toks[j], "=");
            if (!init && depth == 0 && i - a == 1 && tok_is(&s.toks[a], "extern")) {
                a = i + 1;
                continue;
            }
            if (init) {
                for (int d = 0; i < s.ntoks; i++)
                    if (tok_is(&s.toks[i], "{"))
                        d++;
                    else if (tok_is(&s.toks[i], "}") && --d == 0)
                        break;
                continue;
            }
            for (depth = 0; i < s.ntoks; i++)
                if (tok_is(&s.toks[i], "{"))
                    depth++;
                else if (tok_is(&s.toks[i], "}") && --depth == 0)
                    break;
            depth = 0;
            if (!defines_type(&s, a, i))
                a = i + 1;
        } else if (tok_is(t, "}")) {
            a = i + 1;
        } else if (tok_is(t, ";")) {
            rc = visit_var(&s, a, i, t->off, &vc);
            a = i + 1;
        }
    }
    scan_free(&s);
    if (rc) {
        free(vc.list);
        return -1;
    }
    *out = vc.list;
    return vc.n;
}

/* ---- template kernels ------------------------------------------------- */

typedef struct template_ctx {
    const char *name;          /* the template kernel wanted */
    const char *const *args;   /* its template arguments, as written */
    int nargs;
    gpu_kernel_info_t *out;
    char *why;
    size_t why_len;
    int found;                 /* 1 made, -1 refused (why says why) */
} template_ctx_t;

/* The text of tokens [a, b) of s as written, into buf. */
static void tokens_text(const scan_t *s, int a, int b, char *buf, size_t len)
{
    size_t from = s->toks[a].off, to = s->toks[b - 1].off + (size_t)s->toks[b - 1].len;
    snprintf(buf, len, "%.*s", (int)(to - from), s->text + from);
}

/* params with each template parameter names[i] replaced by values[i]. */
static char *substitute(const char *params, size_t len, char (*names)[64], char (*values)[128],
                        int n)
{
    cm_buf_t b = {0};
    for (size_t i = 0; i < len;) {
        if (!is_ident_start((unsigned char)params[i])) {
            cm_buf_addc(&b, params[i++]);
            continue;
        }
        size_t j = i;
        while (j < len && rt_kscan_ident_char((unsigned char)params[j]))
            j++;
        int k = 0;
        while (k < n && !(strlen(names[k]) == j - i && !memcmp(names[k], params + i, j - i)))
            k++;
        if (k < n)
            cm_buf_adds(&b, values[k]);
        else
            cm_buf_add(&b, params + i, j - i);
        i = j;
    }
    return cm_buf_steal(&b);
}

static int visit_template(scan_t *s, int a, int b, int body, void *ctx)
{
    template_ctx_t *tc = ctx;
    int global = -1, close = -1;
    if (!body || tc->found)
        return 0;
    for (int i = a; i < b && global < 0; i++)
        if (tok_is(&s->toks[i], "__global__"))
            global = i;
    /* the last `template <` before it (walk joins a `template <class U>`
     * function to the declaration after it) */
    int t = -1;
    for (int i = a; i + 1 < global; i++)
        if (tok_is(&s->toks[i], "template") && tok_is(&s->toks[i + 1], "<"))
            t = i;
    int open = last_paren(s, a, b, &close);
    if (t < 0 || open < 1 || close < open || !tok_is(&s->toks[open - 1], tc->name))
        return 0;
    a = t;
    /* template < P, P = default, ... >: each parameter's name and default */
    char names[16][64], values[16][128];
    int n = 0, depth = 0, start = a + 2, eq = -1;
    for (int i = a + 1; i < global; i++) {
        const token_t *t = &s->toks[i];
        if (tok_is(t, "<") || tok_is(t, "(")) {
            depth++;
            continue;
        }
        int end = (tok_is(t, ">") || tok_is(t, ")")) && --depth == 0;
        if (depth == 1 && tok_is(t, "="))
            eq = i;
        if (!end && !(depth == 1 && tok_is(t, ",")))
            continue;
        int last = eq >= 0 ? eq : i; /* the name is the last word before '=' */
        if (last > start && n < 16 && tok_ident(&s->toks[last - 1])) {
            const token_t *w = &s->toks[last - 1];
            snprintf(names[n], sizeof names[n], "%.*s", w->len, w->p);
            values[n][0] = '\0';
            if (eq >= 0 && eq + 1 < i)
                tokens_text(s, eq + 1, i, values[n], sizeof values[n]);
            n++;
        }
        start = i + 1;
        eq = -1;
        if (end)
            break;
    }
    if (tc->nargs > n) {
        snprintf(tc->why, tc->why_len, "%s takes %d template argument%s, got %d", tc->name, n,
                 n == 1 ? "" : "s", tc->nargs);
        tc->found = -1;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (i < tc->nargs)
            snprintf(values[i], sizeof values[i], "%s", tc->args[i]);
        else if (!values[i][0]) {
            snprintf(tc->why, tc->why_len, "%s takes %d template argument%s, got %d (%s has no "
                     "default)", tc->name, n, n == 1 ? "" : "s", tc->nargs, names[i]);
            tc->found = -1;
            return 0;
        }
    }
    size_t from = s->toks[open].off + 1, to = s->toks[close].off;
    char *params = substitute(s->text + from, to - from, names, values, n);
    gpu_kernel_info_t *k = calloc(1, sizeof *k);
    if (!params || !k || parse_params(params, strlen(params), k)) {
        free(params);
        gpu_kernels_free(k, k ? 1 : 0);
        return -1;
    }
    free(params);
    k->line = s->toks[global].line;
    tc->out = k;
    tc->found = 1;
    return 0;
}

int rt_kscan_template(const char *src, const char *name, const char *const *args, int nargs,
                      gpu_kernel_info_t **out, char *why, size_t why_len)
{
    scan_t s;
    template_ctx_t tc = {name, args, nargs, NULL, why, why_len, 0};
    *out = NULL;
    if (scan_open(&s, src))
        return -1;
    int rc = walk(&s, visit_template, &tc);
    scan_free(&s);
    if (rc) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    *out = tc.out;
    return tc.found;
}
