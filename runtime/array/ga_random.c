/* ga_random: random arrays on the CPU backend and on a GPU from the one
 * generator of ga_philox.h (see ga_random.h). */
#include "ga_random.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "bk.h"
#include "ga_api.h"

/* The generator as C, for the CPU backend, with a * b + c never fused
 * (ga_philox.h: float normals must round as the GPU's, which is compiled
 * with --fmad=false) ... */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#include "ga_philox.h"

/* ... and the same text as a string, for the GPU's kernels. */
#undef GA_PHILOX_H
#undef GA_RNG_CODE
#define GA_RNG_CODE(...) static const char philox_code[] = #__VA_ARGS__;
#include "ga_philox.h"

/* ---- checking --------------------------------------------------------- */

static int is_float(ga_dtype_t d)
{
    return d == GA_F16 || d == GA_F32 || d == GA_F64;
}

static int is_integer(ga_dtype_t d)
{
    return d >= GA_I8 && d <= GA_U64;
}

/* The least and greatest value of the integer dtype d (u64: capped at
 * INT64_MAX, the largest bound a long long can give). */
static void integer_limits(ga_dtype_t d, int64_t *lo, int64_t *hi)
{
    size_t bits = ga_dtype_size(d) * 8;
    int is_signed = ga_dtype_kind(d) == GA_KIND_INT;
    if (bits == 64) {
        *lo = is_signed ? INT64_MIN : 0;
        *hi = INT64_MAX;
    } else if (is_signed) {
        *lo = -((int64_t)1 << (bits - 1));
        *hi = ((int64_t)1 << (bits - 1)) - 1;
    } else {
        *lo = 0;
        *hi = ((int64_t)1 << bits) - 1;
    }
}

int ga_random_check(const ga_rng_params_t *p, ga_dtype_t dtype, cm_error_t *err)
{
    if (!ga_dtype_valid((int)dtype)) {
        CM_ERROR(err, GA_E_DTYPE, "%d is not a dtype", (int)dtype);
        return -1;
    }
    if (p->dist == GA_RNG_INTEGERS) {
        if (!is_integer(dtype)) {
            CM_ERROR(err, GA_E_DTYPE,
                     "integers are made as int8 ... uint64, not %s (use ga_random or ga_normal "
                     "for floats)", ga_dtype_name(dtype));
            return -1;
        }
        int64_t lo, hi;
        integer_limits(dtype, &lo, &hi);
        if (p->low >= p->high) {
            CM_ERROR(err, GA_E_VALUE, "low >= high (%lld >= %lld): the range [low, high) is empty",
                     (long long)p->low, (long long)p->high);
            return -1;
        }
        if (p->low < lo || p->high - 1 > hi) {
            CM_ERROR(err, GA_E_VALUE, "[%lld, %lld) does not fit %s (%lld ... %lld)",
                     (long long)p->low, (long long)p->high, ga_dtype_name(dtype), (long long)lo,
                     (long long)hi);
            return -1;
        }
        return 0;
    }
    if (!is_float(dtype)) {
        CM_ERROR(err, GA_E_DTYPE,
                 "%s numbers are made as float16, float32 or float64, not %s%s",
                 p->dist == GA_RNG_NORMAL ? "normal" : "uniform", ga_dtype_name(dtype),
                 is_integer(dtype) ? " (use ga_integers)" : "");
        return -1;
    }
    if (p->dist == GA_RNG_NORMAL && !(p->std >= 0 && isfinite(p->std) && isfinite(p->mean))) {
        CM_ERROR(err, GA_E_VALUE, "mean %g and std %g: std must be >= 0 and both finite",
                 p->mean, p->std);
        return -1;
    }
    return 0;
}

/* Elements per Philox block (ga_philox.h's table). */
static int64_t per_block(ga_rng_dist_t dist, ga_dtype_t dtype)
{
    if (dist == GA_RNG_INTEGERS || dtype == GA_F64)
        return 2;
    return 4;
}

