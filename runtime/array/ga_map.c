/* ga_map: elementwise expressions over arrays (see ga_map.h).
 *
 * One call: parse and type the expression, broadcast the operands, make
 * or check the output, merge dimensions (ga_layout), then run one kernel:
 * a flat loop when every operand is contiguous on the merged shape, else
 * a strided walk. The kernel text is generated here from the expression
 * (ga_expr_emit) and compiled once per expression, dtypes and variant
 * (ga_kernel). */
#include "ga_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_expr.h"
#include "ga_gen.h"
#include "ga_kernel.h"
#include "ga_layout.h"

/* What one kernel is generated for. */
typedef struct plan {
    ga_gen_t g;
    ga_dtype_t out;               /* the output's dtype */
    int gpu;
    int strided_nd;               /* GPU strided: its dimensions; 0 for the flat kernels */
    int vec;                      /* GPU vector width of ga_flatv */
} plan_t;

/* ---- generating the source ------------------------------------------------- */

/* out[...] = <the value, operands read as fmt(k, index)> */
static void assign(cm_buf_t *b, const plan_t *p, const char *target, const char *fmt,
                   const char *index)
{
    cm_buf_addf(b, "%s = ", target);
    ga_gen_store_open(b, p->out);
    ga_gen_value(b, &p->g, fmt, index);
    ga_gen_store_close(b, p->out);
    cm_buf_adds(b, ";\n");
}

/* CPU: ga_flat(n, ptrs, fs, is) and ga_strided(n, nd, shape, st, ptrs, fs, is). */
static void cpu_source(cm_buf_t *b, const plan_t *p)
{
    const char *so = ga_expr_stype(p->out);
    int nargs = p->g.nargs;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            cm_buf_adds(b, "void ga_flat(ga_i64 n, char *const *ptrs, const double *fs, const ga_i64 *is)\n{\n");
        else
            cm_buf_adds(b, "void ga_strided(ga_i64 n, int nd, const ga_i64 *shape, const ga_i64 *st,\n"
                           "                char *const *ptrs, const double *fs, const ga_i64 *is)\n{\n");
        ga_gen_cpu_operands(b, &p->g);
        cm_buf_addf(b, "    %s *GA_RESTRICT out = (%s *)ptrs[%d];\n", so, so, nargs);
        if (pass == 0) {
            cm_buf_adds(b, "    for (ga_i64 i = 0; i < n; i++)\n        ");
            assign(b, p, "out[i]", "p%1$d[%2$s]", "i");
            cm_buf_adds(b, "}\n");
            continue;
        }
        /* rows along the last dimension; the others counted in idx */
        cm_buf_adds(b, "    ga_i64 idx[8] = {0}, inner = shape[nd - 1], rows = inner ? n / inner : 0;\n");
        for (int k = 0; k <= nargs; k++)
            if (k == nargs || !p->g.weak[k])
                cm_buf_addf(b, "    ga_i64 o%d = 0, s%d = st[%d * nd + nd - 1];\n", k, k, k);
        cm_buf_adds(b, "    for (ga_i64 r = 0; r < rows; r++) {\n"
                       "        for (ga_i64 j = 0; j < inner; j++)\n            ");
        char target[64];
        snprintf(target, sizeof target, "out[o%d + j * s%d]", nargs, nargs);
        assign(b, p, target, "p%1$d[o%1$d + j * s%1$d]", "");
        ga_gen_cpu_next(b, &p->g, "nd - 2", "        ");
        cm_buf_adds(b, "    }\n}\n");
    }
}

static void gpu_params(cm_buf_t *b, const plan_t *p, int restrict_)
{
    ga_gen_gpu_params(b, &p->g, restrict_);
    cm_buf_addf(b, ", %s *%sout)\n{\n", ga_expr_stype(p->out), restrict_ ? "GA_RESTRICT " : "");
}

