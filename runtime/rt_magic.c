/* rt_magic: the table of magics, finding magic lines in a cell, and the
 * magics gpuc 0.1 implements (see rt_magic.h, docs/magics.md). */
#include "rt_magic.h"

#include "rt_gpu.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_buf.h"
#include "rt_cc.h"
#include "rt_lex.h"
#include "rt_prelude.h"
#include "rt_protect.h"
#include "rt_result.h"
#include "rt_session_internal.h"
#include "rt_speedup.h"
#include "rt_tcc.h"
#include "rt_timeit.h"

/* ---- the table ------------------------------------------------------ */

static const rt_magic_info_t magics[] = {
    {"lsmagic", 0, "%lsmagic",
     "Lists the magics available now, then those that are planned.", 1},
    {"who", 0, "%who [TYPE ...]",
     "Lists the names of the session's variables, sorted, tab-separated. With TYPEs "
     "(as declared, e.g. `%who int double`) only variables of those types. Functions "
     "are not variables and are not listed.", 1},
    {"whos", 0, "%whos [TYPE ...]",
     "Like %who, as a table: each variable's name, its C type as declared and its "
     "value (numbers and strings as results are shown; arrays by element count, "
     "structs by size).", 1},
    {"reset", 0, "%reset [-f]",
     "Starts a fresh session: every variable, function, type, macro, #include, %lib "
     "and %cflags is forgotten; the kernel keeps running. Cannot be undone (-f is "
     "accepted; gpuc never asks for confirmation).", 1},
    {"lib", 0, "%lib [NAME ...]",
     "Links the system library libNAME.so (e.g. `%lib z`, `%lib pthread`) into the "
     "cells that follow, in this cell and later ones; `%lib` alone lists the linked "
     "libraries. Found like the dynamic loader does, then as libNAME.so.N in "
     "LD_LIBRARY_PATH and the system library folders. Write the #include for its "
     "declarations yourself.", 1},
    {"cflags", 0, "%cflags [OPTIONS | --reset]",
     "Adds TCC options for the cells that follow: -I DIR, -isystem DIR, -D NAME[=VALUE], "
     "-U NAME, -w, -W..., -f..., -O, -g, -std=... `%cflags` alone shows them, "
     "`%cflags --reset` clears them. -b (bounds checking) is not supported: this "
     "libtcc cannot check bounds in memory.", 1},
    {"timeit", 0, "%timeit [-n N] [-r R] [-q] [-o] STATEMENT",
     "Times a statement as IPython does: loops grow by tens until a run takes 0.2 s, "
     "7 runs, mean and standard deviation per loop; GPU time shown apart.", 1},
    {"timeit", 1, "%%timeit [-n N] [-r R] [-q] [-o] [SETUP]",
     "Times the cell's code as %timeit times a statement; the rest of the magic line is "
     "setup code, run before each timed run.", 1},
    {"time", 1, "%%time",
     "Runs the cell once and shows its wall time, CPU time and GPU time; compile time "
     "is shown apart.", 1},
    {"speedup", 1,
     "%%speedup [--check CPU,GPU[:COUNT]]... [--rtol R] [--atol A] [--sizes S,...] "
     "[--var NAME] [-n N] [-r R]",
     "Times the cell's //%% cpu section against its //%% gpu section by %timeit's rules "
     "(after an optional //%% setup section), checks that the outputs named by --check agree, "
     "and shows CPU time, GPU kernel time, GPU time with transfers and both speedups; "
     "--sizes repeats it for each value of N (--var) and draws the times and the speedup "
     "against size, marking where the GPU starts to win.", 1},
    {"kernel", 1, "%%kernel [NVRTC OPTIONS]",
     "Compiles the cell as CUDA C++ device code with NVRTC; its __global__ kernels "
     "become callable from host cells with <<<grid, block>>>.", 1},
    {"cuda", 1, "%%cuda [NVRTC OPTIONS]", "Another name for %%kernel.", 1},
    {"elementwise", 1, "%%elementwise NAME(PARAMS)",
     "Makes an elementwise GPU kernel from one expression per element.", 0},
    {"reduce", 1, "%%reduce NAME(PARAMS)",
     "Makes a GPU reduction kernel from a map expression and a reduce operator.", 0},
    {"cc", 1, "%%cc [CFLAGS]",
     "Compiles the cell (definitions only) with the system C compiler ($CC, else cc; "
     "-O2 -march=native unless flags are given) into the session, for fast CPU baselines: "
     "later cells call its functions and use its variables, and it uses theirs.", 1},
    {"gpu", 0, "%gpu [N]",
     "Shows the GPUs (name, compute capability, SMs, memory) and the driver, NVRTC and CUDA "
     "runtime versions; %gpu N makes device N the one kernels run on.", 1},
    {"memory", 0, "%memory", "Shows device memory: used, free, and what the pool holds.", 0},
    {"device", 0, "%device [gpu | sim | N]",
     "Shows or switches the device: a GPU by number, or the CPU simulator.", 0},
    {"ptx", 0, "%ptx KERNEL", "Shows the PTX of a kernel compiled in an earlier cell.", 0},
    {"writefile", 1, "%%writefile [-a] FILE", "Writes the cell's text to FILE (-a appends).", 0},
    {"sh", 1, "%%sh", "Runs the cell with /bin/sh; its output streams to the notebook.", 0},
};

