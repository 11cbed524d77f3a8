/* ga_philox: the random number generator of gpuc, written ONCE for both
 * sides — compiled here as C for the CPU backend, and embedded as text
 * (ga_random.c stringifies the GA_RNG_CODE block below) into the CUDA
 * source of the GPU kernels, so the two cannot drift.
 *
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC'11; Random123's philox4x32 with 10 rounds, as cuRAND and NumPy's
 * Philox): a counter of 4 words and a key of 2 words give 4 words.
 *
 * The stream. Word j of a call is word j % 4 of philox(counter =
 * {lo, hi of (start + j / 4), 0, 0}, key = {lo, hi of the seed}), so every
 * element is a pure function of (seed, start, its index): no dependence on
 * grid shape or thread count. Elements take words as follows:
 *   uniform float32/float16, normal float32/float16: 1 word (4 per block)
 *   uniform float64, integers (any width):          2 words (2 per block)
 *   normal float64:                                 4 words per pair
 *   normals come in Box–Muller pairs: elements 2m and 2m+1 share words.
 *
 * Exactness. Uniform and integers use only integer operations and exact
 * float products, so both sides give the same bits. float32 and float16
 * normals compute log, sin and cos here from + - *, fused multiply-adds
 * written out (GA_RNG_FMA) and sqrt, all correctly rounded IEEE operations
 * on both sides, so they are the same bits too, PROVIDED neither compiler
 * fuses a * b + c on its own: the GPU program is compiled with
 * --fmad=false and ga_random.c with fp-contract off.
 * float64 normals call the math library's log, sin and cos (the C
 * library's, libdevice's): they agree within a few ulp of the standard
 * normal (absolute 1e-15 * std), not bit for bit.
 *
 * The code block may not hold preprocessor lines (it is one macro
 * argument); what differs between C and CUDA is the GA_RNG_* names that
 * each side defines before it. */
#ifndef GA_PHILOX_H
#define GA_PHILOX_H

#ifndef GA_RNG_CODE
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ga_dtype.h"
typedef uint32_t ga_rng_u32;
typedef uint64_t ga_rng_u64;
#define GA_RNG_FN static inline
#define GA_RNG_F2H(f) ga_float_to_half(f)   /* round to nearest even, as cvt.rn.f16.f32 */
#define GA_RNG_FMA(a, b, c) fmaf(a, b, c)    /* fused, one rounding, as __fmaf_rn */
#define GA_RNG_CLZ(x) __builtin_clz(x)       /* leading zeros of a nonzero word, as __clz */
#define GA_RNG_MULWIDE(a, b) ((ga_rng_u64)(a) * (b)) /* 32 x 32 -> 64 bits, as mul.wide.u32 */
#define GA_RNG_U2F(u) ga_rng_u2f(u)                 /* the float of these bits, as __uint_as_float */
static inline float ga_rng_u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#define GA_RNG_CODE(...) __VA_ARGS__
#endif

