/* rt_compile: compiling a host cell — planning it, the headers it needs
 * (shaken or full), the ways to show its final expression, compile errors
 * on the cell's lines — and committing what it defined to the session.
 * See rt_session_internal.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_log.h"
#include "cm_vec.h"
#include "gpu.h"
#include "rt_api_table.h"
#include "rt_expand.h"
#include "rt_gpu_host.h"
#include "rt_header.h"
#include "rt_launch.h"
#include "rt_libc.h"
#include "rt_session_internal.h"
#include "rt_session_query.h"

/* ---- compile errors ------------------------------------------------- */


/* The last line of code that is not blank, 1-based (0 for an empty cell). */
static int last_code_line(const char *code)
{
    int line = 1, last = 0;
    for (const char *p = code; *p; p++) {
        if (*p == '\n')
            line++;
        else if (!isspace((unsigned char)*p))
            last = line;
    }
    return last;
}

/* The cell line a diagnostic is about, 0 if it is not about this cell.
 * TCC reports a cell that ends too early ("int q = ;") at the first token
 * after it, in the code gpuc generates: that is the cell's last line. */
static int diag_cell_line(const rt_diag_t *d, const char *code, int cell)
{
    int c;
    int last = last_code_line(code);
    if (sscanf(d->file, "cell[%d]", &c) == 1 && c == cell)
        return d->line > last && last > 0 ? last : d->line;
    if (strcmp(d->file, "gpuc-generated") == 0)
        return last;
    return 0;
}

static void compile_error(const char *code, int cell, const rt_diag_t *diags, size_t n,
                          rt_error_t *err)
{
    rt_error_t e = {0};
    for (size_t i = 0; i < n; i++) {
        const rt_diag_t *d = &diags[i];
        if (d->warning)
            continue;
        int line = diag_cell_line(d, code, cell);
        if (line > 0) {
            size_t len;
            const char *src = rt_source_line(code, line, &len);
            int at_end = strcmp(d->file, "gpuc-generated") == 0 || d->line != line;
            int col = at_end ? (int)len + 1 : rt_source_column(d->msg, src, len);
            rt_error_set(&e, "CompileError", cell, line, "cell %d, line %d: %s", cell, line,
                         d->msg);
            if (!e.column)
                e.column = col;
            rt_error_add_line(&e, "cell %d, line %d, column %d: error: %s", cell, line, col,
                              d->msg);
            rt_error_add_source(&e, src, len, col);
            char hint[sizeof e.hint];
            if (!e.hint[0] && rt_header_hint(d->msg, src, len, hint, sizeof hint))
                rt_error_hint(&e, "%s", hint);
        } else {
            char head[CM_ERROR_TEXT];
            const char *note = rt_gpu_link_note(d->msg);
            if (note)
                snprintf(head, sizeof head, "cell %d: error: %s (%s)", cell, d->msg, note);
            else if (strstr(d->msg, "undefined symbol"))
                snprintf(head, sizeof head,
                         "cell %d: error: %s (declared but never defined: a missing function "
                         "body or library?)", cell, d->msg);
            else if (d->file[0] && strcmp(d->file, "gpuc-generated") != 0)
                snprintf(head, sizeof head, "cell %d: error in %s, line %d: %s", cell, d->file,
                         d->line, d->msg);
            else
                snprintf(head, sizeof head, "cell %d: error: %s", cell, d->msg);
            rt_error_set(&e, "CompileError", cell, 0, "%s", head);
            rt_error_add_line(&e, "%s", head);
        }
    }
    rt_error_set(&e, "CompileError", cell, 0, "cell %d: compilation failed", cell);
    if (!rt_error_is_set(err))
        rt_error_move(err, &e);
    rt_error_free(&e);
}

static void print_warnings(const char *code, const rt_diag_t *diags, size_t n, int cell)
{
    for (size_t i = 0; i < n; i++) {
        int line = diag_cell_line(&diags[i], code, cell);
        if (diags[i].warning && line > 0)
            fprintf(stderr, "cell %d, line %d: warning: %s\n", cell, line, diags[i].msg);
    }
}

/* Errors only on the final expression's lines: another way to show it may work. */
static int only_result_errors(const rt_plan_t *p, const char *code, const rt_diag_t *diags,
                              size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (diags[i].warning)
            continue;
        int line = diag_cell_line(&diags[i], code, p->cell);
        if (line < p->expr_line || line > p->expr_end_line)
            return 0;
        /* the expression itself is wrong (two structs compared: TCC goes on
         * after the error and dies compiling the struct way of showing it) */
        if (strstr(diags[i].msg, "invalid operand types"))
            return 0;
        any = 1;
    }
    return any;
}

