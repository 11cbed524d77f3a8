/* ga_scan: cumsum and cumprod (see ga_scan.h). */
#include "ga_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_copy.h"
#include "ga_expr.h"
#include "ga_kernel.h"

#define TILE_THREADS 256
#define TILE_ITEMS 8
#define TILE (TILE_THREADS * TILE_ITEMS)

typedef struct plan {
    ga_scan_op_t op;
    ga_dtype_t in, out;
    int gpu;
} plan_t;

static ga_dtype_t result_dtype(ga_dtype_t d)
{
    char k = ga_dtype_kind(d);
    return k == GA_KIND_BOOL || k == GA_KIND_INT ? GA_I64 : k == GA_KIND_UINT ? GA_U64 : d;
}

/* The accumulator, the operation, loading and storing. */
static void common(cm_buf_t *b, const plan_t *p)
{
    const char *at = ga_expr_ctype(p->out);
    int wraps = ga_dtype_kind(p->out) != GA_KIND_FLOAT;
    char sym = p->op == GA_SCAN_SUM ? '+' : '*';
    cm_buf_addf(b, "typedef %s ga_acc;\ntypedef %s ga_in;\ntypedef %s ga_out;\n", at,
                ga_expr_stype(p->in), ga_expr_stype(p->out));
    cm_buf_addf(b, "#define GA_ID ((ga_acc)%d)\n", p->op == GA_SCAN_PROD);
    if (wraps)
        cm_buf_addf(b, "GA_FN ga_acc ga_op(ga_acc a, ga_acc b) { return (ga_acc)((ga_u64)a %c (ga_u64)b); }\n", sym);
    else if (p->out == GA_F16) /* rounded at each step, as NumPy accumulates float16 */
        cm_buf_addf(b, "GA_FN ga_acc ga_op(ga_acc a, ga_acc b) { return ga_h(a %c b); }\n", sym);
    else
        cm_buf_addf(b, "GA_FN ga_acc ga_op(ga_acc a, ga_acc b) { return a %c b; }\n", sym);
    cm_buf_addf(b, "GA_FN ga_acc ga_ld(ga_in x) { return (ga_acc)%s; }\n",
                p->in == GA_BOOL ? "(x != 0)" : p->in == GA_F16 ? "ga_h2f(x)" : "x");
    cm_buf_addf(b, "GA_FN ga_out ga_st(ga_acc a) { return %s; }\n",
                p->out == GA_F16 ? "ga_f2h(a)" : "(ga_out)a");
}

static void cpu_source(cm_buf_t *b)
{
    cm_buf_adds(b,
        "void ga_scan(ga_i64 m, ga_i64 lines, int nd, const ga_i64 *shape, const ga_i64 *st,\n"
        "             ga_i64 rin, ga_i64 rout, const ga_in *in, ga_out *out)\n{\n"
        "    ga_i64 idx[8] = {0}, oi = 0, oo = 0;\n"
        "    for (ga_i64 q = 0; q < lines; q++) {\n"
        "        ga_acc a = GA_ID;\n"
        "        for (ga_i64 j = 0; j < m; j++) {\n"
        "            a = ga_op(a, ga_ld(in[oi + j * rin]));\n"
        "            out[oo + j * rout] = ga_st(a);\n        }\n"
        "        for (int d = nd - 1; d >= 0; d--) {\n"
        "            oi += st[d];\n            oo += st[nd + d];\n"
        "            if (++idx[d] < shape[d])\n                break;\n"
        "            oi -= st[d] * shape[d];\n            oo -= st[nd + d] * shape[d];\n"
        "            idx[d] = 0;\n        }\n    }\n}\n");
}

