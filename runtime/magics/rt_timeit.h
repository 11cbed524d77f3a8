/* rt_timeit: the timing magics, as IPython has them — %timeit and %%timeit
 * (loops grow by tens until a run takes 0.2 s, 7 runs, mean ± std. dev.
 * per loop) and %%time (CPU and wall time of one run of the cell). Code is
 * compiled before the clock starts; compile time is shown apart. When the
 * timed code launched GPU work, each run waits for it and the GPU time
 * measured with CUDA events (gpu_timer_*) is shown on its own line. On the
 * simulator, timed code runs without its checks ("unchecked"). See
 * docs/magics.md. */
#ifndef RT_TIMEIT_H
#define RT_TIMEIT_H

#include <stddef.h>

#include "rt_magic.h"
#include "rt_session.h"
#include "rt_tcc.h"

/* What %timeit -o leaves in the session variable `_timeit` (declared in
 * the session by the first %timeit -o; this text is the declaration). */
#define RT_TIMEIT_RUNS_MAX 64
extern const char rt_timeit_decl[];

/* A time span as IPython's _format_time writes it with precision 3:
 * "1.23 μs", "500 ms", "12.3 s", "4.56 ns", "1min 15s". Writes into buf. */
void rt_timeit_format(double seconds, char *buf, size_t len);

/* IPython's TimeitResult text: "1.23 μs ± 4.56 ns per loop (mean ± std. dev.
 * of 7 runs, 100,000 loops each)". per_run: `runs` times of `loops` loops,
 * in seconds. Writes into buf. */
void rt_timeit_summary(const double *per_run, int runs, long loops, char *buf, size_t len);

/* Mean and population standard deviation of per-loop times (per_run:
 * `runs` times of `loops` loops each, in seconds). */
void rt_timeit_stats(const double *per_run, int runs, long loops, double *mean, double *std);

/* Code timed by other magics (%%speedup) with these rules. */
typedef struct rt_timeit_run {
    long loops;                        /* in: 0 = autorange; out: loops per run */
    int runs;                          /* in: 1 .. RT_TIMEIT_RUNS_MAX */
    double all[RT_TIMEIT_RUNS_MAX];    /* (runs) wall seconds per run, GPU work waited for */
    double gpu[RT_TIMEIT_RUNS_MAX];    /* (runs) GPU seconds per run (CUDA events) */
    int gpu_work;                      /* the code launched kernels and gpu[] holds their time */
    int kernel_clock;                  /* in: also time the kernels alone (gpu_kernel_clock) */
    double kernel[RT_TIMEIT_RUNS_MAX]; /* (runs) seconds the kernels ran, copies left out */
} rt_timeit_run_t;

/* Compiles cell[from, to) of the cell read once into cell (a magic's
 * m->toks; starting on cell line `line`) into the timing template, after
 * the session's declarations. Returns the state (free it with
 * rt_tcc_free) and its compile time in *seconds, or NULL with a
 * CompileError in err. */
rt_tcc_t *rt_timeit_compile(rt_session_t *s, const rt_tokens_t *cell, size_t from, size_t to,
                            int line, int cell_no, double *seconds, rt_error_t *err);

/* The simulator's checks (memcheck, racecheck) off for code being timed:
 * timings see the unchecked build (docs/simulator.md), whose kernels run
 * on every worker; rt_timeit_unchecked returns what was in force, for
 * rt_timeit_checked_again. Nothing else changes on a GPU. */
int rt_timeit_unchecked(void);
void rt_timeit_checked_again(int saved);

/* Runs what rt_timeit_compile made: run->runs runs of run->loops loops
 * (autorange when 0), protected. 0, or -1 with err set (a fault, an
 * interrupt, a failed kernel). */
int rt_timeit_measure(rt_session_t *s, rt_tcc_t *tcc, rt_timeit_run_t *run, int cell_no,
                      rt_error_t *err);

/* The magics themselves (rt_magic_timeit, rt_magic_timeit_cell,
 * rt_magic_time) are declared by rt_magic.h from rt_magic_list.h; -o and
 * %%time leave the cell's result in the session (rt_session_set_result). */

/* Called by the code %%time compiles, at the start of the cell's run. */
void __gpuc_time_begin(void);

#endif
