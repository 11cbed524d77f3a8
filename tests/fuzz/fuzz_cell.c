/* Fuzzes the cell language, text only (runtime/cell/): the lexer, the
 * splitter, the completeness check and the planner in every result mode,
 * with a type callback that knows one name. Nothing is compiled. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cell.h"
#include "rt_lex.h"
#include "rt_plan.h"

/* A session that knows the typedef name "T". */
static int is_type(void *ctx, const char *name, size_t len)
{
    return len == 1 && name[0] == 'T';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *code = malloc(size + 1); /* a cell is NUL-terminated text */
    memcpy(code, data, size);
    code[size] = '\0';
    size_t len = strlen(code);

    rt_tok_t *toks = NULL;
    int unterminated = 0;
    size_t n = rt_lex_all(code, 0, len, 1, &toks, &unterminated);
    for (size_t i = 0; i < n; i++)
        if (toks[i].start + toks[i].len > len || toks[i].line < 1)
            abort();
    for (size_t i = 0; i < n; i++)
        if (rt_tok_opens(code, &toks[i]) && rt_tok_match(code, toks, n, i) > n)
            abort();
    free(toks);

    const char *c = rt_cell_completeness(code);
    if (strcmp(c, "complete") && strcmp(c, "incomplete") && strcmp(c, "invalid"))
        abort();

    rt_cell_t cell;
    rt_cell_split(code, size & 1 ? is_type : NULL, NULL, &cell);
    for (size_t i = 0; i < cell.n; i++)
        if (cell.items[i].start > cell.items[i].end || cell.items[i].end > len)
            abort();
    rt_cell_free(&cell);

    static const rt_result_mode_t modes[] = {RT_RESULT_GENERIC, RT_RESULT_POINTER,
                                             RT_RESULT_STRUCT, RT_RESULT_NONE};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        rt_plan_t plan;
        memset(&plan, 0, sizeof plan);
        cm_buf_t src = {0};
        rt_plan_make(&plan, code, 7, modes[m], is_type, NULL, &src);
        rt_plan_free(&plan);
        cm_buf_free(&src);
    }
    free(code);
    return 0;
}
