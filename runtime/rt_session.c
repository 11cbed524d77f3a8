/* rt_session: compiles and runs host C cells, keeping what they define
 * (see rt_session.h). */
#include "rt_session.h"

#include <ctype.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuc_config.h"
#include "rt_buf.h"
#include "rt_decl.h"
#include "rt_display.h"
#include "rt_header.h"
#include "rt_plan.h"
#include "rt_prelude.h"
#include "rt_protect.h"
#include "rt_result.h"
#include "rt_session_internal.h"
#include "rt_tcc.h"

static int session_is_type(void *ctx, const char *name, size_t len)
{
    const rt_session_t *s = ctx;
    return rt_names_find(&s->types, name, len) >= 0;
}

static void set_symbol(rt_session_t *s, const char *name, void *addr, int cell, int is_func)
{
    for (size_t i = 0; i < s->nsyms; i++) {
        if (strcmp(s->syms[i].name, name) == 0) {
            s->syms[i].addr = addr;
            s->syms[i].cell = cell;
            s->syms[i].is_func = is_func;
            return;
        }
    }
    if (s->nsyms == s->capsyms) {
        s->capsyms = s->capsyms ? s->capsyms * 2 : 64;
        s->syms = realloc(s->syms, s->capsyms * sizeof *s->syms);
        if (!s->syms)
            abort();
    }
    s->syms[s->nsyms++] = (rt_sym_t){rt_strndup(name, strlen(name)), addr, cell, is_func};
}

static void add_code_symbol(rt_session_t *s, const char *name, void *addr, int cell)
{
    if (s->ncode == s->capcode) {
        s->capcode = s->capcode ? s->capcode * 2 : 64;
        s->code = realloc(s->code, s->capcode * sizeof *s->code);
        if (!s->code)
            abort();
    }
    s->code[s->ncode++] = (rt_sym_t){rt_strndup(name, strlen(name)), addr, cell, 1};
}

rt_session_t *rt_session_new(const char *tcc_libdir, rt_emit_fn emit, void *emit_ctx,
                             cm_error_t *err)
{
    if (!tcc_libdir || !*tcc_libdir)
        tcc_libdir = getenv("GPUC_TCC_LIBDIR");
    if (!tcc_libdir || !*tcc_libdir)
        tcc_libdir = GPUC_TCC_LIBDIR;
    if (rt_protect_init(err) != 0)
        return NULL;
    rt_tcc_t *probe = rt_tcc_new(tcc_libdir, err);
    if (!probe)
        return NULL;
    rt_tcc_free(probe);
    rt_session_t *s = calloc(1, sizeof *s);
    if (!s) {
        CM_ERROR(err, 1, "out of memory");
        return NULL;
    }
    s->libdir = rt_strndup(tcc_libdir, strlen(tcc_libdir));
    s->emit = emit;
    s->emit_ctx = emit_ctx;
    return s;
}

void rt_session_free(rt_session_t *s)
{
    if (!s)
        return;
    rt_display_set_emit(NULL, NULL);
    for (size_t i = 0; i < s->nstates; i++)
        rt_tcc_free(s->states[i]);
    free(s->states);
    for (size_t i = 0; i < s->nsyms; i++)
        free(s->syms[i].name);
    free(s->syms);
    for (size_t i = 0; i < s->ncode; i++)
        free(s->code[i].name);
    free(s->code);
    rt_prelude_free(&s->prelude);
    rt_names_free(&s->types);
    free(s->libdir);
    free(s);
}

/* ---- compile errors ------------------------------------------------- */

/* The text of line `line` (1-based) of code, borrowed up to *len bytes. */
static const char *source_line(const char *code, int line, size_t *len)
{
    const char *p = code;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p) {
        *len = 0;
        return "";
    }
    const char *e = strchr(p, '\n');
    *len = e ? (size_t)(e - p) : strlen(p);
    return p;
}

/* A column for a message TCC gave none: the quoted identifier in the
 * line, else the first non-blank. 1-based. */
static int guess_column(const char *msg, const char *line, size_t len)
{
    const char *q = strchr(msg, '\'');
    const char *q2 = q ? strchr(q + 1, '\'') : NULL;
    if (q && q2 && q2 > q + 1) {
        size_t n = (size_t)(q2 - q - 1);
        for (size_t i = 0; i + n <= len; i++) {
            if (memcmp(line + i, q + 1, n) != 0)
                continue;
            int left = i == 0 || !(line[i - 1] == '_' || isalnum((unsigned char)line[i - 1]));
            char c = i + n < len ? line[i + n] : ' ';
            int right = !(c == '_' || isalnum((unsigned char)c));
            if (left && right)
                return (int)i + 1;
        }
    }
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t')
            return (int)i + 1;
    return 1;
}

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

