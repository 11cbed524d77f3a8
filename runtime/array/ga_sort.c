/* ga_sort: sort, argsort, partition, unique, searchsorted, histogram (see
 * ga_sort.h). What sorts where: the CPU backend (and the simulator, whose
 * arrays are the CPU's) a merge sort per line in C; a GPU, where the
 * floor says the device can (bk_kernel_cub), one line by CUB's onesweep
 * radix sort and lines of 16 to 2048 by CUB's segmented sort of a tile, a
 * block a line (ga_onesweep.c), else (longer or shorter lines, a line past
 * GA_ONESWEEP_MAX, a GPU without CCCL) gpuc's own LSD radix sort below,
 * 4 bits a pass with the lines' numbers as the last digits. */
#include "ga_sort.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_eval.h"
#include "ga_expr.h"
#include "ga_index.h"
#include "ga_join.h"
#include "ga_kernel.h"
#include "ga_onesweep.h"
#include "ga_scan.h"

#define TILE_THREADS 256
#define TILE 2048 /* a GPU block's tile of the radix sort: 8 elements a thread */
#define RADIX 16  /* its digits: 4 bits a pass (the count kernel packs 16 of them in 4 words) */
#define SHARED_BINS 4096 /* a GPU's histogram counts in shared memory up to this many bins */
#define RUN 16    /* the CPU's insertion-sorted runs */

typedef struct plan {
    ga_dtype_t d;
    int idx; /* indices move with the keys: 0 none, 1 int64, 2 uint32 (a GPU's, below 2^32 elements) */
    int gpu;
} plan_t;

/* NumPy's order: NaN after everything, then by value; and the same order
 * as unsigned bits for the GPU's radix sort (ga_key: signed integers with
 * the sign bit flipped, floats by sign and magnitude, -0.0 as 0.0, every
 * NaN past the infinities). */
static void order(cm_buf_t *b, ga_dtype_t d)
{
    static const char *const ukey[9] = {0, "ga_u8", "ga_u16", 0, "ga_u32", 0, 0, 0, "ga_u64"};
    size_t size = ga_dtype_size(d);
    cm_buf_addf(b, "typedef %s ga_k;\ntypedef %s ga_uk;\n#define GA_KBITS %d\n", ga_expr_stype(d),
                ukey[size], (int)(8 * size));
    cm_buf_adds(b, "#define GA_SIGN ((ga_uk)1 << (GA_KBITS - 1))\n");
    char k = ga_dtype_kind(d);
    if (k != GA_KIND_FLOAT) {
        cm_buf_adds(b, "GA_FN int ga_lt(ga_k a, ga_k b) { return a < b; }\n"
                       "GA_FN double ga_val(ga_k a) { return (double)a; }\n");
        cm_buf_addf(b, "GA_FN ga_uk ga_key(ga_k a) { return (ga_uk)a%s; }\n",
                    k == GA_KIND_INT ? " ^ GA_SIGN" : "");
        return;
    }
    if (d == GA_F16)
        cm_buf_adds(b, "GA_FN int ga_lt(ga_k p, ga_k q) { float a = ga_h2f(p), b = ga_h2f(q);"
                       " return a < b || (b != b && a == a); }\n"
                       "GA_FN double ga_val(ga_k a) { return (double)ga_h2f(a); }\n"
                       "GA_FN ga_uk ga_bits(ga_k a) { return a; }\n"
                       "GA_FN int ga_isnan_k(ga_k a) { return (a & 0x7fff) > 0x7c00; }\n");
    else
        cm_buf_addf(b, "GA_FN int ga_lt(ga_k a, ga_k b) { return a < b || (b != b && a == a); }\n"
                       "GA_FN double ga_val(ga_k a) { return (double)a; }\n"
                       "GA_FN ga_uk ga_bits(ga_k a) { ga_uk u; memcpy(&u, &a, sizeof u); return u; }\n"
                       "GA_FN int ga_isnan_k(ga_k a) { return a != a; }\n");
    cm_buf_adds(b, "GA_FN ga_uk ga_key(ga_k a)\n{\n"
                   "    ga_uk u = ga_bits(a);\n"
                   "    if (ga_isnan_k(a)) return (ga_uk)~(ga_uk)0;\n"
                   "    if (!(ga_uk)(u << 1)) return GA_SIGN; /* either zero */\n"
                   "    return (u & GA_SIGN) ? (ga_uk)~u : (ga_uk)(u | GA_SIGN);\n}\n");
}

/* Searching a sorted array (searchsorted) and binning (histogram): both
 * languages. */
