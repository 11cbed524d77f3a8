/* ga_index: take, put, argwhere, masks, compress (see ga_index.h). */
#include "ga_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_copy.h"
#include "ga_eval.h"
#include "ga_expr.h"
#include "ga_join.h"
#include "ga_kernel.h"

/* ---- kernels ------------------------------------------------------------ */

#define TILE_THREADS 256 /* a block of the compaction */
#define CHUNK 2048       /* elements a block ranks at once: 8 a thread */
#define TILE (4 * CHUNK) /* elements a block counts, then compacts chunk by chunk */
#define SCAN_THREADS 1024 /* the one block that scans the tiles' counts */
#define MOVE_R 4 /* a GPU thread's indices each turn of the check; along an axis, take and
                  * put launch a thread per MOVE_R elements */

typedef struct dims {
    int64_t d[GA_MAX_DIMS];
} dims_t; /* the kernels' ga_dims: a shape passed by value */

typedef struct plan {
    int elsize; /* 0: the compaction's counts and indices, which move no elements */
} plan_t;


/* The compaction's ranking on a GPU. A tile of TILE mask bytes is one
 * block's: counted in a first pass, then, with the tiles' offsets
 * scanned, ranked CHUNK by CHUNK (8 bytes a thread, coalesced; a warp's
 * ballot and the 64 (row, warp) counts give each set byte its rank) and
 * its positions staged in shared memory, so the writes that follow are
 * coalesced. */
