/* test_rt_speedup: %%speedup driven through rt_execute, with two
 * CPU sections (no GPU here): the table with both times and the speedups,
 * a wrong "GPU" result caught as SpeedupMismatch, a --sizes sweep with its
 * progress display updated in place and its SVG chart with the crossover,
 * the TCC note (and its absence when the CPU side calls %%cc code), and
 * usage errors. Displays are read from the session's emit callback. */
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_check.h"
#include "cm_log.h"
#include "rt_session.h"
#include "rt_speedup.h"

static json_t *run(const char *code)
{
    json_array_clear(emitted);
    return run_next(code);
}

/* data[mime] of emitted display i, or NULL. */
static const char *shown(size_t i, const char *mime)
{
    return json_string_value(json_object_get(json_object_get(json_array_get(emitted, i), "data"),
                                             mime));
}

static void expect_ok(const char *code)
{
    json_t *r = run(code);
    CHECK_STR(field(r, "status"), "ok");
    if (strcmp(field(r, "status"), "ok") != 0)
        fprintf(stderr, "  %s: %s\n", ename(r), evalue(r));
    json_decref(r);
}

static void expect_error(const char *code, const char *kind, const char *re)
{
    json_t *r = run(code);
    CHECK_STR(ename(r), kind);
    CHECK(matches(evalue(r), re));
    json_decref(r);
}

#define T "[0-9.]+ (ns|\xce\xbcs|ms|s)"
/* a speedup cell: a ratio, or no verdict within the noise or at the floor */
#define SPEEDUP "([0-9.e+-]+\xc3\x97|same within noise|nothing measurable)"

/* The fixture (SESSION_TEST_MAIN_SETUP runs it first): the arrays the
 * tests' sections read and write. */
static void declare_arrays(void)
{
    expect_ok("float a_in[1000], cpu_out[1000], gpu_out[1000];\n"
              "for (int i = 0; i < 1000; i++) a_in[i] = i * 0.5f;");
}

static void test_agree(void)
{
    expect_ok("%%speedup --check cpu_out,gpu_out:1000 -n 10 -r 3\n"
              "//%% cpu\n"
              "for (int i = 0; i < 1000; i++) cpu_out[i] = a_in[i] * a_in[i];\n"
              "//%% gpu\n"
              "for (int i = 0; i < 1000; i += 4) {\n"
              "    gpu_out[i] = a_in[i] * a_in[i]; gpu_out[i+1] = a_in[i+1] * a_in[i+1];\n"
              "    gpu_out[i+2] = a_in[i+2] * a_in[i+2]; gpu_out[i+3] = a_in[i+3] * a_in[i+3];\n"
              "}");
    CHECK(json_array_size(emitted) == 1);
    const char *text = shown(0, "text/plain"), *html = shown(0, "text/html");
    CHECK(matches(text, "^CPU +" T " \xc2\xb1 " T "$"));
    /* "simulated" where kernels run on the CUDA simulator (no GPU here) */
    CHECK(matches(text, "^GPU kernels \\((CUDA events|simulated)\\) +no GPU work +-$"));
    CHECK(matches(text, "^GPU with transfers \\(wall\\) +" T " \xc2\xb1 " T " +" SPEEDUP "$"));
    CHECK(matches(text, "^Note: the GPU section launched no kernels: no GPU work, its times are "
                        "host code's$"));
    CHECK(matches(text, "of 3 runs; CPU 10 loops each, GPU 10 loops each"));
    CHECK(matches(text, "^Results agree: cpu_out = gpu_out \\(max abs diff 0, max rel diff 0\\)$"));
    CHECK(matches(text, "^Note: CPU side compiled by TCC \\(unoptimised\\): use %%cc for an "
                        "-O2 baseline$"));
    CHECK(matches(html, "<table class=\"gpuc-speedup\">"));
    CHECK(matches(html, "<td>GPU with transfers \\(wall\\)</td><td>" T " \xc2\xb1 " T
                        "</td><td>" SPEEDUP "</td>"));
    /* a setup section, and scalars compared without COUNT */
    expect_ok("%%speedup --check cs,gs -n 1 -r 1\n"
              "//%% setup\n"
              "double cs = 0, gs = 0;\n"
              "//%% cpu\n"
              "cs = 0; for (int i = 0; i < 100; i++) cs += 0.1;\n"
              "//%% gpu\n"
              "gs = 0; for (int i = 0; i < 100; i++) gs += 0.1;");
    CHECK(matches(shown(0, "text/plain"), "^Results agree: cs = gs"));
}