const rt_magic_info_t *rt_magic_table(size_t *n)
{
    *n = sizeof magics / sizeof magics[0];
    return magics;
}

/* The entry for name as a cell or line magic; the other kind if only it
 * exists (for help); NULL if neither. */
static const rt_magic_info_t *lookup(const char *name, int cell, int exact)
{
    const rt_magic_info_t *other = NULL;
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
        if (strcmp(magics[i].name, name) != 0)
            continue;
        if (magics[i].cell == cell)
            return &magics[i];
        other = &magics[i];
    }
    return exact ? NULL : other;
}

/* ---- finding magic lines ------------------------------------------- */

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Parses the magic at code[at] (a '%' that is the first non-blank of its
 * line) into *m. 0 when it is no magic (no name after the '%'). */
static int parse_line(const char *code, size_t at, size_t line_start, int line,
                      rt_magic_line_t *m)
{
    memset(m, 0, sizeof *m);
    size_t p = at + 1;
    if (code[p] == '%') {
        m->cell = 1;
        p++;
    }
    if (!(isalpha((unsigned char)code[p]) || code[p] == '_'))
        return 0;
    size_t n = 0;
    while (name_char(code[p + n]))
        n++;
    if (n < sizeof m->name)
        memcpy(m->name, code + p, n);
    p += n;
    m->start = at;
    m->line = line;
    const char *nl = strchr(code + p, '\n');
    m->end = nl ? (size_t)(nl - code) : strlen(code);
    m->next = nl ? m->end + 1 : m->end;
    size_t a = p, b = m->end;
    while (a < b && isspace((unsigned char)code[a]))
        a++;
    while (b > a && isspace((unsigned char)code[b - 1]))
        b--;
    if (a == p && a < b && code[a] == '?') { /* %name? */
        m->help = 1;
        a++;
        while (a < b && isspace((unsigned char)code[a]))
            a++;
    }
    m->args = a;
    m->args_len = b - a;
    m->first = 1;
    for (size_t i = 0; i < line_start; i++)
        if (!isspace((unsigned char)code[i]))
            m->first = 0;
    return 1;
}

int rt_magic_find(const char *code, size_t from, int line, rt_magic_line_t *m)
{
    size_t end = strlen(code);
    rt_lexer_t lx;
    rt_lex_init(&lx, code, from, end, line);
    rt_tok_t t;
    while (rt_lex_next(&lx, &t) != RT_TOK_EOF) {
        if (t.kind != RT_TOK_PUNCT || code[t.start] != '%')
            continue;
        size_t ls = t.start;
        while (ls > from && code[ls - 1] != '\n')
            ls--;
        int blank = 1;
        for (size_t i = ls; i < t.start; i++)
            if (code[i] != ' ' && code[i] != '\t')
                blank = 0;
        if (blank && parse_line(code, t.start, ls, t.line, m))
            return 1;
        /* a '%' operator: lex on from the next line would also be wrong;
         * the lexer simply goes on */
    }
    return 0;
}