static void gpu_source(cm_buf_t *b)
{
    cm_buf_addf(b, "#define TT %d\n#define TI %d\n#define TILE (TT * TI)\n", TILE_THREADS, TILE_ITEMS);
    cm_buf_adds(b,
        /* the block's inclusive scan of one value a thread; *total: the block's;
         * warps: 32 of shared memory, the kernel's (a static __shared__ in an
         * inline function is one the simulator's compiler cannot place) */
        "__device__ __forceinline__ ga_acc ga_block_scan(ga_acc v, ga_acc *total, ga_acc *warps)\n{\n"
        "    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;\n"
        "#pragma unroll\n    for (int s = 1; s < 32; s <<= 1) {\n"
        "        ga_acc y = __shfl_up_sync(0xffffffffu, v, s);\n        if (lane >= s) v = ga_op(y, v);\n    }\n"
        "    if (lane == 31) warps[w] = v;\n    __syncthreads();\n"
        "    if (w == 0) {\n        ga_acc x = lane < TT / 32 ? warps[lane] : GA_ID;\n"
        "#pragma unroll\n        for (int s = 1; s < 32; s <<= 1) {\n"
        "            ga_acc y = __shfl_up_sync(0xffffffffu, x, s);\n            if (lane >= s) x = ga_op(y, x);\n        }\n"
        "        warps[lane] = x;\n    }\n    __syncthreads();\n"
        "    if (w > 0) v = ga_op(warps[w - 1], v);\n    *total = warps[TT / 32 - 1];\n"
        "    __syncthreads();\n    return v;\n}\n"
        /* a tile of TILE elements from in[0, n) into registers, TI consecutive a thread */
        "__device__ __forceinline__ void ga_load_tile(const ga_in *in, ga_i64 n, ga_acc *x, ga_acc *sh)\n{\n"
        "    for (int k = 0; k < TI; k++) {\n        ga_i64 i = k * TT + threadIdx.x;\n"
        "        sh[i] = i < n ? ga_ld(in[i]) : GA_ID;\n    }\n    __syncthreads();\n"
        "    for (int k = 0; k < TI; k++) x[k] = sh[threadIdx.x * TI + k];\n    __syncthreads();\n}\n"
        /* pass 1: each tile's total */
        "extern \"C\" __global__ void ga_tile_totals(ga_i64 n, const ga_in *in, ga_acc *totals)\n{\n"
        "    __shared__ ga_acc warps[32];\n"
        "    __shared__ ga_acc sh[TILE];\n    ga_acc x[TI], t = GA_ID, total;\n"
        "    ga_i64 base = (ga_i64)blockIdx.x * TILE;\n"
        "    ga_load_tile(in + base, n - base, x, sh);\n"
        "    for (int k = 0; k < TI; k++) t = ga_op(t, x[k]);\n"
        "    ga_block_scan(t, &total, warps);\n    if (threadIdx.x == 0) totals[blockIdx.x] = total;\n}\n"
        /* pass 2: the totals into exclusive offsets, one block */
        "extern \"C\" __global__ void ga_scan_totals(ga_i64 ntiles, ga_acc *totals)\n{\n"
        "    __shared__ ga_acc warps[32];\n"
        "    ga_i64 per = (ntiles + TT - 1) / TT, lo = threadIdx.x * per;\n"
        "    ga_i64 hi = lo + per < ntiles ? lo + per : ntiles;\n"
        "    ga_acc t = GA_ID, total;\n    for (ga_i64 i = lo; i < hi; i++) t = ga_op(t, totals[i]);\n"
        "    ga_acc incl = ga_block_scan(t, &total, warps);\n"
        "    __shared__ ga_acc pre[TT];\n    pre[threadIdx.x] = incl;\n    __syncthreads();\n"
        "    ga_acc run = threadIdx.x ? pre[threadIdx.x - 1] : GA_ID; /* exclusive */\n"
        "    for (ga_i64 i = lo; i < hi; i++) {\n        ga_acc v = totals[i];\n"
        "        totals[i] = run;\n        run = ga_op(run, v);\n    }\n}\n"
        /* pass 3: each tile scanned, its offset first */
        "extern \"C\" __global__ void ga_tile_scan(ga_i64 n, const ga_in *in, const ga_acc *offsets, ga_out *out)\n{\n"
        "    __shared__ ga_acc warps[32];\n"
        "    __shared__ ga_acc sh[TILE];\n    ga_acc x[TI], t = GA_ID, total;\n"
        "    ga_i64 base = (ga_i64)blockIdx.x * TILE;\n"
        "    ga_load_tile(in + base, n - base, x, sh);\n"
        "    for (int k = 0; k < TI; k++) { t = ga_op(t, x[k]); x[k] = t; }\n"
        "    ga_acc incl = ga_block_scan(t, &total, warps);\n"
        "    __shared__ ga_acc pre[TT];\n    pre[threadIdx.x] = incl;\n    __syncthreads();\n"
        "    ga_acc before = ga_op(offsets[blockIdx.x], threadIdx.x ? pre[threadIdx.x - 1] : GA_ID);\n"
        "    for (int k = 0; k < TI; k++) sh[threadIdx.x * TI + k] = ga_op(before, x[k]);\n"
        "    __syncthreads();\n"
        "    for (int k = 0; k < TI; k++) {\n        ga_i64 i = k * TT + threadIdx.x;\n"
        "        if (base + i < n) out[base + i] = ga_st(sh[i]);\n    }\n}\n"
        /* contiguous rows: a block each, tile after tile with the carry of those before */
        "extern \"C\" __global__ void ga_scan_rows(ga_i64 m, ga_i64 lines, const ga_in *in, ga_out *out)\n{\n"
        "    __shared__ ga_acc warps[32];\n"
        "    __shared__ ga_acc sh[TILE];\n    __shared__ ga_acc pre[TT];\n"
        "    for (ga_i64 row = blockIdx.x; row < lines; row += gridDim.x) {\n"
        "        const ga_in *src = in + row * m;\n        ga_out *dst = out + row * m;\n"
        "        ga_acc carry = GA_ID;\n"
        "        for (ga_i64 base = 0; base < m; base += TILE) {\n"
        "            ga_acc x[TI], t = GA_ID, total;\n"
        "            ga_load_tile(src + base, m - base, x, sh);\n"
        "            for (int k = 0; k < TI; k++) { t = ga_op(t, x[k]); x[k] = t; }\n"
        "            ga_acc incl = ga_block_scan(t, &total, warps);\n"
        "            pre[threadIdx.x] = incl;\n            __syncthreads();\n"
        "            ga_acc before = ga_op(carry, threadIdx.x ? pre[threadIdx.x - 1] : GA_ID);\n"
        "            for (int k = 0; k < TI; k++) sh[threadIdx.x * TI + k] = ga_op(before, x[k]);\n"
        "            __syncthreads();\n"
        "            for (int k = 0; k < TI; k++) {\n                ga_i64 i = k * TT + threadIdx.x;\n"
        "                if (base + i < m) dst[base + i] = ga_st(sh[i]);\n            }\n"
        "            carry = ga_op(carry, total);\n            __syncthreads();\n        }\n    }\n}\n"
        /* lines: one thread each, in order (an axis other than a contiguous one) */
        "extern \"C\" __global__ void ga_scan_lines(ga_i64 m, ga_i64 lines, ga_i64 inner, ga_i64 sin_o,\n"
        "        ga_i64 sin_i, ga_i64 sout_o, ga_i64 sout_i, ga_i64 rin, ga_i64 rout,\n"
        "        const ga_in *in, ga_out *out)\n{\n"
        "    for (ga_i64 q = blockIdx.x * (ga_i64)blockDim.x + threadIdx.x; q < lines;\n"
        "         q += (ga_i64)gridDim.x * blockDim.x) {\n"
        "        ga_i64 o = q / inner, i = q % inner;\n"
        "        const ga_in *src = in + o * sin_o + i * sin_i;\n        ga_out *dst = out + o * sout_o + i * sout_i;\n"
        "        ga_acc a = GA_ID;\n"
        "        for (ga_i64 j = 0; j < m; j++) {\n            a = ga_op(a, ga_ld(src[j * rin]));\n"
        "            dst[j * rout] = ga_st(a);\n        }\n    }\n}\n");
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "/* cum%s of %s */\n", p->op == GA_SCAN_SUM ? "sum" : "prod",
                ga_dtype_name(p->in));
    common(&b, p);
    if (p->gpu)
        gpu_source(&b);
    else
        cpu_source(&b);
    return cm_buf_steal(&b);
}