static json_t *compile_error(const char *code, int cell, const rt_diag_t *diags, size_t n)
{
    json_t *tb = json_array();
    char evalue[CM_ERROR_TEXT] = "";
    for (size_t i = 0; i < n; i++) {
        const rt_diag_t *d = &diags[i];
        if (d->warning)
            continue;
        char head[CM_ERROR_TEXT];
        int line = diag_cell_line(d, code, cell);
        if (line > 0) {
            size_t len;
            const char *src = source_line(code, line, &len);
            int at_end = strcmp(d->file, "gpuc-generated") == 0 || d->line != line;
            int col = at_end ? (int)len + 1 : guess_column(d->msg, src, len);
            snprintf(head, sizeof head, "cell %d, line %d, column %d: error: %s", cell, line, col,
                     d->msg);
            json_array_append_new(tb, json_string(head));
            rt_buf_t b = {0};
            rt_buf_adds(&b, "    ");
            rt_buf_add(&b, src, len);
            json_array_append_new(tb, json_string(rt_buf_str(&b)));
            rt_buf_free(&b);
            rt_buf_adds(&b, "    ");
            for (int k = 1; k < col; k++)
                rt_buf_addc(&b, (size_t)(k - 1) < len && src[k - 1] == '\t' ? '\t' : ' ');
            rt_buf_addc(&b, '^');
            json_array_append_new(tb, json_string(rt_buf_str(&b)));
            rt_buf_free(&b);
            if (!evalue[0])
                snprintf(evalue, sizeof evalue, "cell %d, line %d: %s", cell, line, d->msg);
        } else {
            if (strstr(d->msg, "undefined symbol"))
                snprintf(head, sizeof head,
                         "cell %d: error: %s (declared but never defined: a missing function "
                         "body or library?)", cell, d->msg);
            else if (d->file[0] && strcmp(d->file, "gpuc-generated") != 0)
                snprintf(head, sizeof head, "cell %d: error in %s, line %d: %s", cell, d->file,
                         d->line, d->msg);
            else
                snprintf(head, sizeof head, "cell %d: error: %s", cell, d->msg);
            json_array_append_new(tb, json_string(head));
            if (!evalue[0])
                snprintf(evalue, sizeof evalue, "%s", head);
        }
    }
    if (!evalue[0])
        snprintf(evalue, sizeof evalue, "cell %d: compilation failed", cell);
    return json_pack("{s:s, s:s, s:s, s:o}", "status", "error", "ename", "CompileError",
                     "evalue", evalue, "traceback", tb);
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
        any = 1;
    }
    return any;
}

/* ---- compiling ------------------------------------------------------ */

static rt_tcc_t *compile(rt_session_t *s, const char *code, int cell, rt_plan_t *plan,
                         json_t **error)
{
    rt_result_mode_t modes[] = {RT_RESULT_GENERIC, RT_RESULT_POINTER, RT_RESULT_NONE};
    for (int m = 0; m < 3; m++) {
        rt_buf_t src = {0};
        rt_buf_t body = {0};
        rt_plan_make(plan, code, cell, modes[m], session_is_type, s, &body);
        char *excluded = calloc(s->prelude.n + 1, 1);
        if (!excluded)
            abort();
        rt_prelude_exclude(&s->prelude, plan->keys.v, plan->keys.n, excluded);
        rt_buf_adds(&src, rt_header_text);
        rt_buf_adds(&src, "#line 1 \"session\"\n");
        rt_prelude_render(&s->prelude, excluded, &src);
        rt_buf_add(&src, rt_buf_str(&body), body.len);
        rt_buf_free(&body);
        free(excluded);

        cm_error_t err = {0};
        rt_tcc_t *t = rt_tcc_new(s->libdir, &err);
        if (!t) {
            rt_buf_free(&src);
            *error = json_pack("{s:s, s:s, s:s, s:[s]}", "status", "error", "ename",
                               "CompileError", "evalue", err.text, "traceback", err.text);
            return NULL;
        }
        for (const rt_symbol_t *r = rt_result_symbols; r->name; r++)
            rt_tcc_add_symbol(t, r->name, r->addr);
        for (const rt_symbol_t *r = rt_display_symbols; r->name; r++)
            rt_tcc_add_symbol(t, r->name, r->addr);
        for (size_t i = 0; i < s->nsyms; i++)
            if (rt_names_find(&plan->keys, s->syms[i].name, (size_t)-1) < 0)
                rt_tcc_add_symbol(t, s->syms[i].name, s->syms[i].addr);
        if (getenv("GPUC_DUMP_SOURCE"))
            fprintf(stderr, "---- cell %d source ----\n%s\n----\n", cell, rt_buf_str(&src));
        int rc = rt_tcc_compile(t, rt_buf_str(&src));
        rt_buf_free(&src);
        size_t nd;
        const rt_diag_t *diags = rt_tcc_diags(t, &nd);
        if (rc != 0) {
            if (plan->has_expr && m < 2 && only_result_errors(plan, code, diags, nd)) {
                rt_tcc_free(t);
                continue;
            }
            print_warnings(code, diags, nd, cell);
            *error = compile_error(code, cell, diags, nd);
            rt_tcc_free(t);
            return NULL;
        }
        if (rt_tcc_relocate(t) != 0) {
            diags = rt_tcc_diags(t, &nd);
            print_warnings(code, diags, nd, cell);
            *error = compile_error(code, cell, diags, nd);
            rt_tcc_free(t);
            return NULL;
        }
        print_warnings(code, diags, nd, cell);
        rt_tcc_keep(t);
        return t;
    }
    *error = json_pack("{s:s, s:s, s:s, s:[]}", "status", "error", "ename", "CompileError",
                       "evalue", "compilation failed");
    return NULL;
}