static void test_mismatch(void)
{
    expect_error("%%speedup --check cpu_out,gpu_out:1000 -n 1 -r 1\n"
                 "//%% cpu\n"
                 "for (int i = 0; i < 1000; i++) cpu_out[i] = a_in[i] * a_in[i];\n"
                 "//%% gpu\n"
                 "for (int i = 0; i < 1000; i++) gpu_out[i] = a_in[i] * a_in[i];\n"
                 "gpu_out[10] = 26.0f; gpu_out[20] += 1e-4f;",
                 "SpeedupMismatch",
                 "^cpu_out and gpu_out differ: 1 of 1000 float values beyond rtol 1e-05, atol 0: "
                 "max abs diff 1 \\(at \\[10\\]\\), max rel diff 0.04$");
    CHECK(json_array_size(emitted) == 0); /* no table when the check fails */
    /* --rtol lets it pass */
    expect_ok("%%speedup --check cpu_out,gpu_out:1000 --rtol 0.05 -n 1 -r 1\n"
              "//%% cpu\n"
              "for (int i = 0; i < 1000; i++) cpu_out[i] = a_in[i] * a_in[i];\n"
              "//%% gpu\n"
              "for (int i = 0; i < 1000; i++) gpu_out[i] = a_in[i] * a_in[i];\n"
              "gpu_out[10] = 26.0f;");
    CHECK(matches(shown(0, "text/plain"), "max abs diff 1, max rel diff 0.04\\)"));
    /* doubles: 1e-12 by default */
    expect_ok("double dc[2], dg[2];");
    expect_error("%%speedup --check dc,dg:2 -n 1 -r 1\n//%% cpu\ndc[0] = 1; dc[1] = 2;\n"
                 "//%% gpu\ndg[0] = 1; dg[1] = 2 + 1e-9;",
                 "SpeedupMismatch", "1 of 2 double values beyond rtol 1e-12");
}

static void test_sweep(void)
{
    /* the "CPU" costs 8 steps per element; the "GPU" 200000 steps, then 1
     * per 8 elements: slower at N = 1e2, faster from about 3e4 */
    expect_ok("%%speedup --sizes 1e2,1e4,1e6 -n 1 -r 3\n"
              "//%% setup\n"
              "volatile double acc;\n"
              "//%% cpu\n"
              "for (long i = 0; i < 8 * N; i++) acc += 1;\n"
              "//%% gpu\n"
              "for (long i = 0; i < 200000 + N / 8; i++) acc += 1;");
    size_t n = json_array_size(emitted);
    CHECK(n == 6); /* progress, 2 updates, done; the chart; the table */
    if (n != 6) {
        char *dump = json_dumps(emitted, JSON_INDENT(1));
        fprintf(stderr, "%s\n", dump);
        free(dump);
        return;
    }
    const char *id = NULL;
    for (size_t i = 0; i < 4; i++) {
        json_t *msg = json_array_get(emitted, i);
        const char *this_id = json_string_value(
            json_object_get(json_object_get(msg, "transient"), "display_id"));
        CHECK(this_id != NULL);
        if (i == 0)
            id = this_id;
        else
            CHECK(this_id && id && strcmp(this_id, id) == 0);
        CHECK(json_is_true(json_object_get(msg, "update")) == (i > 0));
    }
    CHECK(matches(shown(0, "text/plain"), "^%%speedup: size 1/3: N = 100 \xe2\x80\xa6$"));
    CHECK(matches(shown(2, "text/plain"), "^%%speedup: size 3/3: N = 1e6 \xe2\x80\xa6$"));
    CHECK(matches(shown(3, "text/plain"), "^%%speedup: done: 3 sizes in [0-9.]+ s$"));
    const char *svg = shown(4, "image/svg+xml");
    CHECK(matches(svg, "^<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(matches(svg, "<polyline class=\"cpu\""));
    CHECK(matches(svg, "</svg>"));
    /* where the GPU starts to win depends on real timings: only check that
     * the chart and the verdict agree (the verdict itself: test_verdict) */
    const char *alt = shown(4, "text/plain");
    int wins = alt && strstr(alt, "GPU (with transfers) wins from N \xe2\x89\x88") != NULL;
    CHECK(wins || matches(alt, "GPU \\(with transfers\\) (faster at every size|not faster at "
                               "N = 1e6)|the same within noise"));
    CHECK(wins == (strstr(svg, "<line class=\"crossover\"") != NULL));
    const char *table = shown(5, "text/plain");
    CHECK(matches(table, "^N +CPU +GPU kernels +GPU w/ transfers"));
    CHECK(matches(table, "^100 +" T " +no GPU work +" T " +- +" SPEEDUP "$"));
    CHECK(matches(table, "^1e6 +" T " +no GPU work +" T " +- +" SPEEDUP "$"));
    CHECK(matches(table, "^Note: the GPU section launched no kernels"));
    CHECK(matches(shown(5, "text/html"), "<th>speedup \\(with transfers\\)</th>"));
    /* N was declared by the sweep and keeps its last value */
    json_t *r = run("N");
    CHECK_STR(json_string_value(json_object_get(
                  json_object_get(json_object_get(r, "result"), "data"), "text/plain")),
              "1000000");
    json_decref(r);
}