static void rank_source(cm_buf_t *b)
{
    cm_buf_addf(b, "#define TT %d\n#define CH %d\n#define GA_TILE %d\n#define TI (CH / TT)\n"
                   "#define NW (TT / 32)\n", TILE_THREADS, CHUNK, TILE);
    cm_buf_adds(b,
        "#ifdef __CUDACC__\n"
        /* the block's exclusive sum of one value a thread; *total: all of
         * them; warps: 32 of the kernel's shared memory */
        "__device__ __forceinline__ ga_i64 ga_block_excl(ga_i64 v, ga_i64 *total, ga_i64 *warps)\n{\n"
        "    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;\n"
        "    ga_i64 x = v;\n"
        "    for (int s = 1; s < 32; s <<= 1) {\n"
        "        ga_i64 y = __shfl_up_sync(0xffffffffu, x, s);\n        if (lane >= s) x += y;\n    }\n"
        "    if (lane == 31) warps[w] = x;\n    __syncthreads();\n"
        "    if (w == 0) {\n        ga_i64 y = lane < nw ? warps[lane] : 0;\n"
        "        for (int s = 1; s < 32; s <<= 1) {\n"
        "            ga_i64 z = __shfl_up_sync(0xffffffffu, y, s);\n            if (lane >= s) y += z;\n        }\n"
        "        warps[lane] = y;\n    }\n    __syncthreads();\n"
        "    *total = warps[nw - 1];\n    ga_i64 r = (w ? warps[w - 1] : 0) + x - v;\n"
        "    __syncthreads();\n    return r;\n}\n"
        /* the set bytes of m[0, lim) (lim <= CH), in order, as their
         * positions sh[0, count); returns count. cnt: 65 ints of shared
         * memory. The caller syncs before the next call. */
        "__device__ __forceinline__ int ga_chunk_rank(const ga_u8 *m, int lim, int *sh, int *cnt)\n{\n"
        "    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;\n"
        "    ga_u8 v[TI];\n    unsigned bal[TI];\n"
        "    for (int k = 0; k < TI; k++) {\n        int e = k * TT + threadIdx.x;\n"
        "        v[k] = e < lim ? m[e] : 0;\n    }\n"
        "    for (int k = 0; k < TI; k++) bal[k] = __ballot_sync(0xffffffffu, v[k] != 0);\n"
        "    if (lane == 0)\n        for (int k = 0; k < TI; k++) cnt[k * NW + w] = __popc(bal[k]);\n"
        "    __syncthreads();\n"
        "    if (w == 0) { /* the 64 counts in element order, two a lane */\n"
        "        int a = cnt[2 * lane], b = cnt[2 * lane + 1], x = a + b;\n"
        "        for (int s = 1; s < 32; s <<= 1) {\n"
        "            int y = __shfl_up_sync(0xffffffffu, x, s);\n            if (lane >= s) x += y;\n        }\n"
        "        cnt[2 * lane] = x - a - b;\n        cnt[2 * lane + 1] = x - b;\n"
        "        if (lane == 31) cnt[2 * 32] = x;\n    }\n    __syncthreads();\n"
        "    unsigned lt = (1u << lane) - 1;\n"
        "    for (int k = 0; k < TI; k++)\n"
        "        if (bal[k] >> lane & 1) sh[cnt[k * NW + w] + __popc(bal[k] & lt)] = k * TT + threadIdx.x;\n"
        "    __syncthreads();\n    return cnt[2 * 32];\n}\n"
        /* the loop of a compacting kernel over its tile (GA_CHUNK_SHARED
         * declared first): r set bytes at base + sh[j], the first to go at off */
        "#define GA_CHUNK_SHARED __shared__ int sh[CH]; __shared__ int cnt[2 * 32 + 1];\n"
        "#define GA_EACH_CHUNK(n, m, offsets, ...) {\\\n"
        "    ga_i64 tile = (ga_i64)blockIdx.x * GA_TILE, off = offsets[blockIdx.x];\\\n"
        "    for (int h = 0; h < GA_TILE / CH && tile + h * CH < (n); h++) {\\\n"
        "        ga_i64 base = tile + h * CH, left = (n) - base;\\\n"
        "        int r = ga_chunk_rank((m) + base, left < CH ? (int)left : CH, sh, cnt);\\\n"
        "        for (int j = threadIdx.x; j < r; j += TT) { __VA_ARGS__ }\\\n"
        "        off += r;\\\n        __syncthreads();\\\n    } }\n"
        "#endif\n");
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    rank_source(&b);
    cm_buf_addf(&b, "#define R %d\n", MOVE_R);
    if (!p->elsize) {
        cm_buf_addf(&b, "typedef struct { ga_i64 d[%d]; } ga_dims;\n#define SI 8\n", GA_MAX_DIMS);
        cm_buf_adds(&b,
            /* c[t]: the set bytes of m's tile t */
            "GA_KERNEL ga_tile_count(ga_i64 n, const ga_u8 *GA_RESTRICT m, ga_i64 *c)\n{\n"
            "#ifdef __CUDACC__\n"
            "    __shared__ ga_i64 warps[32];\n"
            "    ga_i64 base = (ga_i64)blockIdx.x * GA_TILE, left = n - base, total;\n"
            "    int lim = left < GA_TILE ? (int)left : GA_TILE, t = 0;\n"
            "    for (int k = 0; k < GA_TILE / TT; k++) {\n        int e = k * TT + threadIdx.x;\n"
            "        t += e < lim && m[base + e] != 0;\n    }\n"
            "    ga_block_excl(t, &total, warps);\n    if (threadIdx.x == 0) c[blockIdx.x] = total;\n"
            "#else\n"
            "    for (ga_i64 t = 0; t * GA_TILE < n; t++) {\n        ga_i64 k = 0, hi = (t + 1) * GA_TILE;\n"
            "        for (ga_i64 q = t * GA_TILE; q < hi && q < n; q++) k += m[q] != 0;\n"
            "        c[t] = k;\n    }\n"
            "#endif\n}\n"
            /* c[0, nt) into exclusive offsets, their total in c[nt]: one block */
            "GA_KERNEL ga_tile_offsets(ga_i64 nt, ga_i64 *c)\n{\n"
            "#ifdef __CUDACC__\n"
            "    __shared__ ga_i64 warps[32];\n    ga_i64 carry = 0;\n"
            "    for (ga_i64 base = 0; base < nt; base += (ga_i64)blockDim.x * SI) {\n"
            "        ga_i64 v[SI], t = 0, total, at = base + (ga_i64)threadIdx.x * SI;\n"
            "        for (int k = 0; k < SI; k++) {\n            v[k] = at + k < nt ? c[at + k] : 0;\n"
            "            t += v[k];\n        }\n"
            "        ga_i64 run = carry + ga_block_excl(t, &total, warps);\n"
            "        for (int k = 0; k < SI; k++)\n"
            "            if (at + k < nt) {\n                c[at + k] = run;\n                run += v[k];\n            }\n"
            "        carry += total;\n    }\n"
            "    if (threadIdx.x == 0) c[nt] = carry;\n"
            "#else\n"
            "    ga_i64 run = 0;\n"
            "    for (ga_i64 t = 0; t < nt; t++) {\n        ga_i64 v = c[t];\n        c[t] = run;\n        run += v;\n    }\n"
            "    c[nt] = run;\n"
            "#endif\n}\n"
            /* q's index along each of nd axes of shape into o[0, nd);
             * small: q and shape below 2^32 (32-bit divisions) */
            "GA_FN void ga_coords(ga_i64 q, int nd, const ga_dims *shape, int small, ga_i64 *o)\n{\n"
            "    for (int k = nd - 1; k > 0; k--) {\n        ga_i64 d = shape->d[k], r;\n"
            "        if (small)\n            r = (ga_u32)q / (ga_u32)d;\n        else\n            r = q / d;\n"
            "        o[k] = q - r * d;\n        q = r;\n    }\n    o[0] = q;\n}\n"
            /* out[p * nd, (p + 1) * nd) = the index of m's p-th set byte,
             * c: the tiles' offsets */
            "GA_KERNEL ga_tile_where(ga_i64 n, const ga_u8 *GA_RESTRICT m, const ga_i64 *c, int nd,\n"
            "                        ga_dims shape, ga_i64 *GA_RESTRICT out)\n{\n"
            "    int small = n <= 0xffffffffLL;\n"
            "#ifdef __CUDACC__\n"
            "    GA_CHUNK_SHARED\n"
            "    if (nd == 1)\n        GA_EACH_CHUNK(n, m, c, out[off + j] = base + sh[j];)\n"
            "    else if (nd == 2) { /* a matrix: one division, the pair in one store */\n"
            "        ga_i64 d = shape.d[1];\n"
            "        GA_EACH_CHUNK(n, m, c, ga_i64 q = base + sh[j], r = small ? (ga_u32)q / (ga_u32)d : q / d;\n"
            "                      longlong2 p; p.x = r; p.y = q - r * d; ((longlong2 *)out)[off + j] = p;)\n"
            "    } else\n        GA_EACH_CHUNK(n, m, c, ga_coords(base + sh[j], nd, &shape, small, out + (off + j) * nd);)\n"
            "#else\n"
            "    (void)c;\n    ga_i64 p = 0;\n"
            "    for (ga_i64 q = 0; q < n; q++)\n        if (m[q]) ga_coords(q, nd, &shape, small, out + nd * p++);\n"
            "#endif\n}\n"
            /* indices of an axis of N outside [-N, N): bad[0] set, one of
             * them in bad[1]; a GPU thread's MOVE_R loads in flight */
            "GA_KERNEL ga_check_index(ga_i64 J, ga_i64 N, const ga_i64 *GA_RESTRICT idx, ga_i64 *bad)\n{\n"
            "#ifdef __CUDACC__\n"
            "    for (ga_i64 c0 = blockIdx.x * (ga_i64)blockDim.x * R; c0 < J; c0 += (ga_i64)gridDim.x * blockDim.x * R) {\n"
            "        ga_i64 x[R];\n"
            "        for (int r = 0; r < R; r++) {\n            ga_i64 q = c0 + r * (ga_i64)blockDim.x + threadIdx.x;\n"
            "            x[r] = q < J ? idx[q] : 0;\n        }\n"
            "        for (int r = 0; r < R; r++)\n"
            "            if (x[r] < -N || x[r] >= N) { bad[0] = 1; bad[1] = x[r]; }\n    }\n"
            "#else\n"
            "    GA_LOOP(j, J) {\n        ga_i64 x = idx[j];\n"
            "        if (x < -N || x >= N) { bad[0] = 1; bad[1] = x; }\n    }\n"
            "#endif\n}\n");
        return cm_buf_steal(&b);
    }
    cm_buf_addf(&b, "typedef %s ga_e;\n", ga_kernel_bits(p->elsize));
    cm_buf_adds(&b,
        /* index x of an axis of N where it lands (NumPy's modes): 0 raise
         * (negative from the end; outside [0, N) stays outside, flagged or
         * checked before), 1 wrap (x mod N), 2 clip (into [0, N - 1],
         * negatives to 0) */
        "GA_FN ga_i64 ga_place(ga_i64 x, ga_i64 N, int mode)\n{\n"
        "    if (mode == 2)\n        return x < 0 ? 0 : x >= N ? N - 1 : x;\n"
        "    ga_i64 y = x < 0 ? x + N : x;\n"
        "    if (mode == 1 && (y < 0 || y >= N)) {\n        y = x % N;\n        if (y < 0) y += N;\n    }\n"
        "    return y;\n}\n"
        /* a (O, N, I), idx (J), out (O, J, I) */
        /* an index out of [-N, N) is not read: it sets bad[0] and its value in bad[1] */
        "GA_KERNEL ga_take(ga_i64 O, ga_i64 N, ga_i64 J, ga_i64 I, const ga_e *GA_RESTRICT a,\n"
        "                  const ga_i64 *GA_RESTRICT idx, ga_e *GA_RESTRICT out, ga_i64 *bad, int mode)\n{\n"
        /* a flat take (O = I = 1) on the CPU: no divisions (a GPU's is
         * ga_take_flat, below) */
        "#ifndef __CUDACC__\n"
        "    if (O == 1 && I == 1) {\n"
        "        GA_LOOP(q, J) {\n            ga_i64 x = ga_place(idx[q], N, mode);\n"
        "            if (x < 0 || x >= N) { bad[0] = 1; bad[1] = idx[q]; continue; }\n"
        "            out[q] = a[x];\n        }\n"
        "        return;\n    }\n"
        "#endif\n"
        /* 32-bit divisions where every element's place fits them */
        "    int small = O * J * I <= 0xffffffffLL;\n"
        "    GA_LOOP(q, O * J * I) {\n        ga_i64 i, j, o;\n"
        "        if (small) {\n            ga_u32 u = (ga_u32)q, r = u / (ga_u32)I, s = r / (ga_u32)J;\n"
        "            i = u - r * (ga_u32)I;\n            j = r - s * (ga_u32)J;\n            o = s;\n"
        "        } else {\n            ga_i64 r = q / I;\n            i = q - r * I;\n            o = r / J;\n            j = r - o * J;\n        }\n"
        "        ga_i64 x = ga_place(idx[j], N, mode);\n"
        "        if (x < 0 || x >= N) { bad[0] = 1; bad[1] = idx[j]; continue; }\n"
        "        out[q] = a[(o * N + x) * I + i];\n    }\n}\n"
        /* a flat take on a GPU: one element a thread over a grid that
         * covers J (CuPy's layout; the grid-stride form with 4 a thread
         * in a capped grid ran at 0.84x of it) */
        "#ifdef __CUDACC__\n"
        "GA_KERNEL ga_take_flat(ga_i64 N, ga_i64 J, const ga_e *GA_RESTRICT a,\n"
        "                       const ga_i64 *GA_RESTRICT idx, ga_e *GA_RESTRICT out, ga_i64 *bad, int mode)\n{\n"
        "    ga_i64 q = blockIdx.x * (ga_i64)blockDim.x + threadIdx.x;\n"
        "    if (q >= J)\n        return;\n"
        "    ga_i64 x = idx[q], y = ga_place(x, N, mode);\n"
        "    if (y < 0 || y >= N) { bad[0] = 1; bad[1] = x; }\n    else out[q] = a[y];\n}\n"
        /* and a flat put so (the indices checked before, or placed by mode) */
        "GA_KERNEL ga_put_flat(ga_i64 N, ga_i64 J, ga_e *GA_RESTRICT a, const ga_i64 *GA_RESTRICT idx,\n"
        "                      const ga_e *GA_RESTRICT v, ga_i64 nv, int mode)\n{\n"
        "    ga_i64 q = blockIdx.x * (ga_i64)blockDim.x + threadIdx.x;\n"
        "    if (q < J)\n        a[ga_place(idx[q], N, mode)] = v[nv == 1 ? 0 : q % nv];\n}\n"
        "#endif\n"
        /* out[p] = a[q] for m's p-th set byte q; c: the tiles' offsets */
        "GA_KERNEL ga_tile_select(ga_i64 n, const ga_u8 *GA_RESTRICT m, const ga_i64 *c,\n"
        "                         const ga_e *GA_RESTRICT a, ga_e *GA_RESTRICT out)\n{\n"
        "#ifdef __CUDACC__\n"
        "    GA_CHUNK_SHARED\n"
        "    GA_EACH_CHUNK(n, m, c, out[off + j] = a[base + sh[j]];)\n"
        "#else\n"
        "    (void)c;\n    ga_i64 p = 0;\n"
        "    for (ga_i64 q = 0; q < n; q++)\n        if (m[q]) out[p++] = a[q];\n"
        "#endif\n}\n"
        /* the reverse: a[(o, idx[j], i)] = v[q % nv], idx checked before */
        "GA_KERNEL ga_put(ga_i64 O, ga_i64 N, ga_i64 J, ga_i64 I, ga_e *GA_RESTRICT a,\n"
        "                 const ga_i64 *GA_RESTRICT idx, const ga_e *GA_RESTRICT v, ga_i64 nv, int mode)\n{\n"
        /* flat on the CPU (a GPU's is ga_put_flat) */
        "#ifndef __CUDACC__\n"
        "    if (O == 1 && I == 1) {\n"
        "        GA_LOOP(q, J)\n            a[ga_place(idx[q], N, mode)] = v[nv == 1 ? 0 : q % nv];\n"
        "        return;\n    }\n"
        "#endif\n"
        "    GA_LOOP(q, O * J * I) {\n"
        "        ga_i64 i = q % I, r = q / I, j = r % J, o = r / J, x = ga_place(idx[j], N, mode);\n"
        "        a[(o * N + x) * I + i] = v[q % nv];\n    }\n}\n");
    return cm_buf_steal(&b);
}