char *ga_scan_source(ga_scan_op_t op, ga_dtype_t d, int gpu)
{
    plan_t p = {op, d, result_dtype(d), gpu};
    return ga_kernel_source(make_source, &p);
}

static void *kernel(const plan_t *p, int device, const char *name, cm_error_t *err)
{
    char sig[64];
    snprintf(sig, sizeof sig, "scan|%d|%d", (int)p->op, (int)p->in);
    return ga_kernel_get(device, sig, name, make_source, (void *)p, err);
}

/* A GPU: the flat line of n elements of in into out (both contiguous). */
static int gpu_flat(const plan_t *p, int device, int64_t n, void *in, void *out, const char *what,
                    cm_error_t *err)
{
    void *totals_fn = kernel(p, device, "ga_tile_totals", err);
    void *scan_fn = totals_fn ? kernel(p, device, "ga_scan_totals", err) : NULL;
    void *tile_fn = scan_fn ? kernel(p, device, "ga_tile_scan", err) : NULL;
    if (!tile_fn)
        return -1;
    long long ntiles = (n + TILE - 1) / TILE, nn = n;
    ga_buffer_t *tmp = bk_buffer_new(device, (size_t)ntiles * 8, err);
    if (!tmp)
        return -1;
    tmp->refs = 1;
    unsigned grid[3] = {(unsigned)ntiles, 1, 1}, block[3] = {TILE_THREADS, 1, 1}, one[3] = {1, 1, 1};
    void *a1[3] = {&nn, &in, &tmp->ptr};
    void *a2[2] = {&ntiles, &tmp->ptr};
    void *a3[4] = {&nn, &in, &tmp->ptr, &out};
    int rc = ga_kernel_launch_grid(device, totals_fn, grid, block, 0, a1, what, err);
    if (rc == 0)
        rc = ga_kernel_launch_grid(device, scan_fn, one, block, 0, a2, what, err);
    if (rc == 0)
        rc = ga_kernel_launch_grid(device, tile_fn, grid, block, 0, a3, what, err);
    bk_buffer_release(tmp);
    return rc;
}

