/* rt_timeit: the timing magics, as IPython has them — %timeit and %%timeit
 * (loops grow by tens until a run takes 0.2 s, 7 runs, mean ± std. dev.
 * per loop) and %%time (CPU and wall time of one run of the cell). Code is
 * compiled before the clock starts; compile time is shown apart. When the
 * timed code launched GPU work, each run waits for it and the GPU time
 * measured with CUDA events (gpu_timer_*) is shown on its own line. See
 * docs/magics.md. */
#ifndef RT_TIMEIT_H
#define RT_TIMEIT_H

#include <jansson.h>
#include <stddef.h>

#include "rt_magic.h"
#include "rt_session.h"

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

/* The magics (rt_magic.c's handlers): NULL when all went well, else a new
 * error reply; an "ok" reply with a result for -o (and %%time's cell
 * result). */
json_t *rt_timeit_line_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                             int cell_no);
json_t *rt_timeit_cell_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                             int cell_no);
json_t *rt_time_cell_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                           int cell_no);

/* Called by the code %%time compiles, at the start of the cell's run. */
void __gpuc_time_begin(void);

#endif
