/* rt_session: compiles and runs host C cells, keeping what they define
 * (see rt_session.h). */
#include "rt_session.h"

#include <ctype.h>
#include <signal.h>
#include <stdint.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_log.h"
#include "gpuc_config.h"
#include "rt_buf.h"
#include "rt_decl.h"
#include "rt_display.h"
#include "rt_header.h"
#include "rt_magic.h"
#include "rt_plan.h"
#include "rt_expand.h"
#include "rt_gpu.h"
#include "rt_launch.h"
#include "rt_prelude.h"
#include "rt_protect.h"
#include "rt_result.h"
#include "rt_session_internal.h"
#include "rt_session_query.h"
#include "rt_tcc.h"
#include "rt_traceback.h"

/* A typedef name of the session's cells or of its headers (FILE, size_t,
 * cudaError_t, dim3, pthread_t...): a declaration starts with one. */
int rt_session_is_type(void *ctx, const char *name, size_t len)
{
    rt_session_t *s = ctx;
    if (rt_names_find(&s->types, name, len) >= 0)
        return 1;
    char word[128];
    if (len >= sizeof word)
        return 0;
    memcpy(word, name, len);
    word[len] = '\0';
    rt_shake_t *sh = rt_session_header_index(s); /* made once; the next compile uses it */
    rt_shake_entry_t e;
    return sh && rt_shake_find(sh, word, &e) == 0 && e.kind == RT_SHAKE_TYPE;
}

static size_t name_hash(const char *name)
{
    size_t h = 2166136261u;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 16777619u;
    return h;
}

/* The index of name in s->syms, or -1. */
static long find_symbol(const rt_session_t *s, const char *name)
{
    if (!s->nsym_slots)
        return -1;
    size_t m = s->nsym_slots - 1;
    for (size_t k = name_hash(name) & m; s->sym_slots[k]; k = (k + 1) & m)
        if (strcmp(s->syms[s->sym_slots[k] - 1].name, name) == 0)
            return (long)s->sym_slots[k] - 1;
    return -1;
}

static void index_symbols(rt_session_t *s)
{
    free(s->sym_slots);
    s->nsym_slots = s->nsym_slots ? s->nsym_slots * 2 : 256;
    s->sym_slots = calloc(s->nsym_slots, sizeof *s->sym_slots);
    if (!s->sym_slots)
        abort();
    for (size_t i = 0; i < s->nsyms; i++) {
        size_t k = name_hash(s->syms[i].name) & (s->nsym_slots - 1);
        while (s->sym_slots[k])
            k = (k + 1) & (s->nsym_slots - 1);
        s->sym_slots[k] = i + 1;
    }
}

static void index_symbols_add(rt_session_t *s, size_t i)
{
    size_t k = name_hash(s->syms[i].name) & (s->nsym_slots - 1);
    while (s->sym_slots[k])
        k = (k + 1) & (s->nsym_slots - 1);
    s->sym_slots[k] = i + 1;
}