ga_array_t *ga_scan(ga_scan_op_t op, ga_array_t *a, int axis, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    if (ga_dtype_kind(a->dtype) == GA_KIND_COMPLEX) {
        CM_ERROR(err, GA_E_DTYPE, "array math does not support %s", ga_dtype_name(a->dtype));
        return NULL;
    }
    ga_array_t *src = a, *copy = NULL, *result = NULL;
    if (axis == GA_AXIS_ALL) {
        /* flattened in C order: a contiguous 1-d view (a copy first when needed) */
        if (!ga_array_is_contiguous(a) && !(copy = ga_copy_array(a, a->device, err)))
            return NULL;
        int64_t n = a->size;
        src = ga_array_reshape(copy ? copy : a, 1, &n, err);
        if (!src) {
            ga_array_free(copy);
            return NULL;
        }
        axis = 0;
    } else if (axis < -a->ndim || axis >= a->ndim || a->ndim == 0) {
        CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for a %d-d array", axis, a->ndim);
        return NULL;
    } else if (axis < 0) {
        axis += a->ndim;
    }
    plan_t p = {op, src->dtype, result_dtype(src->dtype), bk_lang(src->device) == BK_LANG_CUDA};
    result = ga_array_new(src->device, p.out, src->ndim, src->shape, err);
    if (!result)
        goto done;
    int64_t m = src->shape[axis], lines = m ? src->size / m : 0;
    if (!src->size)
        goto done;
    char what[64];
    snprintf(what, sizeof what, "ga_cum%s", op == GA_SCAN_SUM ? "sum" : "prod");
    /* the other dimensions, as the CPU walks them */
    int nd = 0;
    int64_t shape[GA_MAX_DIMS], st[2 * GA_MAX_DIMS];
    for (int k = 0; k < src->ndim; k++)
        if (k != axis)
            shape[nd++] = src->shape[k];
    for (int k = 0, d = 0; k < src->ndim; k++)
        if (k != axis) {
            st[d] = src->strides[k];
            st[nd + d] = result->strides[k];
            d++;
        }
    int rc;
    if (!p.gpu) {
        void *fn = kernel(&p, src->device, "ga_scan", err);
        rc = fn ? 0 : -1;
        if (fn)
            ((void (*)(long long, long long, int, const int64_t *, const int64_t *, long long,
                       long long, const void *, void *))fn)(m, lines, nd, shape, st,
                                                            src->strides[axis], result->strides[axis],
                                                            ga_array_data(src), ga_array_data(result));
    } else if (lines == 1 && src->strides[axis] == 1) {
        rc = gpu_flat(&p, src->device, m, ga_array_data(src), ga_array_data(result), what, err);
    } else if (axis == src->ndim - 1 && m >= TILE / 4) {
        /* long rows: each in parallel (a block, or the three passes of a
         * flat line where there are too few rows to fill the device),
         * from a contiguous copy when the rows are not one */
        ga_array_t *c = ga_array_is_contiguous(src) ? NULL : ga_copy_array(src, src->device, err);
        const ga_array_t *s = c ? c : src;
        rc = !ga_array_is_contiguous(src) && !c ? -1 : 0;
        size_t es = ga_dtype_size(s->dtype), eo = ga_dtype_size(result->dtype);
        if (rc == 0 && lines < bk_units(src->device)) {
            for (int64_t q = 0; rc == 0 && q < lines; q++)
                rc = gpu_flat(&p, src->device, m, (char *)ga_array_data(s) + q * m * es,
                              (char *)ga_array_data(result) + q * m * eo, what, err);
        } else if (rc == 0) {
            void *fn = kernel(&p, src->device, "ga_scan_rows", err);
            long long mm = m, nl = lines;
            void *ip = ga_array_data(s), *op_ = ga_array_data(result);
            void *args[4] = {&mm, &nl, &ip, &op_};
            int64_t most = (int64_t)bk_units(src->device) * 8;
            unsigned grid[3] = {(unsigned)(lines < most ? lines : most), 1, 1};
            unsigned block[3] = {TILE_THREADS, 1, 1};
            rc = fn ? ga_kernel_launch_grid(src->device, fn, grid, block, 0, args, what, err) : -1;
        }
        ga_array_free(c);
    } else {
        /* one thread a line: lines as (outer, inner) around the axis; a view
         * whose other dimensions do not fold so is made contiguous first */
        ga_array_t *c = NULL;
        const ga_array_t *s = src;
        int64_t inner = 1;
        for (int k = axis + 1; k < src->ndim; k++)
            inner *= src->shape[k];
        int folds = 1; /* dimensions before and after the axis each one stride */
        for (int k = 0; k + 1 < axis; k++)
            folds &= src->strides[k] == src->strides[k + 1] * src->shape[k + 1];
        for (int k = axis + 1; k + 1 < src->ndim; k++)
            folds &= src->strides[k] == src->strides[k + 1] * src->shape[k + 1];
        if (!folds) {
            if (!(c = ga_copy_array(src, src->device, err)))
                goto fail;
            s = c;
        }
        long long mm = m, nl = lines, in_ = inner;
        long long sin_o = axis ? s->strides[axis - 1] : 0, sin_i = axis + 1 < s->ndim ? s->strides[s->ndim - 1] : 0;
        long long sout_o = axis ? result->strides[axis - 1] : 0,
                  sout_i = axis + 1 < result->ndim ? result->strides[result->ndim - 1] : 0;
        long long rin = s->strides[axis], rout = result->strides[axis];
        void *ip = ga_array_data(s), *op_ = ga_array_data(result);
        void *fn = kernel(&p, src->device, "ga_scan_lines", err);
        rc = -1;
        if (fn) {
            void *args[11] = {&mm, &nl, &in_, &sin_o, &sin_i, &sout_o, &sout_i, &rin, &rout, &ip, &op_};
            rc = ga_kernel_launch(src->device, fn, lines, args, what, err);
        }
        ga_array_free(c);
    }
    if (rc == 0)
        goto done;
fail:
    ga_array_free(result);
    result = NULL;
done:
    if (src != a)
        ga_array_free(src);
    ga_array_free(copy);
    return result;
}
