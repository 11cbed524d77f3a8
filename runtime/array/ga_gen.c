/* ga_gen: shared kernel text (see ga_gen.h), and %%profile's row of a C loop. */
#include "ga_gen.h"

#include <stdio.h>
#include <string.h>

#include "bk.h"
#include "ga_expr_internal.h"

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

int ga_gen_profile_begin(const ga_gen_t *g, long long n, double written, double more,
                         ga_dtype_t more_dtype, int device)
{
    double flops[BK_NPREC] = {0, 0, 0}, read = 0;
    for (int i = 0; i < g->e->nnodes; i++) {
        const ga_node_t *node = &g->e->nodes[i];
        int prec = node->compute == GA_F32 ? BK_PREC_F32 : node->compute == GA_F64 ? BK_PREC_F64 : -1;
        if (node->kind == GA_N_BINARY && prec >= 0 && node->op > 0 && node->op < 128 &&
            strchr("+-*", node->op))
            flops[prec] += (double)n;
    }
    if (more > 0)
        flops[more_dtype == GA_F64 ? BK_PREC_F64 : BK_PREC_F32] += more;
    for (int k = 0; k < g->nargs; k++)
        if (!g->weak[k])
            read += (double)n * (double)ga_dtype_size(g->dtypes[k]);
    char what[GA_EXPR_MAX_TEXT + 16];
    snprintf(what, sizeof what, "ga_map \"%s\"", g->e->text);
    return bk_profile_begin(device, BK_PROF_ARRAY, what, flops, read, written,
                            "counted from the expression");
}