static const char searching[] =
    /* how many of s[0, n) are below x / at most x */
    "GA_FN ga_i64 ga_lower(const ga_k *s, ga_i64 n, ga_k x)\n{\n"
    "    ga_i64 lo = 0, hi = n;\n"
    "    while (lo < hi) { ga_i64 mid = (lo + hi) >> 1; if (ga_lt(s[mid], x)) lo = mid + 1; else hi = mid; }\n"
    "    return lo;\n}\n"
    "GA_FN ga_i64 ga_upper(const ga_k *s, ga_i64 n, ga_k x)\n{\n"
    "    ga_i64 lo = 0, hi = n;\n"
    "    while (lo < hi) { ga_i64 mid = (lo + hi) >> 1; if (!ga_lt(x, s[mid])) lo = mid + 1; else hi = mid; }\n"
    "    return lo;\n}\n"
    "GA_KERNEL ga_searchsorted(ga_i64 n, const ga_k *a, ga_i64 m, const ga_k *v, ga_i64 *out, int right)\n{\n"
    "    GA_LOOP(q, m) out[q] = right ? ga_upper(a, n, v[q]) : ga_lower(a, n, v[q]);\n}\n"
    /* the bin of x over [edges[0], edges[bins]] as NumPy finds it (scaled,
     * then moved by one where the edges say otherwise), -1 outside or NaN */
    "GA_FN ga_i64 ga_bin(double x, ga_i64 bins, const double *edges)\n{\n"
    "    double lo = edges[0], hi = edges[bins];\n"
    "    if (!(x >= lo && x <= hi)) return -1;\n"
    "    ga_i64 i = (ga_i64)((x - lo) / (hi - lo) * (double)bins);\n"
    "    if (i >= bins) i = bins - 1;\n    if (i < 0) i = 0;\n"
    "    if (i > 0 && x < edges[i]) i--;\n"
    "    else if (i < bins - 1 && x >= edges[i + 1]) i++;\n"
    "    return i;\n}\n"
    "GA_KERNEL ga_histogram(ga_i64 n, const ga_k *a, ga_i64 bins, const double *edges, ga_u64 *counts)\n{\n"
    "    GA_LOOP(q, n) {\n"
    "        ga_i64 i = ga_bin(ga_val(a[q]), bins, edges);\n"
    "        if (i < 0) continue;\n"
    "#ifdef __CUDACC__\n        atomicAdd((unsigned long long *)&counts[i], 1ULL);\n"
    "#else\n        counts[i]++;\n#endif\n    }\n}\n"
    /* a GPU, bins <= GA_SHARED_BINS: each block counts in shared memory first */
    "#ifdef __CUDACC__\n"
    "extern \"C\" __global__ void ga_histogram_shared(ga_i64 n, const ga_k *a, ga_i64 bins,\n"
    "        const double *edges, ga_u64 *counts)\n{\n"
    "    __shared__ unsigned c[GA_SHARED_BINS];\n"
    "    for (ga_i64 b = threadIdx.x; b < bins; b += blockDim.x) c[b] = 0;\n"
    "    __syncthreads();\n"
    "    GA_LOOP(q, n) {\n"
    "        ga_i64 i = ga_bin(ga_val(a[q]), bins, edges);\n"
    "        if (i >= 0) atomicAdd(&c[i], 1u);\n    }\n"
    "    __syncthreads();\n"
    "    for (ga_i64 b = threadIdx.x; b < bins; b += blockDim.x)\n"
    "        if (c[b]) atomicAdd((unsigned long long *)&counts[b], (unsigned long long)c[b]);\n}\n"
    "#endif\n";

static void cpu_source(cm_buf_t *b)
{
    cm_buf_addf(b, "#define RUN %d\n", RUN);
    cm_buf_adds(b,
        /* each line of m: runs of RUN by insertion, then merges into tk/ti and back */
        "void ga_sort_lines(ga_i64 lines, ga_i64 m, ga_k *keys, ga_i64 *ix, ga_k *tk, ga_i64 *ti)\n{\n"
        "    for (ga_i64 l = 0; l < lines; l++) {\n"
        "        ga_k *a = keys + l * m, *b = tk + l * m;\n"
        "        ga_i64 *ia = GA_IDX ? ix + l * m : 0, *ib = GA_IDX ? ti + l * m : 0;\n"
        "        if (GA_IDX) for (ga_i64 p = 0; p < m; p++) ia[p] = p;\n"
        "        for (ga_i64 lo = 0; lo < m; lo += RUN) {\n"
        "            ga_i64 hi = lo + RUN < m ? lo + RUN : m;\n"
        "            for (ga_i64 p = lo + 1; p < hi; p++) {\n"
        "                ga_k x = a[p]; ga_i64 xi = GA_IDX ? ia[p] : 0, q = p;\n"
        "                while (q > lo && ga_lt(x, a[q - 1])) { a[q] = a[q - 1]; if (GA_IDX) ia[q] = ia[q - 1]; q--; }\n"
        "                a[q] = x; if (GA_IDX) ia[q] = xi;\n            }\n        }\n"
        "        for (ga_i64 w = RUN; w < m; w *= 2) {\n"
        "            for (ga_i64 lo = 0; lo < m; lo += 2 * w) {\n"
        "                ga_i64 mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;\n"
        "                ga_i64 i = lo, j = mid, o = lo;\n"
        "                while (i < mid && j < hi) {\n"
        "                    if (ga_lt(a[j], a[i])) { b[o] = a[j]; if (GA_IDX) ib[o] = ia[j]; j++; }\n"
        "                    else { b[o] = a[i]; if (GA_IDX) ib[o] = ia[i]; i++; }\n"
        "                    o++;\n                }\n"
        "                for (; i < mid; i++, o++) { b[o] = a[i]; if (GA_IDX) ib[o] = ia[i]; }\n"
        "                for (; j < hi; j++, o++) { b[o] = a[j]; if (GA_IDX) ib[o] = ia[j]; }\n"
        "            }\n"
        "            ga_k *t = a; a = b; b = t;\n            ga_i64 *u = ia; ia = ib; ib = u;\n"
        "        }\n"
        "        if (a != keys + l * m) {\n"
        "            memcpy(keys + l * m, a, (size_t)m * sizeof *a);\n"
        "            if (GA_IDX) memcpy(ix + l * m, ia, (size_t)m * sizeof *ia);\n        }\n"
        "    }\n}\n");
}