GA_RNG_CODE(
typedef struct ga_rng_block { ga_rng_u32 v[4]; } ga_rng_block_t;

/* The 64-bit product of two words, split (one wide multiply on a GPU). */
GA_RNG_FN ga_rng_u32 ga_rng_mulhilo(ga_rng_u32 a, ga_rng_u32 b, ga_rng_u32 *hi)
{
    ga_rng_u64 p = GA_RNG_MULWIDE(a, b);
    *hi = (ga_rng_u32)(p >> 32);
    return (ga_rng_u32)p;
}

/* Philox4x32-10 of counter c and key k. */
GA_RNG_FN ga_rng_block_t ga_philox4x32_10(ga_rng_block_t c, ga_rng_u32 k0, ga_rng_u32 k1)
{
    for (int r = 0; r < 10; r++) {
        ga_rng_u32 hi0, hi1;
        ga_rng_u32 lo0 = ga_rng_mulhilo(0xD2511F53u, c.v[0], &hi0);
        ga_rng_u32 lo1 = ga_rng_mulhilo(0xCD9E8D57u, c.v[2], &hi1);
        ga_rng_block_t n;
        n.v[0] = hi1 ^ c.v[1] ^ k0;
        n.v[1] = lo1;
        n.v[2] = hi0 ^ c.v[3] ^ k1;
        n.v[3] = lo0;
        c = n;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

/* The 4 words of block number `block` (start + index) for seed. */
GA_RNG_FN ga_rng_block_t ga_rng_words(ga_rng_u64 seed, ga_rng_u64 block)
{
    ga_rng_block_t c;
    c.v[0] = (ga_rng_u32)block;
    c.v[1] = (ga_rng_u32)(block >> 32);
    c.v[2] = 0;
    c.v[3] = 0;
    return ga_philox4x32_10(c, (ga_rng_u32)seed, (ga_rng_u32)(seed >> 32));
}

/* [0, 1) with 24 random bits: exact in float. */
GA_RNG_FN float ga_rng_uniform_f32(ga_rng_u32 w)
{
    return (float)(w >> 8) * 5.9604644775390625e-08f;
}

/* [0, 1) with 11 random bits: every value is a float16, so the rounding is exact. */
GA_RNG_FN unsigned short ga_rng_uniform_f16(ga_rng_u32 w)
{
    return GA_RNG_F2H((float)(w >> 21) * 4.8828125e-04f);
}

/* [0, 1) with 53 random bits (NumPy's construction from two words). */
GA_RNG_FN double ga_rng_uniform_f64(ga_rng_u32 a, ga_rng_u32 b)
{
    return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16;
}

/* log((a + 1) / 2^32) in float, from correctly rounded operations alone
 * (+ - * and fused multiply-add), so that both sides round alike: a + 1 =
 * m 2^e with m (its first 24 bits) in [sqrt(1/2), sqrt(2)), log m by
 * Cephes' logf polynomial in m - 1, e ln 2 in two parts. Within 2 float
 * ulp of the log of the first 24 bits of a + 1. */
GA_RNG_FN float ga_rng_log_u32(ga_rng_u32 a)
{
    if (a == 0xFFFFFFFFu)
        return 0.0f; /* a + 1 = 2^32 */
    ga_rng_u32 x = a + 1;
    int e = 31 - GA_RNG_CLZ(x); /* floor(log2(x)) */
    /* m in [1, 2): the first 24 bits of x, put in a float's bits (no conversion) */
    float m = GA_RNG_U2F(0x3F800000u | (((x << (31 - e)) >> 8) & 0x7FFFFFu));
    if (m > 1.41421356f) {
        m *= 0.5f;
        e += 1;
    }
    float t = m - 1.0f, z = t * t, y = 7.0376836292e-2f;
    y = GA_RNG_FMA(y, t, -1.1514610310e-1f);
    y = GA_RNG_FMA(y, t, 1.1676998740e-1f);
    y = GA_RNG_FMA(y, t, -1.2420140846e-1f);
    y = GA_RNG_FMA(y, t, 1.4249322787e-1f);
    y = GA_RNG_FMA(y, t, -1.6668057665e-1f);
    y = GA_RNG_FMA(y, t, 2.0000714765e-1f);
    y = GA_RNG_FMA(y, t, -2.4999993993e-1f);
    y = GA_RNG_FMA(y, t, 3.3333331174e-1f);
    y = y * t * z;
    float k = GA_RNG_U2F(0x4B000000u | (ga_rng_u32)(e + 64)) - 8388704.0f; /* e - 32, exact */
    y = GA_RNG_FMA(k, -2.12194440e-4f, y);
    y = GA_RNG_FMA(-0.5f, z, y);
    return GA_RNG_FMA(k, 0.693359375f, t + y);
}

/* sin and cos of 2 pi b / 2^32 in float (b's low 7 bits dropped),
 * likewise: the quadrant from the top 2 bits, the eighth by symmetry,
 * then Cephes' sinf and cosf polynomials on [0, pi/4]. Within 2 float ulp
 * (absolute 1.5e-7). */
GA_RNG_FN void ga_rng_sincos_u32(ga_rng_u32 b, float *sn, float *cs)
{
    ga_rng_u32 q = b >> 30;
    /* [0, 1) of a quarter turn: bits 29..7 of b in a float's bits */
    float f = GA_RNG_U2F(0x3F800000u | ((b >> 7) & 0x7FFFFFu)) - 1.0f;
    int swap = f > 0.5f;
    if (swap)
        f = 1.0f - f;
    float x = f * 1.57079633f, z = x * x;
    float ps = GA_RNG_FMA(GA_RNG_FMA(-1.9515295891e-4f, z, 8.3321608736e-3f), z, -1.6666654611e-1f);
    float pc = GA_RNG_FMA(GA_RNG_FMA(2.443315711809948e-5f, z, -1.388731625493765e-3f), z,
                          4.166664568298827e-2f);
    float s = GA_RNG_FMA(ps * z, x, x);
    float c = GA_RNG_FMA(pc * z, z, GA_RNG_FMA(-0.5f, z, 1.0f));
    /* the eighth's mirror and odd quadrants swap sin and cos; quadrants 2
     * and 3 negate sin, 1 and 2 cos */
    int sw = swap ^ (int)(q & 1);
    float s2 = sw ? c : s, c2 = sw ? s : c;
    *sn = (q & 2) ? -s2 : s2;
    *cs = ((q + 1) & 2) ? -c2 : c2;
}

/* A pair of normals from two words (float32 and float16), all in float
 * with the functions above (mean and std rounded to float). */
GA_RNG_FN void ga_rng_normal_pair32(ga_rng_u32 a, ga_rng_u32 b, float mean, float std, float *z0,
                                    float *z1)
{
    float r = sqrtf(-2.0f * ga_rng_log_u32(a));
    float s, c;
    ga_rng_sincos_u32(b, &s, &c);
    *z0 = GA_RNG_FMA(std, r * c, mean);
    *z1 = GA_RNG_FMA(std, r * s, mean);
}

/* Four normals (two pairs) from one block (float32 and float16). */
GA_RNG_FN void ga_rng_normal4(ga_rng_block_t w, float mean, float std, float *z)
{
    ga_rng_normal_pair32(w.v[0], w.v[1], mean, std, &z[0], &z[1]);
    ga_rng_normal_pair32(w.v[2], w.v[3], mean, std, &z[2], &z[3]);
}

/* A pair of float64 normals from one block (53 bits for each uniform):
 * Box–Muller in double with the math library's log, sin and cos (the C
 * library's on the CPU, libdevice's on a GPU: equal within a few ulp). */
GA_RNG_FN void ga_rng_normal_pair64(ga_rng_block_t w, double mean, double std, double *z0,
                                    double *z1)
{
    double u1 = ((double)(w.v[0] >> 5) * 67108864.0 + (double)(w.v[1] >> 6) + 1.0) *
                1.1102230246251565e-16;
    double r = sqrt(-2.0 * log(u1));
    double t = 6.283185307179586 * ga_rng_uniform_f64(w.v[2], w.v[3]);
    *z0 = mean + std * (r * cos(t));
    *z1 = mean + std * (r * sin(t));
}

/* The high 64 bits of a * b, from 32-bit pieces (the same on both sides). */
GA_RNG_FN ga_rng_u64 ga_rng_mulhi64(ga_rng_u64 a, ga_rng_u64 b)
{
    ga_rng_u64 al = (ga_rng_u32)a, ah = a >> 32, bl = (ga_rng_u32)b, bh = b >> 32;
    ga_rng_u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    ga_rng_u64 mid = (ll >> 32) + (ga_rng_u32)lh + (ga_rng_u32)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* low + an integer in [0, range) from two words (range 0 means 2^64): the
 * top of a 64 x 64-bit product, so the bias is below range / 2^64. */
GA_RNG_FN ga_rng_u64 ga_rng_integer(ga_rng_u32 a, ga_rng_u32 b, ga_rng_u64 low, ga_rng_u64 range)
{
    ga_rng_u64 x = ((ga_rng_u64)a << 32) | b;
    return low + (range ? ga_rng_mulhi64(x, range) : x);
}
)

#endif
