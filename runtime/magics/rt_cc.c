/* rt_cc: %%cc, host cells compiled by the system C compiler ($CC, else
 * cc) with optimisation, into a shared object loaded into the session.
 *
 * The cell sees the session's declarations; its functions and variables
 * become session symbols that later cells (TCC or %%cc) link to. Earlier
 * cells' code lives in TCC's arena and exports nothing, so each compile
 * also builds a stub library whose dynamic symbols are the session's
 * addresses as absolute values: the cell's object links against it and the
 * loader resolves its references there. See docs/magics.md. The magic is
 * rt_magic_cc (declared by rt_magic.h from rt_magic_list.h). */
#include "rt_magic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"
#include "rt_cell.h"
#include "rt_native.h"
#include "rt_segment.h"

#define DEFAULT_FLAGS "-O2 -march=native"

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
    rt_native_add_session(s, excluded, &src);
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