static void gpu_source(cm_buf_t *b)
{
    cm_buf_addf(b, "#define TT %d\n#define IPT %d\n#define TILE (TT * IPT)\n#define NB %d\n",
                TILE_THREADS, TILE / TILE_THREADS, RADIX);
    cm_buf_adds(b,
        /* the digit of an element in a pass: of its key, or of its line (the
         * line passes come last: the most significant digits) */
        "GA_FN int ga_digit(ga_k k, ga_i64 v, int shift, int line_pass, ga_i64 m)\n{\n"
        "    ga_u64 x = line_pass ? (ga_u64)(v / m) : (ga_u64)ga_key(k);\n"
        "    return (int)((x >> shift) & (NB - 1));\n}\n"
        /* the value carried with element q: its flat index before the
         * first pass (vals NULL: nothing to read, made in place) */
        "GA_FN ga_i64 ga_val_at(const ga_vt *vals, ga_i64 q) { return vals ? (ga_i64)vals[q] : q; }\n"
        /* 16 digits' counts, 16 bits each, in four words (digit d: word
         * d >> 2, bits 16 * (d & 3)); a tile's count of a digit is at most
         * TILE, so words add and subtract field by field */
        "typedef struct { ga_u64 w0, w1, w2, w3; } ga_cnt;\n"
        "GA_FN void ga_cnt_add(ga_cnt *c, int d)\n{\n"
        "    ga_u64 one = 1ULL << (16 * (d & 3));\n    int w = d >> 2;\n"
        "    c->w0 += w == 0 ? one : 0; c->w1 += w == 1 ? one : 0;\n"
        "    c->w2 += w == 2 ? one : 0; c->w3 += w == 3 ? one : 0;\n}\n"
        "GA_FN unsigned ga_cnt_get(ga_cnt c, int d)\n{\n"
        "    int w = d >> 2;\n    ga_u64 x = w == 0 ? c.w0 : w == 1 ? c.w1 : w == 2 ? c.w2 : c.w3;\n"
        "    return (unsigned)((x >> (16 * (d & 3))) & 0xffffu);\n}\n"
        /* the bits every key has (and) and some key has (or): a digit
         * that is the same for all keys moves nothing, and its pass is
         * left out */
        "extern \"C\" __global__ void ga_rx_bits(ga_i64 n, const ga_k *keys, ga_u64 *and_or)\n{\n"
        "    ga_u64 a = ~(ga_u64)0, o = 0;\n"
        "    GA_LOOP(q, n) { ga_u64 k = (ga_u64)ga_key(keys[q]); a &= k; o |= k; }\n"
        "    for (int s = 16; s > 0; s >>= 1) {\n"
        "        a &= __shfl_xor_sync(0xffffffffu, a, s);\n        o |= __shfl_xor_sync(0xffffffffu, o, s);\n    }\n"
        /* then over the block's warps: one pair of atomics a block, not a
         * warp (all of them on the same two words) */
        "    __shared__ ga_u64 wa[32], wo[32];\n"
        "    if ((threadIdx.x & 31) == 0) { wa[threadIdx.x >> 5] = a; wo[threadIdx.x >> 5] = o; }\n"
        "    __syncthreads();\n"
        "    if (threadIdx.x == 0) {\n"
        "        for (unsigned j = 1; j < blockDim.x / 32; j++) { a &= wa[j]; o |= wo[j]; }\n"
        "        atomicAnd((unsigned long long *)&and_or[0], (unsigned long long)a);\n"
        "        atomicOr((unsigned long long *)&and_or[1], (unsigned long long)o);\n    }\n}\n"
        /* each tile's count of each digit: counts[digit * tiles + tile] */
        "extern \"C\" __global__ void ga_rx_count(ga_i64 n, const ga_k *keys, const ga_vt *vals, int shift,\n"
        "        int line_pass, ga_i64 m, ga_i64 *counts)\n{\n"
        "    __shared__ unsigned c[NB];\n"
        "    if (threadIdx.x < NB) c[threadIdx.x] = 0;\n    __syncthreads();\n"
        "    ga_i64 base = (ga_i64)blockIdx.x * TILE;\n"
        /* counted in registers (ga_cnt; a warp's count of a digit is at
         * most 32 * IPT), summed over the warp by
         * shuffles: nearby keys share their high digits, and a shared
         * atomic per element would queue a whole warp on one counter */
        "    ga_cnt w = {0, 0, 0, 0};\n"
        "    for (int e = threadIdx.x; e < TILE; e += TT) {\n"
        "        ga_i64 q = base + e;\n"
        /* only what the digit is of is read: the keys, or the values on a line pass */
        "        if (q >= n) continue;\n"
        "        if (GA_VALS && line_pass) ga_cnt_add(&w, ga_digit(0, ga_val_at(vals, q), shift, 1, m));\n"
        "        else ga_cnt_add(&w, ga_digit(keys[q], 0, shift, 0, m));\n"
        "    }\n"
        "    for (int s = 16; s > 0; s >>= 1) {\n"
        "        w.w0 += __shfl_xor_sync(0xffffffffu, w.w0, s); w.w1 += __shfl_xor_sync(0xffffffffu, w.w1, s);\n"
        "        w.w2 += __shfl_xor_sync(0xffffffffu, w.w2, s); w.w3 += __shfl_xor_sync(0xffffffffu, w.w3, s);\n"
        "    }\n"
        "    int lane = threadIdx.x & 31;\n"
        "    if (lane < NB) {\n"
        "        unsigned x = ga_cnt_get(w, lane);\n"
        "        if (x) atomicAdd(&c[lane], x);\n    }\n"
        "    __syncthreads();\n"
        "    if (threadIdx.x < NB) counts[(ga_i64)threadIdx.x * gridDim.x + blockIdx.x] = c[threadIdx.x];\n}\n"
        /* each tile's elements to their places: the digit's place over all
         * tiles (incl - counts: the exclusive scan) plus the element's rank
         * among the tile's elements of its digit (threads in order, each
         * thread's IPT elements in order: stable) */
        "extern \"C\" __global__ void ga_rx_scatter(ga_i64 n, const ga_k *keys, const ga_vt *vals, ga_k *kout,\n"
        "        ga_vt *vout, int shift, int line_pass, ga_i64 m, const ga_i64 *counts, const ga_i64 *incl)\n{\n"
        "    __shared__ ga_cnt warp_tot[TT / 32];\n    __shared__ ga_i64 start[NB];\n"
        "    int t = threadIdx.x, lane = t & 31, w = t >> 5;\n"
        "    ga_i64 base = (ga_i64)blockIdx.x * TILE + (ga_i64)t * IPT;\n"
        "    ga_k k[IPT];\n    ga_i64 v[IPT];\n    int d[IPT];\n"
        "    ga_cnt c = {0, 0, 0, 0};\n"
        "    for (int i = 0; i < IPT; i++) {\n"
        "        ga_i64 q = base + i;\n        d[i] = -1;\n"
        "        if (q < n) {\n            k[i] = keys[q];\n            v[i] = GA_VALS ? ga_val_at(vals, q) : 0;\n"
        "            d[i] = ga_digit(k[i], v[i], shift, line_pass, m);\n"
        "            ga_cnt_add(&c, d[i]);\n        }\n    }\n"
        /* the scan of the packed counts over the warp's lanes (shuffles),
         * then over the warps before (shared): x - c is then this
         * thread's first rank among the tile's elements of each digit */
        "    ga_cnt x = c;\n"
        "    for (int s = 1; s < 32; s <<= 1) {\n"
        "        ga_u64 y0 = __shfl_up_sync(0xffffffffu, x.w0, s), y1 = __shfl_up_sync(0xffffffffu, x.w1, s);\n"
        "        ga_u64 y2 = __shfl_up_sync(0xffffffffu, x.w2, s), y3 = __shfl_up_sync(0xffffffffu, x.w3, s);\n"
        "        if (lane >= s) { x.w0 += y0; x.w1 += y1; x.w2 += y2; x.w3 += y3; }\n    }\n"
        "    if (lane == 31) warp_tot[w] = x;\n"
        "    if (t < NB) {\n        ga_i64 f = (ga_i64)t * gridDim.x + blockIdx.x;\n"
        "        start[t] = incl[f] - counts[f]; /* where the tile's elements of digit t go */\n    }\n"
        "    __syncthreads();\n"
        "    for (int j = 0; j < w; j++) {\n"
        "        x.w0 += warp_tot[j].w0; x.w1 += warp_tot[j].w1; x.w2 += warp_tot[j].w2; x.w3 += warp_tot[j].w3;\n    }\n"
        "    x.w0 -= c.w0; x.w1 -= c.w1; x.w2 -= c.w2; x.w3 -= c.w3; /* field by field: no borrows */\n"
        "    for (int i = 0; i < IPT; i++) {\n"
        "        if (d[i] < 0) continue;\n"
        "        ga_i64 at = start[d[i]] + ga_cnt_get(x, d[i]);\n"
        "        ga_cnt_add(&x, d[i]);\n"
        "        kout[at] = k[i];\n"
        "        if (GA_VALS) vout[at] = (ga_vt)v[i];\n    }\n}\n");
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "/* sorting %s%s */\n#define GA_IDX %d\n#define GA_VALS %d\n#define GA_SHARED_BINS %d\n",
                ga_dtype_name(p->d), p->idx ? " with indices" : "", p->idx != 0, p->idx != 0, SHARED_BINS);
    cm_buf_addf(&b, "typedef %s ga_vt; /* the indices a GPU's sort carries */\n",
                p->idx == 2 ? "ga_u32" : "ga_i64");
    order(&b, p->d);
    cm_buf_adds(&b, searching);
    if (p->gpu)
        gpu_source(&b);
    else
        cpu_source(&b);
    return cm_buf_steal(&b);
}