static void set_symbol(rt_session_t *s, const char *name, void *addr, int cell, int is_func)
{
    s->generation++;
    long i = find_symbol(s, name);
    if (i >= 0) {
        s->syms[i].addr = addr;
        s->syms[i].cell = cell;
        s->syms[i].is_func = is_func;
        return;
    }
    if (s->nsyms == s->capsyms) {
        s->capsyms = s->capsyms ? s->capsyms * 2 : 64;
        s->syms = realloc(s->syms, s->capsyms * sizeof *s->syms);
        if (!s->syms)
            abort();
    }
    s->syms[s->nsyms++] = (rt_sym_t){rt_strndup(name, strlen(name)), addr, cell, is_func};
    if (s->nsyms * 2 > s->nsym_slots)
        index_symbols(s);
    else
        index_symbols_add(s, s->nsyms - 1);
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

/* Remembers the library functions a cell was linked against (addresses
 * outside the arena), so that a crash inside one can name it. */
static void add_library_symbol(void *ctx, const char *name, const void *addr)
{
    rt_session_t *s = ctx;
    if (!addr || rt_tcc_owns_code(addr) || strncmp(name, "__gpuc", 6) == 0)
        return;
    for (size_t i = 0; i < s->nlibs; i++)
        if (s->libs[i].addr == addr)
            return;
    if (s->nlibs == s->caplibs) {
        s->caplibs = s->caplibs ? s->caplibs * 2 : 64;
        s->libs = realloc(s->libs, s->caplibs * sizeof *s->libs);
        if (!s->libs)
            abort();
    }
    s->libs[s->nlibs++] = (rt_sym_t){rt_strndup(name, strlen(name)), (void *)addr, 0, 1};
}

/* libtcc's runtime files in a relocatable bundle (make bundle):
 * BUNDLE/lib/gpuc/tcc beside BUNDLE/bin/gpuc. NULL when not in one. */
static const char *bundled_tcc_libdir(void)
{
    static char dir[PATH_MAX + 32];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../lib/gpuc/tcc", exe);
    char probe[sizeof dir + 16];
    snprintf(probe, sizeof probe, "%s/libtcc1.a", dir);
    return access(probe, R_OK) == 0 ? dir : NULL;
}

rt_session_t *rt_session_new(const char *tcc_libdir, rt_emit_fn emit, void *emit_ctx,
                             cm_error_t *err)
{
    if (!tcc_libdir || !*tcc_libdir)
        tcc_libdir = getenv("GPUC_TCC_LIBDIR");
    if (!tcc_libdir || !*tcc_libdir)
        tcc_libdir = bundled_tcc_libdir();
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
    const char *full = getenv("GPUC_FULL_HEADERS");
    s->headers = full && *full && strcmp(full, "0") != 0 ? RT_HEADERS_FULL : RT_HEADERS_SHAKE;
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
    free(s->sym_slots);
    for (size_t i = 0; i < s->ncode; i++)
        free(s->code[i].name);
    free(s->code);
    for (size_t i = 0; i < s->nlibs; i++)
        free(s->libs[i].name);
    free(s->libs);
    for (size_t i = 0; i < sizeof s->reruns / sizeof s->reruns[0]; i++)
        free(s->reruns[i].code);
    rt_prelude_free(&s->prelude);
    rt_names_free(&s->types);
    rt_shake_free(s->shake);
    free(s->shake_failed);
    rt_names_free(&s->cflags);
    rt_names_free(&s->lib_names);
    rt_names_free(&s->lib_paths);
    rt_tcc_set_extra(NULL, NULL, 0);
    free(s->libdir);
    free(s);
}

/* ---- what magics need (rt_session_internal.h) ----------------------- */

static int is_directive_key(const char *key)
{
    return strncmp(key, "#include", 8) == 0 || strncmp(key, "#pragma", 7) == 0;
}

size_t rt_session_reset(rt_session_t *s)
{
    rt_names_t names = {0};
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        for (size_t k = 0; k < e->nkeys; k++)
            if (!is_directive_key(e->keys[k]) && rt_names_find(&names, e->keys[k], (size_t)-1) < 0)
                rt_names_add(&names, e->keys[k], (size_t)-1);
    }
    size_t dropped = names.n;
    rt_names_free(&names);
    /* the states, s->code and s->libs stay: code compiled before may still
     * run (a thread a cell started) and crash, and is then named */
    rt_prelude_free(&s->prelude);
    memset(&s->prelude, 0, sizeof s->prelude);
    for (size_t i = 0; i < s->nsyms; i++)
        free(s->syms[i].name);
    s->nsyms = 0;
    if (s->nsym_slots)
        memset(s->sym_slots, 0, s->nsym_slots * sizeof *s->sym_slots);
    rt_names_free(&s->types);
    rt_names_free(&s->cflags);
    rt_names_free(&s->lib_names);
    rt_names_free(&s->lib_paths);
    rt_session_options_changed(s);
    return dropped;
}

