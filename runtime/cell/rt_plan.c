/* rt_plan: one cell into C source plus what it adds to the session (see rt_plan.h). */
#include "rt_plan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_vec.h"
#include "rt_cell.h"

typedef struct gen {
    rt_plan_t *plan;
    const char *code;
    const rt_tokens_t *toks; /* code read once */
    cm_buf_t *src;     /* file scope */
    cm_buf_t part;     /* statements of the part being built */
    int cond_depth;    /* inside this many #if blocks of the cell */
} gen_t;

static void line_directive(cm_buf_t *b, int line, int cell)
{
    if (b->len && b->s[b->len - 1] != '\n')
        cm_buf_addc(b, '\n');
    cm_buf_addf(b, "#line %d \"cell[%d]\"\n", line, cell);
}

/* Ends the part being built, unless inside an #if block: a part never
 * straddles a conditional, whose directives go to both the file scope and
 * the part (see do_directive). */
static void flush_part(gen_t *g)
{
    if (!g->part.len || g->cond_depth > 0)
        return;
    char name[80];
    snprintf(name, sizeof name, "__gpuc_cell%d_part%zu", g->plan->cell, g->plan->parts.n);
    cm_names_add(&g->plan->parts, name, (size_t)-1);
    cm_buf_addf(g->src, "\nvoid %s(void) {\n", name);
    cm_buf_add(g->src, g->part.s, g->part.len);
    cm_buf_adds(g->src, "\n}\n");
    cm_buf_free(&g->part);
}