uint64_t ga_random_blocks(ga_rng_dist_t dist, ga_dtype_t dtype, int64_t n)
{
    int64_t per = per_block(dist, dtype);
    return n > 0 ? (uint64_t)((n + per - 1) / per) : 0;
}

/* ---- the CPU backend -------------------------------------------------- */

/* Block c's elements into vals (up to 4; as doubles, or integer bits in u). */
static void cpu_block(const ga_rng_params_t *p, ga_dtype_t dtype, ga_rng_block_t w, double *v,
                      uint64_t *u)
{
    float z[4];
    uint64_t range = (uint64_t)p->high - (uint64_t)p->low;
    switch (p->dist) {
    case GA_RNG_UNIFORM:
        if (dtype == GA_F64) {
            v[0] = ga_rng_uniform_f64(w.v[0], w.v[1]);
            v[1] = ga_rng_uniform_f64(w.v[2], w.v[3]);
        } else {
            for (int k = 0; k < 4; k++)
                v[k] = ga_rng_uniform_f32(w.v[k]);
        }
        break;
    case GA_RNG_NORMAL:
        if (dtype == GA_F64) {
            ga_rng_normal_pair64(w, p->mean, p->std, &v[0], &v[1]);
        } else {
            ga_rng_normal4(w, (float)p->mean, (float)p->std, ga_rng_logtab, z);
            for (int k = 0; k < 4; k++)
                v[k] = z[k];
        }
        break;
    case GA_RNG_INTEGERS:
        u[0] = ga_rng_integer(w.v[0], w.v[1], (uint64_t)p->low, range);
        u[1] = ga_rng_integer(w.v[2], w.v[3], (uint64_t)p->low, range);
        break;
    }
}

static void cpu_fill(void *out, ga_dtype_t dtype, int64_t n, const ga_rng_params_t *p,
                     uint64_t seed, uint64_t start)
{
    int64_t per = per_block(p->dist, dtype);
    size_t size = ga_dtype_size(dtype);
    for (int64_t c = 0; c * per < n; c++) {
        ga_rng_block_t w = ga_rng_words(seed, start + (uint64_t)c);
        double v[4] = {0};
        uint64_t u[4] = {0}; /* integers use two (per_block), the rest none */
        cpu_block(p, dtype, w, v, u);
        for (int64_t k = 0; k < per && c * per + k < n; k++) {
            int64_t i = c * per + k;
            if (p->dist == GA_RNG_INTEGERS) {
                memcpy((char *)out + (size_t)i * size, &u[k], size); /* little-endian low bytes */
            } else if (dtype == GA_F16) {
                uint16_t h = p->dist == GA_RNG_UNIFORM ? ga_rng_uniform_f16(w.v[k])
                                                       : GA_RNG_F2H((float)v[k]);
                ((uint16_t *)out)[i] = h;
            } else if (dtype == GA_F32) {
                ((float *)out)[i] = (float)v[k];
            } else {
                ((double *)out)[i] = v[k];
            }
        }
    }
}

/* ---- the GPU ---------------------------------------------------------- */

/* The kernels: one per (distribution, element type), all with the
 * parameters (out, n, seed, start, mean, std, low, range). Each thread
 * takes whole Philox blocks in a grid-stride loop and stores a block's elements with one vector store; the
 * last, partial block is stored element by element by the thread whose
 * turn it would be. Leaving the bounds check out of the loop matters: the
 * normals are bound by instructions, not memory. */
