/* ga_reduce: reductions (see ga_reduce.h).
 *
 * Every reduction is four small functions of generated text over an
 * accumulator type ga_acc: ga_init (the identity), ga_lift (an element and
 * its index into an accumulator), ga_comb (two accumulators into one,
 * associative, so any tree order gives the same answer up to rounding) and
 * ga_final (the accumulator of n elements into the result). The drivers
 * around them are the same for every operation:
 *   CPU  one function over the outputs; along the reduced dimension blocks
 *        of 1024 elements in 8 independent lanes (vectorised), the blocks
 *        combined pairwise (a binary counter): pairwise summation.
 *   GPU  the whole array: blocks reduce grid-stride slices (vector loads
 *        where aligned) into partials, one block reduces those;
 *        along an axis contiguous in memory: a block per output;
 *        along another axis: threads across outputs, a block's rows
 *        splitting the axis.
 * var and std are two passes over the mean, as NumPy computes them. */
#include "ga_reduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_copy.h"
#include "ga_gen.h"
#include "ga_kernel.h"
#include "ga_layout.h"
#include "ga_udf.h"

#define GPU_BLOCK 512
#define GPU_MAX_PARTS 1024
#define ACC_BYTES 16 /* the largest ga_acc: a value and an index */

typedef struct plan {
    ga_gen_t g;
    ga_reduce_op_t op;
    ga_dtype_t mapped;             /* the elementwise value's dtype */
    ga_dtype_t result;             /* the reduction's dtype (NumPy's) */
    ga_dtype_t out;                /* the output's dtype */
    int gpu;
    int variant;                   /* GPU: V_* */
    int nd;                        /* GPU axis variants: output dimensions */
    int vec;                       /* GPU V_PARTS_VEC: elements per load */
    int warp;                      /* GPU V_ROWS: a warp a row rather than a block */
} plan_t;

enum { V_PARTS = 1, V_PARTS_VEC, V_ROWS, V_COLS };

/* ---- the accumulator ---------------------------------------------------- */

/* The C type sums and products accumulate in. */
static const char *sum_type(const plan_t *p)
{
    if (p->op == GA_R_MEAN)
        return p->mapped == GA_F64 || ga_dtype_kind(p->mapped) != GA_KIND_FLOAT ? "double" : "float";
    return p->result == GA_I64 ? "ga_i64" : p->result == GA_U64 ? "ga_u64"
           : p->result == GA_F64 ? "double" : "float";
}

/* The identity of min (want_max 0) or max over values of dtype d. */
static const char *extreme(ga_dtype_t d, int want_max)
{
    switch (d) {
    case GA_BOOL: return want_max ? "1" : "0";
    case GA_I8: return want_max ? "127" : "(-128)";
    case GA_U8: return want_max ? "255" : "0";
    case GA_I16: return want_max ? "32767" : "(-32768)";
    case GA_U16: return want_max ? "65535" : "0";
    case GA_I32: return want_max ? "2147483647" : "(-2147483647 - 1)";
    case GA_U32: return want_max ? "4294967295u" : "0u";
    case GA_I64: return want_max ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
    case GA_U64: return want_max ? "18446744073709551615ULL" : "0ULL";
    default: return want_max ? "GA_INF" : "(-GA_INF)";
    }
}

static void acc_functions(cm_buf_t *b, const plan_t *p)
{
    const char *mt = ga_expr_ctype(p->mapped), *rt = ga_expr_ctype(p->result);
    const char *sfx = p->mapped == GA_F64 ? "d" : ga_dtype_kind(p->mapped) == GA_KIND_FLOAT ? "f"
                      : NULL;
    switch (p->op) {
    case GA_R_SUM:
    case GA_R_PROD:
    case GA_R_MEAN: {
        const char *at = sum_type(p);
        int wraps = at[3] == 'i' || at[3] == 'u'; /* ga_i64 / ga_u64 */
        char sym = p->op == GA_R_PROD ? '*' : '+';
        cm_buf_addf(b, "typedef %s ga_acc;\n", at);
        cm_buf_addf(b, "GA_FN ga_acc ga_init(void) { return %d; }\n", p->op == GA_R_PROD);
        cm_buf_addf(b, "GA_FN ga_acc ga_lift(%s v, ga_i64 i) { (void)i; return (ga_acc)v; }\n", mt);
        if (wraps)
            cm_buf_addf(b, "GA_FN ga_acc ga_comb(ga_acc a, ga_acc b) { return (ga_acc)((ga_u64)a %c (ga_u64)b); }\n",
                        sym);
        else
            cm_buf_addf(b, "GA_FN ga_acc ga_comb(ga_acc a, ga_acc b) { return a %c b; }\n", sym);
        if (p->op == GA_R_MEAN)
            cm_buf_addf(b, "GA_FN %s ga_final(ga_acc a, ga_i64 n) { return (%s)(a / (ga_acc)n); }\n", rt, rt);
        else
            cm_buf_addf(b, "GA_FN %s ga_final(ga_acc a, ga_i64 n) { (void)n; return (%s)a; }\n", rt, rt);
        return;
    }
    case GA_R_MIN:
    case GA_R_MAX: {
        int mx = p->op == GA_R_MAX;
        cm_buf_addf(b, "typedef %s ga_acc;\n", mt);
        cm_buf_addf(b, "GA_FN ga_acc ga_init(void) { return %s; }\n", extreme(p->mapped, !mx));
        cm_buf_addf(b, "GA_FN ga_acc ga_lift(%s v, ga_i64 i) { (void)i; return v; }\n", mt);
        cm_buf_addf(b, "GA_FN ga_acc ga_comb(ga_acc a, ga_acc b) { return ga_%s_%s(a, b); }\n",
                    mx ? "max" : "min", sfx ? sfx : p->mapped == GA_BOOL ? "i32"
                                                     : ga_expr_ctype(p->mapped) + 3);
        cm_buf_addf(b, "GA_FN %s ga_final(ga_acc a, ga_i64 n) { (void)n; return a; }\n", rt);
        return;
    }
    case GA_R_ARGMIN:
    case GA_R_ARGMAX: {
        int mx = p->op == GA_R_ARGMAX;
        cm_buf_addf(b, "typedef struct { %s v; ga_i64 i; } ga_acc;\n", mt);
        cm_buf_addf(b, "GA_FN ga_acc ga_lift(%s v, ga_i64 i) { ga_acc r; r.v = v; r.i = i; return r; }\n", mt);
        cm_buf_addf(b, "GA_FN ga_acc ga_init(void) { return ga_lift(%s, -1); }\n", extreme(p->mapped, !mx));
        cm_buf_addf(b, "GA_FN ga_acc ga_comb(ga_acc a, ga_acc b)\n{\n"
                       "    if (a.i < 0) return b;\n    if (b.i < 0) return a;\n"
                       "    int an = a.v != a.v, bn = b.v != b.v; /* the first NaN wins, as NumPy */\n"
                       "    if (an || bn) return an && bn ? (a.i < b.i ? a : b) : an ? a : b;\n"
                       "    return (b.v %c a.v || (b.v == a.v && b.i < a.i)) ? b : a;\n}\n", mx ? '>' : '<');
        cm_buf_addf(b, "GA_FN %s ga_final(ga_acc a, ga_i64 n) { (void)n; return a.i; }\n", rt);
        return;
    }
    case GA_R_ANY:
    case GA_R_ALL:
    case GA_R_COUNT_NONZERO: {
        int cnt = p->op == GA_R_COUNT_NONZERO, all = p->op == GA_R_ALL;
        cm_buf_addf(b, "typedef %s ga_acc;\n", cnt ? "ga_i64" : "int");
        cm_buf_addf(b, "GA_FN ga_acc ga_init(void) { return %d; }\n", all);
        cm_buf_addf(b, "GA_FN ga_acc ga_lift(%s v, ga_i64 i) { (void)i; return (ga_acc)(v != 0); }\n", mt);
        cm_buf_addf(b, "GA_FN ga_acc ga_comb(ga_acc a, ga_acc b) { return %s; }\n",
                    cnt ? "a + b" : all ? "a & b" : "a | b");
        cm_buf_addf(b, "GA_FN %s ga_final(ga_acc a, ga_i64 n) { (void)n; return (%s)a; }\n", rt, rt);
        return;
    }
    case GA_R_USER: { /* %%reduce: the user's identity, combination and result */
        const ga_udf_t *f = ga_udf_at(p->g.e->user);
        ga_expr_emit_type_vars(p->g.e, p->g.e->root, 0, b);
        cm_buf_addf(b, "typedef %s ga_acc;\n", mt);
        cm_buf_addf(b, "GA_FN ga_acc ga_init(void) { return (ga_acc)(%s); }\n", f->identity);
        cm_buf_addf(b, "GA_FN ga_acc ga_lift(%s v, ga_i64 i) { (void)i; return v; }\n", mt);
        cm_buf_addf(b, "GA_FN ga_acc ga_comb(ga_acc a, ga_acc b) { return (ga_acc)(%s); }\n", f->reduce);
        cm_buf_addf(b, "GA_FN %s ga_final(ga_acc a, ga_i64 n) { (void)n; return (%s)(%s); }\n", rt, rt,
                    f->post ? f->post : "a");
        ga_expr_emit_type_vars(p->g.e, p->g.e->root, 1, b);
        return;
    }
    default:
        return;
    }
}

