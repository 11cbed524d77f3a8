/* ga_onesweep: CUB's onesweep radix sort of one line on a GPU (see
 * ga_onesweep.h). */
#include "ga_onesweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_create.h"
#include "ga_copy.h"
#include "ga_eval.h"
#include "ga_kernel.h"

#define DIGITS 256        /* 8 bits a pass */
#define HIST_THREADS 128  /* the histogram's block: 16 keys a thread, as CUB's */
#define HIST_TILE 2048
/* Reading the histogram back costs a wait for the GPU (~20 us) and pays
 * where a pass can be left out: integers of 4 or 8 bytes (small values
 * share their high bytes), and enough of them that a pass costs more */
#define PROBE_MIN ((int64_t)1 << 22)

typedef struct plan {
    ga_dtype_t d;
    int idx;              /* argsort: uint32 values travel with the keys */
    int threads, items;   /* the onesweep block and its keys a thread */
    int lthreads, litems; /* sorting lines: a block a line of up to lthreads * litems */
} plan_t;

/* The blocks that sort a line in one go (ga_onesweep_lines), smallest
 * first: a line takes the first that holds it. */
static const int line_blocks[][2] = {{32, 2}, {64, 4}, {128, 4}, {128, 8}, {256, 8}};
#define NLINE_BLOCKS ((int)(sizeof line_blocks / sizeof *line_blocks))

/* CUB's sm_90 tuning of the onesweep kernel for 32-bit offsets
 * (cub/device/dispatch/tuning/tuning_radix_sort.cuh): 384 threads for
 * 4- and 8-byte keys (8-byte: 30 nominal 4-byte items, scaled to 15),
 * 512 for 1- and 2-byte keys. */
static plan_t plan_of(ga_dtype_t d, int idx)
{
    plan_t p = {d, idx != 0, 384, 15, 0, 0};
    size_t size = ga_dtype_size(d);
    if (size == 4)
        p.items = idx ? 23 : ga_dtype_kind(d) == GA_KIND_FLOAT ? 19 : 20;
    else if (size < 4)
        p.threads = 512, p.items = idx ? 17 : 19;
    return p;
}

/* The bits of a key as CUB ranks them (In) and back (Out), and the raw
 * key whose In is the greatest (CUB pads a partial tile with it). Signed
 * integers: the sign bit flipped. Floats for argsort: NaN all ones, either
 * zero the sign bit alone, else by sign and magnitude (Out undoes that on
 * the keys In makes, which is all the passes between need). Floats for
 * sort: by sign and magnitude, then less the count of negative NaNs
 * (modulo 2^B), which moves them past the positive ones: a bijection, so
 * every value comes back, -0.0 just below 0.0. */