static const char kernels_code[] =
    "#define GA_RNG_PARAMS void *outp, unsigned long long n, unsigned long long seed, \\\n"
    "    unsigned long long start, double mean, double std, unsigned long long low, \\\n"
    "    unsigned long long range\n"
    "/* body(c, full) for every block c < ceil(n / per), full when all its elements\n"
    " * are below n (the host launches at most 2^30 blocks at a time: 32-bit counters) */\n"
    "template <typename F> __device__ __forceinline__ void\n"
    "each_block(unsigned long long n, unsigned per, F body)\n"
    "{\n"
    "    unsigned full = (unsigned)(n / per), step = gridDim.x * blockDim.x;\n"
    "    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    for (; c < full; c += step)\n"
    "        body((unsigned long long)c, true);\n"
    "    if (c == full && n % per)\n"
    "        body((unsigned long long)c, false);\n"
    "}\n"
    "template <typename T, typename V4> __device__ __forceinline__ void\n"
    "store4(T *out, unsigned long long n, unsigned long long c, bool full, T a, T b, T d, T e)\n"
    "{\n"
    "    if (full) {\n"
    "        V4 v; v.x = a; v.y = b; v.z = d; v.w = e; *(V4 *)(out + c * 4) = v;\n"
    "    } else {\n"
    "        T t[4] = {a, b, d, e};\n"
    "        for (unsigned long long k = 0; c * 4 + k < n; k++) out[c * 4 + k] = t[k];\n"
    "    }\n"
    "}\n"
    "template <typename T, typename V2> __device__ __forceinline__ void\n"
    "store2(T *out, unsigned long long c, bool full, T a, T b)\n"
    "{\n"
    "    if (full) { V2 v; v.x = a; v.y = b; *(V2 *)(out + c * 2) = v; }\n"
    "    else out[c * 2] = a;\n"
    "}\n"
    "/* the log table, copied to shared memory (indexed by each thread's own value) */\n"
    "#define GA_RNG_SHARED_TABLE \\\n"
    "    __shared__ float tab[32][2]; \\\n"
    "    if (threadIdx.x < 64) tab[threadIdx.x >> 1][threadIdx.x & 1] = \\\n"
    "        ga_rng_logtab[threadIdx.x >> 1][threadIdx.x & 1]; \\\n"
    "    __syncthreads()\n"
    "extern \"C\" __global__ void ga_uniform_f32(GA_RNG_PARAMS)\n"
    "{\n"
    "    each_block(n, 4, [&](unsigned long long c, bool full) {\n"
    "        ga_rng_block_t w = ga_rng_words(seed, start + c);\n"
    "        store4<float, float4>((float *)outp, n, c, full, ga_rng_uniform_f32(w.v[0]),\n"
    "            ga_rng_uniform_f32(w.v[1]), ga_rng_uniform_f32(w.v[2]), ga_rng_uniform_f32(w.v[3]));\n"
    "    });\n"
    "}\n"
    "extern \"C\" __global__ void ga_uniform_f16(GA_RNG_PARAMS)\n"
    "{\n"
    "    each_block(n, 4, [&](unsigned long long c, bool full) {\n"
    "        ga_rng_block_t w = ga_rng_words(seed, start + c);\n"
    "        store4<unsigned short, ushort4>((unsigned short *)outp, n, c, full,\n"
    "            ga_rng_uniform_f16(w.v[0]), ga_rng_uniform_f16(w.v[1]), ga_rng_uniform_f16(w.v[2]),\n"
    "            ga_rng_uniform_f16(w.v[3]));\n"
    "    });\n"
    "}\n"
    "extern \"C\" __global__ void ga_uniform_f64(GA_RNG_PARAMS)\n"
    "{\n"
    "    each_block(n, 2, [&](unsigned long long c, bool full) {\n"
    "        ga_rng_block_t w = ga_rng_words(seed, start + c);\n"
    "        store2<double, double2>((double *)outp, c, full, ga_rng_uniform_f64(w.v[0], w.v[1]),\n"
    "            ga_rng_uniform_f64(w.v[2], w.v[3]));\n"
    "    });\n"
    "}\n"
    "extern \"C\" __global__ void ga_normal_f32(GA_RNG_PARAMS)\n"
    "{\n"
    "    GA_RNG_SHARED_TABLE;\n"
    "    each_block(n, 4, [&](unsigned long long c, bool full) {\n"
    "        float z[4];\n"
    "        ga_rng_normal4(ga_rng_words(seed, start + c), (float)mean, (float)std, tab, z);\n"
    "        store4<float, float4>((float *)outp, n, c, full, z[0], z[1], z[2], z[3]);\n"
    "    });\n"
    "}\n"
    "extern \"C\" __global__ void ga_normal_f16(GA_RNG_PARAMS)\n"
    "{\n"
    "    GA_RNG_SHARED_TABLE;\n"
    "    each_block(n, 4, [&](unsigned long long c, bool full) {\n"
    "        float z[4];\n"
    "        ga_rng_normal4(ga_rng_words(seed, start + c), (float)mean, (float)std, tab, z);\n"
    "        store4<unsigned short, ushort4>((unsigned short *)outp, n, c, full,\n"
    "            GA_RNG_F2H(z[0]), GA_RNG_F2H(z[1]), GA_RNG_F2H(z[2]), GA_RNG_F2H(z[3]));\n"
    "    });\n"
    "}\n"
    "/* STANDARD: mean 0 and std 1, known in the loop (ga_rng_normal_pair64's short path) */\n"
    "template <bool STANDARD> __device__ __forceinline__ void\n"
    "normal_f64(double *out, unsigned long long n, unsigned long long seed, unsigned long long start,\n"
    "           double mean, double std)\n"
    "{\n"
    "    each_block(n, 2, [&](unsigned long long c, bool full) {\n"
    "        double z0, z1;\n"
    "        ga_rng_normal_pair64(ga_rng_words(seed, start + c), STANDARD ? 0.0 : mean,\n"
    "                             STANDARD ? 1.0 : std, &z0, &z1);\n"
    "        store2<double, double2>(out, c, full, z0, z1);\n"
    "    });\n"
    "}\n"
    "extern \"C\" __global__ void ga_normal_f64(GA_RNG_PARAMS)\n"
    "{\n"
    "    if (mean == 0.0 && std == 1.0)\n"
    "        normal_f64<true>((double *)outp, n, seed, start, mean, std);\n"
    "    else\n"
    "        normal_f64<false>((double *)outp, n, seed, start, mean, std);\n"
    "}\n"
    "template <typename T> __device__ __forceinline__ void\n"
    "integers(T *out, unsigned long long n, unsigned long long seed, unsigned long long start,\n"
    "         unsigned long long low, unsigned long long range)\n"
    "{\n"
    "    each_block(n, 2, [&](unsigned long long c, bool full) {\n"
    "        ga_rng_block_t w = ga_rng_words(seed, start + c);\n"
    "        out[c * 2] = (T)ga_rng_integer(w.v[0], w.v[1], low, range);\n"
    "        if (full) out[c * 2 + 1] = (T)ga_rng_integer(w.v[2], w.v[3], low, range);\n"
    "    });\n"
    "}\n"
    "extern \"C\" __global__ void ga_integers_1(GA_RNG_PARAMS)\n"
    "{ integers((unsigned char *)outp, n, seed, start, low, range); }\n"
    "extern \"C\" __global__ void ga_integers_2(GA_RNG_PARAMS)\n"
    "{ integers((unsigned short *)outp, n, seed, start, low, range); }\n"
    "extern \"C\" __global__ void ga_integers_4(GA_RNG_PARAMS)\n"
    "{ integers((unsigned int *)outp, n, seed, start, low, range); }\n"
    "extern \"C\" __global__ void ga_integers_8(GA_RNG_PARAMS)\n"
    "{ integers((unsigned long long *)outp, n, seed, start, low, range); }\n";