/* ---- the CPU ------------------------------------------------------------- */

/* ga_reduce(m, nout, nd, shape, st, rst, ptrs, fs, is): nout outputs over
 * (nd, shape) with operand k's strides st[k * nd + d] (k = nargs: the
 * output), m elements each along strides rst[k]. */
static void cpu_source(cm_buf_t *b, const plan_t *p)
{
    int nargs = p->g.nargs;
    const char *so = ga_expr_stype(p->out);
    /* GCC 12's loop vectorizer (Debian 12's 12.2, -O3, any vector width)
     * drops elements of these lanes where they widen a narrow integer
     * (the int32 sum of 0..15 gave 84): such reductions are vectorised by
     * their 8 lanes alone (tests/array/test_math_numpy.py: every length) */
    char k = ga_dtype_kind(p->mapped);
    if ((k == GA_KIND_INT || k == GA_KIND_UINT || k == GA_KIND_BOOL) && ga_dtype_size(p->mapped) < 8)
        cm_buf_adds(b, "#if defined(__GNUC__) && !defined(__clang__)\n"
                       "__attribute__((optimize(\"no-tree-loop-vectorize\")))\n#endif\n");
    cm_buf_adds(b, "void ga_reduce(ga_i64 m, ga_i64 nout, int nd, const ga_i64 *shape, const ga_i64 *st,\n"
                   "               const ga_i64 *rst, char *const *ptrs, const double *fs, const ga_i64 *is)\n{\n");
    ga_gen_cpu_operands(b, &p->g);
    cm_buf_addf(b, "    %s *out = (%s *)ptrs[%d];\n    ga_i64 idx[8] = {0};\n", so, so, nargs);
    for (int k = 0; k <= nargs; k++)
        if (k == nargs || !p->g.weak[k])
            cm_buf_addf(b, "    ga_i64 o%d = 0, r%d = rst[%d];\n", k, k, k);
    cm_buf_adds(b, "    for (ga_i64 q = 0; q < nout; q++) {\n"
                   "        ga_acc stack[64];\n        ga_u64 count = 0;\n"
                   "        for (ga_i64 j0 = 0; j0 < m; j0 += 1024) {\n"
                   "            ga_i64 j1 = j0 + 1024 < m ? j0 + 1024 : m, j = j0;\n"
                   "            ga_acc lane[8];\n"
                   "            for (int l = 0; l < 8; l++) lane[l] = ga_init();\n"
                   "            for (; j + 8 <= j1; j += 8)\n"
                   "                for (int l = 0; l < 8; l++)\n"
                   "                    lane[l] = ga_comb(lane[l], ga_lift(");
    ga_gen_value(b, &p->g, "p%1$d[o%1$d + (j + l) * r%1$d]", "");
    cm_buf_adds(b, ", j + l));\n            for (; j < j1; j++)\n"
                   "                lane[0] = ga_comb(lane[0], ga_lift(");
    ga_gen_value(b, &p->g, "p%1$d[o%1$d + j * r%1$d]", "");
    cm_buf_adds(b, ", j));\n"
                   "            ga_acc blk = ga_comb(ga_comb(ga_comb(lane[0], lane[1]), ga_comb(lane[2], lane[3])),\n"
                   "                                 ga_comb(ga_comb(lane[4], lane[5]), ga_comb(lane[6], lane[7])));\n"
                   "            int lvl = 0;\n"
                   "            while ((count >> lvl) & 1) { blk = ga_comb(stack[lvl], blk); lvl++; }\n"
                   "            stack[lvl] = blk;\n            count++;\n        }\n"
                   "        ga_acc tot = ga_init();\n"
                   "        for (int lvl = 63; lvl >= 0; lvl--)\n"
                   "            if ((count >> lvl) & 1) tot = ga_comb(tot, stack[lvl]);\n");
    cm_buf_addf(b, "        out[o%d] = ", nargs);
    ga_gen_store_open(b, p->out);
    cm_buf_adds(b, "ga_final(tot, m)");
    ga_gen_store_close(b, p->out);
    cm_buf_adds(b, ";\n");
    ga_gen_cpu_next(b, &p->g, "nd - 1", "        ");
    cm_buf_adds(b, "    }\n}\n");
}

/* ---- a GPU ------------------------------------------------------------------ */

/* ga_block(v, sh): the block's values combined, in thread order. Scalar
 * accumulators go through warp shuffles (two barriers); a value with its
 * index (argmin, argmax) through a tree in shared memory. */
