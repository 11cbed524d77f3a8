/* %%elementwise and %%reduce: array functions from a few lines of C, as
 * CuPy's ElementwiseKernel and ReductionKernel (docs/magics.md,
 * docs/arrays.md). The function joins array math's expression language
 * (runtime/array/ga_udf) and gets a macro of its name in the session, so
 * host cells call it on arrays and numbers:
 *
 *   %%elementwise sqdiff(T a, T b) -> T c
 *   c = (a - b) * (a - b);
 *
 *   %%reduce sumsq(T x) -> T s
 *   map: x * x
 *   reduce: a + b
 *   identity: 0
 *
 * The body is compiled once at definition for float32 (on the CPU
 * backend, and with NVRTC where it is found) so that its errors are
 * reported against the cell's lines now, not at the first call. */
#include "rt_magic.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "ga_expr.h"
#include "ga_kernel.h"
#include "ga_map.h"
#include "ga_reduce.h"
#include "ga_udf.h"

/* The magic line's signature ("sqdiff(T a, T b) -> T c") into f; a
 * UsageError of %%magic on its line when it does not parse. */
static int signature(const char *code, const rt_magic_line_t *m, const char *magic, int cell,
                     ga_udf_t *f, rt_error_t *err)
{
    cm_error_t e = {0};
    char *sig = cm_strndup(code + m->args, m->args_len);
    int rc = ga_udf_signature(sig, f, &e);
    free(sig);
    if (rc != 0)
        return rt_error_set(err, "UsageError", cell, m->line, "%%%%%s: %s", magic, e.text);
    return 0;
}

/* "name(a0, a1, ...)": the expression that calls f on operands a0... */
static void call_text(const ga_udf_t *f, cm_buf_t *b)
{
    cm_buf_addf(b, "%s(", f->name);
    for (int i = 0; i < f->nparams; i++)
        cm_buf_addf(b, "%sa%d", i ? ", " : "", i);
    cm_buf_adds(b, ")");
}

/* Compiles f for float32 where its types are variables, on the CPU and,
 * where NVRTC is, for a GPU; an error is a CudaCompileError on the cell's
 * line. */
static int check(const ga_udf_t *f, int cell, rt_error_t *err)
{
    ga_dtype_t d[GA_UDF_MAX_PARAMS];
    int weak[GA_UDF_MAX_PARAMS] = {0};
    for (int i = 0; i < f->nparams; i++) {
        int t = ga_udf_type(f->ptypes[i]);
        d[i] = t >= 0 ? (ga_dtype_t)t : GA_F32;
    }
    cm_buf_t call = {0};
    call_text(f, &call);
    for (int gpu = 0; gpu < 2; gpu++) {
        cm_error_t e = {0};
        char *src = f->body ? ga_map_source(cm_buf_str(&call), f->nparams, d, weak, gpu, 0, &e)
                            : ga_reduce_source(cm_buf_str(&call), f->nparams, d, weak, gpu, 1, 0, &e);
        int line = 0;
        if (!src || ga_kernel_check(src, gpu, &line, &e) != 0) {
            free(src);
            cm_buf_free(&call);
            if (line > 0)
                rt_error_set(err, "CudaCompileError", cell, line, "cell %d, line %d: %s", cell,
                             line, e.text);
            else
                rt_error_set(err, "CudaCompileError", cell, 0, "cell %d: %s: %s", cell, f->name,
                             e.text);
            return -1;
        }
        free(src);
    }
    cm_buf_free(&call);
    return 0;
}

/* The session's macros for f: name(...) and name_out(out, ...); for a
 * reduction of one operand also name_axis(a, axis, keepdims). */
static int define_macros(rt_session_t *s, const ga_udf_t *f, int cell, rt_error_t *err)
{
    cm_buf_t call = {0}, text = {0};
    call_text(f, &call);
    cm_buf_addf(&text, "#define %s(...) ga_eval_n(\"%s\", \"%s\", 0, __GA_NARGS(__VA_ARGS__), "
                       "__GA_ARGS(__VA_ARGS__))\n", f->name, f->name, cm_buf_str(&call));
    cm_buf_addf(&text, "#define %s_out(out, ...) ga_eval_n(\"%s_out\", \"%s\", (out), "
                       "__GA_NARGS(__VA_ARGS__), __GA_ARGS(__VA_ARGS__))\n", f->name, f->name,
                cm_buf_str(&call));
    if (!f->body && f->nparams == 1)
        cm_buf_addf(&text, "#define %s_axis(a, axis, keepdims) ga_reduce_axis(\"%s_axis\", \"%s\", "
                           "(a), (axis), (keepdims))\n", f->name, f->name, f->name);
    int rc = rt_session_run_text(s, cm_buf_str(&text), cell, err);
    cm_buf_free(&call);
    cm_buf_free(&text);
    return rc;
}

