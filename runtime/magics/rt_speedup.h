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


/* The magic itself is rt_magic_speedup (rt_magic.h, from rt_magic_list.h):
 * UsageError, CompileError, SpeedupMismatch (a --check beyond tolerance),
 * or the error of a section that failed. Drawing is rt_chart's. */

/* The verdict of a sweep: the first size from which the GPU (time
 * gpu[i]) stays faster than the CPU (cpu[i]), interpolated on log scales
 * between the last slower size and it; 0 when it is faster at every
 * size, -1 when it is not faster at the last one. size, cpu and gpu
 * have n > 0 entries, sizes increasing. */
double rt_speedup_crossover(const double *size, const double *cpu, const double *gpu, int n);

#endif