static void gpu_block_reduce(cm_buf_t *b, const plan_t *p, int threads)
{
    if (p->op != GA_R_ARGMIN && p->op != GA_R_ARGMAX) {
        cm_buf_addf(b, "__device__ __forceinline__ ga_acc ga_warp(ga_acc v)\n{\n"
                       "#pragma unroll\n    for (int s = 16; s > 0; s >>= 1)\n"
                       "        v = ga_comb(v, __shfl_down_sync(0xffffffffu, v, s));\n    return v;\n}\n"
                       "__device__ __forceinline__ ga_acc ga_block(ga_acc v, ga_acc *sh)\n{\n"
                       "    int t = threadIdx.x + threadIdx.y * blockDim.x, w = t >> 5;\n"
                       "    v = ga_warp(v);\n    if ((t & 31) == 0) sh[w] = v;\n    __syncthreads();\n"
                       "    if (w == 0) {\n        v = t < %d / 32 ? sh[t] : ga_init();\n"
                       "        v = ga_warp(v);\n        if (t == 0) sh[0] = v;\n    }\n"
                       "    __syncthreads();\n    ga_acc r = sh[0];\n    __syncthreads();\n"
                       "    return r;\n}\n", threads);
        return;
    }
    cm_buf_addf(b, "__device__ __forceinline__ ga_acc ga_block(ga_acc v, ga_acc *sh)\n{\n"
                   "    int t = threadIdx.x + threadIdx.y * blockDim.x;\n"
                   "    sh[t] = v;\n    __syncthreads();\n"
                   "    for (int s = %d / 2; s > 32; s >>= 1) {\n"
                   "        if (t < s) sh[t] = ga_comb(sh[t], sh[t + s]);\n        __syncthreads();\n    }\n"
                   "    if (t < 32) {\n        for (int s = %d < 64 ? %d / 2 : 32; s > 0; s >>= 1) {\n"
                   "            if (t < s) sh[t] = ga_comb(sh[t], sh[t + s]);\n            __syncwarp();\n"
                   "        }\n    }\n    __syncthreads();\n    ga_acc r = sh[0];\n    __syncthreads();\n"
                   "    return r;\n}\n", threads, threads, threads);
}

static void gpu_value_store(cm_buf_t *b, const plan_t *p, const char *target, const char *value)
{
    cm_buf_addf(b, "%s = ", target);
    ga_gen_store_open(b, p->out);
    cm_buf_adds(b, value);
    ga_gen_store_close(b, p->out);
    cm_buf_adds(b, ";\n");
}

static void gpu_strides_params(cm_buf_t *b, const plan_t *p)
{
    for (int k = 0; k < p->g.nargs; k++)
        if (!p->g.weak[k])
            cm_buf_addf(b, ", ga_i64 r%d", k);
}

/* o<k> = the offsets of output q's first element, for every operand (or
 * only the output's, out_only), from the layout L. */
static void offsets(cm_buf_t *b, const plan_t *p, int nd, int out_only)
{
    int nargs = p->g.nargs;
    cm_buf_adds(b, "        ga_i64 rem = q < nout ? q : 0");
    for (int k = 0; k <= nargs; k++)
        if (k == nargs || (!out_only && !p->g.weak[k]))
            cm_buf_addf(b, ", o%d = 0", k);
    cm_buf_addf(b, ";\n#pragma unroll\n        for (int d = %d; d >= 0; d--) {\n"
                   "            ga_i64 c = rem %% L.shape[d];\n            rem /= L.shape[d];\n", nd - 1);
    for (int k = 0; k <= nargs; k++)
        if (k == nargs || (!out_only && !p->g.weak[k]))
            cm_buf_addf(b, "            o%d += c * L.st[%d][d];\n", k, k);
    cm_buf_adds(b, "        }\n");
}