/* ---- replies -------------------------------------------------------- */

static json_t *magic_error(const char *ename, int cell_no, int line, const char *fmt, ...)
{
    char msg[CM_ERROR_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char head[CM_ERROR_TEXT + 64];
    snprintf(head, sizeof head, "cell %d, line %d: %s", cell_no, line, msg);
    return json_pack("{s:s, s:s, s:s, s:[s]}", "status", "error", "ename", ename, "evalue", msg,
                     "traceback", head);
}

/* The arguments split at blanks, into out (caller frees). */
static void split_args(const char *code, const rt_magic_line_t *m, rt_names_t *out)
{
    const char *p = code + m->args, *e = p + m->args_len;
    while (p < e) {
        while (p < e && isspace((unsigned char)*p))
            p++;
        const char *w = p;
        while (p < e && !isspace((unsigned char)*p))
            p++;
        if (p > w)
            rt_names_add(out, w, (size_t)(p - w));
    }
}

/* ---- %lsmagic and help ---------------------------------------------- */

static void print_names(int cell, int implemented, const char *none)
{
    int any = 0;
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
        if (magics[i].cell != cell || magics[i].implemented != implemented)
            continue;
        printf("%s%s%s", any ? "  " : "", cell ? "%%" : "%", magics[i].name);
        any = 1;
    }
    printf("%s\n", any ? "" : none);
}

static json_t *do_lsmagic(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no)
{
    printf("Available line magics:\n");
    print_names(0, 1, "(none)");
    printf("\nAvailable cell magics:\n");
    print_names(1, 1, "(none yet)");
    printf("\nplanned: ");
    print_names(0, 0, "");
    printf("         ");
    print_names(1, 0, "");
    printf("\n%%name? shows a magic's help.\n");
    return NULL;
}

static void print_help(const rt_magic_info_t *info)
{
    printf("Usage: %s\n\n%s\n", info->usage, info->help);
    if (!info->implemented)
        printf("\n%s%s is not available yet in gpuc 0.1; it is planned.\n",
               info->cell ? "%%" : "%", info->name);
}

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
    rt_tok_t *toks;
    int unterminated;
    size_t n = rt_lex_all(text, 0, len, 1, &toks, &unterminated);
    rt_buf_t b = {0};
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
                   (c == '(' && rt_buf_str(&b)[b.len - 1] == ')') ||
                   rt_buf_str(&b)[b.len - 1] == '(' || rt_buf_str(&b)[b.len - 1] == '[' ||
                   (c == '*' && rt_buf_str(&b)[b.len - 1] == '*') ||
                   (rt_buf_str(&b)[b.len - 1] == '*' && t->kind != RT_TOK_IDENT && c != '(') ||
                   (t->kind == RT_TOK_NUMBER && rt_buf_str(&b)[b.len - 1] == '[') || c == ']';
        if (!glue)
            rt_buf_addc(&b, ' ');
        rt_buf_add(&b, text + t->start, t->len);
    }
    free(toks);
    return rt_buf_steal(&b);
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
static int type_wanted(const char *type, const rt_names_t *words, const char *whole)
{
    if (!words->n)
        return 1;
    if (!strpbrk(whole, "*[("))
        return rt_names_find(words, type, (size_t)-1) >= 0;
    char *w = type_of(whole, "");
    int same = strcmp(w, type) == 0;
    free(w);
    return same;
}

/* The session's variables, sorted by name, those of the given types only
 * (none = all). Sizes and kinds come from one compile of the session's
 * declarations; without it (it failed) they are 0. Returns the count. */
