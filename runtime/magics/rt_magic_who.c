/* %who, %whos and %reset: the session's variables, listed or dropped
 * (IPython's layouts; see docs/magics.md). */
#include "rt_magic.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_array.h"
#include "ga_udf.h"
#include "rt_kprelude.h"
#include "rt_lex.h"
#include "rt_result.h"
#include "rt_session_defs.h"
#include "rt_tcc.h"

/* ---- %who and %whos ------------------------------------------------- */

typedef struct var {
    const char *name;   /* borrowed from the prelude */
    char *type;         /* "int", "double *", "int[3]" */
    void *addr;
    unsigned long size, elem; /* bytes; bytes of one element (arrays) */
    int kind;           /* of the _Generic below; 0 = none of them */
} var_t;

/* _Generic kinds of a variable's value; 0 is any other type. */
enum {
    K_BOOL = 1, K_CHAR, K_SCHAR, K_UCHAR, K_SHORT, K_USHORT, K_INT, K_UINT, K_LONG, K_ULONG,
    K_LLONG, K_ULLONG, K_FLOAT, K_DOUBLE, K_LDOUBLE, K_STR, K_CSTR
};

static const char generic_kinds[] =
    "_Bool: 1, char: 2, signed char: 3, unsigned char: 4, short: 5, unsigned short: 6, "
    "int: 7, unsigned: 8, long: 9, unsigned long: 10, long long: 11, "
    "unsigned long long: 12, float: 13, double: 14, long double: 15, char *: 16, "
    "const char *: 17, default: 0";

static int cmp_var(const void *a, const void *b)
{
    return strcmp(((const var_t *)a)->name, ((const var_t *)b)->name);
}

/* The type of a variable declared by `text` ("extern int a[3] __attr..;"):
 * the text without extern, the name and the attribute. New string. */
static char *type_of(const char *text, const char *name)
{
    size_t len = strlen(text);
    const char *attr = strstr(text, " __attribute((visibility");
    if (attr)
        len = (size_t)(attr - text);
    while (len && (text[len - 1] == ';' || isspace((unsigned char)text[len - 1])))
        len--;
    rt_tok_t *toks; /* a prelude entry: a declaration the session holds */
    int unterminated;
    size_t n = rt_lex_all(text, 0, len, 1, &toks, &unterminated);
    cm_buf_t b = {0};
    for (size_t i = 0; i < n; i++) {
        const rt_tok_t *t = &toks[i];
        if (t->kind == RT_TOK_IDENT && (rt_tok_is(text, t, "extern") ||
                                        (rt_tok_is(text, t, name) &&
                                         !(i && (rt_tok_is(text, &toks[i - 1], "struct") ||
                                                 rt_tok_is(text, &toks[i - 1], "union") ||
                                                 rt_tok_is(text, &toks[i - 1], "enum"))))))
            continue;
        char c = text[t->start];
        int glue = b.len == 0 || c == '[' || c == ')' || c == ',' ||
                   (c == '(' && cm_buf_str(&b)[b.len - 1] == ')') ||
                   cm_buf_str(&b)[b.len - 1] == '(' || cm_buf_str(&b)[b.len - 1] == '[' ||
                   (c == '*' && cm_buf_str(&b)[b.len - 1] == '*') ||
                   (cm_buf_str(&b)[b.len - 1] == '*' && t->kind != RT_TOK_IDENT && c != '(') ||
                   (t->kind == RT_TOK_NUMBER && cm_buf_str(&b)[b.len - 1] == '[') || c == ']';
        if (!glue)
            cm_buf_addc(&b, ' ');
        cm_buf_add(&b, text + t->start, t->len);
    }
    free(toks);
    return cm_buf_steal(&b);
}

/* Top-level shape of a type text: 'a' array, 'p' pointer, 'f' function
 * pointer or pointer to array, 's' struct/union value, 'v' other. */
static char shape_of(const char *type)
{
    if (strchr(type, '('))
        return 'f';
    if (strchr(type, '['))
        return 'a';
    size_t n = strlen(type);
    if (n && type[n - 1] == '*')
        return 'p';
    if (strstr(type, "struct ") || strstr(type, "union "))
        return 's';
    return 'v';
}

/* Non-zero when a variable of this type is wanted: no filter, one of the
 * words of the filter ("int double"), or the whole filter when it has a
 * '*', '[' or '(' ("char *"). */
static int type_wanted(const char *type, const cm_names_t *words, const char *whole)
{
    if (!words->n)
        return 1;
    if (!strpbrk(whole, "*[("))
        return cm_names_find(words, type, (size_t)-1) >= 0;
    char *w = type_of(whole, "");
    int same = strcmp(w, type) == 0;
    free(w);
    return same;
}