static void gpu_source(cm_buf_t *b, const plan_t *p)
{
    int nargs = p->g.nargs;
    const char *so = ga_expr_stype(p->out);
    if (p->variant == V_PARTS || p->variant == V_PARTS_VEC) {
        gpu_block_reduce(b, p, GPU_BLOCK);
        /* each block's slice into part[blockIdx.x]; the block that finishes
         * last combines the partials in order (one launch, deterministic) */
        cm_buf_adds(b, "__device__ unsigned int ga_done = 0;\n"
                       "/* a partial another block wrote: read past this SM's L1 */\n"
                       "__device__ __forceinline__ ga_acc ga_fresh(const ga_acc *p)\n{\n"
                       "    ga_acc r;\n    const volatile unsigned char *s = (const volatile unsigned char *)p;\n"
                       "    unsigned char *d = (unsigned char *)&r;\n"
                       "    for (int k = 0; k < (int)sizeof(ga_acc); k++)\n        d[k] = s[k];\n"
                       "    return r;\n}\n");
        cm_buf_adds(b, "template <class T, int V> struct alignas(sizeof(T) * V) ga_vec { T v[V]; };\n");
        cm_buf_adds(b, "extern \"C\" __global__ void ga_parts(ga_i64 m");
        ga_gen_gpu_params(b, &p->g, 1);
        gpu_strides_params(b, p);
        cm_buf_addf(b, ", ga_acc *part, %s *out)\n{\n    __shared__ ga_acc sh[%d];\n"
                       "    __shared__ bool last;\n", so, GPU_BLOCK);
        cm_buf_adds(b, "    ga_i64 step = (ga_i64)gridDim.x * blockDim.x;\n"
                       "    ga_i64 t = blockIdx.x * (ga_i64)blockDim.x + threadIdx.x;\n"
                       "    ga_acc a0 = ga_init(), a1 = ga_init();\n");
        if (p->variant == V_PARTS_VEC) {
            cm_buf_addf(b, "    const int V = %d;\n    ga_i64 nv = m / V, k = t;\n", p->vec);
            const char *chains[2] = {"a0", "a1"};
            cm_buf_adds(b, "    for (; k + step < nv; k += 2 * step) {\n");
            for (int c = 0; c < 2; c++)
                for (int k = 0; k < nargs; k++)
                    if (!p->g.weak[k])
                        cm_buf_addf(b, "        ga_vec<%s, V> x%d_%d = ((const ga_vec<%s, V> *)p%d)[k + %s];\n",
                                    ga_expr_stype(p->g.dtypes[k]), c, k, ga_expr_stype(p->g.dtypes[k]), k,
                                    c ? "step" : "0");
            cm_buf_adds(b, "#pragma unroll\n        for (int j = 0; j < V; j++) {\n");
            for (int c = 0; c < 2; c++) {
                char fmt[32];
                snprintf(fmt, sizeof fmt, "x%d_%%1$d.v[j]", c);
                cm_buf_addf(b, "            %s = ga_comb(%s, ga_lift(", chains[c], chains[c]);
                ga_gen_value(b, &p->g, fmt, "");
                cm_buf_addf(b, ", (k + %s) * V + j));\n", c ? "step" : "0");
            }
            cm_buf_adds(b, "        }\n    }\n    for (; k < nv; k += step) {\n");
            for (int k = 0; k < nargs; k++)
                if (!p->g.weak[k])
                    cm_buf_addf(b, "        ga_vec<%s, V> x0_%d = ((const ga_vec<%s, V> *)p%d)[k];\n",
                                ga_expr_stype(p->g.dtypes[k]), k, ga_expr_stype(p->g.dtypes[k]), k);
            cm_buf_adds(b, "#pragma unroll\n        for (int j = 0; j < V; j++)\n            a0 = ga_comb(a0, ga_lift(");
            ga_gen_value(b, &p->g, "x0_%1$d.v[j]", "");
            cm_buf_adds(b, ", k * V + j));\n    }\n    for (ga_i64 i = nv * V + t; i < m; i += step)\n"
                           "        a1 = ga_comb(a1, ga_lift(");
            ga_gen_value(b, &p->g, "p%1$d[%2$s]", "i");
            cm_buf_adds(b, ", i));\n");
        } else {
            cm_buf_adds(b, "    ga_i64 i = t;\n    for (; i + step < m; i += 2 * step) {\n"
                           "        a0 = ga_comb(a0, ga_lift(");
            ga_gen_value(b, &p->g, "p%1$d[i * r%1$d]", "");
            cm_buf_adds(b, ", i));\n        a1 = ga_comb(a1, ga_lift(");
            ga_gen_value(b, &p->g, "p%1$d[(i + step) * r%1$d]", "");
            cm_buf_adds(b, ", i + step));\n    }\n    if (i < m)\n        a0 = ga_comb(a0, ga_lift(");
            ga_gen_value(b, &p->g, "p%1$d[i * r%1$d]", "");
            cm_buf_adds(b, ", i));\n");
        }
        cm_buf_adds(b, "    ga_acc r = ga_block(ga_comb(a0, a1), sh);\n"
                       "    if (threadIdx.x == 0) {\n        part[blockIdx.x] = r;\n        __threadfence();\n"
                       "        last = atomicAdd(&ga_done, 1u) == gridDim.x - 1;\n    }\n"
                       "    __syncthreads();\n    if (!last)\n        return;\n"
                       "    ga_acc a = ga_init();\n"
                       "    for (int i = threadIdx.x; i < gridDim.x; i += blockDim.x)\n"
                       "        a = ga_comb(a, ga_fresh(part + i));\n"
                       "    a = ga_block(a, sh);\n    if (threadIdx.x == 0) {\n        ga_done = 0;\n        ");
        gpu_value_store(b, p, "out[0]", "ga_final(a, m)");
        cm_buf_adds(b, "    }\n}\n");
        return;
    }
    /* along an axis: outputs over (nd, shape) with strides L.st[k] */
    int nd = p->nd > 0 ? p->nd : 1, nops = nargs + 1;
    char target[32];
    snprintf(target, sizeof target, "out[o%d]", nargs);
    cm_buf_addf(b, "struct ga_lay { ga_i64 shape[%d]; ga_i64 st[%d][%d]; };\n", nd, nops, nd);
    gpu_block_reduce(b, p, 256);
    cm_buf_adds(b, "template <class T, int V> struct alignas(sizeof(T) * V) ga_vec { T v[V]; };\n");
    cm_buf_adds(b, "extern \"C\" __global__ void ga_axis(ga_i64 m, ga_i64 nout, ga_lay L");
    ga_gen_gpu_params(b, &p->g, 0);
    gpu_strides_params(b, p);
    cm_buf_addf(b, ", ga_i64 chunk, ga_acc *part, %s *out)\n{\n    __shared__ ga_acc sh[256];\n", so);
    /* V_ROWS: a block a row, or a warp a row (its lanes step by 32) */
    const char *lane = p->warp ? "lane" : "threadIdx.x", *step = p->warp ? "32" : "blockDim.x";
    if (p->variant == V_ROWS && p->warp)
        cm_buf_adds(b, "    int lane = threadIdx.x & 31;\n"
                       "    for (ga_i64 q = (blockIdx.x * (ga_i64)blockDim.x + threadIdx.x) >> 5; q < nout;\n"
                       "         q += ((ga_i64)gridDim.x * blockDim.x) >> 5) {\n");
    else if (p->variant == V_ROWS)
        cm_buf_adds(b, "    for (ga_i64 q = blockIdx.x; q < nout; q += gridDim.x) {\n");
    else
        cm_buf_adds(b, "    for (ga_i64 q0 = (ga_i64)blockIdx.x * blockDim.x; q0 < nout; "
                       "q0 += (ga_i64)gridDim.x * blockDim.x) {\n"
                       "        ga_i64 q = q0 + threadIdx.x;\n");
    offsets(b, p, nd, 0);
    cm_buf_adds(b, "        ga_acc a0 = ga_init(), a1 = ga_init();\n");
    if (p->variant == V_ROWS && p->vec) {
        /* the row through aligned vector loads, four in flight a thread, two
         * chains (10^4 rows of 10^4 on an H100: 0.1306 ms against 0.1314 with
         * one load at a time) */
        cm_buf_addf(b, "        const int V = %d;\n        ga_i64 nv = m / V, k = %s;\n", p->vec, lane);
        for (int u = 0; u < 5; u++) {
            int unrolled = u < 4;
            if (u == 0)
                cm_buf_addf(b, "        for (; k + 3 * %s < nv; k += 4 * %s) {\n", step, step);
            if (u == 4)
                cm_buf_addf(b, "        }\n        for (; k < nv; k += %s) {\n", step);
            for (int k = 0; k < nargs && (u == 0 || u == 4); k++)
                for (int w = 0; w < (unrolled ? 4 : 1); w++)
                    if (!p->g.weak[k])
                        cm_buf_addf(b, "            ga_vec<%s, V> x_%d_%d = ((const ga_vec<%s, V> *)"
                                       "(p%d + o%d))[k + %d * %s];\n",
                                    ga_expr_stype(p->g.dtypes[k]), k, w,
                                    ga_expr_stype(p->g.dtypes[k]), k, k, w, step);
            char value[32];
            snprintf(value, sizeof value, "x_%%1$d_%d.v[j]", unrolled ? u : 0);
            cm_buf_addf(b, "#pragma unroll\n            for (int j = 0; j < V; j++)\n"
                           "                if (j & 1) a1 = ga_comb(a1, ga_lift(");
            ga_gen_value(b, &p->g, value, "");
            cm_buf_addf(b, ", (k + %d * %s) * V + j));\n                else a0 = ga_comb(a0, ga_lift(",
                        unrolled ? u : 0, step);
            ga_gen_value(b, &p->g, value, "");
            cm_buf_addf(b, ", (k + %d * %s) * V + j));\n", unrolled ? u : 0, step);
        }
        cm_buf_addf(b, "        }\n"
                       "        for (ga_i64 j = nv * V + %s; j < m; j += %s)\n"
                       "            a0 = ga_comb(a0, ga_lift(", lane, step);
        ga_gen_value(b, &p->g, "p%1$d[o%1$d + j]", "");
        cm_buf_adds(b, ", j));\n");
    } else if (p->variant == V_ROWS) {
        cm_buf_addf(b, "        for (ga_i64 j = %s; j < m; j += %s)\n"
                       "            a0 = ga_comb(a0, ga_lift(", lane, step);
        ga_gen_value(b, &p->g, "p%1$d[o%1$d + j * r%1$d]", "");
        cm_buf_adds(b, ", j));\n");
    } else {
        /* this block's chunk of the axis (blockIdx.y), its rows split over threadIdx.y */
        cm_buf_adds(b, "        ga_i64 j = blockIdx.y * chunk + threadIdx.y, end = (blockIdx.y + 1) * chunk;\n"
                       "        end = end < m ? end : m;\n"
                       "        if (q < nout) {\n"
                       "            for (; j + blockDim.y < end; j += 2 * blockDim.y) {\n"
                       "                a0 = ga_comb(a0, ga_lift(");
        ga_gen_value(b, &p->g, "p%1$d[o%1$d + j * r%1$d]", "");
        cm_buf_adds(b, ", j));\n                a1 = ga_comb(a1, ga_lift(");
        ga_gen_value(b, &p->g, "p%1$d[o%1$d + (j + blockDim.y) * r%1$d]", "");
        cm_buf_adds(b, ", j + blockDim.y));\n            }\n            if (j < end)\n"
                       "                a0 = ga_comb(a0, ga_lift(");
        ga_gen_value(b, &p->g, "p%1$d[o%1$d + j * r%1$d]", "");
        cm_buf_adds(b, ", j));\n        }\n");
    }
    cm_buf_adds(b, "        ga_acc a = ga_comb(a0, a1);\n");
    if (p->variant == V_ROWS && p->warp) {
        cm_buf_adds(b, "        a = ga_warp(a);\n        if (lane == 0)\n            ");
        gpu_value_store(b, p, target, "ga_final(a, m)");
    } else if (p->variant == V_ROWS) {
        cm_buf_adds(b, "        a = ga_block(a, sh);\n        if (threadIdx.x == 0)\n            ");
        gpu_value_store(b, p, target, "ga_final(a, m)");
    } else {
        /* the block's rows (threadIdx.y) of each column combined in order */
        cm_buf_adds(b, "        sh[threadIdx.y * blockDim.x + threadIdx.x] = a;\n        __syncthreads();\n"
                       "        if (threadIdx.y == 0 && q < nout) {\n"
                       "            for (int y = 1; y < blockDim.y; y++)\n"
                       "                a = ga_comb(a, sh[y * blockDim.x + threadIdx.x]);\n"
                       "            if (part)\n                part[blockIdx.y * nout + q] = a;\n"
                       "            else\n                ");
        gpu_value_store(b, p, target, "ga_final(a, m)");
        cm_buf_adds(b, "        }\n        __syncthreads();\n");
    }
    cm_buf_adds(b, "    }\n}\n");
    if (p->variant == V_COLS) {
        /* the chunks' partials of each output, in order */
        cm_buf_addf(b, "extern \"C\" __global__ void ga_axis_finish(ga_i64 m, ga_i64 nout, ga_lay L, "
                       "int chunks, const ga_acc *part, %s *out)\n{\n"
                       "    for (ga_i64 q = blockIdx.x * (ga_i64)blockDim.x + threadIdx.x; q < nout;"
                       " q += (ga_i64)gridDim.x * blockDim.x) {\n", so);
        offsets(b, p, nd, 1);
        cm_buf_adds(b, "        ga_acc a = ga_init();\n        for (int c = 0; c < chunks; c++)\n"
                       "            a = ga_comb(a, part[c * nout + q]);\n        ");
        gpu_value_store(b, p, target, "ga_final(a, m)");
        cm_buf_adds(b, "    }\n}\n");
    }
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "/* %s */\n", p->g.e->text);
    ga_gen_function(&b, &p->g);
    acc_functions(&b, p);
    if (p->gpu)
        gpu_source(&b, p);
    else
        cpu_source(&b, p);
    return cm_buf_steal(&b);
}