static void gpu_source(cm_buf_t *b, const plan_t *p)
{
    int nargs = p->g.nargs;
    const char *head = "    ga_i64 step = (ga_i64)gridDim.x * blockDim.x;\n"
                       "    ga_i64 t = blockIdx.x * (ga_i64)blockDim.x + threadIdx.x;\n";
    if (p->strided_nd) {
        int nd = p->strided_nd, nops = nargs + 1;
        cm_buf_addf(b, "struct ga_lay { ga_i64 shape[%d]; ga_i64 st[%d][%d]; };\n", nd, nops, nd);
        cm_buf_adds(b, "extern \"C\" __global__ void ga_strided(ga_i64 n, ga_lay L");
        gpu_params(b, p, 0);
        cm_buf_adds(b, head);
        cm_buf_adds(b, "    for (ga_i64 i = t; i < n; i += step) {\n        ga_i64 r = i");
        for (int k = 0; k <= nargs; k++)
            if (k == nargs || !p->g.weak[k])
                cm_buf_addf(b, ", o%d = 0", k);
        cm_buf_addf(b, ";\n#pragma unroll\n        for (int d = %d; d >= 0; d--) {\n"
                       "            ga_i64 c = r %% L.shape[d];\n            r /= L.shape[d];\n", nd - 1);
        for (int k = 0; k <= nargs; k++)
            if (k == nargs || !p->g.weak[k])
                cm_buf_addf(b, "            o%d += c * L.st[%d][d];\n", k, k);
        char target[32];
        snprintf(target, sizeof target, "out[o%d]", nargs);
        cm_buf_adds(b, "        }\n        ");
        assign(b, p, target, "p%1$d[o%1$d]", "");
        cm_buf_adds(b, "    }\n}\n");
        return;
    }
    cm_buf_adds(b, "extern \"C\" __global__ void ga_flat(ga_i64 n");
    gpu_params(b, p, 1);
    cm_buf_adds(b, head);
    cm_buf_adds(b, "    for (ga_i64 i = t; i < n; i += step)\n        ");
    assign(b, p, "out[i]", "p%1$d[%2$s]", "i");
    cm_buf_adds(b, "}\n");
    /* V elements per thread through aligned vector loads and stores */
    cm_buf_adds(b, "template <class T, int V> struct alignas(sizeof(T) * V) ga_vec { T v[V]; };\n");
    cm_buf_adds(b, "extern \"C\" __global__ void ga_flatv(ga_i64 n");
    gpu_params(b, p, 1);
    cm_buf_adds(b, head);
    cm_buf_addf(b, "    const int V = %d;\n    ga_i64 nv = n / V;\n", p->vec);
    cm_buf_adds(b, "    for (ga_i64 k = t; k < nv; k += step) {\n");
    for (int k = 0; k < nargs; k++)
        if (!p->g.weak[k])
            cm_buf_addf(b, "        ga_vec<%s, V> a%d = ((const ga_vec<%s, V> *)p%d)[k];\n",
                        ga_expr_stype(p->g.dtypes[k]), k, ga_expr_stype(p->g.dtypes[k]), k);
    cm_buf_addf(b, "        ga_vec<%s, V> o;\n#pragma unroll\n        for (int j = 0; j < V; j++)\n"
                   "            ", ga_expr_stype(p->out));
    assign(b, p, "o.v[j]", "a%1$d.v[%2$s]", "j");
    cm_buf_addf(b, "        ((ga_vec<%s, V> *)out)[k] = o;\n    }\n", ga_expr_stype(p->out));
    cm_buf_adds(b, "    for (ga_i64 i = nv * V + t; i < n; i += step)\n        ");
    assign(b, p, "out[i]", "p%1$d[%2$s]", "i");
    cm_buf_adds(b, "}\n");
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "/* %s */\n", p->g.e->text);
    ga_gen_function(&b, &p->g);
    if (p->gpu)
        gpu_source(&b, p);
    else
        cpu_source(&b, p);
    return cm_buf_steal(&b);
}

static void signature(cm_buf_t *b, const plan_t *p)
{
    cm_buf_adds(b, "map|");
    ga_gen_signature(b, &p->g);
    cm_buf_addf(b, "%d|%d|%d", (int)p->out, p->strided_nd, p->vec);
}

/* ---- checking and running ---------------------------------------------------- */

static int kind_rank(ga_dtype_t d)
{
    switch (ga_dtype_kind(d)) {
    case GA_KIND_BOOL: return 0;
    case GA_KIND_INT:
    case GA_KIND_UINT: return 1;
    case GA_KIND_FLOAT: return 2;
    default: return 3;
    }
}

/* The operands as arrays (NULL for scalars), checked and on one device:
 * out's when all are numbers (out given: a fill). */
