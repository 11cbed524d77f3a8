/* ga_random: random arrays — uniform [0, 1), normal (mean, std), integers
 * [low, high) — from the counter-based generator of ga_philox.h, the same
 * numbers on the CPU backend and on a GPU for a seed (see ga_philox.h for
 * what "the same" means for normals).
 *
 * The session generator. One state for the whole session: a seed and a
 * counter (in Philox blocks of 4 words). ga_random_seed(n) sets the seed
 * and rewinds the counter; every array made advances the counter past the
 * blocks it used, so consecutive calls give new numbers, as NumPy's
 * Generator does. Before any seed is set, the seed comes from the system's
 * entropy (getrandom), as NumPy's default_rng() does.
 *
 * GPU kernels are compiled by NVRTC at their first use (backend/cuda/gpu_program)
 * and write 4 elements per Philox call with vector stores. */
#ifndef GA_RANDOM_H
#define GA_RANDOM_H

#include <stdint.h>

#include "cm_error.h"
#include "ga_array.h"

typedef enum ga_rng_dist {
    GA_RNG_UNIFORM = 0,   /* [0, 1): float16, float32, float64 */
    GA_RNG_NORMAL = 1,    /* mean + std * N(0, 1): float16, float32, float64 */
    GA_RNG_INTEGERS = 2,  /* [low, high): int8 ... uint64 */
} ga_rng_dist_t;

typedef struct ga_rng_params {
    ga_rng_dist_t dist;
    double mean, std;     /* GA_RNG_NORMAL */
    int64_t low, high;    /* GA_RNG_INTEGERS */
} ga_rng_params_t;

/* 0 when p is valid for dtype; -1 with err (GA_E_DTYPE: a dtype the
 * distribution does not make; GA_E_VALUE: std < 0 or not finite, low >=
 * high, a bound outside the dtype). */
int ga_random_check(const ga_rng_params_t *p, ga_dtype_t dtype, cm_error_t *err);

/* The Philox blocks (counter steps) an array of n elements of dtype uses. */
uint64_t ga_random_blocks(ga_rng_dist_t dist, ga_dtype_t dtype, int64_t n);

/* Fills the C-contiguous array a (on the CPU or a GPU) with p's numbers
 * from (seed, start): element i depends on (seed, start, i) only. p must
 * have passed ga_random_check. 0 / -1 with err (no GPU, compile failure). */
int ga_random_fill(ga_array_t *a, const ga_rng_params_t *p, uint64_t seed, uint64_t start,
                   cm_error_t *err);

/* The CUDA C++ source of the GPU kernels: ga_philox.h's code and one
 * extern "C" kernel per distribution and element type. Static. For
 * backend/cuda/gpu_program and the tests (which compile it with NVRTC). */
const char *ga_random_cuda_source(void);

/* The NVRTC options it is compiled with (no fused multiply-add, so that
 * float normals round as on the CPU). The float64 normals, equal to the
 * CPU's only within a few ulp whatever the options, are taken from the
 * same text compiled with fused multiply-adds (GA_RANDOM_CUDA_OPTIONS_F64):
 * split, libdevice's log and sincospi and mean + std * z took about 7
 * more float64 instructions a pair. */
#define GA_RANDOM_CUDA_OPTIONS "--fmad=false"
#define GA_RANDOM_CUDA_OPTIONS_F64 ""

/* ---- the session generator ---- */

/* Sets the seed and rewinds the counter to 0. */
void ga_random_seed(uint64_t seed);

/* The generator's seed and counter now (seeding it from entropy first if
 * no seed was set). */
void ga_random_state(uint64_t *seed, uint64_t *counter);

/* A new array of dtype and shape on device with p's numbers from the
 * session generator, which advances. NULL with err set. */
ga_array_t *ga_random_new(int device, ga_dtype_t dtype, int ndim, const int64_t *shape,
                          const ga_rng_params_t *p, cm_error_t *err);

/* ---- what cells call (runtime/cell/rt_api.h; gpuc.h's ga_random(F32,
 * 3, 4), ga_normal(F32, 0, 1, 3, 4), ga_integers(I32, 0, 10, 3, 4) pass
 * the shape as (ndim, dims)). Failures end the cell (ga_api_fail). ---- */
ga_array_t *ga_api_random(ga_cell_dtype_t dtype, int ndim, const long long *dims);
ga_array_t *ga_api_normal(ga_cell_dtype_t dtype, double mean, double std, int ndim, const long long *dims);
ga_array_t *ga_api_integers(ga_cell_dtype_t dtype, long long low, long long high, int ndim,
                            const long long *dims);
void ga_api_seed(unsigned long long seed);

#endif