static void signature(cm_buf_t *b, const plan_t *p)
{
    cm_buf_adds(b, "reduce|");
    ga_gen_signature(b, &p->g);
    cm_buf_addf(b, "%d|%d|%d|%d|%d|%d", (int)p->op, (int)p->out, p->variant, p->nd, p->vec, p->warp);
}

/* ---- running ----------------------------------------------------------------- */

typedef struct job {
    plan_t p;
    int64_t m;                     /* elements per output */
    int64_t nout;
    int nd;                        /* output dimensions (merged) */
    int64_t shape[GA_MAX_DIMS];
    int64_t st[GA_LAYOUT_MAX_OPS][GA_MAX_DIMS];
    int64_t rst[GA_LAYOUT_MAX_OPS];
    char *ptrs[GA_LAYOUT_MAX_OPS];
    double fs[GA_EXPR_MAX_VARS];
    long long is[GA_EXPR_MAX_VARS];
} job_t;

/* %%profile's row (a host loop) or label (a GPU's launches) of a job: the
 * expression's counts, and a sum's or a mean's adds as FLOPs of the
 * result's precision. 0 when no profile is on. */
static int profile_begin(const job_t *j, int device)
{
    if (!bk_profiling())
        return 0;
    int adds = j->p.g.e->reduce == GA_R_SUM || j->p.g.e->reduce == GA_R_MEAN;
    double n = (double)j->m * (double)j->nout;
    return ga_gen_profile_begin(&j->p.g, (long long)n, (double)j->nout * (double)ga_dtype_size(j->p.out),
                                adds ? n : 0, j->p.result, device);
}

static int run_cpu(job_t *j, int device, cm_error_t *err)
{
    cm_buf_t sig = {0};
    signature(&sig, &j->p);
    void *fn = ga_kernel_get(device, cm_buf_str(&sig), "ga_reduce", make_source, &j->p, err);
    cm_buf_free(&sig);
    if (!fn)
        return -1;
    int nops = j->p.g.nargs + 1, nd = j->nd;
    int64_t st[GA_LAYOUT_MAX_OPS * GA_MAX_DIMS];
    for (int k = 0; k < nops; k++)
        for (int d = 0; d < nd; d++)
            st[k * nd + d] = j->st[k][d];
    ((void (*)(long long, long long, int, const int64_t *, const int64_t *, const int64_t *,
               char *const *, const double *, const long long *))fn)(j->m, j->nout, nd, j->shape, st,
                                                                     j->rst, j->ptrs, j->fs, j->is);
    return 0;
}

static void push_operands(job_t *j, void **argv, int *a)
{
    for (int k = 0; k < j->p.g.nargs; k++)
        argv[(*a)++] = j->p.g.weak[k] ? (j->p.g.dtypes[k] == GA_F64 ? (void *)&j->fs[k] : (void *)&j->is[k])
                                      : (void *)&j->ptrs[k];
}

