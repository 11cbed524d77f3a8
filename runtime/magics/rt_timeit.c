/* rt_timeit: %timeit, %%timeit and %%time (see rt_timeit.h). */
#include "rt_timeit.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bk.h"
#include "cm_buf.h"
#include "gpu.h"
#include "cm_time.h"
#include "rt_gpu_host.h"
#include "rt_launch.h"
#include "rt_protect.h"
#include "rt_session_defs.h"
#include "rt_tcc.h"
#include "rt_segment.h"

const char rt_timeit_decl[] =
    "typedef struct gpuc_timeit {\n"
    "    double mean, std, best, worst; /* seconds per loop */\n"
    "    int loops, runs;\n"
    "    double all_runs[64];           /* seconds per run of `loops` loops */\n"
    "    double gpu_mean, gpu_std;      /* GPU seconds per loop; 0 without GPU work */\n"
    "} gpuc_timeit_t;\n";

typedef struct gpuc_timeit {
    double mean, std, best, worst;
    int loops, runs;
    double all_runs[RT_TIMEIT_RUNS_MAX];
    double gpu_mean, gpu_std;
} gpuc_timeit_t;

/* ---- IPython's formats ---------------------------------------------- */

void rt_timeit_format(double t, char *buf, size_t len)
{
    if (t >= 60.0) {
        static const struct { const char *suffix; double length; } parts[] = {
            {"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
        double leftover = t;
        size_t at = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < 4; i++) {
            long value = (long)(leftover / parts[i].length);
            if (value > 0) {
                leftover = fmod(leftover, parts[i].length);
                at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%ld%s",
                                       at ? " " : "", value, parts[i].suffix);
            }
            if (leftover < 1)
                break;
        }
        return;
    }
    static const char *const units[] = {"s", "ms", "\xce\xbcs", "ns"}; /* μs: U+03BC */
    static const double scaling[] = {1, 1e3, 1e6, 1e9};
    int order = 3;
    if (t > 0.0) {
        order = -(int)floor(floor(log10(t)) / 3.0);
        order = order < 0 ? 0 : order > 3 ? 3 : order;
    }
    snprintf(buf, len, "%.*g %s", 3, t * scaling[order], units[order]);
}

/* n with thousands separators, as Python's "{:,}". */
static void group_digits(long n, char *buf, size_t len)
{
    char digits[32];
    int nd = snprintf(digits, sizeof digits, "%ld", n);
    size_t at = 0;
    for (int i = 0; i < nd && at + 1 < len; i++) {
        if (i && digits[i - 1] != '-' && (nd - i) % 3 == 0 && at + 2 < len)
            buf[at++] = ',';
        buf[at++] = digits[i];
    }
    buf[at] = '\0';
}

void rt_timeit_stats(const double *per_run, int runs, long loops, double *mean, double *std)
{
    double sum = 0, sq = 0;
    for (int i = 0; i < runs; i++)
        sum += per_run[i] / loops;
    *mean = runs ? sum / runs : 0;
    for (int i = 0; i < runs; i++) {
        double d = per_run[i] / loops - *mean;
        sq += d * d;
    }
    *std = runs ? sqrt(sq / runs) : 0;
}

void rt_timeit_summary(const double *per_run, int runs, long loops, char *buf, size_t len)
{
    double mean, std;
    rt_timeit_stats(per_run, runs, loops, &mean, &std);
    char m[64], sd[64], n[32];
    rt_timeit_format(mean, m, sizeof m);
    rt_timeit_format(std, sd, sizeof sd);
    group_digits(loops, n, sizeof n);
    snprintf(buf, len,
             "%s \xc2\xb1 %s per loop (mean \xc2\xb1 std. dev. of %d run%s, %s loop%s each)", m,
             sd, runs, runs == 1 ? "" : "s", n, loops == 1 ? "" : "s");
}

/* ---- options -------------------------------------------------------- */

typedef struct opts {
    long loops;      /* -n; 0 = choose (autorange) */
    int runs;        /* -r */
    int quiet, save; /* -q, -o */
    size_t rest;     /* offset in code of what follows the options */
} opts_t;