/* The session's variables, sorted by name, those of the given types only
 * (none = all). Sizes and kinds come from one compile of the session's
 * declarations; without it (it failed) they are 0. Returns the count. */
static size_t collect_vars(rt_session_t *s, const cm_names_t *types, const char *whole,
                           var_t **out)
{
    var_t *v = NULL;
    size_t n = 0;
    const rt_prelude_t *prelude = rt_session_prelude(s);
    for (size_t i = 0; i < prelude->n; i++) {
        const rt_entry_t *e = &prelude->v[i];
        if (e->kind != RT_ENTRY_VAR || e->nkeys == 0)
            continue;
        char *type = type_of(e->text, e->keys[0]);
        if (!type_wanted(type, types, whole)) {
            free(type);
            continue;
        }
        v = realloc(v, (n + 1) * sizeof *v);
        if (!v)
            abort();
        v[n++] = (var_t){e->keys[0], type, rt_session_symbol(s, e->keys[0]), 0, 0, 0};
    }
    if (n) {
        qsort(v, n, sizeof *v, cmp_var);
        cm_buf_t b = {0};
        cm_buf_adds(&b, "\nconst unsigned long __gpuc_whos_size[] = {");
        for (size_t i = 0; i < n; i++) {
            if (strstr(v[i].type, "[]"))
                cm_buf_adds(&b, "0, "); /* incomplete: sizeof cannot tell */
            else
                cm_buf_addf(&b, "sizeof(%s), ", v[i].name);
        }
        cm_buf_adds(&b, "0};\nconst unsigned long __gpuc_whos_elem[] = {");
        for (size_t i = 0; i < n; i++) {
            if (shape_of(v[i].type) == 'a')
                cm_buf_addf(&b, "sizeof((%s)[0]), ", v[i].name);
            else
                cm_buf_adds(&b, "0, ");
        }
        cm_buf_adds(&b, "0};\nconst int __gpuc_whos_kind[] = {");
        for (size_t i = 0; i < n; i++)
            cm_buf_addf(&b, "_Generic((%s), %s), ", v[i].name, generic_kinds);
        cm_buf_adds(&b, "0};\n");
        cm_error_t err = {0};
        rt_tcc_t *t = rt_session_compile_aux(s, cm_buf_str(&b), &err);
        cm_buf_free(&b);
        if (t) {
            const unsigned long *size = rt_tcc_symbol(t, "__gpuc_whos_size");
            const unsigned long *elem = rt_tcc_symbol(t, "__gpuc_whos_elem");
            const int *kind = rt_tcc_symbol(t, "__gpuc_whos_kind");
            for (size_t i = 0; size && elem && kind && i < n; i++) {
                v[i].size = size[i];
                v[i].elem = elem[i];
                v[i].kind = kind[i];
            }
            rt_tcc_free(t);
        }
    }
    *out = v;
    return n;
}

static void free_vars(var_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].type);
    free(v);
}

/* The variables %who / %whos list: those of the TYPE arguments, or all.
 * When there are none, says so as IPython does and returns 0. */
static size_t requested_vars(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                             var_t **v)
{
    cm_names_t types = {0};
    rt_magic_args(code, m, &types);
    char *whole = cm_strndup(code + m->args, m->args_len);
    size_t n = collect_vars(s, &types, whole, v);
    free(whole);
    if (!n)
        printf("%s\n", types.n ? "No variables match your requested type."
                               : "Interactive namespace is empty.");
    cm_names_free(&types);
    return n;
}

int rt_magic_who(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err)
{
    var_t *v;
    size_t n = requested_vars(s, code, m, &v);
    /* IPython's layout: tab-separated, nine names a line */
    for (size_t i = 0; i < n; i++)
        printf("%s%s", v[i].name, i + 1 == n || (i + 1) % 9 == 0 ? "\n" : "\t");
    free_vars(v, n);
    return 0;
}

typedef struct show_arg {
    const var_t *v;
    char *text; /* the result text */
} show_arg_t;

/* Shows a scalar variable's value as a cell result would (rt_result);
 * inside the protected boundary, as a string may point anywhere. */