char *ga_index_source(int elsize)
{
    plan_t p = {elsize};
    return ga_kernel_source(make_source, &p);
}

static void *kernel(int device, int elsize, const char *name, cm_error_t *err)
{
    plan_t p = {elsize};
    char sig[32];
    snprintf(sig, sizeof sig, "index|%d", elsize);
    return ga_kernel_get(device, sig, name, make_source, &p, err);
}

typedef enum { TAKE, PUT } move_t;

/* take or put over a (O, N, I), idx (J) and other ((O, J, I) for take; v
 * of nv elements for put), all contiguous, the indices placed by mode;
 * pb: take's flag on the device (bk_flag) for an index out of range (NULL:
 * the indices are known to land in range). */
static int move(move_t how, ga_array_t *a, int64_t O, int64_t N, int64_t I, ga_array_t *idx,
                ga_array_t *other, void *pb, ga_index_mode_t mode, const char *what,
                cm_error_t *err)
{
    long long o = O, n = N, j = idx->size, i = I, nv = other->size;
    int md = (int)mode;
    if (!o || !j || !i)
        return 0;
    int es = (int)ga_dtype_size(a->dtype);
    void *fn = kernel(a->device, es, how == TAKE ? "ga_take" : "ga_put", err);
    if (!fn)
        return -1;
    void *pa = ga_array_data(a), *pi = ga_array_data(idx), *po = ga_array_data(other);
    if (bk_lang(a->device) == BK_LANG_C) {
        if (how == TAKE)
            ((void (*)(long long, long long, long long, long long, const void *, const void *,
                       void *, void *, int))fn)(o, n, j, i, pa, pi, po, pb, md);
        else
            ((void (*)(long long, long long, long long, long long, void *, const void *,
                       const void *, long long, int))fn)(o, n, j, i, pa, pi, po, nv, md);
        return 0;
    }
    if (o == 1 && i == 1 && j < (1LL << 38)) { /* flat: a thread an element */
        void *flat = kernel(a->device, es, how == TAKE ? "ga_take_flat" : "ga_put_flat", err);
        if (!flat)
            return -1;
        unsigned grid[3] = {(unsigned)((j + 255) / 256), 1, 1}, block[3] = {256, 1, 1};
        void *fargs[7] = {&n, &j, &pa, &pi, &po, how == TAKE ? (void *)&pb : (void *)&nv, &md};
        return ga_kernel_launch_grid(a->device, flat, grid, block, 0, fargs, what, err);
    }
    void *args[9] = {&o, &n, &j, &i, &pa, &pi, &po, how == TAKE ? (void *)&pb : (void *)&nv, &md};
    return ga_kernel_launch(a->device, fn, (o * j * i + MOVE_R - 1) / MOVE_R, args, what, err);
}

