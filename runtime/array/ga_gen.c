/* ga_gen: shared kernel text (see ga_gen.h). */
#include "ga_gen.h"

#include <stdio.h>

static void load(cm_buf_t *b, ga_dtype_t d, const char *fmt, int k, const char *index)
{
    char x[128];
    snprintf(x, sizeof x, fmt, k, index);
    if (d == GA_BOOL)
        cm_buf_addf(b, "((int)(%s != 0))", x);
    else if (d == GA_F16)
        cm_buf_addf(b, "ga_h2f(%s)", x);
    else
        cm_buf_adds(b, x);
}

static const char *scalar_type(const ga_gen_t *g, int k)
{
    return g->dtypes[k] == GA_F64 ? "double" : "ga_i64";
}

void ga_gen_function(cm_buf_t *b, const ga_gen_t *g)
{
    ga_expr_emit_functions(g->e, b);
    cm_buf_addf(b, "GA_FN %s ga_f(", ga_expr_ctype(ga_expr_dtype(g->e)));
    for (int k = 0; k < g->nargs; k++)
        cm_buf_addf(b, "%s%s v%d", k ? ", " : "",
                    g->weak[k] ? scalar_type(g, k) : ga_expr_ctype(g->dtypes[k]), k);
    cm_buf_adds(b, ")\n{\n    return ");
    ga_expr_emit(g->e, g->e->root, b);
    cm_buf_adds(b, ";\n}\n");
}

void ga_gen_value(cm_buf_t *b, const ga_gen_t *g, const char *fmt, const char *index)
{
    cm_buf_adds(b, "ga_f(");
    for (int k = 0; k < g->nargs; k++) {
        if (k)
            cm_buf_adds(b, ", ");
        if (g->weak[k])
            cm_buf_addf(b, "v%d", k);
        else
            load(b, g->dtypes[k], fmt, k, index);
    }
    cm_buf_adds(b, ")");
}

void ga_gen_store_open(cm_buf_t *b, ga_dtype_t to)
{
    if (to == GA_BOOL)
        cm_buf_adds(b, "(ga_u8)((");
    else if (to == GA_F16)
        cm_buf_adds(b, "ga_f2h((float)(");
    else
        cm_buf_addf(b, "(%s)(", ga_expr_stype(to));
}

void ga_gen_store_close(cm_buf_t *b, ga_dtype_t to)
{
    cm_buf_adds(b, to == GA_BOOL ? ") != 0)" : to == GA_F16 ? "))" : ")");
}

void ga_gen_cpu_operands(cm_buf_t *b, const ga_gen_t *g)
{
    for (int k = 0; k < g->nargs; k++) {
        if (g->weak[k])
            cm_buf_addf(b, "    %s v%d = %s[%d];\n", scalar_type(g, k), k,
                        g->dtypes[k] == GA_F64 ? "fs" : "is", k);
        else
            cm_buf_addf(b, "    const %s *GA_RESTRICT p%d = (const %s *)ptrs[%d];\n",
                        ga_expr_stype(g->dtypes[k]), k, ga_expr_stype(g->dtypes[k]), k);
    }
    cm_buf_adds(b, "    (void)fs; (void)is;\n");
}

void ga_gen_cpu_next(cm_buf_t *b, const ga_gen_t *g, const char *last, const char *indent)
{
    cm_buf_addf(b, "%sfor (int d = %s; d >= 0; d--) {\n", indent, last);
    for (int k = 0; k <= g->nargs; k++)
        if (k == g->nargs || !g->weak[k])
            cm_buf_addf(b, "%s    o%d += st[%d * nd + d];\n", indent, k, k);
    cm_buf_addf(b, "%s    if (++idx[d] < shape[d])\n%s        break;\n", indent, indent);
    for (int k = 0; k <= g->nargs; k++)
        if (k == g->nargs || !g->weak[k])
            cm_buf_addf(b, "%s    o%d -= st[%d * nd + d] * shape[d];\n", indent, k, k);
    cm_buf_addf(b, "%s    idx[d] = 0;\n%s}\n", indent, indent);
}

void ga_gen_gpu_params(cm_buf_t *b, const ga_gen_t *g, int restrict_)
{
    for (int k = 0; k < g->nargs; k++) {
        if (g->weak[k])
            cm_buf_addf(b, ", %s v%d", scalar_type(g, k), k);
        else
            cm_buf_addf(b, ", const %s *%sp%d", ga_expr_stype(g->dtypes[k]),
                        restrict_ ? "GA_RESTRICT " : "", k);
    }
}

void ga_gen_signature(cm_buf_t *b, const ga_gen_t *g)
{
    cm_buf_addf(b, "%s|", g->e->text);
    for (int k = 0; k < g->nargs; k++)
        cm_buf_addf(b, "%d%c,", (int)g->dtypes[k], g->weak[k] ? 'w' : 'a');
    cm_buf_adds(b, "|");
}