static void show_value(void *arg)
{
    show_arg_t *a = arg;
    const var_t *v = a->v;
    const void *p = v->addr;
    switch (v->kind) {
    case K_BOOL: rt_result_show_bool(*(const _Bool *)p); break;
    case K_CHAR: rt_result_show_char(*(const char *)p); break;
    case K_SCHAR: rt_result_show_int(*(const signed char *)p); break;
    case K_UCHAR: rt_result_show_uint(*(const unsigned char *)p); break;
    case K_SHORT: rt_result_show_int(*(const short *)p); break;
    case K_USHORT: rt_result_show_uint(*(const unsigned short *)p); break;
    case K_INT: rt_result_show_int(*(const int *)p); break;
    case K_UINT: rt_result_show_uint(*(const unsigned *)p); break;
    case K_LONG: rt_result_show_int(*(const long *)p); break;
    case K_ULONG: rt_result_show_uint(*(const unsigned long *)p); break;
    case K_LLONG: rt_result_show_int(*(const long long *)p); break;
    case K_ULLONG: rt_result_show_uint(*(const unsigned long long *)p); break;
    case K_FLOAT: rt_result_show_float(*(const float *)p); break;
    case K_DOUBLE: rt_result_show_double(*(const double *)p); break;
    case K_LDOUBLE: rt_result_show_ldouble(*(const long double *)p); break;
    case K_STR:
    case K_CSTR: rt_result_show_str(*(const char *const *)p); break;
    default: rt_result_show_ptr(*(const void *const *)p); break;
    }
    a->text = rt_result_take();
}

/* The Data/Info text of a variable. New string. */
static char *data_info(rt_session_t *s, const var_t *v)
{
    char b[256];
    char shape = shape_of(v->type);
    if (!v->addr)
        return cm_strndup("?", 1);
    if (strcmp(v->type, "ga_t") == 0) { /* a device array: dtype, shape, bytes, device */
        const ga_array_t *a = *(const ga_array_t *const *)v->addr;
        if (!a)
            return cm_strndup("NULL", 4);
        ga_array_describe(a, b, sizeof b);
        return cm_strndup(b, strlen(b));
    }
    if (shape == 'a') {
        if (v->elem && v->size)
            snprintf(b, sizeof b, "%lu elements, %lu bytes", v->size / v->elem, v->size);
        else
            snprintf(b, sizeof b, "array");
        return cm_strndup(b, strlen(b));
    }
    if (v->kind == 0 && shape != 'p' && shape != 'f') {
        const char *what = strncmp(v->type, "union", 5) == 0 || strstr(v->type, " union ")
                               ? "union" : shape == 's' ? "struct" : NULL;
        if (what)
            snprintf(b, sizeof b, "(%s, %lu bytes)", what, v->size);
        else
            snprintf(b, sizeof b, "(%lu bytes)", v->size);
        return cm_strndup(b, strlen(b));
    }
    show_arg_t a = {v, NULL};
    rt_error_t unreadable = {0};
    rt_result_reset();
    if (rt_session_protect(s, show_value, &a, 0, &unreadable) != 0) {
        rt_error_free(&unreadable);
        free(a.text);
        rt_result_reset();
        return cm_strndup("<unreadable>", 12);
    }
    return a.text ? a.text : cm_strndup("?", 1);
}

/* IPython's %whos cuts data past 50 characters in the middle. */
static void print_data(const char *d)
{
    size_t n = strlen(d);
    if (n <= 50)
        printf("%s\n", d);
    else
        printf("%.25s<...>%s\n", d, d + n - 25);
}

int rt_magic_whos(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                  rt_error_t *err)
{
    var_t *v;
    size_t n = requested_vars(s, code, m, &v);
    if (!n) {
        free(v);
        return 0;
    }
    /* IPython's widths: the longest entry or label, and 3 blanks */
    size_t vw = strlen("Variable"), tw = strlen("Type");
    for (size_t i = 0; i < n; i++) {
        if (strlen(v[i].name) > vw)
            vw = strlen(v[i].name);
        if (strlen(v[i].type) > tw)
            tw = strlen(v[i].type);
    }
    vw += 3;
    tw += 3;
    printf("%-*s%-*s Data/Info\n", (int)vw, "Variable", (int)tw, "Type");
    for (size_t i = 0; i < vw + tw + strlen("Data/Info") + 1; i++)
        putchar('-');
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        char *d = data_info(s, &v[i]);
        printf("%-*s%-*s ", (int)vw, v[i].name, (int)tw, v[i].type);
        print_data(d);
        free(d);
    }
    free_vars(v, n);
    return 0;
}

/* ---- %reset --------------------------------------------------------- */

int rt_magic_reset(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                   rt_error_t *err)
{
    cm_names_t args = {0};
    rt_magic_args(code, m, &args);
    for (size_t i = 0; i < args.n; i++)
        if (strcmp(args.v[i], "-f") != 0) {
            rt_error_set(err, "UsageError", cell_no, m->line,
                         "%%reset: unknown argument '%s' (usage: %%reset [-f])", args.v[i]);
            cm_names_free(&args);
            return -1;
        }
    cm_names_free(&args);
    size_t dropped = rt_session_reset(s);
    ga_udf_reset(); /* %%elementwise / %%reduce functions go with their macros */
    rt_cpp_reset();
    rt_kprelude_forget_host(); /* device code stops seeing host cells' names too */
    printf("Session reset: %zu name%s dropped.\n", dropped, dropped == 1 ? "" : "s");
    return 0;
}