char *ga_sort_source(ga_dtype_t d, int indices, int gpu)
{
    plan_t p = {d, indices, gpu != 0};
    return ga_kernel_source(make_source, &p);
}

static void *kernel(ga_dtype_t d, int idx, int device, const char *name, cm_error_t *err)
{
    plan_t p = {d, idx, bk_lang(device) == BK_LANG_CUDA};
    char sig[32];
    snprintf(sig, sizeof sig, "sort|%d|%d", (int)d, idx);
    return ga_kernel_get(device, sig, name, make_source, &p, err);
}

static int sortable(const ga_array_t *a, cm_error_t *err)
{
    if (ga_dtype_kind(a->dtype) != GA_KIND_COMPLEX)
        return 0;
    CM_ERROR(err, GA_E_DTYPE, "sorting %s is not supported", ga_dtype_name(a->dtype));
    return -1;
}

/* A GPU: an LSD radix sort of the whole array, 4 bits a pass, with the
 * lines' numbers as the last (most significant) digits so that each line
 * ends sorted in its place; each element's flat index travels with it
 * where indices are wanted or there are several lines. *keys (and *ix)
 * are replaced by the arrays holding the answer. */
static int gpu_sort(ga_array_t **keys, ga_array_t **ix, int64_t lines, int64_t m, cm_error_t *err)
{
    ga_array_t *k = *keys, *tk = NULL, *v = NULL, *tv = NULL, *counts = NULL;
    int dev = k->device, carry = ix != NULL || lines > 1, rc = -1;
    int64_t n = k->size, tiles = (n + TILE - 1) / TILE, nc = RADIX * tiles;
    /* the indices as uint32 below 2^32 elements: 8 bytes an element a pass, not 12 */
    int narrow = n <= (int64_t)UINT32_MAX, kind = carry ? (narrow ? 2 : 1) : 0;
    void *count_fn = kernel(k->dtype, kind, dev, "ga_rx_count", err);
    void *scatter_fn = count_fn ? kernel(k->dtype, kind, dev, "ga_rx_scatter", err) : NULL;
    if (!scatter_fn || !(tk = ga_array_new(dev, k->dtype, k->ndim, k->shape, err)) ||
        !(counts = ga_array_new(dev, GA_I64, 1, &nc, err)))
        goto done;
    /* the flat indices are made by the first pass itself (vals NULL), not
     * on the host: an arange of n int64 made there costs ~10 ns each */
    ga_dtype_t vt = narrow ? GA_U32 : GA_I64;
    if (carry && (!(v = ga_array_new(dev, vt, 1, &n, err)) || !(tv = ga_array_new(dev, vt, 1, &n, err))))
        goto done;
    int made = 0; /* v holds the indices: a pass has run */
    int key_bits = (int)(8 * ga_dtype_size(k->dtype)), line_bits = 0;
    while (lines > 1 && (1LL << line_bits) < lines)
        line_bits++;
    unsigned grid[3] = {(unsigned)tiles, 1, 1}, block[3] = {TILE_THREADS, 1, 1};
    long long nn = n, mm = m;
    /* which key bits differ between keys: passes over the others are left out */
    uint64_t and_or[2] = {~(uint64_t)0, 0};
    int64_t two = 2;
    ga_array_t *bits = ga_create_from_host(dev, GA_U64, 1, &two, and_or, err);
    void *bits_fn = bits ? kernel(k->dtype, kind, dev, "ga_rx_bits", err) : NULL;
    void *pk0 = ga_array_data(k), *pb = bits ? ga_array_data(bits) : NULL;
    void *a0[3] = {&nn, &pk0, &pb};
    /* a few blocks a multiprocessor: enough to read at full speed */
    int64_t most = 4 * (int64_t)bk_units(dev);
    unsigned bgrid[3] = {(unsigned)(tiles * 8 < most ? tiles * 8 : most), 1, 1};
    rc = bits_fn ? ga_kernel_launch_grid(dev, bits_fn, bgrid, block, 0, a0, "ga_sort", err) : -1;
    if (rc == 0)
        rc = ga_copy_to_host(bits, and_or, err);
    ga_array_free(bits);
    uint64_t differ = and_or[0] ^ and_or[1];
    for (int pass = 0; rc == 0 && pass * 4 < key_bits + ((line_bits + 3) / 4) * 4; pass++) {
        int line_pass = pass * 4 >= key_bits, shift = line_pass ? pass * 4 - key_bits : pass * 4;
        /* every key has this digit: the pass would move nothing (but one
         * pass runs where the indices are wanted, to make them) */
        if (!line_pass && !((differ >> shift) & (RADIX - 1)) && !(carry && !differ && !line_bits && !pass))
            continue;
        void *pk = ga_array_data(k), *pv = v && made ? ga_array_data(v) : NULL, *pc = ga_array_data(counts);
        void *ptk = ga_array_data(tk), *ptv = tv ? ga_array_data(tv) : NULL;
        void *a1[7] = {&nn, &pk, &pv, &shift, &line_pass, &mm, &pc};
        rc = ga_kernel_launch_grid(dev, count_fn, grid, block, 0, a1, "ga_sort", err);
        ga_array_t *incl = rc ? NULL : ga_scan(GA_SCAN_SUM, counts, GA_AXIS_ALL, err);
        void *pi = incl ? ga_array_data(incl) : NULL;
        void *a2[10] = {&nn, &pk, &pv, &ptk, &ptv, &shift, &line_pass, &mm, &pc, &pi};
        rc = incl ? ga_kernel_launch_grid(dev, scatter_fn, grid, block, 0, a2, "ga_sort", err) : -1;
        ga_array_free(incl);
        ga_array_t *t = k; k = tk; tk = t; /* the answer so far is in the other pair */
        t = v; v = tv; tv = t;
        made = 1;
    }
    if (rc == 0 && ix && lines == 1 && !narrow) { /* one line: the flat index is the answer */
        ga_array_t *vv = ga_array_reshape(v, k->ndim, k->shape, err);
        rc = vv ? 0 : -1;
        if (vv) {
            ga_array_free(*ix);
            *ix = vv;
        }
    } else if (rc == 0 && ix) { /* the index within its line, as int64 */
        ga_array_t *vv = ga_array_reshape(v, k->ndim, k->shape, err);
        ga_arg_t args[2] = {{.kind = GA_ARG_ARRAY, .a = vv}, {.kind = GA_ARG_INT, .i = m}};
        rc = vv && (lines == 1 ? ga_eval("int64(a)", *ix, 1, args, err)
                               : ga_eval("a, m: int64(a % m)", *ix, 2, args, err)) ? 0 : -1;
        ga_array_free(vv);
    }
done:
    *keys = k; /* and the other of the pair, the caller's or the temporary, goes */
    ga_array_free(tk);
    ga_array_free(v);
    ga_array_free(tv);
    ga_array_free(counts);
    return rc;
}