static size_t collect_vars(rt_session_t *s, const rt_names_t *types, const char *whole,
                           var_t **out)
{
    var_t *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
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
        rt_buf_t b = {0};
        rt_buf_adds(&b, "\nconst unsigned long __gpuc_whos_size[] = {");
        for (size_t i = 0; i < n; i++) {
            if (strstr(v[i].type, "[]"))
                rt_buf_adds(&b, "0, "); /* incomplete: sizeof cannot tell */
            else
                rt_buf_addf(&b, "sizeof(%s), ", v[i].name);
        }
        rt_buf_adds(&b, "0};\nconst unsigned long __gpuc_whos_elem[] = {");
        for (size_t i = 0; i < n; i++) {
            if (shape_of(v[i].type) == 'a')
                rt_buf_addf(&b, "sizeof((%s)[0]), ", v[i].name);
            else
                rt_buf_adds(&b, "0, ");
        }
        rt_buf_adds(&b, "0};\nconst int __gpuc_whos_kind[] = {");
        for (size_t i = 0; i < n; i++)
            rt_buf_addf(&b, "_Generic((%s), %s), ", v[i].name, generic_kinds);
        rt_buf_adds(&b, "0};\n");
        cm_error_t err = {0};
        rt_tcc_t *t = rt_session_compile_aux(s, rt_buf_str(&b), &err);
        rt_buf_free(&b);
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
    rt_names_t types = {0};
    split_args(code, m, &types);
    char *whole = rt_strndup(code + m->args, m->args_len);
    size_t n = collect_vars(s, &types, whole, v);
    free(whole);
    if (!n)
        printf("%s\n", types.n ? "No variables match your requested type."
                               : "Interactive namespace is empty.");
    rt_names_free(&types);
    return n;
}

static json_t *do_who(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no)
{
    var_t *v;
    size_t n = requested_vars(s, code, m, &v);
    /* IPython's layout: tab-separated, nine names a line */
    for (size_t i = 0; i < n; i++)
        printf("%s%s", v[i].name, i + 1 == n || (i + 1) % 9 == 0 ? "\n" : "\t");
    free_vars(v, n);
    return NULL;
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
static char *data_info(const var_t *v)
{
    char b[128];
    char shape = shape_of(v->type);
    if (!v->addr)
        return rt_strndup("?", 1);
    if (shape == 'a') {
        if (v->elem && v->size)
            snprintf(b, sizeof b, "%lu elements, %lu bytes", v->size / v->elem, v->size);
        else
            snprintf(b, sizeof b, "array");
        return rt_strndup(b, strlen(b));
    }
    if (v->kind == 0 && shape != 'p' && shape != 'f') {
        const char *what = strncmp(v->type, "union", 5) == 0 || strstr(v->type, " union ")
                               ? "union" : shape == 's' ? "struct" : NULL;
        if (what)
            snprintf(b, sizeof b, "(%s, %lu bytes)", what, v->size);
        else
            snprintf(b, sizeof b, "(%lu bytes)", v->size);
        return rt_strndup(b, strlen(b));
    }
    show_arg_t a = {v, NULL};
    rt_fault_t fault;
    rt_result_reset();
    if (rt_protect_run(show_value, &a, &fault) != 0) {
        free(a.text);
        rt_result_reset();
        return rt_strndup("<unreadable>", 12);
    }
    return a.text ? a.text : rt_strndup("?", 1);
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

static json_t *do_whos(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no)
{
    var_t *v;
    size_t n = requested_vars(s, code, m, &v);
    if (!n) {
        free(v);
        return NULL;
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
        char *d = data_info(&v[i]);
        printf("%-*s%-*s ", (int)vw, v[i].name, (int)tw, v[i].type);
        print_data(d);
        free(d);
    }
    free_vars(v, n);
    return NULL;
}

/* ---- %reset --------------------------------------------------------- */

static json_t *do_reset(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no)
{
    rt_names_t args = {0};
    split_args(code, m, &args);
    for (size_t i = 0; i < args.n; i++)
        if (strcmp(args.v[i], "-f") != 0) {
            json_t *e = magic_error("UsageError", cell_no, m->line,
                                    "%%reset: unknown argument '%s' (usage: %%reset [-f])",
                                    args.v[i]);
            rt_names_free(&args);
            return e;
        }
    rt_names_free(&args);
    size_t dropped = rt_session_reset(s);
    printf("Session reset: %zu name%s dropped.\n", dropped, dropped == 1 ? "" : "s");
    return NULL;
}

/* ---- %lib ----------------------------------------------------------- */

/* Where %lib looks for libNAME.so.N after the dynamic loader's own search. */
static const char *const lib_dirs[] = {
#if defined(__x86_64__)
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
    "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
    "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", NULL,
};

/* Opens libNAME.so.N in dir (the shortest such name, e.g. libz.so.1 over
 * libz.so.1.2.13). */
static void *open_versioned(const char *dir, const char *stem)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.so.", stem);
    size_t pl = strlen(prefix);
    char best[512] = "";
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *f = de->d_name;
        if (strncmp(f, prefix, pl) != 0 || !isdigit((unsigned char)f[pl]))
            continue;
        if (!best[0] || strlen(f) < strlen(best))
            snprintf(best, sizeof best, "%s", f);
    }
    closedir(d);
    if (!best[0])
        return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, best);
    return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