void rt_session_options_changed(rt_session_t *s)
{
    s->generation++;
    rt_buf_t opts = {0};
    for (size_t i = 0; i < s->cflags.n; i++) {
        if (i)
            rt_buf_addc(&opts, ' ');
        rt_buf_adds(&opts, s->cflags.v[i]);
    }
    rt_tcc_set_extra(opts.len ? rt_buf_str(&opts) : NULL, s->lib_paths.v, s->lib_paths.n);
    rt_buf_free(&opts);
    /* the headers are preprocessed again with the new options */
    rt_shake_free(s->shake);
    s->shake = NULL;
    free(s->shake_failed);
    s->shake_failed = NULL;
}

void rt_session_define(rt_session_t *s, const char *name, void *addr, int cell, int is_func)
{
    set_symbol(s, name, addr, cell, is_func);
    if (is_func)
        add_code_symbol(s, name, addr, cell);
}

void *rt_session_symbol(const rt_session_t *s, const char *name)
{
    long i = find_symbol(s, name);
    return i >= 0 ? s->syms[i].addr : NULL;
}

/* ---- compile errors ------------------------------------------------- */


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
            const char *src = rt_source_line(code, line, &len);
            int at_end = strcmp(d->file, "gpuc-generated") == 0 || d->line != line;
            int col = at_end ? (int)len + 1 : guess_column(d->msg, src, len);
            snprintf(head, sizeof head, "cell %d, line %d, column %d: error: %s", cell, line, col,
                     d->msg);
            json_array_append_new(tb, json_string(head));
            rt_traceback_add_source(tb, src, len, col);
            if (!evalue[0])
                snprintf(evalue, sizeof evalue, "cell %d, line %d: %s", cell, line, d->msg);
        } else {
            if (strstr(d->msg, "undefined symbol 'cuda") && rt_gpu_runtime_note()[0])
                snprintf(head, sizeof head, "cell %d: error: %s (%s)", cell, d->msg,
                         rt_gpu_runtime_note());
            else if (strstr(d->msg, "undefined symbol"))
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

/* ---- header tree-shaking (rt_shake.h) ------------------------------- */

/* Non-zero when the directive text is "#word ...". */
static int directive_is(const char *text, const char *word)
{
    if (*text++ != '#')
        return 0;
    while (*text == ' ' || *text == '\t')
        text++;
    size_t n = strlen(word);
    return strncmp(text, word, n) == 0 && !(isalnum((unsigned char)text[n]) || text[n] == '_');
}

/* The headers a shaker is made from: gpuc.h, then the prelude's #include,
 * #define and #undef lines up to its last #include (later ones cannot
 * change what the headers declare). Marks those lines in consumed[] (the
 * shaker's macros stand for them). NULL when the prelude cannot be shaken
 * (a #pragma among them). */
char *rt_session_header_key(const rt_session_t *s, const char *excluded, char *consumed)
{
    size_t last = 0;
    int any = 0;
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        if (!(excluded && excluded[i]) && e->kind == RT_ENTRY_DIRECTIVE &&
            directive_is(e->text, "include")) {
            last = i;
            any = 1;
        }
    }
    rt_buf_t key = {0};
    rt_buf_adds(&key, rt_header());
    for (size_t i = 0; any && i <= last; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        if ((excluded && excluded[i]) || e->kind != RT_ENTRY_DIRECTIVE)
            continue;
        if (!directive_is(e->text, "include") && !directive_is(e->text, "define") &&
            !directive_is(e->text, "undef")) {
            rt_buf_free(&key);
            return NULL;
        }
        rt_buf_adds(&key, e->text);
        rt_buf_addc(&key, '\n');
        if (consumed)
            consumed[i] = 1;
    }
    return rt_buf_steal(&key);
}