/* ---- helpers ------------------------------------------------------------ */

static int axis_of(int axis, int ndim, cm_error_t *err)
{
    if (axis < -ndim || axis >= ndim) {
        CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for a %d-d array", axis, ndim);
        return -1;
    }
    return axis < 0 ? axis + ndim : axis;
}

static ga_array_t *eval1(const char *expr, ga_array_t *out, ga_array_t *a, cm_error_t *err)
{
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = a};
    return ga_eval(expr, out, 1, &arg, err);
}

/* a contiguous as ndim dims of shape: a view, or a copy. */
static ga_array_t *contiguous_as(ga_array_t *a, int ndim, const int64_t *shape, cm_error_t *err)
{
    ga_array_t *c = ga_copy_contiguous(a, err);
    ga_array_t *v = c ? ga_array_reshape(c, ndim, shape, err) : NULL;
    ga_array_free(c);
    return v;
}

/* 0 when idx's dtype is an integer one, else -1 with err. */
static int index_dtype(const ga_array_t *idx, cm_error_t *err)
{
    char k = ga_dtype_kind(idx->dtype);
    if (k == GA_KIND_INT || k == GA_KIND_UINT)
        return 0;
    CM_ERROR(err, GA_E_DTYPE, "indices must be integers, not %s", ga_dtype_name(idx->dtype));
    return -1;
}