/* Loads library `name` ("z", "libz.so", "-lz" or a path) for good, with
 * its symbols global. Returns the handle, or NULL with why[] set to the
 * folders searched. */
static void *open_library(const char *name, char *why, size_t size)
{
    if (strchr(name, '/')) {
        void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
        if (!h)
            snprintf(why, size, "%s", dlerror());
        return h;
    }
    char stem[256];
    const char *n = strncmp(name, "-l", 2) == 0 ? name + 2 : name;
    if (strncmp(n, "lib", 3) == 0 && strstr(n, ".so"))
        snprintf(stem, sizeof stem, "%.*s", (int)(strstr(n, ".so") - n), n);
    else
        snprintf(stem, sizeof stem, "lib%s", n);
    char file[300];
    snprintf(file, sizeof file, "%s.so", stem);
    void *h = dlopen(file, RTLD_NOW | RTLD_GLOBAL);
    if (h)
        return h;
    char first[256];
    snprintf(first, sizeof first, "%s", dlerror());
    rt_buf_t dirs = {0};
    const char *env = getenv("LD_LIBRARY_PATH");
    char *copy = env ? rt_strndup(env, strlen(env)) : NULL;
    for (char *save, *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !h;
         d = strtok_r(NULL, ":", &save)) {
        rt_buf_addf(&dirs, "%s%s", dirs.len ? ", " : "", d);
        h = open_versioned(d, stem);
    }
    free(copy);
    for (size_t i = 0; lib_dirs[i] && !h; i++) {
        rt_buf_addf(&dirs, "%s%s", dirs.len ? ", " : "", lib_dirs[i]);
        h = open_versioned(lib_dirs[i], stem);
    }
    if (!h)
        snprintf(why, size, "no %s or %s.so.N that loads, in the loader's path and %s (%s)", file,
                 stem, rt_buf_str(&dirs), first);
    rt_buf_free(&dirs);
    return h;
}

static void list_libraries(const rt_session_t *s)
{
    if (!s->lib_names.n) {
        printf("No libraries linked by %%lib (libc and libm always are).\n");
        return;
    }
    size_t w = 0;
    for (size_t i = 0; i < s->lib_names.n; i++)
        if (strlen(s->lib_names.v[i]) > w)
            w = strlen(s->lib_names.v[i]);
    for (size_t i = 0; i < s->lib_names.n; i++)
        printf("%-*s  %s\n", (int)w, s->lib_names.v[i], s->lib_paths.v[i]);
}