/* Sorts each of `lines` lines of m of *keys (contiguous; with *ix, an
 * int64 array of its shape, when indices are wanted); a GPU may leave the
 * answer in new arrays, put in their place. */
static int sort_lines(ga_array_t **keys, ga_array_t **ix, int64_t lines, int64_t m, cm_error_t *err)
{
    ga_array_t *k = *keys, *i = ix ? *ix : NULL;
    int dev = k->device, idx = i != NULL;
    if (!k->size || m < 2)
        return i ? ga_copy_fill(i, 0, err) : 0; /* every line's index is 0 */
    if (bk_lang(dev) != BK_LANG_C)
        return gpu_sort(keys, ix, lines, m, err);
    ga_array_t *tk = ga_array_new(dev, k->dtype, k->ndim, k->shape, err);
    ga_array_t *ti = idx && tk ? ga_array_new(dev, GA_I64, k->ndim, k->shape, err) : NULL;
    void *fn = tk && (!idx || ti) ? kernel(k->dtype, idx, dev, "ga_sort_lines", err) : NULL;
    if (fn)
        ((void (*)(long long, long long, void *, void *, void *, void *))fn)(
            lines, m, ga_array_data(k), i ? ga_array_data(i) : NULL, ga_array_data(tk),
            ti ? ga_array_data(ti) : NULL);
    ga_array_free(tk);
    ga_array_free(ti);
    return fn ? 0 : -1;
}