static void keys(cm_buf_t *b, ga_dtype_t d, int idx)
{
    static const char *const ukey[9] = {0, "ga_u8", "ga_u16", 0, "ga_u32", 0, 0, 0, "ga_u64"};
    size_t size = ga_dtype_size(d);
    char k = ga_dtype_kind(d);
    cm_buf_addf(b, "typedef %s ga_uk;\n#define GA_SIGN ((ga_uk)((ga_uk)1 << %d))\n", ukey[size],
                (int)(8 * size - 1));
    cm_buf_adds(b, "#ifdef __CUDACC__\n#define GA_OS_FN static __host__ __device__ __forceinline__\n"
                   "#else\n#define GA_OS_FN static inline\n#endif\n");
    const char *in = "return u;", *out = "return k;", *max = "~(ga_uk)0";
    if (k == GA_KIND_INT)
        in = "return (ga_uk)(u ^ GA_SIGN);", out = "return (ga_uk)(k ^ GA_SIGN);", max = "~GA_SIGN";
    if (k == GA_KIND_FLOAT) {
        /* the infinity's bits, and the largest mantissa (negative NaNs' count) */
        const char *inf = d == GA_F16 ? "0x7c00" : d == GA_F32 ? "0x7f800000u" : "0x7ff0000000000000ull";
        const char *q = d == GA_F16 ? "0x3ff" : d == GA_F32 ? "0x7fffffu" : "0xfffffffffffffull";
        cm_buf_addf(b, "#define GA_INF_BITS ((ga_uk)%s)\n#define GA_NEG_NANS ((ga_uk)%s)\n", inf, q);
        cm_buf_adds(b, "GA_OS_FN ga_uk ga_mag(ga_uk u) { return (u & GA_SIGN) ? (ga_uk)~u : (ga_uk)(u | GA_SIGN); }\n"
                       "GA_OS_FN ga_uk ga_unmag(ga_uk t) { return (t & GA_SIGN) ? (ga_uk)(t ^ GA_SIGN) : (ga_uk)~t; }\n");
        if (idx)
            in = "if ((ga_uk)(u & ~GA_SIGN) > GA_INF_BITS) return (ga_uk)~(ga_uk)0;\n"
                 "    if (!(ga_uk)(u << 1)) return GA_SIGN;\n"
                 "    return ga_mag(u);",
            out = "return ga_unmag(k);", max = "~GA_SIGN";
        else
            in = "return (ga_uk)(ga_mag(u) - GA_NEG_NANS);", out = "return ga_unmag((ga_uk)(k + GA_NEG_NANS));",
            max = "~(GA_NEG_NANS - 1)"; /* Out of all ones: a negative NaN */
    }
    cm_buf_addf(b, "GA_OS_FN ga_uk ga_os_in(ga_uk u)\n{\n    %s\n}\n", in);
    cm_buf_addf(b, "GA_OS_FN ga_uk ga_os_out(ga_uk k)\n{\n    %s\n}\n", out);
    cm_buf_addf(b, "#define GA_OS_MAX ((ga_uk)(%s)) /* the raw key whose ga_os_in is all ones */\n", max);
}

/* CUB's hook for a key type of one's own: ga_sk, its bits in and out by
 * ga_os_in and ga_os_out. */
static const char traits[] =
    "struct ga_sk { ga_uk bits; }; /* a key as CUB sees it: its bits */\n"
    "CUB_NAMESPACE_BEGIN\n"
    "template <> struct NumericTraits<ga_sk> {\n"
    "    using UnsignedBits = ga_uk;\n"
    "    static constexpr ga_uk LOWEST_KEY = 0, MAX_KEY = GA_OS_MAX;\n"
    "    static __host__ __device__ __forceinline__ ga_uk TwiddleIn(ga_uk u) { return ga_os_in(u); }\n"
    "    static __host__ __device__ __forceinline__ ga_uk TwiddleOut(ga_uk k) { return ga_os_out(k); }\n"
    "};\n"
    "CUB_NAMESPACE_END\n";

