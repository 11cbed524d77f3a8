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

#include <jansson.h>

#include "rt_magic.h"
#include "rt_session.h"

/* Runs the %%speedup cell (m is its magic line). Returns NULL when it went
 * well (it emitted its displays), else a new error reply: UsageError,
 * CompileError, SpeedupMismatch (a --check beyond tolerance), or the
 * error of a section that failed. */
json_t *rt_speedup_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                         int cell_no);

#endif