/* A timing of mean seconds whose runs spread by +-spread (relative). */
static rt_speedup_time_t tm(double mean, double spread)
{
    return (rt_speedup_time_t){mean, mean * spread / 2, mean * (1 - spread), mean * (1 + spread)};
}

#define TIMES(name, spread, ...)                                                          \
    rt_speedup_time_t name[4];                                                            \
    do {                                                                                  \
        const double m_[] = {__VA_ARGS__};                                                \
        for (int i_ = 0; i_ < 4; i_++)                                                    \
            name[i_] = tm(m_[i_], spread);                                                \
    } while (0)

/* The verdicts of one size and of a sweep on given timings (no clock). */
static void test_verdict(void)
{
    /* one size: beyond the noise, within it, at the clock's floor */
    CHECK(rt_speedup_compare(tm(1e-3, 0.01), tm(1e-4, 0.01)) == RT_SPEEDUP_GPU);
    CHECK(rt_speedup_compare(tm(1e-4, 0.01), tm(1e-3, 0.01)) == RT_SPEEDUP_CPU);
    CHECK(rt_speedup_compare(tm(1.00e-3, 0.02), tm(1.03e-3, 0.02)) == RT_SPEEDUP_SAME);
    CHECK(rt_speedup_compare(tm(1.00e-3, 0.01), tm(1.03e-3, 0.01)) == RT_SPEEDUP_CPU);
    CHECK(rt_speedup_compare(tm(1e-3, 0), tm(1.01e-3, 0)) == RT_SPEEDUP_CPU); /* one run */
    CHECK(rt_speedup_compare(tm(1e-3, 0.01), tm(2e-9, 0.01)) == RT_SPEEDUP_NONE);
    CHECK(rt_speedup_compare(tm(10e-9, 0.01), tm(1e-3, 0.01)) == RT_SPEEDUP_NONE);
    CHECK(rt_speedup_compare(tm(1e-3, 0.01), tm(0, 0)) == RT_SPEEDUP_NONE);

    const double size[] = {1e2, 1e3, 1e4, 1e5};
    char text[200];
    TIMES(cpu, 0.01, 1e-6, 1e-5, 1e-4, 1e-3);
    /* slower at 1e2 and 1e3 (ratio 0.1, then 0.5), faster from 1e4 (2, 10) */
    TIMES(gpu, 0.01, 1e-5, 2e-5, 5e-5, 1e-4);
    double x = rt_speedup_sweep_verdict(size, cpu, gpu, 4, "N", text, sizeof text);
    /* log-linear between 1e3 (log ratio -0.301) and 1e4 (+0.301): 10^3.5 */
    CHECK(x > 3162 && x < 3163);
    CHECK_STR(text, "GPU (with transfers) wins from N \xe2\x89\x88 3162");
    TIMES(fast, 0.01, 1e-7, 1e-6, 1e-5, 1e-4);
    CHECK(rt_speedup_sweep_verdict(size, cpu, fast, 4, "N", text, sizeof text) == 0);
    CHECK_STR(text, "GPU (with transfers) faster at every size");
    TIMES(slow, 0.01, 1e-5, 1e-4, 1e-3, 1e-2);
    CHECK(rt_speedup_sweep_verdict(size, cpu, slow, 4, "N", text, sizeof text) == -1);
    CHECK_STR(text, "GPU (with transfers) not faster at N = 1e5");
    TIMES(late, 0.01, 1e-6 * 2, 1e-5 * 2, 1e-4 / 2, 1e-3 * 2);
    CHECK(rt_speedup_crossover(size, cpu, late, 4) == -1); /* not faster at the last size */
    CHECK(rt_speedup_crossover(size, cpu, late, 1) == -1);
    /* the same code on both sides: means a few percent apart, spreads
     * overlapping: no winner at any size, no crossover */
    TIMES(same_cpu, 0.05, 1.00e-6, 1.03e-5, 0.98e-4, 1.02e-3);
    TIMES(same_gpu, 0.05, 1.02e-6, 1.00e-5, 1.01e-4, 0.99e-3);
    CHECK(rt_speedup_sweep_verdict(size, same_cpu, same_gpu, 4, "N", text, sizeof text) == -1);
    CHECK_STR(text, "GPU (with transfers) and CPU the same within noise at every size");
    /* a tie before the first clear win: the crossover is that win's size */
    TIMES(tie, 0.05, 1.02e-6, 1.01e-5, 0.5e-4, 0.1e-3);
    CHECK(rt_speedup_crossover(size, same_cpu, tie, 4) == 1e4);
    /* a clear loss, then a tie at the last size */
    TIMES(tie_last, 0.05, 1e-5, 1e-4, 0.99e-4, 1.01e-3);
    CHECK(rt_speedup_sweep_verdict(size, same_cpu, tie_last, 4, "N", text, sizeof text) == -1);
    CHECK_STR(text, "GPU (with transfers) and CPU the same within noise at N = 1e5");
    /* a GPU section that does nothing: at the floor everywhere */
    TIMES(empty, 0.01, 2e-9, 2e-9, 2e-9, 2e-9);
    CHECK(rt_speedup_sweep_verdict(size, cpu, empty, 4, "N", text, sizeof text) == -1);
    CHECK_STR(text, "no verdict: a section does nothing measurable at every size");
}

