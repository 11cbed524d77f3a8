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
 * library's; libdevice's log and sincospi, in a program compiled with
 * fused multiply-adds): they agree within a few ulp of the standard normal
 * (absolute 1e-14 * std), not bit for bit.
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
#define GA_RNG_U2F_RZ_BITS(x) ga_rng_u2f_rz_bits(x) /* bits of x's float rounded to zero, as cvt.rz */
#define GA_RNG_SQRT(x) sqrtf(x)                     /* correctly rounded, as sqrt.rn */
/* sin and cos of 2πv for v = x 2^-53, x an integer below 2^53 (a GPU:
 * sincospi(x 2^-52), as cuRAND's sincospi(2v): the same value, exactly) */
#define GA_RNG_SINCOS_2PI_53(x, s, c)                                         \
    (*(s) = sin(6.283185307179586 * ((double)(x) * 1.1102230246251565e-16)), \
     *(c) = cos(6.283185307179586 * ((double)(x) * 1.1102230246251565e-16)))
/* a * b rounded once, a zero +0 (as fma(a, b, 0.0)) */
#define GA_RNG_MUL0(a, b) ((a) * (b) + 0.0)
#define GA_RNG_TABLE static const
static inline float ga_rng_u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
/* The bits of x (nonzero) as a float truncated to its first 24 bits. */
static inline uint32_t ga_rng_u2f_rz_bits(uint32_t x)
{
    int e = 31 - __builtin_clz(x);
    return ((uint32_t)(e + 127) << 23) | (((x << (31 - e)) >> 8) & 0x7FFFFFu);
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

/* The 53 random bits of a float64 uniform from two words (NumPy's
 * construction, (a >> 5) * 2^26 + (b >> 6)), put together in integers:
 * one conversion to double, not two and a multiply-add (the same value,
 * exactly: it is below 2^53). */
GA_RNG_FN ga_rng_u64 ga_rng_bits53(ga_rng_u32 a, ga_rng_u32 b)
{
    return ((ga_rng_u64)(a >> 5) << 26) | (ga_rng_u64)(b >> 6);
}

/* [0, 1) with 53 random bits. */
GA_RNG_FN double ga_rng_uniform_f64(ga_rng_u32 a, ga_rng_u32 b)
{
    return (double)ga_rng_bits53(a, b) * 1.1102230246251565e-16;
}

/* The table of ga_rng_log_u32: for each of 32 slices of [0.699, 1.398)
 * (z's bits from 0x3f330000 in steps of 2^18), a float invc near 1 / (the
 * slice's centre) chosen so that logc = -log(invc) rounds to a float with
 * an error under 0.001 ulp, and 1, 0 for the slice holding 1, so that
 * values near 1 keep their relative accuracy. Made by a search over the
 * floats within 3000 ulp of each 1 / centre. */
GA_RNG_TABLE float ga_rng_logtab[32][2] = {
    {1.414174199e+00f, -3.465457559e-01f}, /* z in [0.699219, 0.714844): log error 0.0002 ulp */
    {1.383918524e+00f, -3.249189854e-01f}, /* z in [0.714844, 0.730469): log error 0.0000 ulp */
    {1.354714155e+00f, -3.035904765e-01f}, /* z in [0.730469, 0.746094): log error 0.0003 ulp */
    {1.326195478e+00f, -2.823143005e-01f}, /* z in [0.746094, 0.761719): log error 0.0000 ulp */
    {1.299163580e+00f, -2.617206573e-01f}, /* z in [0.761719, 0.777344): log error 0.0001 ulp */
    {1.273405671e+00f, -2.416949421e-01f}, /* z in [0.777344, 0.792969): log error 0.0000 ulp */
    {1.248833537e+00f, -2.222099453e-01f}, /* z in [0.792969, 0.808594): log error 0.0000 ulp */
    {1.225136757e+00f, -2.030524760e-01f}, /* z in [0.808594, 0.824219): log error 0.0000 ulp */
    {1.202153087e+00f, -1.841141880e-01f}, /* z in [0.824219, 0.839844): log error 0.0000 ulp */
    {1.180056691e+00f, -1.655624807e-01f}, /* z in [0.839844, 0.855469): log error 0.0000 ulp */
    {1.158082724e+00f, -1.467658132e-01f}, /* z in [0.855469, 0.871094): log error 0.0001 ulp */
    {1.137538195e+00f, -1.288664490e-01f}, /* z in [0.871094, 0.886719): log error 0.0000 ulp */
    {1.117836833e+00f, -1.113954186e-01f}, /* z in [0.886719, 0.902344): log error 0.0000 ulp */
    {1.098891854e+00f, -9.430226684e-02f}, /* z in [0.902344, 0.917969): log error 0.0000 ulp */
    {1.080421805e+00f, -7.735152543e-02f}, /* z in [0.917969, 0.933594): log error 0.0000 ulp */
    {1.062013745e+00f, -6.016686559e-02f}, /* z in [0.933594, 0.949219): log error 0.0000 ulp */
    {1.045127273e+00f, -4.413866997e-02f}, /* z in [0.949219, 0.964844): log error 0.0001 ulp */
    {1.028324127e+00f, -2.793041617e-02f}, /* z in [0.964844, 0.980469): log error 0.0000 ulp */
    {1.011843204e+00f, -1.177362259e-02f}, /* z in [0.980469, 0.996094): log error 0.0001 ulp */
    {1.000000000e+00f, 0.000000000e+00f}, /* z in [0.996094, 1.023438): log error 0.0000 ulp */
    {9.622548223e-01f, 3.847597539e-02f}, /* z in [1.023438, 1.054688): log error 0.0002 ulp */
    {9.342448711e-01f, 6.801670045e-02f}, /* z in [1.054688, 1.085938): log error 0.0001 ulp */
    {9.077099562e-01f, 9.683038294e-02f}, /* z in [1.085938, 1.117188): log error 0.0002 ulp */
    {8.826612234e-01f, 1.248138174e-01f}, /* z in [1.117188, 1.148438): log error 0.0001 ulp */
    {8.590158820e-01f, 1.519678682e-01f}, /* z in [1.148438, 1.179688): log error 0.0001 ulp */
    {8.364321589e-01f, 1.786098629e-01f}, /* z in [1.179688, 1.210938): log error 0.0000 ulp */
    {8.152427077e-01f, 2.042694092e-01f}, /* z in [1.210938, 1.242188): log error 0.0000 ulp */
    {7.949555516e-01f, 2.294690758e-01f}, /* z in [1.242188, 1.273438): log error 0.0001 ulp */
    {7.756067514e-01f, 2.541096509e-01f}, /* z in [1.273438, 1.304688): log error 0.0001 ulp */
    {7.573006153e-01f, 2.779949903e-01f}, /* z in [1.304688, 1.335938): log error 0.0003 ulp */
    {7.397172451e-01f, 3.014872670e-01f}, /* z in [1.335938, 1.367188): log error 0.0000 ulp */
    {7.233168483e-01f, 3.239079118e-01f}, /* z in [1.367188, 1.398438): log error 0.0001 ulp */
};

/* log((a + 1) / 2^32) in float, from correctly rounded operations alone
 * (+ - * and fused multiply-add), so that both sides round alike. x = a + 1
 * truncated to 24 bits is 2^k z with z in [0.699, 1.398); log z = logc +
 * log1p(r) with r = z invc - 1 (|r| < 0.024) and log1p by its series to
 * r^5; k ln 2 in two parts. Within 1.9 float ulp of the log of x's first 24
 * bits (every one of the 2^32 inputs checked on a GPU). tab is
 * ga_rng_logtab (a GPU kernel's copy of it in shared memory). */
GA_RNG_FN float ga_rng_log_u32(ga_rng_u32 a, const float (*tab)[2])
{
    ga_rng_u32 x = a + 1; /* 0 for a + 1 = 2^32, whose log is 0 */
    ga_rng_u32 xb = GA_RNG_U2F_RZ_BITS(x ? x : 1u);
    ga_rng_u32 ix = xb - 0x3f330000u;
    int i = (int)((ix >> 18) & 31u), k = (int)(ix >> 23); /* k in [0, 32] */
    float z = GA_RNG_U2F(xb - (ix & 0xff800000u));
    float invc = tab[i][0], logc = tab[i][1];
    float r = GA_RNG_FMA(z, invc, -1.0f);
    float kk = GA_RNG_U2F(0x4B000000u | (ga_rng_u32)(k + 32)) - 8388672.0f; /* k - 32, exact */
    float p = GA_RNG_FMA(GA_RNG_FMA(GA_RNG_FMA(0.2f, r, -0.25f), r, 0.333333343f), r, -0.5f);
    float hi = GA_RNG_FMA(kk, 0.693145751953125f, logc);
    float lo = GA_RNG_FMA(kk, 1.42860677e-06f, (r * r) * p);
    float l = hi + (r + lo);
    return x ? l : 0.0f;
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
GA_RNG_FN void ga_rng_normal_pair32(ga_rng_u32 a, ga_rng_u32 b, float mean, float std,
                                    const float (*tab)[2], float *z0, float *z1)
{
    float v = -2.0f * ga_rng_log_u32(a, tab); /* 0, or in [2^-23, 45) */
    float r = v > 0.0f ? GA_RNG_SQRT(v) : 0.0f;
    float s, c;
    ga_rng_sincos_u32(b, &s, &c);
    *z0 = GA_RNG_FMA(std, r * c, mean);
    *z1 = GA_RNG_FMA(std, r * s, mean);
}

/* Four normals (two pairs) from one block (float32 and float16). */
GA_RNG_FN void ga_rng_normal4(ga_rng_block_t w, float mean, float std, const float (*tab)[2],
                              float *z)
{
    ga_rng_normal_pair32(w.v[0], w.v[1], mean, std, tab, &z[0], &z[1]);
    ga_rng_normal_pair32(w.v[2], w.v[3], mean, std, tab, &z[2], &z[3]);
}

/* A pair of float64 normals from one block (53 bits for each uniform):
 * Box–Muller in double with the math library's log, sin and cos (the C
 * library's sin and cos of 2πv on the CPU; on a GPU libdevice's sincospi
 * of 2v, as cuRAND's normal_double: one cheaper call, the 2π product
 * not rounded first). The standard normal (mean 0, std 1) skips the
 * scaling: r cos rounded once is what mean + std (r cos) gives there, +0
 * for a zero included. */
GA_RNG_FN void ga_rng_normal_pair64(ga_rng_block_t w, double mean, double std, double *z0,
                                    double *z1)
{
    double u1 = (double)(ga_rng_bits53(w.v[0], w.v[1]) + 1) * 1.1102230246251565e-16; /* (0, 1] */
    double r = sqrt(-2.0 * log(u1)), sn, cs;
    GA_RNG_SINCOS_2PI_53(ga_rng_bits53(w.v[2], w.v[3]), &sn, &cs);
    if (mean == 0.0 && std == 1.0) { /* the same values, a product less each */
        *z0 = GA_RNG_MUL0(r, cs);
        *z1 = GA_RNG_MUL0(r, sn);
    } else {
        *z0 = mean + std * (r * cs);
        *z1 = mean + std * (r * sn);
    }
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