rt_shake_t *rt_session_shaker(rt_session_t *s, const char *key)
{
    if (s->shake && strcmp(rt_shake_key(s->shake), key) == 0 && !rt_shake_stale(s->shake))
        return s->shake;
    if (s->shake_failed && strcmp(s->shake_failed, key) == 0)
        return NULL;
    rt_shake_free(s->shake);
    s->stats.preprocess++;
    cm_error_t err = {0};
    s->shake = rt_shake_new(s->libdir, key, &err);
    if (!s->shake) {
        CM_DEBUG("header shaking off for these headers: %s", err.text);
        free(s->shake_failed);
        s->shake_failed = rt_strndup(key, strlen(key));
    }
    return s->shake;
}

/* The source of the cell with only the declarations it needs, from the
 * headers and from earlier cells (marked in emit[0..prelude.n)), or NULL
 * when it cannot be made (the cell then gets the full headers). */
static char *shaken_source(rt_session_t *s, const rt_plan_t *plan, const char *excluded,
                           const rt_buf_t *body, char *emit)
{
    if (s->headers == RT_HEADERS_FULL)
        return NULL;
    for (size_t i = 0; i < plan->keys.n; i++)
        if (directive_is(plan->keys.v[i], "include"))
            return NULL; /* its own #include would not be guarded against the shaken copy */
    char *skip = malloc(s->prelude.n + 1);
    if (!skip)
        abort();
    memcpy(skip, excluded, s->prelude.n);
    char *key = rt_session_header_key(s, excluded, skip);
    rt_shake_t *sh = key ? rt_session_shaker(s, key) : NULL;
    free(key);
    if (!sh) {
        free(skip);
        return NULL;
    }
    /* the earlier cells' declarations the cell needs, and what they use */
    rt_prelude_select(&s->prelude, skip, rt_buf_str(body), body->len, emit, rt_shake_use_name,
                      sh);
    for (size_t i = 0; i < s->prelude.n; i++)
        skip[i] = !emit[i];
    rt_buf_t prelude = {0};
    rt_prelude_render(&s->prelude, skip, &prelude);
    free(skip);
    rt_buf_t src = {0};
    rt_buf_adds(&src, "#line 1 \"gpuc.h\"\n");
    rt_shake_render(sh, &src);
    if (s->headers == RT_HEADERS_BROKEN)
        rt_buf_adds(&src, "#error broken on purpose (rt_session_set_headers)\n");
    rt_buf_adds(&src, "#line 1 \"session\"\n");
    rt_buf_add(&src, rt_buf_str(&prelude), prelude.len);
    rt_buf_add(&src, rt_buf_str(body), body->len);
    rt_buf_free(&prelude);
    return rt_buf_steal(&src);
}

void rt_session_set_headers(rt_session_t *s, rt_headers_mode_t mode)
{
    s->headers = mode;
}

void rt_session_stats(const rt_session_t *s, rt_compile_stats_t *out)
{
    *out = s->stats;
}

/* ---- compiling ------------------------------------------------------ */

/* A state for the cell: the runtime's symbols and the earlier cells' ones
 * it does not redefine (only those of the entries in emit, if not NULL).
 * NULL with *error set on failure. */