/* What the CUDA side defines before the generator's code. */
static const char cuda_prelude[] =
    "typedef unsigned int ga_rng_u32;\n"
    "typedef unsigned long long ga_rng_u64;\n"
    "#define GA_RNG_FN static __device__ __forceinline__\n"
    "static __device__ __forceinline__ unsigned short ga_rng_f2h(float f)\n"
    "{ unsigned short h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }\n"
    "#define GA_RNG_F2H(f) ga_rng_f2h(f)\n"
    "#define GA_RNG_FMA(a, b, c) __fmaf_rn(a, b, c)\n"
    "#define GA_RNG_CLZ(x) __clz((int)(x))\n"
    "#define GA_RNG_U2F(u) __uint_as_float(u)\n"
    "#define GA_RNG_U2F_RZ_BITS(x) __float_as_uint(__uint2float_rz(x))\n"
    "#define GA_RNG_TABLE static __constant__ const\n"
    "/* sqrt.rn's fast path: exact for every input in [2^-24, 64), checked on an H100 */\n"
    "static __device__ __forceinline__ float ga_rng_sqrt(float x)\n"
    "{ float y; asm(\"rsqrt.approx.ftz.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n"
    "  float s = __fmul_rn(x, y), h = __fmul_rn(y, 0.5f);\n"
    "  return __fmaf_rn(__fmaf_rn(-s, s, x), h, s); }\n"
    "#define GA_RNG_SQRT(x) ga_rng_sqrt(x)\n"
    "#define GA_RNG_SINCOS_2PI_53(x, s, c) sincospi((double)(x) * 2.220446049250313e-16, (s), (c))\n"
    "#define GA_RNG_MUL0(a, b) fma((a), (b), 0.0)\n"
    "static __device__ __forceinline__ unsigned long long ga_rng_mulwide(unsigned a, unsigned b)\n"
    "{ unsigned long long p; asm(\"mul.wide.u32 %0, %1, %2;\" : \"=l\"(p) : \"r\"(a), \"r\"(b));\n"
    "  return p; }\n"
    "#define GA_RNG_MULWIDE(a, b) ga_rng_mulwide(a, b)\n";