/* idx as a contiguous int64 array (a view when it is one): a new array. */
static ga_array_t *as_int64(ga_array_t *idx, cm_error_t *err)
{
    if (index_dtype(idx, err))
        return NULL;
    if (idx->dtype == GA_I64)
        return ga_copy_contiguous(idx, err);
    return eval1("int64(a)", NULL, idx, err);
}

/* What the kernels queued on device set in its flag (bad, from bk_flag),
 * once they are done: 0, or -1 with the error naming an index. */
static int flagged(int device, const long long *bad, int64_t n, cm_error_t *err)
{
    if (bk_flag_wait(device, err))
        return -1;
    if (!bad[0])
        return 0;
    CM_ERROR(err, GA_E_SHAPE, "index %lld is out of bounds for an axis of size %lld", bad[1],
             (long long)n);
    return -1;
}

/* Every index of ni (int64, contiguous) in [-n, n), checked on its device
 * in one pass: 0, or -1 with the error naming one that is not. */
static int check_indices(ga_array_t *ni, int64_t n, cm_error_t *err)
{
    if (!ni->size)
        return 0;
    void *pb = NULL;
    long long *bad = bk_flag(ni->device, &pb, err);
    void *fn = bad ? kernel(ni->device, 0, "ga_check_index", err) : NULL;
    long long j = ni->size, nn = n;
    void *pi = ga_array_data(ni);
    int rc = fn ? 0 : -1;
    if (fn && bk_lang(ni->device) == BK_LANG_C) {
        ((void (*)(long long, long long, const void *, void *))fn)(j, nn, pi, pb);
    } else if (fn) {
        void *args[4] = {&j, &nn, &pi, &pb};
        rc = ga_kernel_launch(ni->device, fn, (j + MOVE_R - 1) / MOVE_R, args, "ga_put", err);
    }
    return rc ? rc : flagged(ni->device, bad, n, err);
}

/* ---- take and put --------------------------------------------------------- */

/* ga_index_take; checked: whether the indices may be out of range in
 * mode GA_MODE_RAISE (else no flag is read back: wrap and clip put every
 * index in range). */
static ga_array_t *take(ga_array_t *a, ga_array_t *idx, int axis, ga_index_mode_t mode,
                        int checked, cm_error_t *err)
{
    if (ga_array_check(a, err) || ga_array_check(idx, err))
        return NULL;
    if (idx->device != a->device) {
        CM_ERROR(err, GA_E_DEVICE, "the indices are on another device than the array");
        return NULL;
    }
    int64_t n = a->size;
    ga_array_t *src = NULL, *ni = NULL, *out = NULL;
    long long *bad = NULL;
    void *pb = NULL;
    int ax = 0;
    if (axis == GA_AXIS_ALL) {
        src = contiguous_as(a, 1, &n, err);
    } else {
        if (a->ndim == 0)
            CM_ERROR(err, GA_E_SHAPE, "a 0-d array has no axis %d", axis);
        else if ((ax = axis_of(axis, a->ndim, err)) >= 0)
            src = ga_copy_contiguous(a, err);
    }
    if (!src)
        return NULL;
    int64_t O = 1, I = 1, N = src->shape[ax];
    for (int k = 0; k < ax; k++)
        O *= src->shape[k];
    for (int k = ax + 1; k < src->ndim; k++)
        I *= src->shape[k];
    int nd = src->ndim - 1 + idx->ndim;
    if (nd > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_SHAPE, "the result would have %d dimensions (at most %d)", nd, GA_MAX_DIMS);
        goto done;
    }
    if (N == 0 && idx->size && O && I && mode != GA_MODE_RAISE) { /* NumPy's words */
        CM_ERROR(err, GA_E_SHAPE, "cannot do a non-empty take from an empty axis");
        goto done;
    }
    checked = checked && mode == GA_MODE_RAISE;
    int64_t shape[GA_MAX_DIMS];
    int m = 0;
    for (int k = 0; k < ax; k++)
        shape[m++] = src->shape[k];
    for (int k = 0; k < idx->ndim; k++)
        shape[m++] = idx->shape[k];
    for (int k = ax + 1; k < src->ndim; k++)
        shape[m++] = src->shape[k];
    /* the indices as int64, checked by the gather itself (one pass) */
    ni = as_int64(idx, err);
    bad = ni && checked ? bk_flag(a->device, &pb, err) : NULL;
    out = ni && (bad || !checked) ? ga_array_new(a->device, a->dtype, nd, shape, err) : NULL;
    if (out && (move(TAKE, src, O, N, I, ni, out, pb, mode, "ga_take", err) ||
                (bad && flagged(a->device, bad, N, err)))) {
        ga_array_free(out);
        out = NULL;
    }