static char *make_keys(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    keys(&b, p->d, p->idx);
    return cm_buf_steal(&b);
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "/* onesweep %s%s */\n#define GA_OS_THREADS %d\n#define GA_OS_ITEMS %d\n",
                ga_dtype_name(p->d), p->idx ? " with indices" : "", p->threads, p->items);
    cm_buf_adds(&b, "#include <cub/agent/agent_radix_sort_histogram.cuh>\n"
                    "#include <cub/agent/agent_radix_sort_onesweep.cuh>\n"
                    "#include <cub/block/block_scan.cuh>\n");
    keys(&b, p->d, p->idx);
    cm_buf_adds(&b, traits);
    cm_buf_addf(&b, "typedef %s ga_os_vt;\n", p->idx ? "ga_u32" : "cub::NullType");
    if (p->lthreads) /* the lines' kernel too, for this block */
        cm_buf_addf(&b, "#define GA_LT %d\n#define GA_LI %d\n"
                        "struct ga_os_line_size { static constexpr int BLOCK_THREADS = GA_LT, ITEMS_PER_THREAD = GA_LI; };\n",
                    p->lthreads, p->litems);
    cm_buf_adds(&b, "#include <cub/agent/agent_segmented_radix_sort.cuh>\n");
    cm_buf_addf(&b, "#define GA_HIST_THREADS %d\n#define GA_HIST_ITEMS %d\n", HIST_THREADS,
                HIST_TILE / HIST_THREADS);
    cm_buf_adds(&b,
        /* the block and items exactly as the host sizes the grid (no scaling) */
        "struct ga_os_size { static constexpr int BLOCK_THREADS = GA_OS_THREADS, ITEMS_PER_THREAD = GA_OS_ITEMS; };\n"
        "typedef cub::AgentRadixSortOnesweepPolicy<GA_OS_THREADS, GA_OS_ITEMS, ga_uk, 1,\n"
        "    cub::RADIX_RANK_MATCH_EARLY_COUNTS_ANY, cub::BLOCK_SCAN_RAKING_MEMOIZE, cub::RADIX_SORT_STORE_DIRECT, 8,\n"
        "    ga_os_size> ga_os_policy;\n"
        "typedef cub::AgentRadixSortHistogramPolicy<GA_HIST_THREADS, GA_HIST_ITEMS, 1, ga_uk, 8> ga_hist_policy;\n"
        /* bins[pass][digit] += the count of keys with that digit in that pass */
        "extern \"C\" __global__ void __launch_bounds__(GA_HIST_THREADS)\n"
        "ga_os_hist(int *bins, const ga_sk *keys, int n, int end_bit)\n{\n"
        "    typedef cub::detail::radix_sort::AgentRadixSortHistogram<ga_hist_policy, false, ga_sk, int> agent_t;\n"
        "    __shared__ typename agent_t::TempStorage s;\n"
        "    agent_t(s, bins, keys, n, 0, end_bit).Process();\n}\n"
        /* one pass: each block ranks its tile by the digit at bit, finds
         * its place by look-back over the blocks before (lookback zeroed,
         * *ctr zeroed: the blocks' order), scatters keys and values */
        "extern \"C\" __global__ void __launch_bounds__(GA_OS_THREADS)\n"
        "ga_os_pass(int *lookback, int *ctr, const int *bins, ga_sk *kout, const ga_sk *kin,\n"
        "           ga_os_vt *vout, const ga_os_vt *vin, int n, int bit, int nbits)\n{\n"
        "    typedef cub::detail::radix_sort::AgentRadixSortOnesweep<ga_os_policy, false, ga_sk, ga_os_vt, int, int> agent_t;\n"
        "    __shared__ typename agent_t::TempStorage s;\n"
        "    agent_t(s, lookback, ctr, (int *)0, bins, kout, kin, vout, vin, n, bit, nbits).Process();\n}\n"
        /* each pass's counts to its digits' starts, a block a pass (where the
         * host does not read them back) */
        "extern \"C\" __global__ void __launch_bounds__(256) ga_os_scan(int *bins)\n{\n"
        "    typedef cub::BlockScan<int, 256> scan_t;\n"
        "    __shared__ typename scan_t::TempStorage s;\n"
        "    int *c = bins + blockIdx.x * 256, x = c[threadIdx.x];\n"
        "    scan_t(s).ExclusiveSum(x, x);\n"
        "    c[threadIdx.x] = x;\n}\n"
        /* a block a line (lines of m, at most one tile): CUB's segmented
         * sort of one tile, all the key's digits in shared memory; vin:
         * 0..m-1, the same for every line */
        "#ifdef GA_LT\n"
        "typedef cub::AgentRadixSortDownsweepPolicy<GA_LT, GA_LI, ga_uk, cub::BLOCK_LOAD_TRANSPOSE, cub::LOAD_DEFAULT,\n"
        "    cub::RADIX_RANK_MEMOIZE, cub::BLOCK_SCAN_WARP_SCANS, 6, ga_os_line_size> ga_line_policy;\n"
        "extern \"C\" __global__ void __launch_bounds__(GA_LT)\n"
        "ga_os_lines(const ga_sk *kin, ga_sk *kout, const ga_os_vt *vin, ga_os_vt *vout, int m)\n{\n"
        "    typedef cub::detail::radix_sort::AgentSegmentedRadixSort<false, ga_line_policy, ga_sk, ga_os_vt, int> agent_t;\n"
        "    __shared__ typename agent_t::TempStorage s;\n"
        "    long long at = (long long)blockIdx.x * m;\n"
        "    agent_t(m, s).ProcessSinglePass(0, 8 * (int)sizeof(ga_uk), kin + at, vin, kout + at, vout + (vout ? at : 0));\n}\n"
        "#endif\n"
        /* argsort's first values: the indices */
        "extern \"C\" __global__ void ga_os_iota(int n, ga_u32 *v)\n{\n"
        "    GA_LOOP(q, n) v[q] = (ga_u32)q;\n}\n");
    return cm_buf_steal(&b);
}