/* The whole CUDA source: prelude, generator, kernels (built once). */
const char *ga_random_cuda_source(void)
{
    static char source[sizeof cuda_prelude + sizeof philox_code + sizeof kernels_code + 8];
    if (!source[0])
        snprintf(source, sizeof source, "%s%s\n%s", cuda_prelude, philox_code, kernels_code);
    return source;
}

/* The kernel's name for p and dtype. */
static void kernel_name(const ga_rng_params_t *p, ga_dtype_t dtype, char *buf, size_t len)
{
    if (p->dist == GA_RNG_INTEGERS)
        snprintf(buf, len, "ga_integers_%zu", ga_dtype_size(dtype));
    else
        snprintf(buf, len, "ga_%s_%s", p->dist == GA_RNG_NORMAL ? "normal" : "uniform",
                 dtype == GA_F16 ? "f16" : dtype == GA_F32 ? "f32" : "f64");
}

#define THREADS 256

static int gpu_fill(int device, void *out, ga_dtype_t dtype, int64_t n,
                    const ga_rng_params_t *p, uint64_t seed, uint64_t start, cm_error_t *err)
{
    char name[32];
    kernel_name(p, dtype, name, sizeof name);
    int fused = p->dist == GA_RNG_NORMAL && dtype == GA_F64; /* ga_random.h */
    void *kernel = bk_kernel_get(device, ga_random_cuda_source(),
                                 fused ? GA_RANDOM_CUDA_OPTIONS_F64 : GA_RANDOM_CUDA_OPTIONS, name,
                                 err);
    if (!kernel)
        return -1;
    /* at most 2^30 blocks a launch, so that the kernels count in 32 bits */
    const int64_t per = per_block(p->dist, dtype), most = ((int64_t)1 << 30) * per;
    uint64_t cap = (uint64_t)bk_units(device) * 32; /* enough warps to hide latency */
    unsigned long long low = (uint64_t)p->low, range = (uint64_t)p->high - (uint64_t)p->low;
    double mean = p->mean, std = p->std;
    char what[64];
    snprintf(what, sizeof what, "ga_random (%s)", name);
    for (int64_t done = 0; done < n; done += most) {
        int64_t part = n - done < most ? n - done : most;
        uint64_t want = (ga_random_blocks(p->dist, dtype, part) + THREADS - 1) / THREADS;
        unsigned grid[3] = {(unsigned)(want < cap ? want : cap), 1, 1};
        unsigned block[3] = {THREADS, 1, 1};
        void *dst = (char *)out + (size_t)done * ga_dtype_size(dtype);
        unsigned long long nn = (unsigned long long)part, sd = seed;
        unsigned long long st = start + (uint64_t)(done / per);
        void *args[] = {&dst, &nn, &sd, &st, &mean, &std, &low, &range};
        if (bk_kernel_launch(device, kernel, grid, block, 0, args, what, err) != 0)
            return -1;
    }
    return 0;
}