static int operands(const ga_expr_t *e, int nargs, const ga_arg_t *args, const ga_array_t *out,
                    ga_array_t **arrays, ga_dtype_t *dtypes, int *weak, int *device,
                    cm_error_t *err)
{
    if (nargs != e->nvars) {
        cm_buf_t names = {0};
        for (int k = 0; k < e->nvars; k++)
            cm_buf_addf(&names, "%s%s", k ? ", " : "", e->names[k]);
        CM_ERROR(err, GA_E_EXPR, "\"%s\" has %d operand%s (%s), given %d", e->text, e->nvars,
                 e->nvars == 1 ? "" : "s", cm_buf_str(&names), nargs);
        cm_buf_free(&names);
        return -1;
    }
    *device = -2;
    for (int k = 0; k < nargs; k++) {
        arrays[k] = NULL;
        weak[k] = 1;
        if (args[k].kind == GA_ARG_INT) {
            dtypes[k] = GA_I64;
        } else if (args[k].kind == GA_ARG_FLOAT) {
            dtypes[k] = GA_F64;
        } else {
            ga_array_t *a = args[k].a;
            if (ga_array_check(a, err))
                return -1;
            if (*device != -2 && a->device != *device) {
                char d1[16], d2[16];
                ga_device_text(*device, d1, sizeof d1);
                ga_device_text(a->device, d2, sizeof d2);
                CM_ERROR(err, GA_E_DEVICE, "operand %s is on %s, an earlier one on %s: move one "
                         "with ga_to_device", e->names[k], d2, d1);
                return -1;
            }
            *device = a->device;
            arrays[k] = a;
            dtypes[k] = a->dtype;
            weak[k] = 0;
        }
    }
    if (*device == -2 && out) { /* numbers only, written into out (a fill): out's device */
        if (ga_array_check(out, err))
            return -1;
        *device = out->device;
    }
    if (*device == -2) {
        CM_ERROR(err, GA_E_EXPR, "\"%s\": no operand is an array", e->text);
        return -1;
    }
    return 0;
}

/* A copy of in where it shares memory with out in another layout (the
 * kernel would read what it has already written). */
static ga_array_t *unalias(ga_array_t *in, const ga_array_t *out, cm_error_t *err)
{
    if (!in || in->buf != out->buf)
        return in;
    int same = in->offset == out->offset && in->ndim == out->ndim;
    for (int k = 0; same && k < in->ndim; k++)
        same = in->shape[k] == out->shape[k] && in->strides[k] == out->strides[k];
    if (same)
        return in;
    /* a copy by the "a" kernel (array math has no complex operands) */
    ga_array_t *c = ga_array_new(in->device, in->dtype, in->ndim, in->shape, err);
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = in};
    if (c && !ga_map_eval("a", c, 1, &arg, err)) {
        ga_array_free(c);
        c = NULL;
    }
    return c;
}