/* Reads -n N, -r R, -q, -o (also -n10, -qo) from the magic's arguments;
 * the first word that is no option starts the code. 0, or -1 with err set. */
static int parse_opts(const char *code, const rt_magic_line_t *m, const char *pct, opts_t *o,
                      rt_error_t *err)
{
    memset(o, 0, sizeof *o);
    o->runs = 7;
    size_t p = m->args, end = m->args + m->args_len;
    for (;;) {
        while (p < end && isspace((unsigned char)code[p]))
            p++;
        if (p + 1 >= end || code[p] != '-' || !isalpha((unsigned char)code[p + 1]))
            break;
        size_t w = p + 1;
        while (w < end && !isspace((unsigned char)code[w])) {
            char f = code[w++];
            if (f == 'q' || f == 'o') {
                *(f == 'q' ? &o->quiet : &o->save) = 1;
                continue;
            }
            if (f != 'n' && f != 'r')
                return rt_error_set(err, "UsageError", 0, 0,
                                    "%stimeit: option -%c not recognized (usage: %stimeit [-n N] "
                                    "[-r R] [-q] [-o] ...)", pct, f, pct);
            while (w < end && isspace((unsigned char)code[w]))
                w++;
            char *e;
            long v = w < end ? strtol(code + w, &e, 10) : 0;
            if (w == end || e == code + w || v < 1 || (f == 'r' && v > RT_TIMEIT_RUNS_MAX) ||
                (e < code + end && !isspace((unsigned char)*e)))
                return rt_error_set(err, "UsageError", 0, 0,
                                    "%stimeit: -%c needs a whole number from 1 to %s", pct, f,
                                    f == 'r' ? "64" : "10^18");
            if (f == 'n')
                o->loops = v;
            else
                o->runs = (int)v;
            w = (size_t)(e - code);
            break;
        }
        p = w;
    }
    o->rest = p;
    return 0;
}

/* ---- compiling the timed code --------------------------------------- */

typedef double (*inner_fn)(long n, double (*start)(void), double (*stop)(void));

/* Appends text (cell[from, to) of the cell read once into cell, which
 * starts on cell line `line`) so that messages name the cell's lines;
 * launches are rewritten into C, from the cell's tokens. */
static void add_user_code(cm_buf_t *src, const rt_tokens_t *cell, size_t from, size_t to,
                          int line, int cell_no)
{
    rt_segment_t seg = rt_segment_of_tokens(cell, from, to, line, cell_no);
    char *text = rt_segment_source(&seg);
    rt_tokens_t read;
    rt_segment_tokens(&seg, text, &read);
    char *rewritten = rt_launch_rewrite_tokens(&read, cell_no);
    rt_tokens_free(&read);
    cm_buf_addf(src, "#line 1 \"cell[%d]\"\n%s\n;\n", cell_no, rewritten ? rewritten : text);
    free(rewritten);
    free(text);
}

/* The cell line of the last line of code[from, to), which starts on `line`. */
static int last_line(const char *code, size_t from, size_t to, int line)
{
    while (to > from && (code[to - 1] == '\n' || code[to - 1] == ' ' || code[to - 1] == '\t'))
        to--;
    for (size_t i = from; i < to; i++)
        line += code[i] == '\n';
    return line;
}

/* Compiles IPython's timing template: setup once per run, then the
 * statement n times between the two clock readings. */