static int define(rt_session_t *s, ga_udf_t *f, int cell, rt_error_t *err)
{
    char name[64];
    snprintf(name, sizeof name, "%s", f->name);
    cm_error_t e = {0};
    if (ga_expr_define(f, &e) != 0) /* takes f's strings */
        return rt_error_set(err, "UsageError", cell, 0, "%s", e.text);
    const ga_udf_t *def = ga_udf_find(name, strlen(name));
    if (check(def, cell, err) != 0 || define_macros(s, def, cell, err) != 0)
        return -1;
    return 0;
}

int rt_magic_elementwise(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                         rt_error_t *err)
{
    ga_udf_t f;
    if (signature(code, m, "elementwise", cell_no, &f, err))
        return -1;
    const char *body = code + m->next;
    const char *p = body;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p)
        return rt_error_set(err, "UsageError", cell_no, m->line,
                            "%%%%elementwise: the body is empty: write statements that set %s",
                            f.oname);
    f.body = cm_strndup(body, strlen(body));
    f.cell = cell_no;
    f.line = m->line + 1;
    if (define(s, &f, cell_no, err))
        return -1;
    printf("%s: an elementwise function of arrays (%s(...), %s_out(out, ...))\n", f.name, f.name,
           f.name);
    return 0;
}

/* One "key: expression" line of a %%reduce body into *slot. */
static int reduce_line(const char *line, size_t len, ga_udf_t *f, int cell, int lineno,
                       rt_error_t *err)
{
    static const char *const keys[] = {"map", "reduce", "identity", "post"};
    char **slots[] = {&f->map, &f->reduce, &f->identity, &f->post};
    const char *colon = memchr(line, ':', len);
    for (size_t k = 0; colon && k < sizeof keys / sizeof *keys; k++) {
        size_t kl = strlen(keys[k]);
        if ((size_t)(colon - line) != kl || strncmp(line, keys[k], kl))
            continue;
        if (*slots[k])
            return rt_error_set(err, "UsageError", cell, lineno, "%%%%reduce: '%s' is given twice",
                                keys[k]);
        const char *v = colon + 1;
        size_t n = len - (size_t)(v - line);
        while (n && isspace((unsigned char)*v))
            v++, n--;
        while (n && (isspace((unsigned char)v[n - 1]) || v[n - 1] == ';'))
            n--;
        if (!n)
            return rt_error_set(err, "UsageError", cell, lineno, "%%%%reduce: '%s' is empty", keys[k]);
        *slots[k] = cm_strndup(v, n);
        if (k == 0)
            f->line = lineno;
        return 0;
    }
    return rt_error_set(err, "UsageError", cell, lineno,
                        "%%%%reduce: each line is 'map: EXPR', 'reduce: EXPR of a and b', "
                        "'identity: EXPR' or 'post: EXPR of a and n'; got \"%.*s\"", (int)len, line);
}

int rt_magic_reduce(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    ga_udf_t f;
    if (signature(code, m, "reduce", cell_no, &f, err))
        return -1;
    const char *p = code + m->next;
    int lineno = m->line + 1;
    while (*p) {
        size_t len = strcspn(p, "\n");
        const char *t = p;
        size_t n = len;
        while (n && isspace((unsigned char)*t))
            t++, n--;
        if (n && strncmp(t, "//", 2) && reduce_line(t, n, &f, cell_no, lineno, err)) {
            free(f.map), free(f.reduce), free(f.identity), free(f.post);
            return -1;
        }
        p += len + (p[len] == '\n');
        lineno++;
    }
    if (!f.map || !f.reduce || !f.identity) {
        free(f.map), free(f.reduce), free(f.identity), free(f.post);
        return rt_error_set(err, "UsageError", cell_no, m->line,
                            "%%%%reduce: the body needs 'map:', 'reduce:' and 'identity:' lines");
    }
    f.cell = cell_no;
    if (define(s, &f, cell_no, err))
        return -1;
    printf("%s: a reduction of arrays (%s(...) of every element%s)\n", f.name, f.name,
           f.nparams == 1 ? ", _axis(a, axis, keepdims) along an axis" : "");
    return 0;
}