/* ---- compiling ------------------------------------------------------ */

/* A state for the cell: the runtime's symbols and the earlier cells' ones
 * it does not redefine (only those of the entries in emit, if not NULL).
 * NULL with *error set on failure. */
rt_tcc_t *rt_session_new_state(rt_session_t *s, const rt_plan_t *plan, const char *emit,
                               rt_error_t *error)
{
    cm_error_t err = {0};
    rt_tcc_t *t = rt_tcc_new(s->libdir, &err);
    if (!t) {
        rt_error_set(error, "CompileError", 0, 0, "%s", err.text);
        return NULL;
    }
    for (const rt_symbol_t *r = rt_api_symbols; r->name; r++)
        rt_tcc_add_symbol(t, r->name, r->addr);
    for (const rt_symbol_t *r = rt_libc_symbols; r->name; r++)
        rt_tcc_add_symbol(t, r->name, r->addr);
    /* the CUDA runtime API, where gpuc serves it (the simulator) */
    const gpu_symbol_t *cuda = gpu_runtime_symbols();
    for (; cuda && cuda->name; cuda++)
        rt_tcc_add_symbol(t, cuda->name, cuda->addr);
    if (!emit) {
        for (size_t i = 0; i < s->nsyms; i++)
            if (cm_names_find(&plan->keys, s->syms[i].name, (size_t)-1) < 0)
                rt_tcc_add_symbol(t, s->syms[i].name, s->syms[i].addr);
        return t;
    }
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = emit[i] ? &s->prelude.v[i] : NULL;
        for (size_t k = 0; e && k < e->nkeys; k++) {
            long j = rt_session_find_symbol(s, e->keys[k]);
            if (j >= 0 && cm_names_find(&plan->keys, e->keys[k], (size_t)-1) < 0)
                rt_tcc_add_symbol(t, s->syms[j].name, s->syms[j].addr);
        }
    }
    return t;
}

/* Errors only where the final expression's value meets the show
 * functions (its type fits none): the next way to show it will do, with
 * no need to hear it from the full headers. A missing declaration gives
 * other messages ("undeclared", "implicit declaration"). */
static int only_show_errors(const rt_plan_t *p, const char *code, const rt_diag_t *diags,
                            size_t n)
{
    if (!only_result_errors(p, code, diags, n))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (diags[i].warning || (!strstr(diags[i].msg, "to 'struct __gpuc_no_format'") &&
                                 !strstr(diags[i].msg, "to 'volatile const void *'")))
            return 0;
    return 1;
}

/* Compiles the shaken source; the state only if it compiled and linked
 * without a single diagnostic (anything else is left to the full headers,
 * whose diagnostics are the ones the user sees). *show_failed tells a
 * final expression whose type this result mode cannot show. */
static rt_tcc_t *compile_shaken(rt_session_t *s, const char *src, const char *code, int cell,
                                const rt_plan_t *plan, const char *emit, int *show_failed)
{
    *show_failed = 0;
    rt_error_t error = {0};
    rt_tcc_t *t = rt_session_new_state(s, plan, emit, &error);
    if (!t) {
        rt_error_free(&error);
        return NULL;
    }
    if (getenv("GPUC_DUMP_SOURCE"))
        fprintf(stderr, "---- cell %d shaken source ----\n%s\n----\n", cell, src);
    size_t nd = 0;
    int rc = rt_tcc_compile(t, src);
    rt_tcc_diags(t, &nd);
    if (rc == 0 && nd == 0) {
        rc = rt_tcc_relocate(t);
        rt_tcc_diags(t, &nd);
        if (rc == 0 && nd == 0) {
            s->stats.shaken++;
            return t;
        }
    }
    const rt_diag_t *d = rt_tcc_diags(t, &nd);
    if (rc != 0 && plan->has_expr && only_show_errors(plan, code, d, nd)) {
        *show_failed = 1;
        rt_tcc_free(t);
        return NULL;
    }
    s->stats.fallbacks++;
    CM_DEBUG("cell %d: shaken headers failed (%s:%d: %s); full headers (%lu of %lu)", cell,
             nd ? d[0].file : "", nd ? d[0].line : 0, nd ? d[0].msg : "?", s->stats.fallbacks,
             s->stats.fallbacks + s->stats.shaken);
    rt_tcc_free(t);
    return NULL;
}

/* plan_toks holds code with launches rewritten and top-level macro uses
 * expanded (rt_expand.c), on the same lines, read once for every way the
 * plan is made; messages quote code, as the user wrote it. */