static int run(const plan_t *base, const ga_layout_t *l, ga_array_t *const *arrays,
               const ga_arg_t *args, int device, cm_error_t *err)
{
    plan_t p = *base;
    int nops = p.g.nargs + 1;
    char *ptrs[GA_LAYOUT_MAX_OPS];
    double fs[GA_EXPR_MAX_VARS];
    long long is[GA_EXPR_MAX_VARS];
    int skip[GA_LAYOUT_MAX_OPS] = {0};
    for (int k = 0; k < nops; k++) {
        ptrs[k] = arrays[k] ? ga_array_data(arrays[k]) : NULL;
        skip[k] = k < p.g.nargs && p.g.weak[k];
        if (k < p.g.nargs) {
            fs[k] = args[k].kind == GA_ARG_FLOAT ? args[k].f : (double)args[k].i;
            is[k] = args[k].kind == GA_ARG_INT ? args[k].i : (long long)args[k].f;
        }
    }
    int flat = ga_layout_flat(l, skip);
    cm_buf_t sig = {0};
    int rc = -1;
    if (bk_lang(device) == BK_LANG_C) { /* a C loop, called here */
        signature(&sig, &p);
        void *fn = ga_kernel_get(device, cm_buf_str(&sig), flat ? "ga_flat" : "ga_strided",
                                 make_source, &p, err);
        if (fn) {
            int token = bk_profiling() ? ga_gen_profile_begin(&p.g, l->n, (double)l->n * (double)ga_dtype_size(p.out), 0, GA_F32, device) : 0;
            if (flat) {
                ((void (*)(long long, char *const *, const double *, const long long *))fn)(
                    l->n, ptrs, fs, is);
            } else {
                int64_t st[GA_LAYOUT_MAX_OPS * GA_MAX_DIMS];
                for (int k = 0; k < nops; k++)
                    for (int d = 0; d < l->nd; d++)
                        st[k * l->nd + d] = l->strides[k][d];
                ((void (*)(long long, int, const int64_t *, const int64_t *, char *const *,
                           const double *, const long long *))fn)(l->n, l->nd, l->shape, st, ptrs,
                                                                   fs, is);
            }
            bk_profile_end(token);
            rc = 0;
        }
        cm_buf_free(&sig);
        return rc;
    }
    /* a GPU */
    size_t widest = ga_dtype_size(p.out);
    for (int k = 0; k < p.g.nargs; k++)
        if (!p.g.weak[k] && ga_dtype_size(p.g.dtypes[k]) > widest)
            widest = ga_dtype_size(p.g.dtypes[k]);
    const char *name = "ga_strided";
    if (flat) {
        p.vec = (int)(16 / widest);
        int aligned = l->n >= 4 * p.vec;
        for (int k = 0; k < nops && aligned; k++)
            if (ptrs[k])
                aligned = (uintptr_t)ptrs[k] % 16 == 0;
        name = aligned ? "ga_flatv" : "ga_flat";
    } else {
        p.strided_nd = l->nd;
    }
    signature(&sig, &p);
    void *fn = ga_kernel_get(device, cm_buf_str(&sig), name, make_source, &p, err);
    cm_buf_free(&sig);
    if (!fn)
        return -1;
    void *argv[GA_LAYOUT_MAX_OPS + 2];
    int64_t lay[GA_MAX_DIMS * (GA_LAYOUT_MAX_OPS + 1)];
    long long n = l->n;
    int a = 0;
    argv[a++] = &n;
    if (!flat) {
        for (int d = 0; d < l->nd; d++)
            lay[d] = l->shape[d];
        for (int k = 0; k < nops; k++)
            for (int d = 0; d < l->nd; d++)
                lay[l->nd + k * l->nd + d] = l->strides[k][d];
        argv[a++] = lay;
    }
    for (int k = 0; k < nops; k++)
        argv[a++] = k < p.g.nargs && p.g.weak[k] ? (p.g.dtypes[k] == GA_F64 ? (void *)&fs[k] : (void *)&is[k])
                                             : (void *)&ptrs[k];
    char what[GA_EXPR_MAX_TEXT + 16];
    snprintf(what, sizeof what, "ga_map \"%s\"", p.g.e->text);
    int64_t work = flat && strcmp(name, "ga_flatv") == 0 ? (l->n + p.vec - 1) / p.vec : l->n;
    /* %%profile: the launch named and counted by the expression */
    int token = bk_profiling() ? ga_gen_profile_begin(&p.g, l->n, (double)l->n * (double)ga_dtype_size(p.out),
                                                      0, GA_F32, device)
                               : 0;
    int launched = ga_kernel_launch(device, fn, work, argv, what, err);
    bk_profile_end(token);
    return launched;
}

ga_array_t *ga_map_run(const ga_expr_t *e, ga_array_t *out, int nargs, const ga_arg_t *args,
                       ga_array_t *const *operand_arrays, const ga_dtype_t *dtypes,
                       const int *weak, int device, cm_error_t *err)
{
    ga_array_t *arrays[GA_LAYOUT_MAX_OPS] = {0}, *copies[GA_LAYOUT_MAX_OPS] = {0}, *result = NULL;
    plan_t p = {.g = {.e = e, .nargs = nargs}};
    memcpy(arrays, operand_arrays, (size_t)nargs * sizeof *arrays);
    memcpy(p.g.dtypes, dtypes, (size_t)nargs * sizeof *dtypes);
    memcpy(p.g.weak, weak, (size_t)nargs * sizeof *weak);
    int ndim;
    int64_t shape[GA_MAX_DIMS];
    if (ga_layout_broadcast(arrays, nargs, &ndim, shape, err))
        return NULL;
    ga_dtype_t r = ga_expr_dtype(e);
    if (out) {
        if (ga_array_check(out, err))
            return NULL;
        /* as NumPy's out=: the operands broadcast to the output's shape */
        int same = out->ndim >= ndim;
        for (int k = 0; same && k < ndim; k++) {
            int64_t o = out->shape[out->ndim - ndim + k];
            same = shape[k] == o || shape[k] == 1;
        }
        if (same) {
            ndim = out->ndim;
            memcpy(shape, out->shape, (size_t)ndim * sizeof *shape);
        } else {
            char want[128], have[128];
            ga_shape_text(ndim, shape, want, sizeof want);
            ga_shape_text(out->ndim, out->shape, have, sizeof have);
            CM_ERROR(err, GA_E_SHAPE, "the output has shape %s, the result %s", have, want);
            return NULL;
        }
        if (out->device != device) {
            char d1[16], d2[16];
            ga_device_text(out->device, d1, sizeof d1);
            ga_device_text(device, d2, sizeof d2);
            CM_ERROR(err, GA_E_DEVICE, "the output is on %s, the operands on %s", d1, d2);
            return NULL;
        }
        if (kind_rank(out->dtype) < kind_rank(r)) {
            CM_ERROR(err, GA_E_DTYPE, "the result is %s and cannot be written to a %s output "
                     "(cast it: %s(...))", ga_dtype_name(r), ga_dtype_name(out->dtype),
                     ga_dtype_name(out->dtype));
            return NULL;
        }
        for (int k = 0; k < nargs; k++) {
            ga_array_t *c = unalias(arrays[k], out, err);
            if (!c && arrays[k])
                goto done;
            if (c != arrays[k])
                arrays[k] = copies[k] = c;
        }
        result = out;
    } else {
        result = ga_array_new(device, r, ndim, shape, err);
        if (!result)
            goto done;
    }
    p.out = result->dtype;
    p.gpu = bk_lang(device) == BK_LANG_CUDA;
    arrays[nargs] = result;
    ga_layout_t l;
    ga_layout_make(&l, arrays, nargs + 1, ndim, shape);
    if (l.n > 0 && run(&p, &l, arrays, args, device, err)) {
        if (result != out)
            ga_array_free(result);
        result = NULL;
    }
done:
    for (int k = 0; k < nargs; k++)
        if (copies[k])
            ga_array_free(copies[k]);
    return result;
}