ga_array_t *ga_sort_array(ga_array_t *a, int axis, int indices, cm_error_t *err)
{
    if (ga_array_check(a, err) || sortable(a, err))
        return NULL;
    int nd = a->ndim, ax = nd - 1, perm[GA_MAX_DIMS];
    ga_array_t *v = NULL, *k = NULL, *ix = NULL, *r = NULL;
    if (axis == GA_AXIS_ALL) {
        int64_t n = a->size;
        ga_array_t *c = ga_copy_contiguous(a, err);
        v = c ? ga_array_reshape(c, 1, &n, err) : NULL;
        ga_array_free(c);
        nd = 1, ax = 0;
    } else if (axis < -nd || axis >= nd) {
        CM_ERROR(err, GA_E_SHAPE, "axis %d is out of range for a %d-d array", axis, nd);
        return NULL;
    } else {
        ax = axis < 0 ? axis + nd : axis;
        for (int j = 0, q = 0; j < nd; j++) /* the axis last */
            if (j != ax)
                perm[q++] = j;
        perm[nd - 1] = ax;
        v = ga_array_permute(a, perm, err);
    }
    if (!v)
        return NULL;
    int64_t line = nd ? v->shape[nd - 1] : 1, nlines = line ? v->size / line : 0;
    if (line == v->size ? ga_onesweep_fits(v, line, indices)
                        : ga_onesweep_lines_fit(v, nlines, line, indices)) {
        /* a GPU that runs CUB: one line by its onesweep sort, short lines
         * a block each; both read the keys where they are (no copy first) */
        ga_array_t *c = ga_copy_contiguous(v, err);
        ga_array_t *s = !c                ? NULL
                        : line == v->size ? ga_onesweep_sort(c, indices, err)
                                          : ga_onesweep_lines(c, nlines, line, indices, err);
        ga_array_free(c);
        if (s || err->code != GA_E_KERNEL) {
            ga_array_free(v);
            if (!s || s->size != line) { /* the lines, in v's axes */
                r = s;
                goto back;
            }
            /* one line: the other axes are 1, so the line is a's layout */
            r = ga_array_reshape(s, axis == GA_AXIS_ALL ? 1 : nd, axis == GA_AXIS_ALL ? s->shape : a->shape,
                                 err);
            ga_array_free(s);
            return r;
        }
        cm_error_clear(err); /* this toolkit's CUB does not take our kernels: the radix sort below */
    }
    k = ga_copy_array(v, v->device, err);
    ga_array_free(v);
    if (!k)
        return NULL;
    int64_t m = nd ? k->shape[nd - 1] : 1, lines = m ? k->size / m : 0;
    if (indices && !(ix = ga_array_new(k->device, GA_I64, k->ndim, k->shape, err)))
        goto done;
    if (sort_lines(&k, indices ? &ix : NULL, lines, m, err))
        goto done;
    r = indices ? ix : k;
    if (indices)
        ix = NULL; /* r holds it */
    else
        k = NULL;
back:
    if (r && axis != GA_AXIS_ALL && ax != nd - 1) { /* back to a's axes, C order */
        int inv[GA_MAX_DIMS];
        for (int j = 0; j < nd; j++)
            inv[perm[j]] = j;
        ga_array_t *back = ga_array_permute(r, inv, err);
        ga_array_t *c = back ? ga_copy_array(back, back->device, err) : NULL;
        ga_array_free(back);
        ga_array_free(r);
        r = c;
    }
done:
    ga_array_free(k);
    ga_array_free(ix);
    return r;
}