static rt_tcc_t *compile_inner(rt_session_t *s, const rt_tokens_t *cell, size_t setup_from,
                               size_t setup_to, int setup_line, size_t body_from, size_t body_to,
                               int body_line, int cell_no, double *seconds, rt_error_t *error)
{
    const char *code = cell->src;
    cm_buf_t src = {0};
    cm_buf_adds(&src, "double __gpuc_timeit_inner(long __gpuc_n, double (*__gpuc_start)(void), "
                      "double (*__gpuc_stop)(void))\n{\n");
    if (setup_to > setup_from)
        add_user_code(&src, cell, setup_from, setup_to, setup_line, cell_no);
    /* the template's own lines take the cell lines next to the user's code,
     * so that every message (a statement cut short: "n +") names the cell */
    int last = last_line(code, body_from, body_to, body_line);
    cm_buf_addf(&src, "#line %d \"cell[%d]\"\n    double __gpuc_t0 = __gpuc_start();\n"
                      "    for (long __gpuc_i = 0; __gpuc_i < __gpuc_n; __gpuc_i++) {\n",
                body_line, cell_no);
    add_user_code(&src, cell, body_from, body_to, body_line, cell_no);
    cm_buf_addf(&src, "#line %d \"cell[%d]\"\n    }\n    return __gpuc_stop() - __gpuc_t0;\n}\n",
                last, cell_no);
    rt_gpu_prepare_host(cm_buf_str(&src), cell_no);
    cm_error_t err = {0};
    double t0 = cm_seconds();
    rt_tcc_t *t = rt_session_compile_aux(s, cm_buf_str(&src), &err);
    *seconds = cm_seconds() - t0;
    cm_buf_free(&src);
    if (!t) {
        int c, line, at = 0;
        const char *msg = err.text;
        if (sscanf(err.text, "cell[%d]:%d: %n", &c, &line, &at) == 2 && at) {
            msg += at;
            line = line > last ? last : line;
        } else { /* a link error ("undefined symbol"): no line of its own */
            line = body_line;
            while (*msg == ':' || (*msg >= '0' && *msg <= '9') || *msg == ' ')
                msg++; /* TCC's ":0: " */
        }
        if (strncmp(msg, "error: ", 7) == 0)
            msg += 7;
        rt_error_set(error, "CompileError", cell_no, line, "cell %d, line %d: error: %s",
                     cell_no, line, msg);
        rt_error_add_line(error, "cell %d, line %d: error: %s", cell_no, line, msg);
        return NULL;
    }
    /* a fault while timing names the cell's line, as in a cell */
    char name[64];
    snprintf(name, sizeof name, "__gpuc_cell%d_part0", cell_no);
    void *inner = rt_tcc_symbol(t, "__gpuc_timeit_inner");
    if (inner)
        rt_session_add_code(s, name, inner, cell_no);
    rt_tcc_lines(t, s, rt_session_add_line);
    return t;
}

rt_tcc_t *rt_timeit_compile(rt_session_t *s, const rt_tokens_t *cell, size_t from, size_t to,
                            int line, int cell_no, double *seconds, rt_error_t *error)
{
    return compile_inner(s, cell, 0, 0, 0, from, to, line, cell_no, seconds, error);
}

/* ---- timing --------------------------------------------------------- */

int rt_timeit_unchecked(void)
{
    int memcheck, racecheck;
    gpu_sim_checks(&memcheck, &racecheck);
    gpu_sim_set_checks(0, 0);
    return memcheck | racecheck << 1;
}

void rt_timeit_checked_again(int saved)
{
    gpu_sim_set_checks(saved & 1, saved >> 1 & 1);
}

typedef struct timing {
    inner_fn inner;
    long loops;                          /* 0 = autorange */
    int runs;
    double all[RT_TIMEIT_RUNS_MAX];      /* (runs) seconds per run */
    double gpu[RT_TIMEIT_RUNS_MAX];      /* (runs) GPU seconds per run */
    int gpu_work;                        /* the code launched kernels */
    bk_device_t device;                  /* where kernels run: its timer, clock and waits */
    bk_timer_t *timer;                   /* events around each run, once GPU work is seen */
    double last_gpu;                     /* GPU seconds of the last timed run */
    int kernel_clock;                    /* time the kernels alone too */
    double kernel[RT_TIMEIT_RUNS_MAX];   /* (runs) kernel seconds per run */
    double last_kernel;                  /* kernel seconds of the last timed run */
    unsigned long launches;              /* rt_gpu_launch_count at the run's start */
} timing_t;

static timing_t *current; /* the timing under way, for the clock callbacks */