ga_array_t *ga_map_eval_reducing(const char *text, ga_array_t *out, int nargs,
                                 const ga_arg_t *args, ga_map_runner_t *reduce, cm_error_t *err)
{
    ga_expr_t *e = malloc(sizeof *e);
    if (!e) {
        CM_ERROR(err, GA_E_MEMORY, "out of host memory");
        return NULL;
    }
    ga_array_t *arrays[GA_EXPR_MAX_VARS], *result = NULL;
    ga_dtype_t dtypes[GA_EXPR_MAX_VARS];
    int weak[GA_EXPR_MAX_VARS], device;
    if (ga_expr_parse(text, e, err) == 0 &&
        operands(e, nargs, args, out, arrays, dtypes, weak, &device, err) == 0 &&
        ga_expr_type(e, dtypes, weak, err) == 0) {
        ga_map_runner_t *runner = e->reduce ? reduce : ga_map_run;
        if (runner)
            result = runner(e, out, nargs, args, arrays, dtypes, weak, device, err);
        else
            CM_ERROR(err, GA_E_EXPR, "\"%s\" is a reduction: ga_eval runs it", e->text);
    }
    free(e);
    return result;
}

ga_array_t *ga_map_eval(const char *text, ga_array_t *out, int nargs, const ga_arg_t *args,
                        cm_error_t *err)
{
    return ga_map_eval_reducing(text, out, nargs, args, NULL, err);
}

char *ga_map_source(const char *text, int nargs, const ga_dtype_t *dtypes, const int *weak,
                    int gpu, int strided_nd, cm_error_t *err)
{
    ga_expr_t *e = malloc(sizeof *e);
    char *src = NULL;
    if (!e) {
        CM_ERROR(err, GA_E_MEMORY, "out of host memory");
        return NULL;
    }
    plan_t p = {.g = {.e = e, .nargs = nargs}, .gpu = gpu, .strided_nd = strided_nd};
    if (ga_expr_parse(text, e, err) == 0 && nargs == e->nvars) {
        memcpy(p.g.dtypes, dtypes, (size_t)nargs * sizeof *dtypes);
        memcpy(p.g.weak, weak, (size_t)nargs * sizeof *weak);
        if (ga_expr_type(e, p.g.dtypes, p.g.weak, err) == 0) {
            p.out = ga_expr_dtype(e);
            size_t widest = ga_dtype_size(p.out);
            for (int k = 0; k < nargs; k++)
                if (!weak[k] && ga_dtype_size(dtypes[k]) > widest)
                    widest = ga_dtype_size(dtypes[k]);
            p.vec = (int)(16 / widest);
            cm_buf_t b = {0};
            cm_buf_adds(&b, ga_kernel_prelude);
            char *body = make_source(&p);
            cm_buf_adds(&b, body);
            free(body);
            src = cm_buf_steal(&b);
        }
    } else if (nargs != e->nvars) {
        CM_ERROR(err, GA_E_EXPR, "\"%s\" has %d operands, given %d", text, e->nvars, nargs);
    }
    free(e);
    return src;
}
