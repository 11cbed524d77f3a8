/* rt_cc: %%cc, host cells compiled by the system C compiler ($CC, else
 * cc) with optimisation, into a shared object loaded into the session;
 * and the fallback of plain C cells that TCC cannot compile (complex.h,
 * variably modified parameters), which the same compiler takes.
 *
 * The cell sees the session's declarations; its functions and variables
 * become session symbols that later cells (TCC or %%cc) link to. Earlier
 * cells' code lives in TCC's arena and exports nothing, so each compile
 * also builds a stub library whose dynamic symbols are the session's
 * addresses as absolute values: the cell's object links against it and the
 * loader resolves its references there. See docs/magics.md. The magic is
 * rt_magic_cc (declared by rt_magic.h from rt_magic_list.h). */
#include "rt_magic.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"
#include "rt_cell.h"
#include "rt_native.h"
#include "rt_segment.h"

#define DEFAULT_FLAGS "-O2 -march=native"
#define FALLBACK_FLAGS "-O2 -g" /* as a C cell: lines for fault reports */

/* The line of the cell's first statement or expression, 0 if none. */
static int first_statement(rt_session_t *s, const char *body)
{
    rt_cell_t items;
    rt_cell_split(body, rt_session_is_type, s, &items);
    int line = 0;
    for (size_t i = 0; i < items.n && !line; i++)
        if (items.items[i].kind == RT_ITEM_STATEMENT || items.items[i].kind == RT_ITEM_EXPRESSION)
            line = items.items[i].line;
    rt_cell_free(&items);
    return line;
}

int rt_magic_cc(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell,
                rt_error_t *err)
{
    rt_session_note_code(s, code);
    rt_native_t n = {.what = "%%cc", .language = "C", .ext = "c"};
    if (rt_native_find_compiler(&n, "CC", "cc") != 0)
        return rt_error_set(err, "NoCompiler", 0, 0,
                            "%%%%cc needs a system C compiler (cc/gcc); install gcc or set CC "
                            "(not found: %s)", n.compiler);
    if (rt_native_set_flags(&n, code, m, DEFAULT_FLAGS, cell, err) != 0)
        return -1;
    char *body = rt_segment_blank_outside(code, m->next, strlen(code));
    int stmt = first_statement(s, body);
    if (stmt) {
        free(body);
        return rt_error_set(err, "UsageError", 0, 0,
                            "cell %d, line %d: %%%%cc cells hold definitions only (functions, "
                            "variables, types, #include and #define): run statements in a "
                            "normal cell", cell, stmt);
    }
    rt_plan_t plan = {0};
    cm_buf_t scratch = {0};
    rt_plan_make(&plan, body, cell, RT_RESULT_NONE, rt_session_is_type, s, &scratch);
    cm_buf_free(&scratch);
    char *excluded = rt_native_excluded(s, &plan);
    cm_buf_t src = {0};
    rt_native_add_session(s, excluded, 0, &src);
    cm_buf_addf(&src, "#line 1 \"cell[%d]\"\n", cell);
    cm_buf_adds(&src, body);
    cm_buf_addc(&src, '\n');
    double t0 = cm_seconds() * 1e3;
    void *h = rt_native_build(s, &n, cm_buf_str(&src), body, cell, &plan, err);
    double ms = cm_seconds() * 1e3 - t0;
    cm_buf_free(&src);
    free(excluded);
    free(body);
    if (h) {
        cm_buf_t names = {0};
        rt_native_commit(s, h, &plan, &names);
        printf("compiled %s with %s %s in %.0f ms\n", names.len ? cm_buf_str(&names) : "the cell",
               n.compiler, n.flags, ms);
        cm_buf_free(&names);
        /* the handle stays open: the session's code may call into it */
    }
    rt_plan_free(&plan);
    return h ? 0 : -1;
}

/* ---- C cells TCC cannot compile --------------------------------------- */

/* Builds code (planned as TCC's compile plans it, the final expression
 * shown in mode) with n's compiler; the handle, or NULL with err set. */
static void *build_planned(rt_session_t *s, rt_native_t *n, const char *code, int cell,
                           rt_result_mode_t mode, rt_plan_t *plan, rt_error_t *err)
{
    char *body = rt_session_plan_cell(s, code, cell, mode, plan);
    char *excluded = rt_native_excluded(s, plan);
    cm_buf_t src = {0};
    rt_native_add_session(s, excluded, 0, &src);
    cm_buf_adds(&src, body);
    void *h = rt_native_build(s, n, cm_buf_str(&src), code, cell, plan, err);
    cm_buf_free(&src);
    free(excluded);
    free(body);
    return h;
}

int rt_cc_fallback(rt_session_t *s, const rt_segment_t *seg, rt_error_t *err)
{
    rt_native_t n = {
        .what = "C cell", .language = "C", .ext = "c", .flags = FALLBACK_FLAGS, .fallback = 1};
    if (strcmp(err->kind, "CompileError") != 0 || rt_native_find_compiler(&n, "CC", "cc") != 0)
        return -1;
    char *code = rt_segment_source(seg);
    int cell = seg->cell;
    rt_plan_t plan = {0};
    rt_error_t cc_err = {0};
    /* a final expression of a type the _Generic way cannot show (a
     * double complex, a struct) is run without showing it */
    void *h = build_planned(s, &n, code, cell, RT_RESULT_GENERIC, &plan, &cc_err);
    if (!h && plan.has_expr && cc_err.line >= plan.expr_line &&
        cc_err.line <= plan.expr_end_line) {
        rt_error_free(&cc_err);
        h = build_planned(s, &n, code, cell, RT_RESULT_NONE, &plan, &cc_err);
    }
    /* both failed: TCC's messages are shown, unless they are not about the
     * cell's lines and the system compiler's are (a header of an earlier
     * cell that only that compiler reads) */
    if (!h && err->line == 0 && cc_err.line > 0) {
        rt_error_free(err);
        rt_error_move(err, &cc_err);
    }
    rt_error_free(&cc_err);
    void (*entry)(void) = h ? (void (*)(void))dlsym(h, plan.entry_name) : NULL;
    int rc = -1;
    if (entry) {
        const char *why = strrchr(err->message, '\n'); /* TCC's message, not its headers' */
        rt_magic_note("cell %d: compiled by %s %s, since TCC could not (%s)\n", cell,
                      n.compiler, n.flags, why ? why + 1 : err->message);
        rt_error_free(err);
        cm_buf_t names = {0};
        rt_native_commit(s, h, &plan, &names);
        cm_buf_free(&names);
        int (*main_fn)(int, char **) =
            plan.has_main ? (int (*)(int, char **))dlsym(h, "main") : NULL;
        rc = rt_session_run_entry(s, entry, main_fn, cell, err); /* the handle stays open */
    }
    rt_plan_free(&plan);
    free(code);
    return rc;
}