static double clock_start(void)
{
    cm_error_t err = {0};
    current->launches = rt_gpu_launch_count();
    if (current->timer && bk_timer_start(current->timer, &err) != 0)
        rt_protect_raise("CudaError", err.text);
    if (current->timer && current->kernel_clock)
        bk_kernel_clock_start(current->device);
    return cm_seconds();
}

/* The run's end: after waiting for its GPU work, if any. */
static double clock_stop(void)
{
    cm_error_t err = {0};
    if (current->timer) {
        if (bk_timer_stop(current->timer, &current->last_gpu, &err) != 0)
            rt_protect_raise("CudaError", err.text);
        if (current->kernel_clock)
            bk_kernel_clock_stop(current->device, &current->last_kernel);
    } else if (rt_gpu_launch_count() != current->launches &&
               bk_synchronize(current->device, &err) != 0) {
        rt_protect_raise("CudaError", err.text);
    }
    return cm_seconds();
}

/* One run of n loops, in seconds. A run that launched GPU work before
 * there were events to time it is run again with them. */
static double run_once(timing_t *t, long n)
{
    for (;;) {
        int timed = t->timer != NULL;
        unsigned long before = rt_gpu_launch_count();
        double secs = t->inner(n, clock_start, clock_stop);
        if (rt_gpu_launch_count() == before)
            return secs;
        t->gpu_work = 1;
        if (timed || !(t->timer = bk_timer_new(t->device)))
            return secs;
    }
}

static void timing_main(void *arg)
{
    timing_t *t = arg;
    if (!t->loops) { /* IPython: 10^0 .. 10^9 until a run takes 0.2 s */
        for (int i = 0; i < 10; i++) {
            t->loops = (long)pow(10, i);
            if (run_once(t, t->loops) >= 0.2)
                break;
        }
    }
    for (int r = 0; r < t->runs; r++) {
        t->all[r] = run_once(t, t->loops);
        t->gpu[r] = t->timer ? t->last_gpu : 0;
        t->kernel[r] = t->timer && t->kernel_clock ? t->last_kernel : 0;
    }
}

/* Defines the session variable _timeit (and its type, once) and fills it. */
static int save_result(rt_session_t *s, const rt_timeit_run_t *t, int cell_no, rt_error_t *err)
{
    cm_buf_t b = {0};
    if (!rt_session_is_type(s, "gpuc_timeit_t", strlen("gpuc_timeit_t")))
        cm_buf_adds(&b, rt_timeit_decl);
    cm_buf_adds(&b, "gpuc_timeit_t _timeit;\n");
    int rc = rt_session_run_text(s, cm_buf_str(&b), cell_no, err);
    cm_buf_free(&b);
    if (rc != 0)
        return -1;
    gpuc_timeit_t *v = rt_session_symbol(s, "_timeit");
    if (!v)
        return rt_error_set(err, "RuntimeError", 0, 0, "%%timeit -o: _timeit was not defined");
    memset(v, 0, sizeof *v);
    v->loops = (int)(t->loops > 2147483647L ? 2147483647L : t->loops);
    v->runs = t->runs;
    rt_timeit_stats(t->all, t->runs, t->loops, &v->mean, &v->std);
    v->best = v->worst = t->all[0] / t->loops;
    for (int i = 0; i < t->runs; i++) {
        v->all_runs[i] = t->all[i];
        v->best = fmin(v->best, t->all[i] / t->loops);
        v->worst = fmax(v->worst, t->all[i] / t->loops);
    }
    if (t->gpu_work)
        rt_timeit_stats(t->gpu, t->runs, t->loops, &v->gpu_mean, &v->gpu_std);
    return 0;
}