int ga_random_fill(ga_array_t *a, const ga_rng_params_t *p, uint64_t seed, uint64_t start,
                   cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    if (!ga_array_is_contiguous(a)) {
        CM_ERROR(err, GA_E_SHAPE, "random numbers are written into contiguous arrays");
        return -1;
    }
    if (a->size == 0)
        return 0;
    if (bk_lang(a->device) == BK_LANG_C) { /* host memory: filled here */
        cpu_fill(ga_array_data(a), a->dtype, a->size, p, seed, start);
        return 0;
    }
    return gpu_fill(a->device, ga_array_data(a), a->dtype, a->size, p, seed, start, err);
}

/* ---- the session generator ---------------------------------------------- */

static struct {
    int seeded;
    uint64_t seed;
    uint64_t counter; /* the next free Philox block */
} state;

void ga_random_seed(uint64_t seed)
{
    state.seeded = 1;
    state.seed = seed;
    state.counter = 0;
}

static void seed_from_entropy(void)
{
    uint64_t s;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s)
        s = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
    ga_random_seed(s);
}

void ga_random_state(uint64_t *seed, uint64_t *counter)
{
    if (!state.seeded)
        seed_from_entropy();
    *seed = state.seed;
    *counter = state.counter;
}

ga_array_t *ga_random_new(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                          const ga_rng_params_t *p, cm_error_t *err)
{
    if (ga_random_check(p, dtype, err) != 0)
        return NULL;
    ga_array_t *a = ga_array_new(device, dtype, ndim, shape, err);
    if (!a)
        return NULL;
    uint64_t seed, start;
    ga_random_state(&seed, &start);
    if (ga_random_fill(a, p, seed, start, err) != 0) {
        ga_array_free(a);
        return NULL;
    }
    state.counter += ga_random_blocks(p->dist, dtype, a->size);
    return a;
}

/* ---- what cells call ---------------------------------------------------- */

static ga_array_t *make(const char *fn, int dtype, const ga_rng_params_t *p, int ndim,
                        const long long *dims)
{
    if (ndim < 0 || ndim > GA_MAX_DIMS || (ndim && !dims)) {
        ga_api_failf(fn, GA_E_SHAPE, "%d dimensions: an array has 0 to %d", ndim, GA_MAX_DIMS);
        return NULL;
    }
    int64_t shape[GA_MAX_DIMS];
    for (int k = 0; k < ndim; k++)
        shape[k] = dims[k];
    cm_error_t err = {0};
    ga_array_t *a = ga_random_new(bk_default_device(), (ga_dtype_t)dtype, ndim, shape, p, &err);
    if (!a)
        ga_api_fail(fn, &err);
    return a;
}

ga_array_t *ga_api_random(ga_cell_dtype_t dtype, int ndim, const long long *dims)
{
    ga_rng_params_t p = {.dist = GA_RNG_UNIFORM};
    return make("ga_random", dtype.code, &p, ndim, dims);
}

ga_array_t *ga_api_normal(ga_cell_dtype_t dtype, double mean, double std, int ndim, const long long *dims)
{
    ga_rng_params_t p = {.dist = GA_RNG_NORMAL, .mean = mean, .std = std};
    return make("ga_normal", dtype.code, &p, ndim, dims);
}

ga_array_t *ga_api_integers(ga_cell_dtype_t dtype, long long low, long long high, int ndim,
                            const long long *dims)
{
    ga_rng_params_t p = {.dist = GA_RNG_INTEGERS, .low = low, .high = high};
    return make("ga_integers", dtype.code, &p, ndim, dims);
}

void ga_api_seed(unsigned long long seed)
{
    ga_random_seed(seed);
}