/* Makes what the cell defined part of the session. */
static void commit(rt_session_t *s, rt_tcc_t *t, const rt_plan_t *plan)
{
    if (s->nstates == s->capstates) {
        s->capstates = s->capstates ? s->capstates * 2 : 32;
        s->states = realloc(s->states, s->capstates * sizeof *s->states);
        if (!s->states)
            abort();
    }
    s->states[s->nstates++] = t;
    char *excluded = calloc(s->prelude.n + 1, 1);
    if (!excluded)
        abort();
    rt_prelude_exclude(&s->prelude, plan->keys.v, plan->keys.n, excluded);
    rt_prelude_remove(&s->prelude, excluded);
    free(excluded);
    for (size_t i = 0; i < plan->nentries; i++)
        rt_prelude_add(&s->prelude, plan->entries[i].kind, plan->entries[i].text,
                       plan->entries[i].keys.v, plan->entries[i].keys.n, plan->cell);
    for (size_t i = 0; i < plan->types.n; i++)
        if (rt_names_find(&s->types, plan->types.v[i], (size_t)-1) < 0)
            rt_names_add(&s->types, plan->types.v[i], (size_t)-1);
    for (size_t i = 0; i < plan->vars.n; i++) {
        void *a = rt_tcc_symbol(t, plan->vars.v[i]);
        if (a)
            set_symbol(s, plan->vars.v[i], a, plan->cell, 0);
    }
    for (size_t i = 0; i < plan->funcs.n; i++) {
        void *a = rt_tcc_symbol(t, plan->funcs.v[i]);
        if (a) {
            set_symbol(s, plan->funcs.v[i], a, plan->cell, 1);
            add_code_symbol(s, plan->funcs.v[i], a, plan->cell);
        }
    }
    for (size_t i = 0; i < plan->parts.n; i++) {
        void *a = rt_tcc_symbol(t, plan->parts.v[i]);
        if (a)
            add_code_symbol(s, plan->parts.v[i], a, plan->cell);
    }
    void *main_fn = plan->has_main ? rt_tcc_symbol(t, "main") : NULL;
    if (main_fn)
        add_code_symbol(s, "main", main_fn, plan->cell);
}

/* ---- running -------------------------------------------------------- */

typedef struct run {
    void (*cell)(void);
    int (*main)(int, char **);
    int main_rc;
} run_t;

static void run_cell(void *arg)
{
    run_t *r = arg;
    r->cell();
    if (r->main) {
        static char name[] = "cell";
        char *argv[] = {name, NULL};
        r->main_rc = r->main(1, argv);
    }
}

json_t *rt_session_execute(rt_session_t *s, const char *code, int cell_no)
{
    rt_plan_t plan = {0};
    json_t *error = NULL;
    rt_tcc_t *t = compile(s, code, cell_no, &plan, &error);
    if (!t) {
        rt_plan_free(&plan);
        return error;
    }
    commit(s, t, &plan);
    run_t r = {0};
    r.cell = (void (*)(void))rt_tcc_symbol(t, plan.entry_name);
    if (plan.has_main)
        r.main = (int (*)(int, char **))rt_tcc_symbol(t, "main");
    rt_plan_free(&plan);
    if (!r.cell)
        return json_pack("{s:s, s:s, s:s, s:[]}", "status", "error", "ename", "CompileError",
                         "evalue", "the cell's code was not found after linking", "traceback");

    rt_result_reset();
    rt_display_set_emit(s->emit, s->emit_ctx);
    rt_fault_t fault;
    int sig = rt_protect_run(run_cell, &r, &fault);
    rt_display_set_emit(NULL, NULL);
    char *result = rt_result_take();
    if (sig) {
        free(result);
        return rt_session_fault_reply(s, cell_no, &fault);
    }
    if (r.main && r.main_rc != 0) {
        free(result);
        char b[32];
        snprintf(b, sizeof b, "%d", r.main_rc);
        result = rt_strndup(b, strlen(b));
    }
    json_t *reply = json_pack("{s:s}", "status", "ok");
    if (result) {
        json_t *text = json_string(result);
        if (!text)
            text = json_string("<result is not valid UTF-8>");
        json_object_set_new(reply, "result",
                            json_pack("{s:{s:o}, s:{}}", "data", "text/plain", text, "metadata"));
        free(result);
    }
    return reply;
}