int rt_timeit_measure(rt_session_t *s, rt_tcc_t *tcc, rt_timeit_run_t *run, int cell_no,
                      rt_error_t *err)
{
    timing_t t = {0};
    t.inner = (inner_fn)rt_tcc_symbol(tcc, "__gpuc_timeit_inner");
    t.loops = run->loops;
    t.runs = run->runs;
    t.kernel_clock = run->kernel_clock;
    if (!t.inner)
        return rt_error_set(err, "CompileError", 0, 0,
                            "cell %d: the timed code was not found after linking", cell_no);
    t.device = bk_kernel_device();
    t.timer = bk_timer_new(t.device); /* NULL until this process has a context */
    current = &t;
    int checks = rt_timeit_unchecked();
    int rc = rt_session_protect(s, timing_main, &t, cell_no, err);
    rt_timeit_checked_again(checks);
    current = NULL;
    if (rc == 1) /* the runs stopped part way: nothing to report */
        rc = rt_error_set(err, "SystemExit", cell_no, 0,
                          "exit(0) in timed code: the statement must return to be timed");
    else if (rc == 0)
        rc = rt_gpu_after_cell(cell_no, err);
    run->loops = t.loops;
    memcpy(run->all, t.all, sizeof run->all);
    memcpy(run->gpu, t.gpu, sizeof run->gpu);
    memcpy(run->kernel, t.kernel, sizeof run->kernel);
    run->gpu_work = t.gpu_work && t.timer;
    bk_timer_free(t.timer);
    return rc;
}

/* Times cell[body_from, body_to) after setup cell[setup_from, setup_to),
 * ranges of the cell read once into cell. */
static int timeit(rt_session_t *s, const rt_tokens_t *cell, const opts_t *o, size_t setup_from,
                  size_t setup_to, int setup_line, size_t body_from, size_t body_to,
                  int body_line, int cell_no, int last, rt_error_t *err)
{
    double tc;
    rt_tcc_t *tcc = compile_inner(s, cell, setup_from, setup_to, setup_line, body_from, body_to,
                                  body_line, cell_no, &tc, err);
    if (!tcc)
        return -1;
    rt_timeit_run_t t = {.loops = o->loops, .runs = o->runs};
    int rc = rt_timeit_measure(s, tcc, &t, cell_no, err);
    rt_tcc_free(tcc);
    if (rc != 0)
        return -1;
    char text[256];
    rt_timeit_summary(t.all, t.runs, t.loops, text, sizeof text);
    if (!o->quiet) {
        double best = t.all[0], worst = t.all[0];
        for (int i = 1; i < t.runs; i++) {
            best = fmin(best, t.all[i]);
            worst = fmax(worst, t.all[i]);
        }
        best /= t.loops;
        worst /= t.loops;
        if (worst > 4 * best && best > 0 && worst > 1e-6)
            printf("The slowest run took %0.2f times longer than the fastest. This could mean "
                   "that an intermediate result is being cached.\n", worst / best);
        printf("%s\n", text);
        if (t.gpu_work) {
            char gpu[256];
            rt_timeit_summary(t.gpu, t.runs, t.loops, gpu, sizeof gpu);
            /* on the simulator the kernels' time is the CPU's, of the build
             * without memcheck (docs/simulator.md): how says so */
            bk_device_info_t d;
            bk_device_info(bk_kernel_device(), &d, NULL);
            printf("%s%s%s%s: %s\n", d.kind, d.how[0] ? " (" : "", d.how, d.how[0] ? ", unchecked)" : "", gpu);
        }
        if (tc > 0.1)
            printf("Compiler time: %.2f s\n", tc);
        fflush(stdout);
    }
    if (o->save && save_result(s, &t, cell_no, err) != 0)
        return -1;
    if (o->save && last) { /* IPython shows the TimeitResult as the cell's result */
        char repr[300];
        snprintf(repr, sizeof repr, "<TimeitResult : %s>", text);
        rt_session_set_result(s, repr);
    }
    return 0;
}

/* Non-zero when code holds only blanks from `from` on. */
static int blank_from(const char *code, size_t from)
{
    for (; code[from]; from++)
        if (!isspace((unsigned char)code[from]))
            return 0;
    return 1;
}

int rt_magic_timeit(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    opts_t o;
    if (parse_opts(code, m, "%", &o, err) != 0)
        return -1;
    size_t end = m->args + m->args_len;
    if (o.rest >= end)
        return rt_error_set(err, "UsageError", 0, 0,
                            "%%timeit: no statement to time (usage: %%timeit [-n N] [-r R] [-q] "
                            "[-o] STATEMENT)");
    return timeit(s, m->toks, &o, 0, 0, 0, o.rest, end, m->line, cell_no, blank_from(code, m->next),
                  err);
}

