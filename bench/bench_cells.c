/* bench_cells: how long the executor takes to compile and run a cell
 * (rt_execute, no link or kernel in between).
 *
 *   build/bench_cells [reps]
 *
 * 1. `n + 1` after a cell that included stdio, stdlib, string and math:
 *    median over reps runs, header shaking on and off (GPUC_FULL_HEADERS=1).
 * 2. A 500-cell session, each cell defining a variable and a function and
 *    printing: median of cells 1-20 against cells 481-500, both modes.
 * 3. A new cell each time, `1 + i` (bench_kernel.py's row): median over
 *    reps cells of a session of their own, both modes.
 * The cells' own output goes to /dev/null; the table to stdout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_execute.h"
#include "rt_session.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cell_no;

/* Runs code; the time in ms, or -1 when the cell did not succeed. */
static double timed(rt_session_t *s, const char *code)
{
    double t0 = now_ms();
    json_t *r = rt_execute(s, code, ++cell_no);
    double dt = now_ms() - t0;
    const char *st = json_string_value(json_object_get(r, "status"));
    int ok = st && strcmp(st, "ok") == 0;
    if (!ok) {
        char *d = json_dumps(r, 0);
        fprintf(stderr, "bench_cells: cell failed: %s\n%s\n", code, d);
        free(d);
    }
    json_decref(r);
    return ok ? dt : -1;
}

static const char *includes = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
                              "#include <math.h>\nint n = 41;";

/* Median of `n + 1` in mode, after the includes (a session of its own). */
static double trivial(rt_headers_mode_t mode, int reps, rt_compile_stats_t *stats)
{
    cm_error_t err = {0};
    rt_session_t *s = rt_session_new(NULL, NULL, NULL, &err);
    if (!s) {
        fprintf(stderr, "bench_cells: %s\n", err.text);
        exit(1);
    }
    rt_session_set_headers(s, mode);
    if (timed(s, includes) < 0)
        exit(1);
    for (int i = 0; i < 5; i++) /* warm up: the shaker, page faults */
        timed(s, "n + 1");
    double *v = malloc(reps * sizeof *v);
    for (int i = 0; i < reps; i++)
        if ((v[i] = timed(s, "n + 1")) < 0)
            exit(1);
    double m = median(v, reps);
    free(v);
    rt_session_stats(s, stats);
    rt_session_free(s);
    return m;
}

/* Median of `1 + i` for i = 0 .. reps-1 in mode (a session of its own):
 * every cell is new, so every one compiles. */
static double new_cells(rt_headers_mode_t mode, int reps)
{
    cm_error_t err = {0};
    rt_session_t *s = rt_session_new(NULL, NULL, NULL, &err);
    if (!s)
        exit(1);
    rt_session_set_headers(s, mode);
    double *v = malloc(reps * sizeof *v);
    char code[64];
    for (int i = 0; i < reps; i++) {
        snprintf(code, sizeof code, "1 + %d", i);
        if ((v[i] = timed(s, code)) < 0)
            exit(1);
    }
    double m = median(v, reps);
    free(v);
    rt_session_free(s);
    return m;
}

/* Medians of cells 1-20 and 481-500 of a 500-cell session. */
static void long_session(rt_headers_mode_t mode, double *first, double *last,
                         rt_compile_stats_t *stats)
{
    cm_error_t err = {0};
    rt_session_t *s = rt_session_new(NULL, NULL, NULL, &err);
    if (!s)
        exit(1);
    rt_session_set_headers(s, mode);
    double v[500];
    char code[256];
    for (int i = 0; i < 500; i++) {
        snprintf(code, sizeof code,
                 "int v%d = %d;\nint f%d(int x) { return x + v%d; }\nprintf(\"%%d\\n\", f%d(1));",
                 i, i, i, i, i);
        if ((v[i] = timed(s, code)) < 0)
            exit(1);
    }
    *first = median(v, 20);
    *last = median(v + 480, 20);
    rt_session_stats(s, stats);
    rt_session_free(s);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 200;
    if (reps < 1)
        reps = 1;
    /* the cells print: keep that out of the table */
    fflush(stdout);
    int table = dup(1);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    close(devnull);

    rt_compile_stats_t st_on, st_off, st_long_on, st_long_off;
    double on = trivial(RT_HEADERS_SHAKE, reps, &st_on);
    double off = trivial(RT_HEADERS_FULL, reps, &st_off);
    double first_on, last_on, first_off, last_off;
    long_session(RT_HEADERS_SHAKE, &first_on, &last_on, &st_long_on);
    long_session(RT_HEADERS_FULL, &first_off, &last_off, &st_long_off);
    double new_on = new_cells(RT_HEADERS_SHAKE, reps), new_off = new_cells(RT_HEADERS_FULL, reps);

    fflush(stdout);
    dup2(table, 1);
    close(table);
    printf("cell compile-and-run time inside the executor (median, ms)\n\n");
    printf("| case | shaking on | full headers | full / on |\n");
    printf("| --- | ---: | ---: | ---: |\n");
    printf("| `n + 1` after stdio/stdlib/string/math (%d runs) | %.3f | %.3f | %.1fx |\n", reps,
           on, off, off / on);
    printf("| a new cell each time, `1 + i` (%d cells) | %.3f | %.3f | %.1fx |\n", reps, new_on,
           new_off, new_off / new_on);
    printf("| 500-cell session: cells 1-20 | %.3f | %.3f | %.1fx |\n", first_on, first_off,
           first_off / first_on);
    printf("| 500-cell session: cells 481-500 | %.3f | %.3f | %.1fx |\n", last_on, last_off,
           last_off / last_on);
    printf("| slowdown, cells 481-500 / 1-20 | %.2fx | %.2fx | |\n", last_on / first_on,
           last_off / first_off);
    printf("\nshaken compiles used / fallbacks / full / preprocessings: "
           "n+1 %lu/%lu/%lu/%lu, 500 cells %lu/%lu/%lu/%lu\n",
           st_on.shaken, st_on.fallbacks, st_on.full, st_on.preprocess, st_long_on.shaken,
           st_long_on.fallbacks, st_long_on.full, st_long_on.preprocess);
    (void)st_off;
    (void)st_long_off;
    return 0;
}