done:
    ga_array_free(ni);
    ga_array_free(src);
    return out;
}

ga_array_t *ga_index_take(ga_array_t *a, ga_array_t *idx, int axis, ga_index_mode_t mode,
                          cm_error_t *err)
{
    return take(a, idx, axis, mode, 1, err);
}

int ga_index_mode(const char *name, ga_index_mode_t *mode, cm_error_t *err)
{
    static const char *const names[] = {"raise", "wrap", "clip"};
    for (int k = 0; k < 3; k++)
        if (name && !strcmp(name, names[k])) {
            *mode = (ga_index_mode_t)k;
            return 0;
        }
    CM_ERROR(err, GA_E_VALUE, "mode \"%s\": not one of \"raise\", \"wrap\", \"clip\"",
             name ? name : "(null)");
    return -1;
}

/* v (a number or an array) as a contiguous array of dtype and shape (a
 * broadcast of it, converted as NumPy's unsafe casting does). */
static ga_array_t *values_as(const ga_arg_t *v, int device, ga_dtype_t dtype, int ndim,
                             const int64_t *shape, cm_error_t *err)
{
    ga_array_t *r = ga_array_new(device, dtype, ndim, shape, err);
    if (!r || !r->size)
        return r;
    int rc;
    if (v->kind != GA_ARG_ARRAY) {
        rc = ga_copy_fill(r, v->kind == GA_ARG_INT ? (double)v->i : v->f, err);
    } else if (v->a->device != device) {
        CM_ERROR(err, GA_E_DEVICE, "the values are on another device than the array");
        rc = -1;
    } else {
        char expr[32];
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(dtype));
        rc = eval1(expr, r, v->a, err) ? 0 : -1;
    }
    if (rc) {
        ga_array_free(r);
        return NULL;
    }
    return r;
}

/* Runs put over a's elements seen as (M, rest), writing back when a's
 * layout needs a contiguous copy to be seen so. */
static int put_rows(ga_array_t *a, int64_t M, ga_array_t *ni, ga_array_t *vals,
                    ga_index_mode_t mode, cm_error_t *err)
{
    int64_t I = M ? a->size / M : 1;
    ga_array_t *w = ga_array_is_contiguous(a) ? NULL : ga_copy_array(a, a->device, err);
    if (!ga_array_is_contiguous(a) && !w)
        return -1;
    int rc = move(PUT, w ? w : a, 1, M, I, ni, vals, NULL, mode, "ga_put", err);
    if (rc == 0 && w)
        rc = ga_join_copy_into(a, w, err);
    ga_array_free(w);
    return rc;
}

int ga_index_put(ga_array_t *a, ga_array_t *idx, const ga_arg_t *v, ga_index_mode_t mode,
                 cm_error_t *err)
{
    if (ga_array_check(a, err) || ga_array_check(idx, err) ||
        (v->kind == GA_ARG_ARRAY && ga_array_check(v->a, err)))
        return -1;
    if (a->size == 0 && idx->size && mode != GA_MODE_RAISE) {
        CM_ERROR(err, GA_E_SHAPE, "cannot put into an empty array");
        return -1;
    }
    ga_array_t *ni = as_int64(idx, err), *vals = NULL;
    /* before anything is written; wrap and clip put every index in range */
    if (!ni || (mode == GA_MODE_RAISE && check_indices(ni, a->size, err))) {
        ga_array_free(ni);
        return -1;
    }
    int64_t nv = v->kind == GA_ARG_ARRAY ? v->a->size : 1;
    int rc = -1;
    if (nv == 0 && ni->size) {
        CM_ERROR(err, GA_E_VALUE, "no values to put at %lld indices", (long long)ni->size);
    } else { /* the values flattened, in a's dtype */
        ga_array_t *f = v->kind == GA_ARG_ARRAY ? contiguous_as(v->a, 1, &nv, err) : NULL;
        ga_arg_t fa = {.kind = GA_ARG_ARRAY, .a = f};
        if (v->kind != GA_ARG_ARRAY || f)
            vals = values_as(f ? &fa : v, a->device, a->dtype, 1, &nv, err);
        ga_array_free(f);
        if (vals)
            rc = put_rows(a, a->size, ni, vals, mode, err);
    }
    ga_array_free(vals);
    ga_array_free(ni);
    return rc;
}

/* ---- non-zero elements ------------------------------------------------------ */

/* m (bool, contiguous, not empty) counted by tiles: *c the tiles'
 * exclusive offsets (int64, one more: the count), *total the count, read
 * back (the one wait: the result's size depends on it). */