int rt_magic_timeit_cell(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                         int cell_no, rt_error_t *err)
{
    opts_t o;
    if (parse_opts(code, m, "%%", &o, err) != 0)
        return -1;
    if (blank_from(code, m->next))
        return rt_error_set(err, "UsageError", 0, 0,
                            "%%%%timeit: the cell has no code to time below the magic line");
    return timeit(s, m->toks, &o, o.rest, m->args + m->args_len, m->line, m->next, strlen(code),
                  m->line + 1, cell_no, 1, err);
}

/* ---- %%time --------------------------------------------------------- */

static struct {
    int began;
    double wall;
    struct rusage ru;
    bk_timer_t *timer;
} time_start;

void __gpuc_time_begin(void)
{
    cm_error_t err = {0};
    if (time_start.timer && bk_timer_start(time_start.timer, &err) != 0) {
        bk_timer_free(time_start.timer);
        time_start.timer = NULL;
    }
    time_start.began = 1;
    getrusage(RUSAGE_SELF, &time_start.ru);
    time_start.wall = cm_seconds();
}

static double tv_seconds(struct timeval a, struct timeval b)
{
    return (double)(b.tv_sec - a.tv_sec) + (b.tv_usec - a.tv_usec) / 1e6;
}

int rt_magic_time(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                  rt_error_t *err)
{
    if (m->args_len)
        return rt_error_set(err, "UsageError", 0, 0,
                            "%%%%time: no code may follow %%%%time on its line; the cell below it "
                            "is timed");
    /* the marker takes the magic's line, so the cell keeps its line numbers */
    cm_buf_t b = {0};
    cm_buf_adds(&b, "{ extern void __gpuc_time_begin(void); __gpuc_time_begin(); }\n");
    cm_buf_adds(&b, code + m->next);
    memset(&time_start, 0, sizeof time_start);
    unsigned long launches = rt_gpu_launch_count();
    time_start.timer = bk_timer_new(bk_kernel_device());
    double t0 = cm_seconds();
    rt_segment_t seg = rt_segment_of(cm_buf_str(&b), 0, b.len, m->line, cell_no);
    int checks = rt_timeit_unchecked();
    int rc = rt_session_run(s, &seg, err);
    double wall_end = cm_seconds();
    rt_timeit_checked_again(checks);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    cm_buf_free(&b);
    double gpu = 0;
    cm_error_t timer_err = {0};
    int gpu_ok = time_start.timer && rt_gpu_launch_count() != launches &&
                 bk_timer_stop(time_start.timer, &gpu, &timer_err) == 0;
    bk_timer_free(time_start.timer);
    time_start.timer = NULL;
    if (!time_start.began || rc != 0)
        return rc;
    char user[64], sys[64], total[64], wall[64];
    double u = tv_seconds(time_start.ru.ru_utime, ru.ru_utime);
    double sy = tv_seconds(time_start.ru.ru_stime, ru.ru_stime);
    rt_timeit_format(u, user, sizeof user);
    rt_timeit_format(sy, sys, sizeof sys);
    rt_timeit_format(u + sy, total, sizeof total);
    rt_timeit_format(wall_end - time_start.wall, wall, sizeof wall);
    printf("CPU times: user %s, sys: %s, total: %s\nWall time: %s\n", user, sys, total, wall);
    if (gpu_ok) {
        rt_timeit_format(gpu, wall, sizeof wall);
        bk_device_info_t d;
        bk_device_info(bk_kernel_device(), &d, NULL);
        printf("%s time%s%s%s: %s\n", d.kind, d.how[0] ? " (" : "", d.how, d.how[0] ? ", unchecked)" : "", wall);
    }
    if (time_start.wall - t0 > 0.1) {
        rt_timeit_format(time_start.wall - t0, wall, sizeof wall);
        printf("Compiler : %s\n", wall);
    }
    fflush(stdout);
    return 0;
}
