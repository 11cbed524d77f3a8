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
 * float products, so both sides give the same bits. Normals call log, sqrt,
 * cos and sin in double: the C library and CUDA's libdevice may differ in
 * the last bit of those, which changes a float32 or float16 normal only
 * when a double lands on a float rounding boundary (about one element in
 * 10^8, then by one ulp) and a float64 normal by a few ulp.
 *
 * The code block may not hold preprocessor lines (it is one macro
 * argument); what differs between C and CUDA is the GA_RNG_* names that
 * each side defines before it. */
#ifndef GA_PHILOX_H
#define GA_PHILOX_H

#ifndef GA_RNG_CODE
#include <math.h>
#include <stdint.h>

#include "ga_dtype.h"
typedef uint32_t ga_rng_u32;
typedef uint64_t ga_rng_u64;
#define GA_RNG_FN static inline
#define GA_RNG_F2H(f) ga_float_to_half(f)   /* round to nearest even, as cvt.rn.f16.f32 */
#define GA_RNG_CODE(...) __VA_ARGS__
#endif

GA_RNG_CODE(
typedef struct ga_rng_block { ga_rng_u32 v[4]; } ga_rng_block_t;

/* The 64-bit product of two words, split. */
GA_RNG_FN ga_rng_u32 ga_rng_mulhilo(ga_rng_u32 a, ga_rng_u32 b, ga_rng_u32 *hi)
{
    ga_rng_u64 p = (ga_rng_u64)a * b;
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

/* Box–Muller of u1 in (0, 1] and u2 in [0, 1): mean + std * (r cos t, r sin t). */
GA_RNG_FN void ga_rng_box_muller(double u1, double u2, double mean, double std, double *z0,
                                 double *z1)
{
    double r = sqrt(-2.0 * log(u1));
    double t = 6.283185307179586 * u2;
    *z0 = mean + std * (r * cos(t));
    *z1 = mean + std * (r * sin(t));
}

/* A pair of normals from two words (float32 and float16). */
GA_RNG_FN void ga_rng_normal_pair32(ga_rng_u32 a, ga_rng_u32 b, double mean, double std,
                                    double *z0, double *z1)
{
    ga_rng_box_muller(((double)a + 1.0) * 2.3283064365386963e-10,
                      (double)b * 2.3283064365386963e-10, mean, std, z0, z1);
}

/* Four normals (two pairs) from one block (float32 and float16). */
GA_RNG_FN void ga_rng_normal4(ga_rng_block_t w, double mean, double std, double *z)
{
    ga_rng_normal_pair32(w.v[0], w.v[1], mean, std, &z[0], &z[1]);
    ga_rng_normal_pair32(w.v[2], w.v[3], mean, std, &z[2], &z[3]);
}

/* A pair of float64 normals from one block (53 bits for each uniform). */
GA_RNG_FN void ga_rng_normal_pair64(ga_rng_block_t w, double mean, double std, double *z0,
                                    double *z1)
{
    double u1 = ((double)(w.v[0] >> 5) * 67108864.0 + (double)(w.v[1] >> 6) + 1.0) *
                1.1102230246251565e-16;
    ga_rng_box_muller(u1, ga_rng_uniform_f64(w.v[2], w.v[3]), mean, std, z0, z1);
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