/* p with the block for lines of m (none for m 0); 0, or -1 where m is too long. */
static int line_block(plan_t *p, int64_t m)
{
    for (int i = 0; i < NLINE_BLOCKS && m; i++)
        if ((int64_t)line_blocks[i][0] * line_blocks[i][1] >= m) {
            p->lthreads = line_blocks[i][0];
            p->litems = line_blocks[i][1];
            return 0;
        }
    return m ? -1 : 0;
}

char *ga_onesweep_source(ga_dtype_t d, int indices, int64_t m)
{
    plan_t p = plan_of(d, indices);
    line_block(&p, m);
    return ga_kernel_source(make_source, &p);
}

char *ga_onesweep_keys_source(ga_dtype_t d, int indices)
{
    plan_t p = plan_of(d, indices);
    return ga_kernel_source(make_keys, &p);
}

static void *kernel(const plan_t *p, int device, const char *name, cm_error_t *err)
{
    char sig[48];
    snprintf(sig, sizeof sig, "onesweep|%d|%d|%d|%d", (int)p->d, p->idx, p->lthreads, p->litems);
    return ga_kernel_get(device, sig, name, make_source, (void *)p, err);
}

/* [dtype][indices]: the kernels did not compile with this toolkit's CUB */
static unsigned char rejected[GA_NDTYPES][2];

int ga_onesweep_fits(const ga_array_t *a, int64_t n, int indices)
{
    return n >= 2 && n <= GA_ONESWEEP_MAX && ga_dtype_kind(a->dtype) != GA_KIND_COMPLEX &&
           !rejected[a->dtype][indices != 0] && bk_kernel_cub(a->device);
}

/* The uint32 indices v as a new int64 array. */
static ga_array_t *widened(ga_array_t *v, cm_error_t *err)
{
    ga_arg_t arg = {.kind = GA_ARG_ARRAY, .a = v};
    return ga_eval("int64(a)", NULL, 1, &arg, err);
}

int ga_onesweep_lines_fit(const ga_array_t *a, int64_t lines, int64_t m, int indices)
{
    return lines >= 2 && lines <= INT32_MAX && m >= GA_ONESWEEP_LINE_MIN && m <= GA_ONESWEEP_LINE_MAX &&
           ga_dtype_kind(a->dtype) != GA_KIND_COMPLEX && !rejected[a->dtype][indices != 0] &&
           bk_kernel_cub(a->device);
}