static rt_plan_entry_t *add_entry(rt_plan_t *p, rt_entry_kind_t kind, char *text_steal)
{
    CM_VEC_GROW(p->entries, p->nentries, p->capentries);
    rt_plan_entry_t *e = &p->entries[p->nentries++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->text = text_steal;
    return e;
}

static void add_key(rt_plan_t *p, rt_plan_entry_t *e, const char *key, size_t len)
{
    if (e)
        cm_names_add(&e->keys, key, len);
    if (cm_names_find(&p->keys, key, len) < 0)
        cm_names_add(&p->keys, key, len);
}

/* Appends code[a,b) with whitespace runs collapsed to one space, skipping
 * the ranges in skip[][2] (start, length). */
static void add_flat(cm_buf_t *b, const char *code, size_t a, size_t e, size_t (*skip)[2],
                     int nskip)
{
    int space = 0;
    for (size_t i = a; i < e; i++) {
        int skipped = 0;
        for (int k = 0; k < nskip; k++) {
            if (i == skip[k][0] && skip[k][1]) {
                i += skip[k][1] - 1;
                skipped = 1;
                break;
            }
        }
        if (skipped) {
            space = 1;
            continue;
        }
        if (isspace((unsigned char)code[i])) {
            space = 1;
            continue;
        }
        if (space && b->len && b->s[b->len - 1] != ' ')
            cm_buf_addc(b, ' ');
        space = 0;
        cm_buf_addc(b, code[i]);
    }
}

/* The specifiers as later cells must write them: no storage class and,
 * for a tagged struct/union/enum, no body (the type entry has it). */
static void add_spec_ref(cm_buf_t *b, const char *code, const rt_decl_t *d, int keep_extern)
{
    size_t skip[RT_DECL_DROPS + 1][2];
    int n = 0;
    for (int k = 0; k < d->ndrop; k++) {
        if (keep_extern && d->drop[k][1] == 6 && memcmp(code + d->drop[k][0], "extern", 6) == 0)
            continue;
        skip[n][0] = d->drop[k][0];
        skip[n][1] = d->drop[k][1];
        n++;
    }
    if (d->body_end > d->body_start && d->tag_len) {
        skip[n][0] = d->body_start;
        skip[n][1] = d->body_end - d->body_start;
        n++;
    }
    add_flat(b, code, d->spec_start, d->spec_end, skip, n);
}

/* Copies code[a,b) blanking dropped storage classes (not extern) and the
 * listed initializers, keeping newlines so lines stay where they were;
 * counts[k], when given, goes between the brackets of declarator k's "[]". */
static void add_blanked(cm_buf_t *b, const char *code, size_t a, size_t e, const rt_decl_t *d,
                        const char *blank_init, const cm_buf_t *counts)
{
    for (size_t i = a; i < e; i++) {
        int blank = 0;
        for (int k = 0; k < d->n && counts; k++)
            if (i == d->d[k].unsized && d->d[k].unsized)
                cm_buf_add(b, counts[k].s, counts[k].len);
        for (int k = 0; k < d->ndrop && !blank; k++)
            if (i >= d->drop[k][0] && i < d->drop[k][0] + d->drop[k][1] &&
                !(d->drop[k][1] == 6 && memcmp(code + d->drop[k][0], "extern", 6) == 0))
                blank = 1;
        for (int k = 0; k < d->n && !blank; k++)
            if (blank_init && blank_init[k] && i >= d->d[k].init_start && i < d->d[k].init_end)
                blank = 1;
        cm_buf_addc(b, blank && code[i] != '\n' ? ' ' : code[i]);
    }
}

static void do_directive(gen_t *g, const rt_item_t *it)
{
    const char *code = g->code;
    rt_plan_t *p = g->plan;
    /* which directive: the word after '#' */
    size_t i = it->start + 1;
    while (i < it->end && (code[i] == ' ' || code[i] == '\t'))
        i++;
    size_t w = i;
    while (i < it->end && isalpha((unsigned char)code[i]))
        i++;
    size_t wlen = i - w;
    int opens = (wlen == 2 && memcmp(code + w, "if", 2) == 0) ||
                (wlen == 5 && memcmp(code + w, "ifdef", 5) == 0) ||
                (wlen == 6 && memcmp(code + w, "ifndef", 6) == 0);
    int closes = wlen == 5 && memcmp(code + w, "endif", 5) == 0;
    int conditional = opens || closes || (wlen == 4 && memcmp(code + w, "elif", 4) == 0) ||
                      (wlen == 4 && memcmp(code + w, "else", 4) == 0);
    if (conditional) {
        /* the same conditional around the cell's declarations and its
         * statements: both streams get the directive */
        g->cond_depth += opens - closes;
        line_directive(g->src, it->line, p->cell);
        cm_buf_add(g->src, code + it->start, it->end - it->start);
        cm_buf_addc(g->src, '\n');
        line_directive(&g->part, it->line, p->cell);
        cm_buf_add(&g->part, code + it->start, it->end - it->start);
        cm_buf_addc(&g->part, '\n');
        return; /* #if and friends apply to this cell only */
    }
    flush_part(g);
    line_directive(g->src, it->line, p->cell);
    cm_buf_add(g->src, code + it->start, it->end - it->start);
    cm_buf_addc(g->src, '\n');
    cm_buf_t text = {0};
    add_flat(&text, code, it->start, it->end, NULL, 0);
    if ((wlen == 6 && memcmp(code + w, "define", 6) == 0) ||
        (wlen == 5 && memcmp(code + w, "undef", 5) == 0)) {
        while (i < it->end && (code[i] == ' ' || code[i] == '\t'))
            i++;
        size_t n = i;
        while (n < it->end && (isalnum((unsigned char)code[n]) || code[n] == '_'))
            n++;
        cm_buf_t key = {0};
        cm_buf_adds(&key, "#define ");
        cm_buf_add(&key, code + i, n - i);
        /* keep the original line breaks of a multi-line macro */
        cm_buf_t raw = {0};
        cm_buf_add(&raw, code + it->start, it->end - it->start);
        rt_plan_entry_t *e = add_entry(p, RT_ENTRY_DIRECTIVE, cm_buf_steal(&raw));
        add_key(p, e, cm_buf_str(&key), key.len);
        cm_buf_free(&key);
        cm_buf_free(&text);
    } else if ((wlen == 7 && memcmp(code + w, "include", 7) == 0) ||
               (wlen == 6 && memcmp(code + w, "pragma", 6) == 0)) {
        rt_plan_entry_t *e = add_entry(p, RT_ENTRY_DIRECTIVE, cm_buf_steal(&text));
        add_key(p, e, e->text, (size_t)-1);
    } else {
        cm_buf_free(&text);
    }
}

static void do_function(gen_t *g, const rt_item_t *it, rt_is_type_fn is_type, void *ctx)
{
    const char *code = g->code;
    rt_plan_t *p = g->plan;
    rt_decl_t d;
    rt_decl_parse_tokens(g->toks, it->start, it->body, is_type, ctx, &d);
    flush_part(g);
    line_directive(g->src, it->line, p->cell);
    add_blanked(g->src, code, it->start, it->end, &d, NULL, NULL);
    cm_buf_addc(g->src, '\n');
    if (d.n < 1 || !d.d[0].name_len)
        return;
    const rt_declarator_t *dd = &d.d[0];
    if (dd->name_len == 4 && memcmp(code + dd->name, "main", 4) == 0) {
        p->has_main = 1;
        add_key(p, NULL, "main", 4);
        return;
    }
    cm_buf_t text = {0};
    add_spec_ref(&text, code, &d, 0);
    cm_buf_addc(&text, ' ');
    add_flat(&text, code, dd->start, dd->end, NULL, 0);
    cm_buf_addc(&text, ';');
    rt_plan_entry_t *e = add_entry(p, RT_ENTRY_FUNC, cm_buf_steal(&text));
    add_key(p, e, code + dd->name, dd->name_len);
    cm_names_add(&p->funcs, code + dd->name, dd->name_len);
    cm_names_add(&p->func_texts, code + it->start, it->end - it->start);
}

/* The keys a type entry declares besides typedef names: "struct tag" and
 * the enumerators. */
static void add_type_keys(rt_plan_t *p, rt_plan_entry_t *e, const char *code, const rt_decl_t *d)
{
    if (d->tag_len) {
        cm_buf_t key = {0};
        cm_buf_add(&key, code + d->tagkw, d->tagkw_len);
        cm_buf_addc(&key, ' ');
        cm_buf_add(&key, code + d->tag, d->tag_len);
        add_key(p, e, key.s, key.len);
        cm_buf_free(&key);
    }
    for (int k = 0; k < d->nenums; k++)
        add_key(p, e, code + d->enums[k][0], d->enums[k][1]);
}

static void do_declaration(gen_t *g, const rt_item_t *it, rt_is_type_fn is_type, void *ctx)
{
    const char *code = g->code;
    rt_plan_t *p = g->plan;
    size_t end = it->has_semicolon ? it->end - 1 : it->end;
    rt_decl_t d;
    rt_decl_parse_tokens(g->toks, it->start, end, is_type, ctx, &d);
    char blank[RT_DECL_MAX] = {0};
    cm_buf_t counts[RT_DECL_MAX] = {{0}};
    cm_buf_t assign = {0};
    for (int k = 0; k < d.n; k++) {
        const rt_declarator_t *dd = &d.d[k];
        if (d.is_typedef || d.is_extern || dd->is_function || !dd->name_len ||
            dd->init_end <= dd->init_start || dd->init_constant)
            continue;
        /* a non-constant initializer runs at this point of the cell; the
         * size of "a[]" it gave must stay */
        blank[k] = 1;
        rt_decl_count_tokens(g->toks, dd, &counts[k]);
        const char *name = code + dd->name;
        int nl = (int)dd->name_len;
        line_directive(&assign, dd->init_line, p->cell);
        cm_buf_addf(&assign, "{ __typeof__(%.*s) __gpuc_init = ", nl, name);
        size_t v = dd->init_start + 1; /* after '=' */
        cm_buf_add(&assign, code + v, dd->init_end - v);
        cm_buf_addf(&assign, "; memcpy((void *)&%.*s, &__gpuc_init, sizeof %.*s); }\n", nl, name,
                    nl, name);
    }
    flush_part(g);
    line_directive(g->src, it->line, p->cell);
    add_blanked(g->src, code, it->start, end, &d, blank, counts);
    cm_buf_adds(g->src, ";");
    for (int k = 0; k < d.n; k++) {
        cm_buf_free(&counts[k]);
        const rt_declarator_t *dd = &d.d[k];
        if (dd->unsized && dd->init_end > dd->init_start && !d.is_typedef && !d.is_extern)
            cm_buf_addf(g->src, " unsigned long __gpuc_count_%.*s = sizeof %.*s / sizeof *%.*s;",
                        (int)dd->name_len, code + dd->name, (int)dd->name_len, code + dd->name,
                        (int)dd->name_len, code + dd->name);
    }
    cm_buf_addc(g->src, '\n');
    if (assign.len) {
        cm_buf_add(&g->part, assign.s, assign.len);
        cm_buf_free(&assign);
    }
    /* what later cells see */
    if (d.is_typedef) {
        cm_buf_t text = {0};
        cm_buf_add(&text, code + it->start, end - it->start);
        cm_buf_addc(&text, ';');
        rt_plan_entry_t *e = add_entry(p, RT_ENTRY_TYPE, cm_buf_steal(&text));
        for (int k = 0; k < d.n; k++) {
            if (!d.d[k].name_len)
                continue;
            add_key(p, e, code + d.d[k].name, d.d[k].name_len);
            cm_names_add(&p->types, code + d.d[k].name, d.d[k].name_len);
        }
        if (d.body_end > d.body_start) /* a typedef of "struct tag" alone defines no tag */
            add_type_keys(p, e, code, &d);
        return;
    }
    if (d.body_end > d.body_start && (d.tag_len || d.nenums)) {
        cm_buf_t text = {0};
        size_t skip[RT_DECL_DROPS][2];
        for (int k = 0; k < d.ndrop; k++) {
            skip[k][0] = d.drop[k][0];
            skip[k][1] = d.drop[k][1];
        }
        /* the type alone: qualifiers such as const go with the variables */
        if (d.tagkw_len) {
            cm_buf_add(&text, code + d.tagkw, d.body_end - d.tagkw);
        } else {
            add_flat(&text, code, d.spec_start, d.spec_end, skip, d.ndrop);
        }
        cm_buf_addc(&text, ';');
        rt_plan_entry_t *e = add_entry(p, RT_ENTRY_TYPE, cm_buf_steal(&text));
        add_type_keys(p, e, code, &d);
    }
    for (int k = 0; k < d.n; k++) {
        const rt_declarator_t *dd = &d.d[k];
        if (!dd->name_len)
            continue;
        cm_buf_t text = {0};
        int is_var = !dd->is_function && !d.is_extern;
        if (is_var)
            cm_buf_adds(&text, "extern ");
        add_spec_ref(&text, code, &d, d.is_extern);
        cm_buf_addc(&text, ' ');
        size_t count_at = 0;
        if (is_var && dd->unsized && dd->init_end > dd->init_start) {
            add_flat(&text, code, dd->start, dd->unsized, NULL, 0);
            count_at = text.len;
            add_flat(&text, code, dd->unsized, dd->end, NULL, 0);
        } else {
            add_flat(&text, code, dd->start, dd->end, NULL, 0);
        }
        if (is_var) /* direct references resolved right (rt_tcc.c); not __attribute__, which glibc
                    * defines away for compilers that are not GCC */
            cm_buf_adds(&text, " __attribute((visibility(\"hidden\")))");
        cm_buf_addc(&text, ';');
        rt_plan_entry_t *e =
            add_entry(p, is_var ? RT_ENTRY_VAR : RT_ENTRY_DECL, cm_buf_steal(&text));
        add_key(p, e, code + dd->name, dd->name_len);
        if (count_at) {
            cm_buf_t sym = {0};
            cm_buf_addf(&sym, "__gpuc_count_%.*s", (int)dd->name_len, code + dd->name);
            e->count = cm_buf_steal(&sym);
            e->count_at = count_at;
        }
        if (is_var)
            cm_names_add(&p->vars, code + dd->name, dd->name_len);
    }
}

static const rt_struct_hint_t *struct_hint;

void rt_plan_set_struct_hint(const rt_struct_hint_t *hint)
{
    struct_hint = hint;
}

void rt_struct_hint_add(rt_struct_hint_t *hint, rt_field_kind_t kind, int ndims,
                        const char *name, size_t len)
{
    CM_VEC_GROW(hint->fields, hint->nfields, hint->capfields);
    rt_field_t *f = &hint->fields[hint->nfields++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->ndims = ndims;
    if (name && len < sizeof f->name)
        memcpy(f->name, name, len);
}

void rt_struct_hint_clear(rt_struct_hint_t *hint)
{
    free(hint->fields);
    memset(hint, 0, sizeof *hint);
}

/* The field functions of gpuc.h by the member's type (scalars, strings). */
#define SCALAR_FIELDS                                                                          \
    "_Bool: __gpuc_field_bool, char: __gpuc_field_char, signed char: __gpuc_field_sint,"     \
    " unsigned char: __gpuc_field_uint, short: __gpuc_field_sint,"                           \
    " unsigned short: __gpuc_field_uint, int: __gpuc_field_sint,"                            \
    " unsigned int: __gpuc_field_uint, long: __gpuc_field_sint,"                             \
    " unsigned long: __gpuc_field_uint, long long: __gpuc_field_sint,"                       \
    " unsigned long long: __gpuc_field_uint, float: __gpuc_field_float,"                     \
    " double: __gpuc_field_double, long double: __gpuc_field_ldouble,"                       \
    " char *: __gpuc_field_str, const char *: __gpuc_field_str,"

static void show_members(cm_buf_t *b, const rt_struct_hint_t *h, size_t *k, const char *path,
                         int *loops);

/* Code that shows the value at path (an lvalue): dimension dim of an
 * array of f->ndims, else one element by f's kind. *k is the step after
 * f; a struct's members are consumed from there. */
static void show_value(cm_buf_t *b, const rt_struct_hint_t *h, const rt_field_t *f, size_t *k,
                       const char *path, int dim, int *loops)
{
    if (dim < f->ndims) {
        if (dim == f->ndims - 1 && f->kind == RT_FIELD_SCALAR)
            cm_buf_addf(b, "if (_Generic((%s[0]), char: 1, default: 0))"
                           " __gpuc_field_chars(&%s, sizeof %s); else\n", path, path, path);
        int i = (*loops)++;
        cm_buf_addf(b, "{ __gpuc_array_begin(); for (unsigned long long __gpuc_i%d = 0;"
                       " __gpuc_i%d < sizeof %s / sizeof %s[0] && __gpuc_array_item();"
                       " __gpuc_i%d++) {\n", i, i, path, path, i);
        cm_buf_t elem = {0};
        cm_buf_addf(&elem, "%s[__gpuc_i%d]", path, i);
        show_value(b, h, f, k, cm_buf_str(&elem), dim + 1, loops);
        cm_buf_free(&elem);
        cm_buf_adds(b, "} __gpuc_array_end(); }\n");
        return;
    }
    switch (f->kind) {
    case RT_FIELD_POINTER:
        cm_buf_addf(b, "_Generic((%s), char *: __gpuc_field_str, const char *: __gpuc_field_str,"
                       " default: __gpuc_field_ptr)(&%s, sizeof %s);\n", path, path, path);
        break;
    case RT_FIELD_BITS:
        cm_buf_addf(b, "{ long long __gpuc_b = (%s); __gpuc_field_sint(&__gpuc_b, sizeof __gpuc_b); }\n",
                    path);
        break;
    case RT_FIELD_STRUCT:
        cm_buf_addf(b, "__gpuc_struct_begin(0, sizeof %s);\n", path);
        show_members(b, h, k, path, loops);
        cm_buf_addf(b, "__gpuc_struct_end(0, sizeof %s);\n", path);
        break;
    case RT_FIELD_SCALAR:
        cm_buf_addf(b, "_Generic((%s), " SCALAR_FIELDS " default: __gpuc_field_other)"
                       "(&%s, sizeof %s);\n", path, path, path);
        break;
    default:
        cm_buf_adds(b, "__gpuc_field_other(0, 0);\n");
        break;
    }
}

/* The members from step *k up to the end of the list or the RT_FIELD_END
 * of the struct at path (consumed). */
static void show_members(cm_buf_t *b, const rt_struct_hint_t *h, size_t *k, const char *path,
                         int *loops)
{
    while (*k < h->nfields) {
        const rt_field_t *f = &h->fields[(*k)++];
        if (f->kind == RT_FIELD_END)
            return;
        if (f->kind == RT_FIELD_MORE) {
            cm_buf_adds(b, "__gpuc_struct_field(0);\n");
            continue;
        }
        cm_buf_addf(b, "__gpuc_struct_field(\"%s\");\n", f->name);
        cm_buf_t member = {0};
        cm_buf_addf(&member, "%s.%s", path, f->name);
        show_value(b, h, f, k, cm_buf_str(&member), 0, loops);
        cm_buf_free(&member);
    }
}

/* With members (the expression is an lvalue): { __typeof__ *p = &(expr);
 * begin; each member's name and value; end }. Else a copy, for its size. */
static void show_struct(cm_buf_t *b, int cell, const rt_item_t *it, const char *expr, size_t len)
{
    const char *type = struct_hint && struct_hint->type ? struct_hint->type : "struct";
    int lvalue = struct_hint && struct_hint->nfields;
    line_directive(b, it->line, cell);
    cm_buf_adds(b, "{ __typeof__((\n");
    line_directive(b, it->line, cell);
    cm_buf_add(b, expr, len);
    line_directive(b, it->end_line, cell);
    cm_buf_adds(b, lvalue ? ")) *__gpuc_p = &(\n" : ")) __gpuc_v = (\n");
    line_directive(b, it->line, cell);
    cm_buf_add(b, expr, len);
    line_directive(b, it->end_line, cell);
    const char *v = lvalue ? "(*__gpuc_p)" : "__gpuc_v";
    cm_buf_addf(b, ");\n__gpuc_struct_begin(\"%s\", sizeof %s);\n", type, v);
    size_t k = 0;
    int loops = 0;
    if (lvalue)
        show_members(b, struct_hint, &k, v, &loops);
    cm_buf_addf(b, "__gpuc_struct_end(\"%s\", sizeof %s); }\n", type, v);
}

static void do_expression(gen_t *g, const rt_item_t *it, rt_result_mode_t mode)
{
    rt_plan_t *p = g->plan;
    const char *expr = g->code + it->start;
    size_t len = it->end - it->start;
    cm_buf_t *b = &g->part;
    p->has_expr = 1;
    free(p->expr);
    p->expr = cm_strndup(expr, len);
    p->expr_line = it->line;
    p->expr_end_line = it->end_line;
    if (mode == RT_RESULT_NONE) {
        line_directive(b, it->line, p->cell);
        cm_buf_add(b, expr, len);
        cm_buf_adds(b, ";\n");
        return;
    }
    if (mode == RT_RESULT_STRUCT) {
        show_struct(b, p->cell, it, expr, len);
        return;
    }
    for (int copy = 0; copy < (mode == RT_RESULT_GENERIC ? 2 : 1); copy++) {
        line_directive(b, it->line, p->cell);
        if (mode == RT_RESULT_POINTER)
            cm_buf_adds(b, "__gpuc_show_ptr((\n");
        else if (copy == 0)
            cm_buf_adds(b, "_Generic((\n");
        else
            cm_buf_adds(b, "((\n");
        line_directive(b, it->line, p->cell);
        cm_buf_add(b, expr, len);
        line_directive(b, it->end_line, p->cell);
        if (mode == RT_RESULT_POINTER || copy == 1)
            cm_buf_adds(b, "));\n");
        else
            cm_buf_adds(b,
                        "), _Bool: __gpuc_show_bool, char: __gpuc_show_char,"
                        " signed char: __gpuc_show_int, unsigned char: __gpuc_show_uint,"
                        " short: __gpuc_show_int, unsigned short: __gpuc_show_uint,"
                        " int: __gpuc_show_int, unsigned int: __gpuc_show_uint,"
                        " long: __gpuc_show_int, unsigned long: __gpuc_show_uint,"
                        " long long: __gpuc_show_int, unsigned long long: __gpuc_show_uint,"
                        " float: __gpuc_show_float, double: __gpuc_show_double,"
                        " long double: __gpuc_show_ldouble,"
                        " char *: __gpuc_show_str, const char *: __gpuc_show_str,"
                        " void *: __gpuc_show_ptr, const void *: __gpuc_show_ptr,"
                        " struct ga_array *: __gpuc_show_array,"
                        " default: __gpuc_show_fail)");
    }
}

/* The session's typedef names plus those this cell declared so far. */
typedef struct plan_types {
    rt_is_type_fn outer;
    void *outer_ctx;
    const rt_plan_t *plan;
} plan_types_t;

static int plan_is_type(void *ctx, const char *name, size_t len)
{
    const plan_types_t *pt = ctx;
    return cm_names_find(&pt->plan->types, name, len) >= 0 ||
           (pt->outer && pt->outer(pt->outer_ctx, name, len));
}

void rt_plan_make(rt_plan_t *plan, const char *code, int cell, rt_result_mode_t mode,
                  rt_is_type_fn outer_is_type, void *outer_ctx, cm_buf_t *src)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, code, 0, strlen(code), 1); /* a text not read before */
    rt_plan_make_tokens(plan, &t, cell, mode, outer_is_type, outer_ctx, src);
    rt_tokens_free(&t);
}