static int run_gpu(job_t *j, int device, cm_error_t *err)
{
    plan_t *p = &j->p;
    int nargs = p->g.nargs;
    char what[GA_EXPR_MAX_TEXT + 16];
    snprintf(what, sizeof what, "ga_map \"%s\"", p->g.e->text);
    void *argv[GA_LAYOUT_MAX_OPS * 2 + 8];
    int a = 0;
    if (j->nout == 1 && j->nd == 0) { /* the whole array: partials, then one block */
        int aligned = 1;
        size_t widest = 1;
        for (int k = 0; k < nargs; k++)
            if (!p->g.weak[k]) {
                aligned &= j->rst[k] == 1 && (uintptr_t)j->ptrs[k] % 16 == 0;
                widest = ga_dtype_size(p->g.dtypes[k]) > widest ? ga_dtype_size(p->g.dtypes[k]) : widest;
            }
        p->vec = aligned ? (int)(16 / widest) : 0;
        p->variant = aligned && j->m >= 64 ? V_PARTS_VEC : V_PARTS;
        if (p->variant == V_PARTS)
            p->vec = 0;
        cm_buf_t sig = {0};
        signature(&sig, p);
        void *parts_fn = ga_kernel_get(device, cm_buf_str(&sig), "ga_parts", make_source, p, err);
        cm_buf_free(&sig);
        if (!parts_fn)
            return -1;
        int sms = bk_units(device);
        int64_t per = (int64_t)GPU_BLOCK * 2 * (p->vec ? p->vec : 1);
        int64_t nparts = (j->m + per - 1) / per;
        int64_t most = (int64_t)(sms > 0 ? sms : 1) * 4;
        nparts = nparts < 1 ? 1 : nparts > most ? most : nparts;
        nparts = nparts > GPU_MAX_PARTS ? GPU_MAX_PARTS : nparts;
        ga_buffer_t *tmp = bk_buffer_new(device, (size_t)nparts * ACC_BYTES, err);
        if (!tmp)
            return -1;
        tmp->refs = 1;
        long long m = j->m;
        argv[a++] = &m;
        push_operands(j, argv, &a);
        for (int k = 0; k < nargs; k++)
            if (!p->g.weak[k])
                argv[a++] = &j->rst[k];
        argv[a++] = &tmp->ptr;
        argv[a++] = &j->ptrs[nargs];
        unsigned grid[3] = {(unsigned)nparts, 1, 1}, block[3] = {GPU_BLOCK, 1, 1};
        int rc = ga_kernel_launch_grid(device, parts_fn, grid, block, 0, argv, what, err);
        bk_buffer_release(tmp); /* stream-ordered: the pool hands it out after this work */
        return rc;
    }
    /* along an axis */
    int rows = 1;
    size_t widest = 1;
    for (int k = 0; k < nargs; k++)
        if (!p->g.weak[k]) {
            rows &= j->rst[k] == 1;
            widest = ga_dtype_size(p->g.dtypes[k]) > widest ? ga_dtype_size(p->g.dtypes[k]) : widest;
        }
    p->variant = rows ? V_ROWS : V_COLS;
    p->nd = j->nd > 0 ? j->nd : 1;
    p->vec = 0;
    int sm_count = bk_units(device);
    /* many short rows: a warp each (no block barriers); long rows, few rows,
     * or an index to carry (argmin, argmax): a block each */
    p->warp = rows && p->op != GA_R_ARGMIN && p->op != GA_R_ARGMAX &&
              j->nout >= (int64_t)(sm_count > 0 ? sm_count : 1) * 16 && j->m < 4096;
    if (rows && j->m >= 64) { /* vector loads when every row starts 16-byte aligned */
        int aligned = 1;
        for (int k = 0; k < nargs && aligned; k++) {
            if (p->g.weak[k])
                continue;
            size_t es = ga_dtype_size(p->g.dtypes[k]);
            aligned = (uintptr_t)j->ptrs[k] % 16 == 0;
            for (int d = 0; d < j->nd && aligned; d++)
                aligned = (size_t)j->st[k][d] * es % 16 == 0;
        }
        p->vec = aligned ? (int)(16 / widest) : 0;
    }
    cm_buf_t sig = {0};
    signature(&sig, p);
    void *fn = ga_kernel_get(device, cm_buf_str(&sig), "ga_axis", make_source, p, err);
    void *finish = fn && !rows ? ga_kernel_get(device, cm_buf_str(&sig), "ga_axis_finish",
                                               make_source, p, err) : NULL;
    cm_buf_free(&sig);
    if (!fn || (!rows && !finish))
        return -1;
    int nd = p->nd, nops = nargs + 1;
    int64_t lay[GA_MAX_DIMS * (GA_LAYOUT_MAX_OPS + 1)];
    for (int d = 0; d < nd; d++)
        lay[d] = j->nd ? j->shape[d] : 1;
    for (int k = 0; k < nops; k++)
        for (int d = 0; d < nd; d++)
            lay[nd + k * nd + d] = j->nd ? j->st[k][d] : 0;
    int sms = bk_units(device);
    sms = sms > 0 ? sms : 1;
    long long m = j->m, nout = j->nout, chunk = m;
    unsigned grid[3] = {1, 1, 1}, block[3] = {256, 1, 1};
    ga_buffer_t *tmp = NULL;
    if (rows) {
        /* every row its own block or warp: a grid-stride loop over rows leaves
         * a tail of a wave on a few multiprocessors (10^4 rows of 10^4 on an
         * H100: 0.1354 ms capped at 32 blocks a multiprocessor, 0.1306 ms not) */
        int64_t blocks = p->warp ? (nout + 7) / 8 : nout, most = INT32_MAX;
        grid[0] = (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
    } else {
        /* columns: 32 outputs a block; the axis split into chunks over grid.y
         * until about 8 blocks per multiprocessor are busy */
        block[0] = 32, block[1] = 8;
        int64_t bx = (nout + 31) / 32, most = (int64_t)sms * 32;
        bx = bx > most ? most : bx;
        int64_t chunks = ((int64_t)sms * 8 + bx - 1) / bx;
        int64_t by_rows = m / 64;
        chunks = chunks > by_rows ? by_rows : chunks;
        chunks = chunks < 1 ? 1 : chunks > 1024 ? 1024 : chunks;
        chunk = (m + chunks - 1) / chunks;
        chunks = chunk ? (m + chunk - 1) / chunk : 1;
        grid[0] = (unsigned)(bx < 1 ? 1 : bx);
        grid[1] = (unsigned)(chunks < 1 ? 1 : chunks);
        if (grid[1] > 1) {
            tmp = bk_buffer_new(device, (size_t)grid[1] * (size_t)nout * ACC_BYTES, err);
            if (!tmp)
                return -1;
            tmp->refs = 1;
        }
    }
    void *part = tmp ? tmp->ptr : NULL;
    argv[a++] = &m;
    argv[a++] = &nout;
    argv[a++] = lay;
    push_operands(j, argv, &a);
    for (int k = 0; k < nargs; k++)
        if (!p->g.weak[k])
            argv[a++] = &j->rst[k];
    argv[a++] = &chunk;
    argv[a++] = &part;
    argv[a++] = &j->ptrs[nargs];
    int rc = ga_kernel_launch_grid(device, fn, grid, block, 0, argv, what, err);
    if (rc == 0 && tmp) {
        int chunks = (int)grid[1];
        void *fargv[6] = {&m, &nout, lay, &chunks, &part, &j->ptrs[nargs]};
        unsigned fblock[3] = {256, 1, 1};
        int64_t fb = (nout + 255) / 256, most = (int64_t)sms * 32;
        unsigned fgrid[3] = {(unsigned)(fb > most ? most : fb < 1 ? 1 : fb), 1, 1};
        rc = ga_kernel_launch_grid(device, finish, fgrid, fblock, 0, fargv, what, err);
    }
    if (tmp)
        bk_buffer_release(tmp);
    return rc;
}

/* ---- the entry ------------------------------------------------------------------ */

static ga_array_t *check_out(ga_array_t *out, int ndim, const int64_t *shape, ga_dtype_t r,
                             int device, cm_error_t *err)
{
    if (!out)
        return ga_array_new(device, r, ndim, shape, err);
    if (ga_array_check(out, err))
        return NULL;
    int same = out->ndim == ndim && out->device == device;
    for (int k = 0; same && k < ndim; k++)
        same = out->shape[k] == shape[k];
    if (!same) {
        char want[128], have[128];
        ga_shape_text(ndim, shape, want, sizeof want);
        ga_shape_text(out->ndim, out->shape, have, sizeof have);
        CM_ERROR(err, GA_E_SHAPE, "the output has shape %s, the reduction %s (or another device)",
                 have, want);
        return NULL;
    }
    return out;
}

/* var and std: the mean along the axis, then the mean squared deviation */
static ga_array_t *variance(const ga_expr_t *e, ga_array_t *out, int nargs, const ga_arg_t *args,
                            ga_array_t *const *arrays, const ga_dtype_t *dtypes, const int *weak,
                            int device, cm_error_t *err)
{
    ga_array_t *x = NULL, *mean = NULL, *keep = NULL, *ss = NULL, *result = NULL;
    /* the mapped values as an array (the operand itself when the expression is one) */
    int k = ga_expr_operand(e), own_x = k < 0 || !arrays[k];
    x = own_x ? ga_map_run(e, NULL, nargs, args, arrays, dtypes, weak, device, err) : arrays[k];
    if (!x)
        return NULL;
    char text[96];
    ga_arg_t xa = {.kind = GA_ARG_ARRAY, .a = x};
    int axis = e->axis;
    if (axis != GA_AXIS_ALL)
        snprintf(text, sizeof text, "mean(x, %d)", axis);
    else
        snprintf(text, sizeof text, "mean(x)");
    mean = ga_map_eval_reducing(text, NULL, 1, &xa, ga_reduce_eval, err);
    if (!mean)
        goto done;
    int64_t shape[GA_MAX_DIMS];
    for (int k = 0; k < x->ndim; k++)
        shape[k] = axis == GA_AXIS_ALL || k == axis ? 1 : x->shape[k];
    keep = ga_array_reshape(mean, x->ndim, shape, err);
    if (!keep)
        goto done;
    ga_arg_t two[2] = {{.kind = GA_ARG_ARRAY, .a = x}, {.kind = GA_ARG_ARRAY, .a = keep}};
    if (axis != GA_AXIS_ALL)
        snprintf(text, sizeof text, "sum((x - m) * (x - m), %d)", axis);
    else
        snprintf(text, sizeof text, "sum((x - m) * (x - m))");
    ss = ga_map_eval_reducing(text, NULL, 2, two, ga_reduce_eval, err);
    if (!ss)
        goto done;
    int64_t n = axis == GA_AXIS_ALL ? x->size : x->shape[axis];
    ga_arg_t fin[2] = {{.kind = GA_ARG_ARRAY, .a = ss}, {.kind = GA_ARG_INT, .i = n}};
    result = ga_map_eval(e->reduce == GA_R_STD ? "s, n: sqrt(s / n)" : "s, n: s / n", out, 2,
                         fin, err);
done:
    if (own_x)
        ga_array_free(x);
    ga_array_free(keep);
    ga_array_free(mean);
    ga_array_free(ss);
    return result;
}

ga_array_t *ga_reduce_eval(const ga_expr_t *e, ga_array_t *out, int nargs, const ga_arg_t *args,
                           ga_array_t *const *arrays, const ga_dtype_t *dtypes, const int *weak,
                           int device, cm_error_t *err)
{
    int ndim;
    int64_t shape[GA_MAX_DIMS];
    if (ga_layout_broadcast((ga_array_t **)arrays, nargs, &ndim, shape, err))
        return NULL;
    int axis = e->axis;
    if (axis != GA_AXIS_ALL) {
        if (axis < -ndim || axis >= ndim) {
            CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for %d dimensions", axis, ndim);
            return NULL;
        }
        axis = axis < 0 ? axis + ndim : axis;
    }
    ga_expr_t *local = NULL;
    if (axis != e->axis) { /* the normalised axis, for var's passes */
        local = malloc(sizeof *local);
        if (!local) {
            CM_ERROR(err, GA_E_MEMORY, "out of host memory");
            return NULL;
        }
        memcpy(local, e, sizeof *local);
        local->axis = axis;
        e = local;
    }
    ga_array_t *result = NULL, *tmp = NULL, *owned[GA_LAYOUT_MAX_OPS] = {0};
    int64_t count = axis == GA_AXIS_ALL ? 1 : shape[axis];
    if (axis == GA_AXIS_ALL)
        for (int k = 0; k < ndim; k++)
            count *= shape[k];
    ga_reduce_op_t op = e->reduce;
    if (count == 0 && (op == GA_R_MIN || op == GA_R_MAX || op == GA_R_ARGMIN || op == GA_R_ARGMAX)) {
        CM_ERROR(err, GA_E_SHAPE, "%s of an empty array (or axis): there is no identity",
                 ga_expr_reduce_name(op));
        goto done;
    }
    if (op == GA_R_VAR || op == GA_R_STD) {
        result = variance(e, out, nargs, args, arrays, dtypes, weak, device, err);
        goto done;
    }

    job_t *j = calloc(1, sizeof *j);
    if (!j) {
        CM_ERROR(err, GA_E_MEMORY, "out of host memory");
        goto done;
    }
    j->p.g.e = e;
    j->p.g.nargs = nargs;
    memcpy(j->p.g.dtypes, dtypes, (size_t)nargs * sizeof *dtypes);
    memcpy(j->p.g.weak, weak, (size_t)nargs * sizeof *weak);
    j->p.op = op;
    j->p.mapped = ga_expr_dtype(e);
    j->p.result = ga_expr_reduce_dtype(op, j->p.mapped);
    j->p.gpu = bk_lang(device) == BK_LANG_CUDA;

    /* the output's shape: the broadcast shape without the axis */
    int ondim = 0;
    int64_t oshape[GA_MAX_DIMS];
    for (int k = 0; axis != GA_AXIS_ALL && k < ndim; k++)
        if (k != axis)
            oshape[ondim++] = shape[k];
    result = check_out(out, ondim, oshape, j->p.result, device, err);
    if (!result)
        goto free_job;
    j->p.out = result->dtype;

    ga_array_t *ops[GA_LAYOUT_MAX_OPS];
    memcpy(ops, arrays, (size_t)nargs * sizeof *ops);
    memset(owned, 0, sizeof owned);
    if (axis == GA_AXIS_ALL) {
        /* the whole array: one dimension, or the mapped values made contiguous first */
        ga_layout_t l;
        ops[nargs] = NULL;
        ga_layout_make(&l, ops, nargs + 1, ndim, shape);
        if (l.nd > 1 && op == GA_R_USER) {
            /* the user's map runs in the reduction: each array operand made
             * contiguous on the broadcast shape first */
            for (int k = 0; k < nargs; k++) {
                if (!ops[k])
                    continue;
                ga_arg_t one = {.kind = GA_ARG_ARRAY, .a = ops[k]};
                ga_array_t *c = ga_array_new(device, ops[k]->dtype, ndim, shape, err);
                if (!c || !ga_map_eval("a", c, 1, &one, err)) {
                    ga_array_free(c);
                    goto fail;
                }
                ops[k] = owned[k] = c;
            }
            ga_layout_make(&l, ops, nargs + 1, ndim, shape);
        } else if (l.nd > 1) {
            tmp = ga_map_run(e, NULL, nargs, args, arrays, dtypes, weak, device, err);
            if (!tmp)
                goto fail;
            static ga_expr_t plain; /* "op(x)" over the contiguous values */
            cm_error_t perr = {0};
            char text[64];
            snprintf(text, sizeof text, "%s(x)", ga_expr_reduce_name(op));
            ga_dtype_t td = tmp->dtype;
            int tw = 0;
            if (ga_expr_parse(text, &plain, &perr) || ga_expr_type(&plain, &td, &tw, &perr)) {
                CM_ERROR(err, perr.code, "%s", perr.text);
                goto fail;
            }
            j->p.g.e = &plain;
            j->p.g.nargs = 1;
            j->p.g.dtypes[0] = td;
            j->p.g.weak[0] = 0;
            ops[0] = tmp;
            nargs = 1;
            ga_layout_make(&l, ops, 2, tmp->ndim, tmp->shape);
        }
        j->m = l.n;
        j->nout = 1;
        j->nd = 0;
        for (int k = 0; k < nargs; k++)
            j->rst[k] = l.nd ? l.strides[k][0] : 0;
    } else {
        /* outputs over the other dimensions, merged; the axis apart */
        ga_layout_t l;
        int64_t oshape_full[GA_MAX_DIMS];
        int on = 0;
        for (int k = 0; k < ndim; k++)
            if (k != axis)
                oshape_full[on++] = shape[k];
        memset(&l, 0, sizeof l);
        /* strides of each operand on the broadcast shape */
        int64_t full[GA_LAYOUT_MAX_OPS][GA_MAX_DIMS];
        for (int k = 0; k < nargs; k++) {
            const ga_array_t *a = ops[k];
            for (int d = 0; d < ndim; d++) {
                int ad = d - (ndim - (a ? a->ndim : 0));
                full[k][d] = !a || ad < 0 || a->shape[ad] == 1 ? 0 : a->strides[ad];
            }
            j->rst[k] = full[k][axis];
        }
        /* the output walks its own dimensions */
        int64_t ost[GA_MAX_DIMS];
        for (int d = 0, od = 0; d < ndim; d++)
            if (d != axis)
                ost[d] = result->strides[od++];
            else
                ost[d] = 0;
        j->rst[nargs] = 0;
        /* merge the output dimensions where every operand allows it */
        int nd = 0;
        for (int d = 0; d < ndim; d++) {
            if (d == axis || shape[d] == 1)
                continue;
            int merge = nd > 0;
            for (int k = 0; k <= nargs && merge; k++) {
                int64_t s = k == nargs ? ost[d] : full[k][d];
                merge = j->st[k][nd - 1] == s * shape[d];
            }
            if (merge) {
                j->shape[nd - 1] *= shape[d];
                for (int k = 0; k <= nargs; k++)
                    j->st[k][nd - 1] = k == nargs ? ost[d] : full[k][d];
                continue;
            }
            j->shape[nd] = shape[d];
            for (int k = 0; k <= nargs; k++)
                j->st[k][nd] = k == nargs ? ost[d] : full[k][d];
            nd++;
        }
        j->nd = nd;
        j->m = shape[axis];
        j->nout = 1;
        for (int k = 0; k < on; k++)
            j->nout *= oshape_full[k];
    }
    for (int k = 0; k < nargs; k++) {
        j->ptrs[k] = ops[k] ? ga_array_data(ops[k]) : NULL;
        j->fs[k] = args && args[k].kind == GA_ARG_FLOAT ? args[k].f : args ? (double)args[k].i : 0;
        j->is[k] = args && args[k].kind == GA_ARG_INT ? args[k].i : args ? (long long)args[k].f : 0;
    }
    j->ptrs[nargs] = ga_array_data(result);
    int token = j->nout > 0 ? profile_begin(j, device) : 0;
    int failed = j->nout > 0 && (j->p.gpu ? run_gpu(j, device, err) : run_cpu(j, device, err));
    bk_profile_end(token);
    if (failed)
        goto fail;
    goto free_job;
fail:
    if (result != out)
        ga_array_free(result);
    result = NULL;
free_job:
    free(j);
done:
    ga_array_free(tmp);
    for (int k = 0; k < GA_LAYOUT_MAX_OPS; k++)
        ga_array_free(owned[k]);
    free(local);
    return result;
}

char *ga_reduce_source(const char *text, int nargs, const ga_dtype_t *dtypes, const int *weak,
                       int gpu, int variant, int nd, cm_error_t *err)
{
    ga_expr_t *e = malloc(sizeof *e);
    char *src = NULL;
    if (!e) {
        CM_ERROR(err, GA_E_MEMORY, "out of host memory");
        return NULL;
    }
    if (ga_expr_parse(text, e, err) == 0 && nargs == e->nvars && e->reduce &&
        ga_expr_type(e, (ga_dtype_t *)dtypes, (int *)weak, err) == 0) {
        plan_t p = {.g = {.e = e, .nargs = nargs}, .op = e->reduce, .gpu = gpu,
                    .variant = variant >= 5 ? V_ROWS : variant, .nd = nd,
                    .warp = variant == 6};
        memcpy(p.g.dtypes, dtypes, (size_t)nargs * sizeof *dtypes);
        memcpy(p.g.weak, weak, (size_t)nargs * sizeof *weak);
        p.mapped = ga_expr_dtype(e);
        p.out = p.result = ga_expr_reduce_dtype(e->reduce, p.mapped);
        size_t widest = 1;
        for (int k = 0; k < nargs; k++)
            if (!weak[k] && ga_dtype_size(dtypes[k]) > widest)
                widest = ga_dtype_size(dtypes[k]);
        p.vec = variant == V_PARTS_VEC || variant >= 5 ? (int)(16 / widest) : 0;
        cm_buf_t b = {0};
        cm_buf_adds(&b, ga_kernel_prelude);
        char *body = make_source(&p);
        cm_buf_adds(&b, body);
        free(body);
        src = cm_buf_steal(&b);
    } else if (!err || !err->code) {
        CM_ERROR(err, GA_E_EXPR, "\"%s\": not a reduction over %d operands", text, nargs);
    }
    free(e);
    return src;
}