/* a's elements as dtype d, C-contiguous: a view of a where they already
 * are, else a cast copy (either is the caller's to free). */
static ga_array_t *as_dtype(ga_array_t *a, ga_dtype_t d, cm_error_t *err)
{
    if (a->dtype == d)
        return ga_copy_contiguous(a, err);
    char expr[32];
    snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(d));
    ga_arg_t x = {.kind = GA_ARG_ARRAY, .a = a};
    return ga_eval(expr, NULL, 1, &x, err);
}

/* a and b in one dtype (promoted), contiguous. */
static int common(ga_array_t *a, ga_array_t *b, ga_array_t **ca, ga_array_t **cb, cm_error_t *err)
{
    ga_dtype_t d = ga_dtype_promote(a->dtype, b->dtype);
    *ca = as_dtype(a, d, err);
    *cb = *ca ? as_dtype(b, d, err) : NULL;
    if (*cb)
        return 0;
    ga_array_free(*ca);
    return -1;
}

ga_array_t *ga_sort_searchsorted(ga_array_t *a, ga_array_t *v, int right, cm_error_t *err)
{
    if (ga_array_check(a, err) || ga_array_check(v, err) || sortable(a, err) || sortable(v, err))
        return NULL;
    if (a->ndim != 1) {
        CM_ERROR(err, GA_E_SHAPE, "the sorted array must be 1-d, not %d-d", a->ndim);
        return NULL;
    }
    if (a->device != v->device) {
        CM_ERROR(err, GA_E_DEVICE, "the values are on another device than the sorted array");
        return NULL;
    }
    ga_array_t *ca, *cv;
    if (common(a, v, &ca, &cv, err))
        return NULL;
    ga_array_t *out = ga_array_new(v->device, GA_I64, v->ndim, v->shape, err);
    long long n = ca->size, m = cv->size;
    void *fn = out && m ? kernel(ca->dtype, 0, ca->device, "ga_searchsorted", err) : NULL;
    if (fn) {
        void *pa = ga_array_data(ca), *pv = ga_array_data(cv), *po = ga_array_data(out);
        int rc = 0;
        if (bk_lang(ca->device) == BK_LANG_C)
            ((void (*)(long long, const void *, long long, const void *, void *, int))fn)(n, pa, m, pv,
                                                                                        po, right);
        else {
            void *args[6] = {&n, &pa, &m, &pv, &po, &right};
            rc = ga_kernel_launch(ca->device, fn, m, args, "ga_searchsorted", err);
        }
        if (rc) {
            ga_array_free(out);
            out = NULL;
        }
    } else if (out && m) {
        ga_array_free(out);
        out = NULL;
    }
    ga_array_free(ca);
    ga_array_free(cv);
    return out;
}

/* The value of the reduction expr over a, as a double (NaN on error). */
static double reduce_value(const char *expr, ga_array_t *a, cm_error_t *err)
{
    ga_arg_t x = {.kind = GA_ARG_ARRAY, .a = a};
    ga_array_t *r = ga_eval(expr, NULL, 1, &x, err);
    double v = NAN;
    if (r)
        ga_copy_scalar(r, &v, err);
    ga_array_free(r);
    return v;
}