static rt_tcc_t *compile_code(rt_session_t *s, const char *code, const rt_tokens_t *plan_toks,
                              int cell, rt_plan_t *plan, rt_error_t *error)
{
    const char *plan_code = plan_toks->src;
    rt_result_mode_t modes[] = {RT_RESULT_GENERIC, RT_RESULT_POINTER, RT_RESULT_STRUCT,
                                RT_RESULT_NONE};
    const int last = 3;
    static rt_struct_hint_t hint; /* its fields are freed by the next use */
    int hinted = 0;
    for (int m = 0; m <= last; m++) {
        cm_buf_t body = {0};
        if (modes[m] == RT_RESULT_STRUCT) {
            if (!plan->has_expr || !plan->expr)
                continue;
            if (!hinted)
                rt_session_struct_hint(s, plan_code, plan->expr, &hint);
            rt_plan_set_struct_hint(&hint);
        }
        rt_plan_make_tokens(plan, plan_toks, cell, modes[m], rt_session_is_type, s, &body);
        rt_plan_set_struct_hint(NULL);
        if (m == 0 && plan->has_expr && plan->expr && plan->nentries) {
            /* a value of a struct the cell declares (its members are
             * known): its way first, since a failed compile costs time
             * and this libtcc leaks the debug information of one */
            rt_session_struct_hint(s, plan_code, plan->expr, &hint);
            hinted = 1;
            if (hint.nfields) {
                cm_buf_free(&body);
                m = 1; /* the next is RT_RESULT_STRUCT */
                continue;
            }
        }
        char *excluded = calloc(s->prelude.n + 1, 1);
        if (!excluded)
            abort();
        rt_prelude_exclude(&s->prelude, plan->keys.v, plan->keys.n, excluded);

        char *emit = calloc(s->prelude.n + 1, 1);
        if (!emit)
            abort();
        char *shaken = rt_session_shaken_source(s, plan, excluded, &body, emit);
        if (shaken) {
            int show_failed;
            rt_tcc_t *t = compile_shaken(s, shaken, code, cell, plan, emit, &show_failed);
            free(shaken);
            free(emit);
            if (show_failed && m < last) {
                cm_buf_free(&body);
                free(excluded);
                continue;
            }
            if (t) {
                cm_buf_free(&body);
                free(excluded);
                rt_tcc_keep(t);
                return t;
            }
        } else {
            free(emit);
            s->stats.full++;
        }

        cm_buf_t src = {0};
        cm_buf_adds(&src, rt_session_header(s));
        cm_buf_adds(&src, "#line 1 \"session\"\n");
        rt_prelude_render(&s->prelude, excluded, &src);
        cm_buf_add(&src, cm_buf_str(&body), body.len);
        cm_buf_free(&body);
        free(excluded);

        rt_tcc_t *t = rt_session_new_state(s, plan, NULL, error);
        if (!t) {
            cm_buf_free(&src);
            return NULL;
        }
        if (getenv("GPUC_DUMP_SOURCE"))
            fprintf(stderr, "---- cell %d source ----\n%s\n----\n", cell, cm_buf_str(&src));
        int rc = rt_tcc_compile(t, cm_buf_str(&src));
        cm_buf_free(&src);
        size_t nd;
        const rt_diag_t *diags = rt_tcc_diags(t, &nd);
        if (rc != 0) {
            if (plan->has_expr && m < last && only_result_errors(plan, code, diags, nd)) {
                rt_tcc_free(t);
                continue;
            }
            print_warnings(code, diags, nd, cell);
            compile_error(code, cell, diags, nd, error);
            rt_tcc_free(t);
            return NULL;
        }
        if (rt_tcc_relocate(t) != 0) {
            diags = rt_tcc_diags(t, &nd);
            print_warnings(code, diags, nd, cell);
            compile_error(code, cell, diags, nd, error);
            rt_tcc_free(t);
            return NULL;
        }
        print_warnings(code, diags, nd, cell);
        rt_tcc_keep(t);
        return t;
    }
    rt_error_set(error, "CompileError", cell, 0, "compilation failed");
    return NULL;
}

/* The cell read once into toks as the planner takes it: launches
 * rewritten into C, then top-level macro uses expanded (on the same
 * lines); each text gpuc writes is read once where it is written, and a
 * cell that needed neither goes on with its own tokens (p->toks). */
typedef struct planned {
    const rt_tokens_t *toks;   /* what the planner reads (borrowed) */
    char *launches, *expanded; /* the texts written, or NULL */
    rt_tokens_t launches_read, expanded_read;
} planned_t;

