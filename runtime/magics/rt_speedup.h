/* rt_speedup: %%speedup, a CPU section timed against a GPU section.
 *
 *   %%speedup [--check CPU,GPU[:COUNT]]... [--rtol R] [--atol A]
 *             [--sizes S,S,...] [--var NAME] [-n N] [-r R]
 *   //%% setup     (optional; a cell run before the sections, per size)
 *   //%% cpu
 *   //%% gpu
 *
 * Each section is compiled once (per size) and timed by %timeit's rules
 * (rt_timeit_measure): the CPU time, the GPU section's wall time (its
 * transfers included, its GPU work waited for) and its GPU time by CUDA
 * events, and the ratios. --check compares what the sections wrote after
 * one run of each. --sizes repeats it all for each value of the session
 * variable NAME (N), with a progress display updated in place, and ends
 * with a chart (SVG) marking where the GPU starts to win. The results
 * are one display: an HTML table with a text/plain fallback. See
 * docs/magics.md. */
#ifndef RT_SPEEDUP_H
#define RT_SPEEDUP_H

#include <stddef.h>

/* The magic itself is rt_magic_speedup (rt_magic.h, from rt_magic_list.h):
 * UsageError, CompileError, SpeedupMismatch (a --check beyond tolerance),
 * or the error of a section that failed. Drawing is rt_chart's. */

/* A time per loop measured over a few runs. */
typedef struct rt_speedup_time {
    double mean, std; /* seconds per loop over the runs (std: population) */
    double lo, hi;    /* the fastest and the slowest run, per loop */
} rt_speedup_time_t;

/* Below this many seconds per loop a section does nothing measurable (it
 * is empty, or the compiler removed its work): no speedup is stated. */
#define RT_SPEEDUP_FLOOR 50e-9

/* Which side is faster at one size. */
typedef enum rt_speedup_verdict {
    RT_SPEEDUP_NONE, /* a side at the clock's floor (or not timed): no verdict */
    RT_SPEEDUP_SAME, /* the spreads [lo, hi] of the runs overlap: the same within noise */
    RT_SPEEDUP_CPU,  /* the CPU is faster beyond the noise */
    RT_SPEEDUP_GPU,  /* the GPU is faster beyond the noise */
} rt_speedup_verdict_t;

/* The verdict on two timings. With one run the spreads are points: any
 * difference counts. */
rt_speedup_verdict_t rt_speedup_compare(rt_speedup_time_t cpu, rt_speedup_time_t gpu);

/* The crossover of a sweep: the first size from which the GPU (gpu[i])
 * is faster than the CPU (cpu[i]) beyond the noise at every size,
 * interpolated on log scales between it and the size before when the
 * CPU is faster there beyond the noise (else that size itself); 0 when
 * the GPU is faster at every size, -1 when it is not clearly faster at
 * the last one. size, cpu and gpu have n > 0 entries, sizes increasing. */
double rt_speedup_crossover(const double *size, const rt_speedup_time_t *cpu,
                            const rt_speedup_time_t *gpu, int n);

/* The sweep's verdict in words into buf ("GPU (with transfers) wins from
 * N ≈ 2.9e4", "... the same within noise at every size", ...), var the
 * swept variable's name. Returns rt_speedup_crossover's value. */
double rt_speedup_sweep_verdict(const double *size, const rt_speedup_time_t *cpu,
                                const rt_speedup_time_t *gpu, int n, const char *var, char *buf,
                                size_t len);

#endif