ga_array_t *ga_sort_histogram(ga_array_t *a, int64_t bins, double lo, double hi,
                              ga_array_t **edges, cm_error_t *err)
{
    if (edges)
        *edges = NULL;
    if (ga_array_check(a, err) || sortable(a, err))
        return NULL;
    if (bins < 1 || bins > (1LL << 30)) {
        CM_ERROR(err, GA_E_VALUE, "bins must be in [1, 2^30], not %lld", (long long)bins);
        return NULL;
    }
    if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi)) {
        CM_ERROR(err, GA_E_VALUE, "the range [%g, %g] is not a finite range with lo <= hi", lo, hi);
        return NULL;
    }
    if (lo == hi && !a->size) /* NumPy's range of nothing */
        lo = 0, hi = 1;
    else if (lo == hi) { /* the data's range (NaNs left out, as the counts do) */
        lo = reduce_value("min(where(a == a, float64(a), 1e308))", a, err);
        hi = reduce_value("max(where(a == a, float64(a), -1e308))", a, err);
        if (err->code)
            return NULL;
        if (!isfinite(lo) || !isfinite(hi) || !(lo <= hi)) {
            CM_ERROR(err, GA_E_VALUE, "the range of the data is not finite: give lo and hi");
            return NULL;
        }
    }
    if (lo == hi)
        lo -= 0.5, hi += 0.5;
    /* the edges as NumPy's linspace makes them, in NumPy's dtype (float32
     * data: float32; float16: float16; else float64) */
    ga_dtype_t ed = a->dtype == GA_F32 || a->dtype == GA_F16 ? a->dtype : GA_F64;
    double *e = malloc((size_t)(bins + 1) * sizeof *e);
    if (!e) {
        CM_ERROR(err, GA_E_MEMORY, "no host memory for %lld edges", (long long)bins + 1);
        return NULL;
    }
    double step = (hi - lo) / (double)bins;
    for (int64_t i = 0; i <= bins; i++)
        e[i] = i == bins ? hi : lo + (double)i * step;
    if (ed != GA_F64)
        for (int64_t i = 0; i <= bins; i++)
            e[i] = ed == GA_F32 ? (double)(float)e[i]
                                : (double)ga_half_to_float(ga_float_to_half((float)e[i]));
    int64_t ne = bins + 1;
    ga_array_t *de = ga_create_from_host(a->device, GA_F64, 1, &ne, e, err);
    free(e);
    ga_array_t *src = de ? ga_copy_contiguous(a, err) : NULL;
    ga_array_t *counts = src ? ga_create_full(a->device, GA_I64, 1, &bins, 0, err) : NULL;
    const char *name = bk_lang(a->device) == BK_LANG_CUDA && bins <= SHARED_BINS
                           ? "ga_histogram_shared" : "ga_histogram";
    void *fn = counts && src->size ? kernel(a->dtype, 0, a->device, name, err) : NULL;
    int rc = counts ? 0 : -1;
    if (fn) {
        long long n = src->size, nb = bins;
        void *ps = ga_array_data(src), *pe = ga_array_data(de), *pc = ga_array_data(counts);
        if (bk_lang(a->device) == BK_LANG_C)
            ((void (*)(long long, const void *, long long, const void *, void *))fn)(n, ps, nb, pe, pc);
        else {
            void *args[5] = {&n, &ps, &nb, &pe, &pc};
            rc = ga_kernel_launch(a->device, fn, n, args, "ga_histogram", err);
        }
    } else if (counts && src->size) {
        rc = -1;
    }
    if (rc == 0 && edges) {
        char expr[32];
        snprintf(expr, sizeof expr, "%s(a)", ga_dtype_name(ed));
        ga_arg_t x = {.kind = GA_ARG_ARRAY, .a = de};
        if (!(*edges = ga_eval(expr, NULL, 1, &x, err)))
            rc = -1;
    }
    ga_array_free(src);
    ga_array_free(de);
    if (rc) {
        ga_array_free(counts);
        return NULL;
    }
    return counts;
}

/* x[lo:hi] of a 1-d array: a view. */
static ga_array_t *range_of(ga_array_t *x, int64_t lo, int64_t hi, cm_error_t *err)
{
    return ga_array_slice(x, 0, lo, hi, 1, err);
}

ga_array_t *ga_sort_unique(ga_array_t *a, ga_array_t **counts, cm_error_t *err)
{
    if (counts)
        *counts = NULL;
    ga_array_t *s = ga_sort_array(a, GA_AXIS_ALL, 0, err);
    if (!s)
        return NULL;
    int64_t n = s->size;
    ga_array_t *first = NULL, *idx = NULL, *u = NULL, *ends = NULL, *c = NULL;
    /* first[i]: s[i] starts a new value (NaNs are one value, as NumPy 2's) */
    if (!(first = ga_array_new(s->device, GA_BOOL, 1, &n, err)))
        goto done;
    if (n) {
        ga_array_t *f0 = range_of(first, 0, 1, err);
        int rc = f0 ? ga_copy_fill(f0, 1, err) : -1;
        ga_array_free(f0);
        if (rc)
            goto done;
    }
    if (n > 1) {
        ga_array_t *rest = range_of(first, 1, n, err), *x = range_of(s, 1, n, err),
                   *y = range_of(s, 0, n - 1, err);
        ga_arg_t args[2] = {{.kind = GA_ARG_ARRAY, .a = x}, {.kind = GA_ARG_ARRAY, .a = y}};
        ga_array_t *r = rest && x && y ? ga_eval("x, y: x != y && !(isnan(x) && isnan(y))", rest, 2,
                                                 args, err)
                                       : NULL;
        ga_array_free(rest);
        ga_array_free(x);
        ga_array_free(y);
        if (!r)
            goto done;
    }
    if (!(idx = ga_index_argwhere(first, 1, err)) || !(u = ga_index_take(s, idx, 0, GA_MODE_RAISE, err)))
        goto done;
    if (counts) { /* the next start (n after the last) minus each start */
        int64_t k = idx->size, k1 = k + 1;
        if (!(ends = ga_array_new(s->device, GA_I64, 1, &k1, err)))
            goto done;
        ga_array_t *head = range_of(ends, 0, k, err), *tail = range_of(ends, k, k1, err);
        int rc = head && tail ? ga_join_copy_into(head, idx, err) : -1;
        if (rc == 0)
            rc = ga_copy_fill(tail, (double)n, err);
        ga_array_free(head);
        ga_array_free(tail);
        ga_array_t *x = rc ? NULL : range_of(ends, 1, k1, err), *y = rc ? NULL : range_of(ends, 0, k, err);
        ga_arg_t args[2] = {{.kind = GA_ARG_ARRAY, .a = x}, {.kind = GA_ARG_ARRAY, .a = y}};
        c = x && y ? ga_eval("x, y: x - y", NULL, 2, args, err) : NULL;
        ga_array_free(x);
        ga_array_free(y);
        if (!c) {
            ga_array_free(u);
            u = NULL;
            goto done;
        }
        *counts = c;
    }
done:
    ga_array_free(ends);
    ga_array_free(idx);
    ga_array_free(first);
    ga_array_free(s);
    return u;
}