static json_t *do_lib(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no)
{
    rt_names_t names = {0};
    split_args(code, m, &names);
    if (!names.n)
        list_libraries(s);
    json_t *error = NULL;
    for (size_t i = 0; i < names.n && !error; i++) {
        if (rt_names_find(&s->lib_names, names.v[i], (size_t)-1) >= 0)
            continue;
        char why[2048];
        void *h = open_library(names.v[i], why, sizeof why);
        struct link_map *lm = NULL;
        if (!h) {
            error = magic_error("LibraryNotFound", cell_no, m->line, "%%lib: library '%s' not found: %s",
                                names.v[i], why);
        } else if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
            if (rt_names_find(&s->lib_paths, lm->l_name, (size_t)-1) < 0) {
                rt_names_add(&s->lib_names, names.v[i], (size_t)-1);
                rt_names_add(&s->lib_paths, lm->l_name, (size_t)-1);
            }
        }
        /* the handle stays open: code compiled against it may run at any time */
    }
    rt_names_free(&names);
    rt_session_options_changed(s);
    return error;
}

/* ---- %cflags -------------------------------------------------------- */

/* Options %cflags passes on; those that take a value take it joined or
 * as the next word. This libtcc exit()s on some malformed options, so
 * nothing else reaches it. */
typedef struct opt {
    const char *prefix;
    int value;          /* 1: needs a value (joined or next word) */
} opt_t;

static const opt_t known_opts[] = {
    {"-I", 1}, {"-isystem", 1}, {"-D", 1}, {"-U", 1}, {"-std=", 0}, {"-W", 0}, {"-w", 0},
    {"-f", 0}, {"-O", 0}, {"-g", 0}, {NULL, 0},
};

/* The name a -D/-U option is about ("-DX=3" -> X), in name[]. */
static void macro_of(const char *opt, char *name, size_t size)
{
    size_t n = 0;
    opt += 2;
    while (name_char(opt[n]) && n + 1 < size)
        n++;
    memcpy(name, opt, n);
    name[n] = 0;
}

/* Adds one option to s->cflags; a -D or -U replaces an earlier one of the
 * same macro (TCC would warn that it is redefined, in every cell). */
static void add_cflag(rt_session_t *s, const char *opt)
{
    if (rt_names_find(&s->cflags, opt, (size_t)-1) >= 0)
        return;
    if (opt[0] == '-' && (opt[1] == 'D' || opt[1] == 'U')) {
        char name[256], other[256];
        macro_of(opt, name, sizeof name);
        for (size_t i = 0; i < s->cflags.n; i++) {
            const char *o = s->cflags.v[i];
            if (o[0] != '-' || (o[1] != 'D' && o[1] != 'U'))
                continue;
            macro_of(o, other, sizeof other);
            if (strcmp(name, other) == 0) {
                free(s->cflags.v[i]);
                memmove(&s->cflags.v[i], &s->cflags.v[i + 1],
                        (s->cflags.n - i - 1) * sizeof *s->cflags.v);
                s->cflags.n--;
                break;
            }
        }
    }
    rt_names_add(&s->cflags, opt, (size_t)-1);
}