void rt_plan_make_tokens(rt_plan_t *plan, const rt_tokens_t *t, int cell, rt_result_mode_t mode,
                         rt_is_type_fn outer_is_type, void *outer_ctx, cm_buf_t *src)
{
    const char *code = t->src;
    plan_types_t types = {outer_is_type, outer_ctx, plan};
    rt_is_type_fn is_type = plan_is_type;
    void *ctx = &types;
    rt_plan_free(plan);
    plan->cell = cell;
    snprintf(plan->entry_name, sizeof plan->entry_name, "__gpuc_cell_%d", cell);
    rt_cell_t items;
    rt_cell_split_tokens(t, is_type, ctx, &items);
    gen_t g = {plan, code, t, src, {0}, 0};
    for (size_t i = 0; i < items.n; i++) {
        const rt_item_t *it = &items.items[i];
        switch (it->kind) {
        case RT_ITEM_DIRECTIVE: do_directive(&g, it); break;
        case RT_ITEM_FUNCTION: do_function(&g, it, is_type, ctx); break;
        case RT_ITEM_DECLARATION: do_declaration(&g, it, is_type, ctx); break;
        case RT_ITEM_STATEMENT:
            line_directive(&g.part, it->line, cell);
            cm_buf_add(&g.part, code + it->start, it->end - it->start);
            cm_buf_addc(&g.part, '\n');
            break;
        case RT_ITEM_EXPRESSION: do_expression(&g, it, mode); break;
        }
    }
    g.cond_depth = 0; /* unbalanced #if: TCC reports it */
    flush_part(&g);
    cm_buf_addf(src, "\n#line 1 \"gpuc-generated\"\nvoid %s(void) {\n", plan->entry_name);
    for (size_t k = 0; k < plan->parts.n; k++)
        cm_buf_addf(src, "    %s();\n", plan->parts.v[k]);
    cm_buf_adds(src, "}\n");
    rt_cell_free(&items);
}

void rt_plan_complete(rt_plan_t *plan, rt_tcc_t *t)
{
    for (size_t i = 0; i < plan->nentries; i++) {
        rt_plan_entry_t *e = &plan->entries[i];
        const unsigned long *n = e->count ? rt_tcc_symbol(t, e->count) : NULL;
        if (!n)
            continue;
        cm_buf_t text = {0};
        cm_buf_add(&text, e->text, e->count_at);
        cm_buf_addf(&text, "%lu%s", *n, e->text + e->count_at);
        free(e->text);
        e->text = cm_buf_steal(&text);
        free(e->count);
        e->count = NULL;
    }
}

void rt_plan_free(rt_plan_t *plan)
{
    free(plan->expr);
    cm_names_free(&plan->keys);
    for (size_t i = 0; i < plan->nentries; i++) {
        free(plan->entries[i].text);
        free(plan->entries[i].count);
        cm_names_free(&plan->entries[i].keys);
    }
    free(plan->entries);
    cm_names_free(&plan->vars);
    cm_names_free(&plan->funcs);
    cm_names_free(&plan->func_texts);
    cm_names_free(&plan->types);
    cm_names_free(&plan->parts);
    memset(plan, 0, sizeof *plan);
}