static void test_cc_note(void)
{
    if (system("command -v \"${CC:-cc}\" >/dev/null 2>&1") != 0) {
        printf("test_rt_speedup: no system C compiler; the %%%%cc note is not tested\n");
        return;
    }
    expect_ok("%%cc\nvoid cc_square(const float *in, float *out, int n)\n"
              "{ for (int i = 0; i < n; i++) out[i] = in[i] * in[i]; }");
    expect_ok("%%speedup -n 1 -r 1\n//%% cpu\ncc_square(a_in, cpu_out, 1000);\n"
              "//%% gpu\nfor (int i = 0; i < 1000; i++) gpu_out[i] = a_in[i];");
    const char *text = shown(0, "text/plain");
    CHECK(text && strstr(text, "time per run") && !strstr(text, "TCC"));
}

static void test_usage(void)
{
    expect_error("%%speedup\nint x;\n//%% cpu\n//%% gpu\n", "UsageError",
                 "code before the first section");
    expect_error("%%speedup\n//%% cpu\nint y = 1;\n", "UsageError", "needs a //%% cpu section "
                 "and a //%% gpu section");
    expect_error("%%speedup --bogus\n//%% cpu\n//%% gpu\n", "UsageError",
                 "option --bogus not recognized");
    expect_error("%%speedup --check cpu_out\n//%% cpu\n//%% gpu\n", "UsageError",
                 "expected CPU_NAME,GPU_NAME");
    expect_error("%%speedup --check nope,gpu_out:3 -n 1 -r 1\n//%% cpu\n//%% gpu\n",
                 "UsageError", "cannot compare them: .*nope");
    expect_error("%%speedup\n//%% cpu\n//%% gpu\n//%% fast\n", "UsageError",
                 "unknown section 'fast'");
    expect_error("%%speedup -n 1 -r 1\n//%% cpu\nundefined_fn();\n//%% gpu\n", "CompileError",
                 "undefined symbol 'undefined_fn'");
}

SESSION_TEST_MAIN_SETUP("test_rt_speedup", declare_arrays, test_agree, test_mismatch,
                        test_sweep, test_verdict, test_cc_note, test_usage)