static int tile_offsets(ga_array_t *m, ga_array_t **c, long long *total, cm_error_t *err)
{
    long long n = m->size, nt = (n + TILE - 1) / TILE;
    int64_t len = nt + 1;
    int dev = m->device;
    *c = ga_array_new(dev, GA_I64, 1, &len, err);
    void *count = *c ? kernel(dev, 0, "ga_tile_count", err) : NULL;
    void *scan = count ? kernel(dev, 0, "ga_tile_offsets", err) : NULL;
    if (!scan)
        return -1;
    void *pm = ga_array_data(m), *pc = ga_array_data(*c);
    int rc = 0;
    if (bk_lang(dev) == BK_LANG_C) {
        ((void (*)(long long, const void *, void *))count)(n, pm, pc);
        ((void (*)(long long, void *))scan)(nt, pc);
    } else {
        unsigned grid[3] = {(unsigned)nt, 1, 1}, block[3] = {TILE_THREADS, 1, 1};
        unsigned one[3] = {1, 1, 1}, wide[3] = {SCAN_THREADS, 1, 1};
        void *a1[3] = {&n, &pm, &pc}, *a2[2] = {&nt, &pc};
        rc = ga_kernel_launch_grid(dev, count, grid, block, 0, a1, "ga_nonzero", err);
        if (rc == 0)
            rc = ga_kernel_launch_grid(dev, scan, one, wide, 0, a2, "ga_nonzero", err);
    }
    if (rc == 0)
        rc = bk_mem_to_host(dev, total, (char *)pc + nt * 8, 8, err);
    return rc;
}

/* a as a contiguous bool array *m (its non-zero elements), *c its tiles'
 * offsets (NULL for an empty a) and *total the count. */
static int compaction(ga_array_t *a, ga_array_t **m, ga_array_t **c, long long *total,
                      cm_error_t *err)
{
    *m = a->dtype == GA_BOOL ? ga_copy_contiguous(a, err) : eval1("bool(a)", NULL, a, err);
    *c = NULL;
    *total = 0;
    if (!*m)
        return -1;
    return a->size ? tile_offsets(*m, c, total, err) : 0;
}

/* Launches a compacting kernel (ga_tile_where, ga_tile_select) over m's
 * tiles with its args. */
static int compact(int device, void *fn, long long n, void **args, const char *what,
                   cm_error_t *err)
{
    unsigned grid[3] = {(unsigned)((n + TILE - 1) / TILE), 1, 1}, block[3] = {TILE_THREADS, 1, 1};
    return ga_kernel_launch_grid(device, fn, grid, block, 0, args, what, err);
}

ga_array_t *ga_index_argwhere(ga_array_t *a, int flat, cm_error_t *err)
{
    if (ga_array_check(a, err))
        return NULL;
    if (ga_dtype_kind(a->dtype) == GA_KIND_COMPLEX) {
        CM_ERROR(err, GA_E_DTYPE, "array math does not support %s", ga_dtype_name(a->dtype));
        return NULL;
    }
    int nd = flat ? 1 : a->ndim;
    dims_t shape = {{0}};
    if (flat)
        shape.d[0] = a->size;
    else
        memcpy(shape.d, a->shape, sizeof a->shape);
    ga_array_t *m = NULL, *pos = NULL, *out = NULL;
    long long n = a->size, total = 0;
    if (compaction(a, &m, &pos, &total, err))
        goto done;
    int64_t oshape[2] = {total, nd};
    out = ga_array_new(a->device, GA_I64, flat ? 1 : 2, oshape, err);
    if (!out || !total || !nd)
        goto done;
    void *fn = kernel(a->device, 0, "ga_tile_where", err);
    void *pm = ga_array_data(m), *pp = ga_array_data(pos), *po = ga_array_data(out);
    int rc = -1;
    if (fn && bk_lang(a->device) == BK_LANG_C) {
        ((void (*)(long long, const void *, const void *, int, dims_t, void *))fn)(n, pm, pp, nd,
                                                                                 shape, po);
        rc = 0;
    } else if (fn) {
        void *args[6] = {&n, &pm, &pp, &nd, &shape, &po};
        rc = compact(a->device, fn, n, args, "ga_argwhere", err);
    }
    if (rc) {
        ga_array_free(out);
        out = NULL;
    }
done:
    ga_array_free(pos);
    ga_array_free(m);
    if (err->code && out) {
        ga_array_free(out);
        out = NULL;
    }
    return out;
}

/* mask must be a's leading dimensions: M, the number of rows they make. */
static int mask_rows(const ga_array_t *a, const ga_array_t *mask, int64_t *M, cm_error_t *err)
{
    int ok = mask->ndim <= a->ndim && mask->device == a->device;
    for (int k = 0; ok && k < mask->ndim; k++)
        ok = mask->shape[k] == a->shape[k];
    if (!ok) {
        char s0[96], s1[96];
        ga_shape_text(a->ndim, a->shape, s0, sizeof s0);
        ga_shape_text(mask->ndim, mask->shape, s1, sizeof s1);
        if (mask->device != a->device)
            CM_ERROR(err, GA_E_DEVICE, "the mask is on another device than the array");
        else
            CM_ERROR(err, GA_E_SHAPE, "a mask of shape %s does not match an array of shape %s", s1, s0);
        return -1;
    }
    *M = mask->size;
    return 0;
}