static void plan_text(rt_session_t *s, const rt_tokens_t *toks, int cell, planned_t *p)
{
    memset(p, 0, sizeof *p);
    p->toks = toks;
    rt_gpu_prepare_host(toks->src, cell);
    p->launches = rt_launch_rewrite_tokens(toks, cell); /* kernel<<<...>>>(...) into C */
    if (p->launches) {
        rt_tokens_lex(&p->launches_read, p->launches, 0, strlen(p->launches), 1);
        p->toks = &p->launches_read;
    }
    cm_buf_t macros = {0};
    rt_prelude_macros(&s->prelude, &macros);
    if (macros.len || strstr(p->toks->src, "#define"))
        p->expanded =
            rt_expand_cell(s->libdir, cm_buf_str(&macros), p->toks, cell, rt_session_is_type, s);
    cm_buf_free(&macros);
    if (p->expanded) {
        rt_tokens_lex(&p->expanded_read, p->expanded, 0, strlen(p->expanded), 1);
        p->toks = &p->expanded_read;
    }
}

static void plan_text_free(planned_t *p)
{
    rt_tokens_free(&p->launches_read);
    rt_tokens_free(&p->expanded_read);
    free(p->expanded);
    free(p->launches);
}

rt_tcc_t *rt_session_compile_cell(rt_session_t *s, const rt_tokens_t *toks, int cell,
                                  rt_plan_t *plan, rt_error_t *error)
{
    const char *code = toks->src;
    planned_t p;
    plan_text(s, toks, cell, &p);
    s->cell_includes = rt_session_cell_includes(s, code); /* its types, for the plan */
    rt_tcc_t *t = compile_code(s, code, p.toks, cell, plan, error);
    free(s->cell_includes);
    s->cell_includes = NULL;
    plan_text_free(&p);
    return t;
}

/* ---- for another compiler ----------------------------------------- */

char *rt_session_plan_cell(rt_session_t *s, const char *code, int cell, rt_result_mode_t mode,
                           rt_plan_t *plan)
{
    /* the fallback's padded source, after TCC refused it: read here, once */
    rt_tokens_t read;
    rt_tokens_lex(&read, code, 0, strlen(code), 1);
    planned_t p;
    plan_text(s, &read, cell, &p);
    s->cell_includes = rt_session_cell_includes(s, code);
    cm_buf_t body = {0};
    rt_plan_make_tokens(plan, p.toks, cell, mode, rt_session_is_type, s, &body);
    free(s->cell_includes);
    s->cell_includes = NULL;
    plan_text_free(&p);
    rt_tokens_free(&read);
    return cm_buf_steal(&body);
}

void rt_session_commit_declarations(rt_session_t *s, const rt_plan_t *plan,
                                    int (*keep)(void *ctx, const rt_plan_entry_t *e), void *ctx)
{
    if (plan->nentries || plan->keys.n)
        s->generation++;
    char *excluded = calloc(s->prelude.n + 1, 1);
    if (!excluded)
        abort();
    rt_prelude_exclude(&s->prelude, plan->keys.v, plan->keys.n, excluded);
    rt_prelude_remove(&s->prelude, excluded);
    free(excluded);
    for (size_t i = 0; i < plan->nentries; i++) {
        const rt_plan_entry_t *e = &plan->entries[i];
        if (!keep || keep(ctx, e))
            rt_prelude_add(&s->prelude, e->kind, e->text, e->keys.v, e->keys.n, plan->cell);
    }
    for (size_t i = 0; i < plan->types.n; i++)
        if (cm_names_find(&s->types, plan->types.v[i], (size_t)-1) < 0)
            cm_names_add(&s->types, plan->types.v[i], (size_t)-1);
}

void rt_session_commit(rt_session_t *s, rt_tcc_t *t, const rt_plan_t *plan)
{
    rt_session_commit_declarations(s, plan, NULL, NULL);
    for (size_t i = 0; i < plan->vars.n; i++) {
        void *a = rt_tcc_symbol(t, plan->vars.v[i]);
        if (a)
            rt_session_set_symbol(s, plan->vars.v[i], a, plan->cell, 0);
    }
    for (size_t i = 0; i < plan->funcs.n; i++) {
        void *a = rt_tcc_symbol(t, plan->funcs.v[i]);
        if (a) {
            rt_session_set_symbol(s, plan->funcs.v[i], a, plan->cell, 1);
            rt_session_add_code(s, plan->funcs.v[i], a, plan->cell);
            if (i < plan->func_texts.n)
                rt_session_set_source(s, plan->funcs.v[i], plan->func_texts.v[i]);
        }
    }
    for (size_t i = 0; i < plan->parts.n; i++) {
        void *a = rt_tcc_symbol(t, plan->parts.v[i]);
        if (a)
            rt_session_add_code(s, plan->parts.v[i], a, plan->cell);
    }
    void *main_fn = plan->has_main ? rt_tcc_symbol(t, "main") : NULL;
    if (main_fn)
        rt_session_add_code(s, "main", main_fn, plan->cell);
}