ga_array_t *ga_onesweep_lines(ga_array_t *a, int64_t lines, int64_t m, int indices, cm_error_t *err)
{
    plan_t p = plan_of(a->dtype, indices);
    line_block(&p, m);
    int dev = a->device;
    void *fn = kernel(&p, dev, "ga_os_lines", err);
    void *iota_fn = fn && indices ? kernel(&p, dev, "ga_os_iota", err) : NULL;
    if (!fn || (indices && !iota_fn)) {
        if (err->code == GA_E_KERNEL)
            rejected[a->dtype][p.idx] = 1;
        return NULL;
    }
    ga_array_t *k = ga_array_new(dev, a->dtype, a->ndim, a->shape, err), *iota = NULL, *v = NULL, *r = NULL;
    if (!k || (indices && (!(iota = ga_array_new(dev, GA_U32, 1, &m, err)) ||
                           !(v = ga_array_new(dev, GA_U32, a->ndim, a->shape, err)))))
        goto done;
    int mm = (int)m;
    void *pa = ga_array_data(a), *pk = ga_array_data(k);
    void *pi = iota ? ga_array_data(iota) : NULL, *pv = v ? ga_array_data(v) : NULL;
    void *ai[2] = {&mm, &pi}, *args[5] = {&pa, &pk, &pi, &pv, &mm};
    unsigned grid[3] = {(unsigned)lines, 1, 1}, block[3] = {(unsigned)p.lthreads, 1, 1};
    if ((indices && ga_kernel_launch(dev, iota_fn, m, ai, "ga_sort", err)) ||
        ga_kernel_launch_grid(dev, fn, grid, block, 0, args, "ga_sort lines", err))
        goto done;
    if (indices) { /* each element's index within its line, as int64 */
        r = widened(v, err);
    } else {
        r = k;
        k = NULL;
    }
done:
    ga_array_free(k);
    ga_array_free(iota);
    ga_array_free(v);
    return r;
}

/* Reads the histogram back and makes each pass's bins its digits'
 * starts (the exclusive scan); run[p]: pass p moves something (no digit
 * has every key). A partial tile pads with the greatest key (all ones),
 * counted in digit 255, whose count no start uses. */
static int scan_bins(ga_array_t *bins, int passes, int64_t n, int run[], cm_error_t *err)
{
    int h[8 * DIGITS];
    if (ga_copy_to_host(bins, h, err))
        return -1;
    for (int p = 0; p < passes; p++) {
        int *c = h + p * DIGITS, below = 0, all = 0;
        for (int d = 0; d < DIGITS - 1; d++) {
            all |= c[d] == n;
            below += c[d];
        }
        run[p] = !all && below != 0; /* below == 0: every key has digit 255 */
        for (int d = 0, s = 0; d < DIGITS; d++) {
            int x = c[d];
            c[d] = s;
            s += x;
        }
    }
    return bk_mem_to_device(bins->device, ga_array_data(bins), h, (size_t)passes * DIGITS * sizeof(int),
                            err);
}