ga_array_t *ga_index_mask_select(ga_array_t *a, ga_array_t *mask, cm_error_t *err)
{
    int64_t M;
    if (ga_array_check(a, err) || ga_array_check(mask, err) || mask_rows(a, mask, &M, err))
        return NULL;
    int64_t shape[GA_MAX_DIMS + 1];
    shape[0] = M;
    int nd = 1;
    for (int k = mask->ndim; k < a->ndim; k++)
        shape[nd++] = a->shape[k];
    ga_array_t *rows = contiguous_as(a, nd, shape, err), *m = NULL, *pos = NULL, *r = NULL;
    if (!rows)
        return NULL;
    if (nd > 1) { /* rows of several elements: their indices, then a gather of them */
        ga_array_t *idx = ga_index_argwhere(mask, 1, err);
        r = idx ? take(rows, idx, 0, GA_MODE_RAISE, 0, err) : NULL;
        ga_array_free(idx);
        ga_array_free(rows);
        return r;
    }
    /* elements: each selected one straight to its place (no index array) */
    long long total = 0, n = M;
    if (compaction(mask, &m, &pos, &total, err) ||
        !(r = ga_array_new(a->device, a->dtype, 1, &(int64_t){total}, err)) || !total)
        goto done;
    void *fn = kernel(a->device, (int)ga_dtype_size(a->dtype), "ga_tile_select", err);
    void *pm = ga_array_data(m), *pp = ga_array_data(pos), *pa = ga_array_data(rows),
         *po = ga_array_data(r);
    int rc = fn ? 0 : -1;
    if (fn && bk_lang(a->device) == BK_LANG_C) {
        ((void (*)(long long, const void *, const void *, const void *, void *))fn)(n, pm, pp, pa, po);
    } else if (fn) {
        void *args[5] = {&n, &pm, &pp, &pa, &po};
        rc = compact(a->device, fn, n, args, "ga_mask_select", err);
    }
    if (rc) {
        ga_array_free(r);
        r = NULL;
    }
done:
    ga_array_free(rows);
    ga_array_free(pos);
    ga_array_free(m);
    return r;
}

/* a[mask] = v for a number v: one pass of where(m, v, a) written into a
 * (the mask seen with a's trailing axes as 1s), with no index array and no
 * array of values. */
static int assign_number(ga_array_t *a, ga_array_t *mask, const ga_arg_t *v, cm_error_t *err)
{
    int64_t shape[GA_MAX_DIMS];
    for (int k = 0; k < a->ndim; k++)
        shape[k] = k < mask->ndim ? mask->shape[k] : 1;
    ga_array_t *m = contiguous_as(mask, a->ndim, shape, err);
    if (!m)
        return -1;
    /* v converted to a's dtype first, as NumPy converts it (0.25 into
     * int32: 0) */
    char expr[64];
    snprintf(expr, sizeof expr, "m, v, a: where(m, %s(v), a)", ga_dtype_name(a->dtype));
    ga_arg_t args[3] = {{.kind = GA_ARG_ARRAY, .a = m}, *v, {.kind = GA_ARG_ARRAY, .a = a}};
    ga_array_t *r = ga_eval(expr, a, 3, args, err);
    ga_array_free(m);
    return r ? 0 : -1;
}

int ga_index_mask_assign(ga_array_t *a, ga_array_t *mask, const ga_arg_t *v, cm_error_t *err)
{
    int64_t M;
    if (ga_array_check(a, err) || ga_array_check(mask, err) || mask_rows(a, mask, &M, err) ||
        (v->kind == GA_ARG_ARRAY && ga_array_check(v->a, err)))
        return -1;
    if (v->kind != GA_ARG_ARRAY && ga_dtype_kind(a->dtype) != GA_KIND_COMPLEX)
        return a->size ? assign_number(a, mask, v, err) : 0;
    ga_array_t *idx = ga_index_argwhere(mask, 1, err);
    if (!idx)
        return -1;
    /* the values: v broadcast to the selection's shape (count,) + rest */
    int64_t shape[GA_MAX_DIMS + 1];
    shape[0] = idx->size;
    int nd = 1;
    for (int k = mask->ndim; k < a->ndim; k++)
        shape[nd++] = a->shape[k];
    ga_array_t *vals = values_as(v, a->device, a->dtype, nd, shape, err);
    int rc = vals ? put_rows(a, M, idx, vals, GA_MODE_RAISE, err) : -1;
    ga_array_free(vals);
    ga_array_free(idx);
    return rc;
}

ga_array_t *ga_index_compress(ga_array_t *cond, ga_array_t *a, int axis, cm_error_t *err)
{
    if (ga_array_check(cond, err) || ga_array_check(a, err))
        return NULL;
    if (cond->ndim != 1) {
        CM_ERROR(err, GA_E_SHAPE, "the condition must be 1-d, not %d-d", cond->ndim);
        return NULL;
    }
    /* the indices are in range when cond is no longer than the axis */
    int64_t len = axis == GA_AXIS_ALL ? a->size
                  : axis >= -a->ndim && axis < a->ndim ? a->shape[axis < 0 ? axis + a->ndim : axis]
                                                       : 0;
    ga_array_t *idx = ga_index_argwhere(cond, 1, err);
    ga_array_t *r = idx ? take(a, idx, axis, GA_MODE_RAISE, cond->size > len, err) : NULL;
    ga_array_free(idx);
    return r;
}