static rt_tcc_t *new_state(rt_session_t *s, const rt_plan_t *plan, const char *emit,
                           json_t **error)
{
    cm_error_t err = {0};
    rt_tcc_t *t = rt_tcc_new(s->libdir, &err);
    if (!t) {
        *error = json_pack("{s:s, s:s, s:s, s:[s]}", "status", "error", "ename", "CompileError",
                           "evalue", err.text, "traceback", err.text);
        return NULL;
    }
    for (const rt_symbol_t *r = rt_result_symbols; r->name; r++)
        rt_tcc_add_symbol(t, r->name, r->addr);
    for (const rt_symbol_t *r = rt_display_symbols; r->name; r++)
        rt_tcc_add_symbol(t, r->name, r->addr);
    for (const rt_symbol_t *r = rt_gpu_symbols; r->name; r++)
        rt_tcc_add_symbol(t, r->name, r->addr);
    if (!emit) {
        for (size_t i = 0; i < s->nsyms; i++)
            if (rt_names_find(&plan->keys, s->syms[i].name, (size_t)-1) < 0)
                rt_tcc_add_symbol(t, s->syms[i].name, s->syms[i].addr);
        return t;
    }
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = emit[i] ? &s->prelude.v[i] : NULL;
        for (size_t k = 0; e && k < e->nkeys; k++) {
            long j = find_symbol(s, e->keys[k]);
            if (j >= 0 && rt_names_find(&plan->keys, e->keys[k], (size_t)-1) < 0)
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
    json_t *error = NULL;
    rt_tcc_t *t = new_state(s, plan, emit, &error);
    if (!t) {
        json_decref(error);
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

static void add_member(void *ctx, const char *name, size_t len, const char *decl, size_t dlen)
{
    rt_names_t *fields = ctx;
    if (len && rt_names_find(fields, name, len) < 0)
        rt_names_add(fields, name, len);
}

/* The type and field names of the struct value expr has, as far as the
 * session can tell: a session variable's declared type, and the members
 * of its struct (see rt_session_query.c). */
static void struct_hint_for(rt_session_t *s, const char *code, const char *expr,
                            rt_struct_hint_t *hint)
{
    static char type[256];
    rt_names_free(&hint->fields);
    hint->type = NULL;
    size_t len = strlen(expr);
    while (len && isspace((unsigned char)expr[len - 1]))
        len--;
    size_t start = 0;
    while (start < len && isspace((unsigned char)expr[start]))
        start++;
    /* the expression is the cell's last item: look it up in the cell, so
     * that variables the cell itself declared are known too */
    const char *at = NULL;
    for (const char *p = strstr(code, expr); p; p = strstr(p + 1, expr))
        at = p;
    int rc = at ? rt_session_members(s, code, (size_t)(at - code) + start,
                                     (size_t)(at - code) + len, add_member, &hint->fields)
                : rt_session_members(s, expr, start, len, add_member, &hint->fields);
    if (rc != 0)
        rt_names_free(&hint->fields);
    /* a plain name: its declaration says the type, "point_t p" */
    int ident = start < len;
    for (size_t i = start; i < len; i++)
        ident &= isalnum((unsigned char)expr[i]) || expr[i] == '_';
    rt_name_info_t info;
    char name[128];
    if (!ident || len - start >= sizeof name)
        return;
    memcpy(name, expr + start, len - start);
    name[len - start] = '\0';
    if (rt_session_name_info(s, name, &info) != 0 || info.kind != RT_NAME_VARIABLE || !info.text)
        return;
    const char *t = info.text;
    if (strncmp(t, "extern ", 7) == 0)
        t += 7;
    while (*t == ' ')
        t++;
    const char *end = strstr(t, " __attribute");
    size_t n = end ? (size_t)(end - t) : strcspn(t, ";");
    size_t nl = strlen(name);
    if (n > nl && memcmp(t + n - nl, name, nl) == 0) {
        n -= nl;
        while (n && t[n - 1] == ' ')
            n--;
        if (n && n < sizeof type && !memchr(t, '*', n) && !memchr(t, '[', n) && !memchr(t, '"', n)) {
            memcpy(type, t, n);
            type[n] = '\0';
            hint->type = type;
        }
    }
}

/* plan_code is code with top-level macro uses expanded (rt_expand.c), on
 * the same lines; messages quote code, as the user wrote it. */
static rt_tcc_t *compile_code(rt_session_t *s, const char *code, const char *plan_code, int cell,
                              rt_plan_t *plan, json_t **error)
{
    rt_result_mode_t modes[] = {RT_RESULT_GENERIC, RT_RESULT_POINTER, RT_RESULT_STRUCT,
                                RT_RESULT_NONE};
    const int last = 3;
    static rt_struct_hint_t hint; /* its fields are freed by the next use */
    for (int m = 0; m <= last; m++) {
        rt_buf_t body = {0};
        if (modes[m] == RT_RESULT_STRUCT) {
            if (!plan->has_expr || !plan->expr)
                continue;
            struct_hint_for(s, plan_code, plan->expr, &hint);
            rt_plan_set_struct_hint(&hint);
        }
        rt_plan_make(plan, plan_code, cell, modes[m], rt_session_is_type, s, &body);
        rt_plan_set_struct_hint(NULL);
        char *excluded = calloc(s->prelude.n + 1, 1);
        if (!excluded)
            abort();
        rt_prelude_exclude(&s->prelude, plan->keys.v, plan->keys.n, excluded);

        char *emit = calloc(s->prelude.n + 1, 1);
        if (!emit)
            abort();
        char *shaken = shaken_source(s, plan, excluded, &body, emit);
        if (shaken) {
            int show_failed;
            rt_tcc_t *t = compile_shaken(s, shaken, code, cell, plan, emit, &show_failed);
            free(shaken);
            free(emit);
            if (show_failed && m < last) {
                rt_buf_free(&body);
                free(excluded);
                continue;
            }
            if (t) {
                rt_buf_free(&body);
                free(excluded);
                rt_tcc_keep(t);
                return t;
            }
        } else {
            free(emit);
            s->stats.full++;
        }

        rt_buf_t src = {0};
        rt_buf_adds(&src, rt_header());
        rt_buf_adds(&src, "#line 1 \"session\"\n");
        rt_prelude_render(&s->prelude, excluded, &src);
        rt_buf_add(&src, rt_buf_str(&body), body.len);
        rt_buf_free(&body);
        free(excluded);

        rt_tcc_t *t = new_state(s, plan, NULL, error);
        if (!t) {
            rt_buf_free(&src);
            return NULL;
        }
        if (getenv("GPUC_DUMP_SOURCE"))
            fprintf(stderr, "---- cell %d source ----\n%s\n----\n", cell, rt_buf_str(&src));
        int rc = rt_tcc_compile(t, rt_buf_str(&src));
        rt_buf_free(&src);
        size_t nd;
        const rt_diag_t *diags = rt_tcc_diags(t, &nd);
        if (rc != 0) {
            if (plan->has_expr && m < last && only_result_errors(plan, code, diags, nd)) {
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

static rt_tcc_t *compile(rt_session_t *s, const char *code, int cell, rt_plan_t *plan,
                         json_t **error)
{
    rt_gpu_prepare_host(code, cell);
    char *launches = rt_launch_rewrite(code, cell); /* kernel<<<...>>>(...) into C */
    const char *c = launches ? launches : code;
    rt_buf_t macros = {0};
    rt_prelude_macros(&s->prelude, &macros);
    char *expanded = NULL;
    if (macros.len || strstr(c, "#define"))
        expanded = rt_expand_cell(s->libdir, rt_buf_str(&macros), c, rt_session_is_type, s);
    rt_buf_free(&macros);
    rt_tcc_t *t = compile_code(s, code, expanded ? expanded : c, cell, plan, error);
    free(expanded);
    free(launches);
    return t;
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
        if (rt_names_find(&s->types, plan->types.v[i], (size_t)-1) < 0)
            rt_names_add(&s->types, plan->types.v[i], (size_t)-1);
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
    rt_session_commit_declarations(s, plan, NULL, NULL);
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

/* ---- re-runs ---------------------------------------------------------- */

/* A cell of statements only (it declares nothing) compiles to the same
 * code as long as what it compiles against is unchanged: running it again
 * reuses that code. Left out: cells whose code would differ on a re-run or
 * that name their cell in messages (static locals, __TIME__ and friends,
 * launches). */
static int rerunnable(const char *code, const rt_plan_t *plan)
{
    static const char *const words[] = {"static", "__TIME__", "__DATE__", "__COUNTER__",
                                        "<<<", NULL};
    if (plan->nentries || plan->keys.n || plan->vars.n || plan->funcs.n || plan->types.n ||
        plan->has_main)
        return 0;
    for (int i = 0; words[i]; i++)
        if (strstr(code, words[i]))
            return 0;
    return 1;
}

static void (*find_rerun(const rt_session_t *s, const char *code))(void)
{
    /* the headers it was compiled against must be unchanged on disk too
     * (the shaker watches them; without one, no re-runs) */
    if (!s->shake || rt_shake_stale(s->shake))
        return NULL;
    for (size_t i = 0; i < sizeof s->reruns / sizeof s->reruns[0]; i++) {
        const struct rt_rerun *r = &s->reruns[i];
        if (r->code && r->generation == s->generation && strcmp(r->code, code) == 0)
            return r->cell;
    }
    return NULL;
}

static void keep_rerun(rt_session_t *s, const char *code, void (*cell)(void))
{
    struct rt_rerun *r = &s->reruns[s->next_rerun];
    s->next_rerun = (s->next_rerun + 1) % (int)(sizeof s->reruns / sizeof s->reruns[0]);
    free(r->code);
    r->code = rt_strndup(code, strlen(code));
    r->generation = s->generation;
    r->cell = cell;
}

json_t *rt_session_run_code(rt_session_t *s, const char *code, int cell_no)
{
    run_t r = {0};
    if ((r.cell = find_rerun(s, code))) {
        rt_gpu_prepare_host(code, cell_no);
        s->stats.reruns++;
    } else {
        rt_plan_t plan = {0};
        json_t *error = NULL;
        rt_tcc_t *t = compile(s, code, cell_no, &plan, &error);
        if (!t) {
            rt_plan_free(&plan);
            return error;
        }
        commit(s, t, &plan);
        r.cell = (void (*)(void))rt_tcc_symbol(t, plan.entry_name);
        if (plan.has_main)
            r.main = (int (*)(int, char **))rt_tcc_symbol(t, "main");
        rt_tcc_list_symbols(t, s, add_library_symbol);
        rt_tcc_drop_compiler(t); /* every symbol the session needs is recorded */
        if (r.cell && rerunnable(code, &plan))
            keep_rerun(s, code, r.cell);
        rt_plan_free(&plan);
        if (!r.cell)
            return json_pack("{s:s, s:s, s:s, s:[]}", "status", "error", "ename", "CompileError",
                             "evalue", "the cell's code was not found after linking",
                             "traceback");
    }

    rt_result_reset();
    rt_display_set_emit(s->emit, s->emit_ctx);
    rt_fault_t fault;
    int sig = rt_protect_run(run_cell, &r, &fault);
    rt_display_set_emit(NULL, NULL);
    char *result = rt_result_take();
    if (sig == RT_PROTECT_RAISED) { /* a failed launch, say */
        free(result);
        const char *ename, *evalue;
        rt_protect_raised(&ename, &evalue);
        rt_gpu_after_cell(cell_no); /* what it launched before is done or failed too */
        return json_pack("{s:s, s:s, s:s, s:[s]}", "status", "error", "ename", ename, "evalue",
                         evalue, "traceback", evalue);
    }
    if (sig) {
        free(result);
        json_t *reply = rt_session_fault_reply(s, cell_no, &fault);
        return sig == SIGINT ? rt_gpu_interrupted(reply, cell_no) : reply;
    }
    json_t *gpu_error = rt_gpu_after_cell(cell_no);
    if (gpu_error) {
        free(result);
        return gpu_error;
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

rt_tcc_t *rt_session_compile_aux(rt_session_t *s, const char *body, cm_error_t *err)
{
    rt_plan_t none = {0};
    json_t *error = NULL;
    rt_tcc_t *t = new_state(s, &none, NULL, &error);
    if (!t) {
        CM_ERROR(err, 1, "%s", json_string_value(json_object_get(error, "evalue")));
        json_decref(error);
        return NULL;
    }
    rt_buf_t src = {0};
    rt_buf_adds(&src, rt_header());
    rt_buf_adds(&src, "#line 1 \"session\"\n");
    rt_prelude_render(&s->prelude, NULL, &src);
    rt_buf_adds(&src, "#line 1 \"gpuc-magic\"\n");
    rt_buf_adds(&src, body);
    int rc = rt_tcc_compile(t, rt_buf_str(&src));
    rt_buf_free(&src);
    if (rc == 0)
        rc = rt_tcc_relocate(t);
    if (rc != 0) {
        size_t nd;
        const rt_diag_t *d = rt_tcc_diags(t, &nd);
        for (size_t i = 0; i < nd; i++)
            if (!d[i].warning) {
                CM_ERROR(err, 1, "%s:%d: %s", d[i].file, d[i].line, d[i].msg);
                break;
            }
        rt_tcc_free(t);
        return NULL;
    }
    return t;
}

/* ---- cells with magic lines ------------------------------------------ */

/* Runs code[from, to), which starts on line `line`, as a cell of its own,
 * on the cell's own line numbers. NULL when it holds only blanks. */
static json_t *run_segment(rt_session_t *s, const char *code, size_t from, size_t to, int line,
                           int cell_no)
{
    size_t i = from;
    while (i < to && isspace((unsigned char)code[i]))
        i++;
    if (i == to)
        return NULL;
    rt_buf_t b = {0};
    for (int l = 1; l < line; l++)
        rt_buf_addc(&b, '\n');
    rt_buf_add(&b, code + from, to - from);
    json_t *reply = rt_session_run_code(s, rt_buf_str(&b), cell_no);
    rt_buf_free(&b);
    return reply;
}

static int is_error(const json_t *reply)
{
    return reply && strcmp(json_string_value(json_object_get(reply, "status")), "ok") != 0;
}

/* A cell runs as its segments in order: the code before a magic line,
 * the magic, the code after it. The reply is the last code segment's. */
static json_t *execute_host(rt_session_t *s, const char *code, int cell_no);

/* Non-zero when the cell's first non-blank characters are "%%". */
static int starts_with_cell_magic(const char *code)
{
    while (isspace((unsigned char)*code))
        code++;
    return code[0] == '%' && code[1] == '%';
}

json_t *rt_session_execute(rt_session_t *s, const char *code, int cell_no)
{
    if (!starts_with_cell_magic(code)) {
        /* a .cu-style cell: its device part to NVRTC, the rest as usual */
        char *host = NULL;
        json_t *r = rt_gpu_mixed_cell(s, code, cell_no, &host);
        if (r || host) {
            if (!r)
                r = execute_host(s, host, cell_no);
            free(host);
            return r;
        }
    }
    return execute_host(s, code, cell_no);
}

static json_t *execute_host(rt_session_t *s, const char *code, int cell_no)
{
    if (!strchr(code, '%'))
        return rt_session_run_code(s, code, cell_no);
    json_t *last = NULL;
    size_t from = 0;
    int line = 1;
    rt_magic_line_t m;
    while (rt_magic_find(code, from, line, &m)) {
        json_t *r = run_segment(s, code, from, m.start, line, cell_no);
        if (is_error(r)) {
            json_decref(last);
            return r;
        }
        if (r) {
            json_decref(last);
            last = r;
        }
        json_t *err = rt_magic_run(s, code, &m, cell_no);
        if (err) {
            json_decref(last);
            return err;
        }
        if (m.cell) /* it took the rest of the cell */
            return last ? last : json_pack("{s:s}", "status", "ok");
        from = m.next;
        line = m.line + 1;
    }
    json_t *r = run_segment(s, code, from, strlen(code), line, cell_no);
    if (r) {
        json_decref(last);
        return r;
    }
    return last ? last : json_pack("{s:s}", "status", "ok");
}