ga_array_t *ga_onesweep_sort(ga_array_t *a, int indices, cm_error_t *err)
{
    plan_t p = plan_of(a->dtype, indices);
    int dev = a->device, key_bits = (int)(8 * ga_dtype_size(a->dtype)), passes = (key_bits + 7) / 8;
    int64_t n = a->size, tile = (int64_t)p.threads * p.items, blocks = (n + tile - 1) / tile;
    int64_t nb = (int64_t)passes * DIGITS, nl = blocks * DIGITS, np = passes;
    ga_array_t *bins = NULL, *look = NULL, *ctrs = NULL, *k[2] = {NULL, NULL}, *v[2] = {NULL, NULL};
    ga_array_t *r = NULL;
    void *hist_fn = kernel(&p, dev, "ga_os_hist", err);
    void *pass_fn = hist_fn ? kernel(&p, dev, "ga_os_pass", err) : NULL;
    void *scan_fn = pass_fn ? kernel(&p, dev, "ga_os_scan", err) : NULL;
    void *iota_fn = scan_fn && indices ? kernel(&p, dev, "ga_os_iota", err) : NULL;
    if (!scan_fn || (indices && !iota_fn)) {
        if (err->code == GA_E_KERNEL) /* not again: ga_onesweep_fits says no from now on */
            rejected[a->dtype][p.idx] = 1;
        return NULL;
    }
    if (!(bins = ga_create_full(dev, GA_I32, 1, &nb, 0, err)) ||
        !(ctrs = ga_create_full(dev, GA_I32, 1, &np, 0, err)) ||
        !(look = ga_array_new(dev, GA_I32, 1, &nl, err)))
        goto done;
    int nn = (int)n, rc = 0, run[8];
    void *pb = ga_array_data(bins), *pa = ga_array_data(a);
    void *ah[4] = {&pb, &pa, &nn, &key_bits};
    int64_t most = 16 * (int64_t)bk_units(dev), hb = (n + HIST_TILE - 1) / HIST_TILE;
    unsigned hgrid[3] = {(unsigned)(hb < most ? hb : most), 1, 1}, hblock[3] = {HIST_THREADS, 1, 1};
    if (ga_kernel_launch_grid(dev, hist_fn, hgrid, hblock, 0, ah, "ga_sort histogram", err))
        goto done;
    char kind = ga_dtype_kind(a->dtype);
    if ((kind == GA_KIND_INT || kind == GA_KIND_UINT) && ga_dtype_size(a->dtype) >= 4 && n >= PROBE_MIN) {
        if (scan_bins(bins, passes, n, run, err))
            goto done;
    } else { /* every pass, scanned where they are (no wait) */
        unsigned sgrid[3] = {(unsigned)passes, 1, 1}, sblock[3] = {DIGITS, 1, 1};
        void *as[1] = {&pb};
        for (int q = 0; q < passes; q++)
            run[q] = 1;
        if (ga_kernel_launch_grid(dev, scan_fn, sgrid, sblock, 0, as, "ga_sort scan", err))
            goto done;
    }
    if (indices) {
        if (!(v[0] = ga_array_new(dev, GA_U32, 1, &n, err)))
            goto done;
        void *pv = ga_array_data(v[0]);
        void *ai[2] = {&nn, &pv};
        if (ga_kernel_launch(dev, iota_fn, n, ai, "ga_sort", err))
            goto done;
    }
    /* the passes: from a into k[0], then between k[0] and k[1] */
    ga_array_t *kin = a, *vin = v[0];
    int out = 0;
    unsigned grid[3] = {(unsigned)blocks, 1, 1}, block[3] = {(unsigned)p.threads, 1, 1};
    for (int q = 0; q < passes && rc == 0; q++) {
        if (!run[q])
            continue;
        if (!k[out] && !(k[out] = ga_array_new(dev, a->dtype, 1, &n, err)))
            goto done;
        int vo = vin == v[0] ? 1 : 0; /* the values go to the other buffer */
        if (indices && !v[vo] && !(v[vo] = ga_array_new(dev, GA_U32, 1, &n, err)))
            goto done;
        if (bk_mem_zero(dev, ga_array_data(look), (size_t)nl * sizeof(int), err))
            goto done;
        void *pl = ga_array_data(look), *pc = (int *)ga_array_data(ctrs) + q;
        void *pq = (int *)pb + q * DIGITS, *pko = ga_array_data(k[out]), *pki = ga_array_data(kin);
        void *pvo = indices ? ga_array_data(v[vo]) : NULL, *pvi = indices ? ga_array_data(vin) : NULL;
        int bit = 8 * q, nbits = key_bits - bit < 8 ? key_bits - bit : 8;
        void *args[10] = {&pl, &pc, &pq, &pko, &pki, &pvo, &pvi, &nn, &bit, &nbits};
        rc = ga_kernel_launch_grid(dev, pass_fn, grid, block, 0, args, "ga_sort onesweep", err);
        kin = k[out];
        vin = indices ? v[vo] : NULL;
        out ^= 1;
    }
    if (rc)
        goto done;
    if (indices) { /* the indices of the last pass (or, with none, 0..n-1) */
        r = widened(vin, err);
    } else if (kin == a) { /* every key the same: a copy */
        r = ga_copy_array(a, dev, err);
    } else {
        r = kin;
        k[out ^ 1] = NULL; /* r holds it */
    }
done:
    ga_array_free(bins);
    ga_array_free(ctrs);
    ga_array_free(look);
    for (int i = 0; i < 2; i++) {
        ga_array_free(k[i]);
        ga_array_free(v[i]);
    }
    return r;
}