static json_t *do_cflags(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no)
{
    rt_names_t args = {0};
    split_args(code, m, &args);
    if (!args.n) {
        if (!s->cflags.n)
            printf("No TCC options set by %%cflags (always on: -Wall -Wno-unused-function).\n");
        for (size_t i = 0; i < s->cflags.n; i++)
            printf("%s%s", s->cflags.v[i], i + 1 == s->cflags.n ? "\n" : " ");
        return NULL;
    }
    json_t *error = NULL;
    rt_names_t add = {0};
    int reset = 0;
    for (size_t i = 0; i < args.n && !error; i++) {
        const char *a = args.v[i];
        if (strcmp(a, "--reset") == 0) {
            reset = 1;
            continue;
        }
        if (strcmp(a, "-b") == 0 || strncmp(a, "-bt", 3) == 0) {
            error = magic_error("NotSupported", cell_no, m->line,
                                "%%cflags: %s (bounds checking) is not supported: this libtcc "
                                "(0.9.27) cannot check bounds in code compiled in memory (it "
                                "reports valid accesses as out of bounds and crashes)", a);
            break;
        }
        const opt_t *o = known_opts;
        while (o->prefix && strncmp(a, o->prefix, strlen(o->prefix)) != 0)
            o++;
        if (!o->prefix || strchr(a, '"') || strchr(a, '\'')) {
            error = magic_error("UsageError", cell_no, m->line,
                                "%%cflags: '%s' is not an option %%cflags takes (-I, -isystem, "
                                "-D, -U, -w, -W..., -f..., -O, -g, -std=; no quotes; libraries "
                                "with %%lib)", a);
            break;
        }
        rt_buf_t opt = {0};
        rt_buf_adds(&opt, a);
        if (o->value && !a[strlen(o->prefix)]) {
            if (i + 1 == args.n) {
                error = magic_error("UsageError", cell_no, m->line,
                                    "%%cflags: %s needs a value", a);
                rt_buf_free(&opt);
                break;
            }
            if (strcmp(o->prefix, "-isystem") == 0)
                rt_buf_addc(&opt, ' ');
            rt_buf_adds(&opt, args.v[++i]);
        }
        if ((a[1] == 'D' || a[1] == 'U') &&
            !(isalpha((unsigned char)rt_buf_str(&opt)[2]) || rt_buf_str(&opt)[2] == '_'))
            error = magic_error("UsageError", cell_no, m->line,
                                "%%cflags: '%s' does not name a macro", rt_buf_str(&opt));
        rt_names_add(&add, rt_buf_str(&opt), opt.len);
        rt_buf_free(&opt);
    }
    if (!error) {
        if (reset)
            rt_names_free(&s->cflags);
        for (size_t i = 0; i < add.n; i++)
            add_cflag(s, add.v[i]);
        rt_session_options_changed(s);
    }
    rt_names_free(&add);
    rt_names_free(&args);
    return error;
}

/* ---- running -------------------------------------------------------- */

typedef json_t *(*magic_fn)(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                            int cell_no);

static const struct {
    const char *name;
    int cell;
    magic_fn fn;
} handlers[] = {
    {"lsmagic", 0, do_lsmagic}, {"who", 0, do_who},   {"whos", 0, do_whos},
    {"reset", 0, do_reset},     {"lib", 0, do_lib},   {"cflags", 0, do_cflags},
    {"kernel", 1, rt_gpu_kernel_magic}, {"cuda", 1, rt_gpu_kernel_magic},
    {"gpu", 0, rt_gpu_magic},
    {"timeit", 0, rt_timeit_line_magic}, {"timeit", 1, rt_timeit_cell_magic},
    {"time", 1, rt_time_cell_magic},
    {"cc", 1, rt_cc_magic},
    {"speedup", 1, rt_speedup_magic},
};

json_t *rt_magic_run(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no)
{
    const char *pct = m->cell ? "%%" : "%";
    if (m->cell && !m->first)
        return magic_error("UsageError", cell_no, m->line,
                           "%%%%%s: a cell magic must be the first line of its cell", m->name);
    const rt_magic_info_t *info = lookup(m->name, m->cell, !m->help);
    if (!info) {
        const rt_magic_info_t *other = lookup(m->name, !m->cell, 1);
        if (other)
            return magic_error("UnknownMagic", cell_no, m->line,
                               "%s%s is not a magic; %s%s is (a %s magic). %%lsmagic lists them",
                               pct, m->name, other->cell ? "%%" : "%", m->name,
                               other->cell ? "cell" : "line");
        return magic_error("UnknownMagic", cell_no, m->line,
                           "%s%s is not a gpuc magic; %%lsmagic lists them", pct, m->name);
    }
    if (m->help) {
        print_help(info);
        return NULL;
    }
    if (!info->implemented)
        return magic_error("NotImplemented", cell_no, m->line,
                           "%s%s is not available yet in gpuc 0.1; it is planned", pct, m->name);
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
        if (handlers[i].cell == m->cell && strcmp(handlers[i].name, m->name) == 0) {
            json_t *r = handlers[i].fn(s, code, m, cell_no);
            fflush(stdout);
            return r;
        }
    return magic_error("NotImplemented", cell_no, m->line, "%s%s has no implementation", pct,
                       m->name);
}
