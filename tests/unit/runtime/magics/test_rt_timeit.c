/* test_rt_timeit: IPython's time format, and %timeit / %%timeit / %%time
 * driven through rt_execute (fd 1 captured): autorange, -n/-r,
 * -q, -o and _timeit in a later cell, the slow-first-run warning, setup,
 * errors, and %%time's lines and result. */
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "session_check.h"
#include "cm_log.h"
#include "rt_session.h"
#include "rt_timeit.h"


static json_t *run(const char *code)
{
    return run_next_capturing(code);
}

/* A time as _format_time writes it, and the summary line. */
#define T "[0-9.e+]+ (ns|\xce\xbcs|ms|s)"
#define SUMMARY(runs, loops)                                                               \
    "^" T " \xc2\xb1 " T " per loop \\(mean \xc2\xb1 std\\. dev\\. of " runs ", " loops      \
    " each\\)$"

static void test_format(void)
{
    /* the expected texts are what IPython 9.18's _format_time prints */
    static const struct { double t; const char *want; } cases[] = {
        {1.23e-06, "1.23 \xce\xbcs"}, {0.5, "500 ms"}, {12.3, "12.3 s"}, {4.56e-09, "4.56 ns"},
        {0.0, "0 ns"}, {75.5, "1min 15s"}, {3600.2, "1h"}, {0.001, "1 ms"},
        {0.99999, "1e+03 ms"}, {1e-10, "0.1 ns"}, {0.000123456, "123 \xce\xbcs"},
        {90061.5, "1d 1h 1min 1s"},
    };
    char b[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rt_timeit_format(cases[i].t, b, sizeof b);
        CHECK_STR(b, cases[i].want);
    }
    /* IPython: TimeitResult(100000, 7, ..., [0.1, 0.12, 0.11, 0.1, 0.1, 0.1, 0.1]) */
    double runs[] = {0.1, 0.12, 0.11, 0.1, 0.1, 0.1, 0.1};
    char s[256];
    rt_timeit_summary(runs, 7, 100000, s, sizeof s);
    CHECK_STR(s, "1.04 \xce\xbcs \xc2\xb1 72.8 ns per loop (mean \xc2\xb1 std. dev. of 7 runs, "
                 "100,000 loops each)");
    rt_timeit_summary(runs, 1, 1, s, sizeof s);
    CHECK_STR(s, "100 ms \xc2\xb1 0 ns per loop (mean \xc2\xb1 std. dev. of 1 run, 1 loop each)");
}

static void test_timeit(void)
{
    json_t *r = run("volatile double x = 2.0;\nint calls = 0;\n"
                    "void work(void) { calls++; for (volatile int i = 0; i < 2000; i++) x = "
                    "sqrt(x); }");
    CHECK_STR(field(r, "status"), "ok");
    json_decref(r);

    /* autorange: the chosen N makes one run take at least 0.2 s */
    r = run("calls = 0;\n%timeit work();");
    CHECK_STR(field(r, "status"), "ok");
    CHECK(result(r) == NULL);
    CHECK(matches(out, SUMMARY("7 runs", "[0-9,]+ loops?")));
    json_decref(r);

    /* -n and -r are respected: 3 runs of 5 loops, no autorange */
    r = run("calls = 0;\n%timeit -n 5 -r 3 work();\ncalls");
    CHECK_STR(field(r, "status"), "ok");
    CHECK_STR(result(r), "15");
    CHECK(matches(out, SUMMARY("3 runs", "5 loops")));
    json_decref(r);

    /* -q: nothing printed; -o: _timeit for later cells, the repr as result */
    r = run("%timeit -q -n 2 -r 4 work();");
    CHECK_STR(field(r, "status"), "ok");
    CHECK_STR(out, "");
    CHECK(result(r) == NULL);
    json_decref(r);
    r = run("%timeit -q -o -n 3 -r 2 work();");
    CHECK_STR(out, "");
    CHECK(result(r) && strncmp(result(r), "<TimeitResult : ", 16) == 0 &&
          strstr(result(r), "of 2 runs, 3 loops each)>"));
    json_decref(r);
    r = run("_timeit.loops * 100 + _timeit.runs");
    CHECK_STR(result(r), "302");
    json_decref(r);
    r = run("_timeit.mean > 0 && _timeit.best <= _timeit.mean && _timeit.mean <= _timeit.worst "
            "&& _timeit.all_runs[1] > 0 && _timeit.all_runs[2] == 0");
    CHECK_STR(result(r), "1");
    json_decref(r);
    /* a second -o rebinds it; a variable copied before keeps its values */
    r = run("gpuc_timeit_t before = _timeit;\n%timeit -q -o -n 1 -r 5 work();\n"
            "before.runs * 10 + _timeit.runs");
    CHECK_STR(field(r, "status"), "ok");
    CHECK_STR(result(r), "25");
    json_decref(r);

    /* the slow first run: IPython's warning, first */
    r = run("#include <unistd.h>\nint slow_calls = 0;\n"
            "void slow_first(void) { if (slow_calls++ == 0) usleep(20000); }");
    json_decref(r);
    r = run("%timeit -n 1 -r 3 slow_first();");
    CHECK(matches(out, "^The slowest run took [0-9.]+ times longer than the fastest\\. This could "
                       "mean that an intermediate result is being cached\\.\n"));
    CHECK(matches(out, SUMMARY("3 runs", "1 loop")));
    json_decref(r);
}

static void test_cell_timeit(void)
{
    /* setup on the magic line runs before each run; the body sees it */
    json_t *r = run("%%timeit -n 10 -r 2 int k = 0; static int runs_seen; runs_seen++;\n"
                    "k++;\n"
                    "if (k > 10) abort();");
    CHECK_STR(field(r, "status"), "ok");
    CHECK(matches(out, SUMMARY("2 runs", "10 loops")));
    json_decref(r);
    r = run("%%timeit -o -n 1 -r 1\nint z = 3; z++;");
    CHECK(result(r) && strstr(result(r), "of 1 run, 1 loop each)>"));
    json_decref(r);

    /* errors: compile errors on the cell's lines, faults, usage */
    r = run("%%timeit -n 1 -r 1\nint a = 1;\na += nosuch;");
    CHECK_STR(ename(r), "CompileError");
    CHECK(strstr(evalue(r), "line 3") && strstr(evalue(r), "nosuch"));
    json_decref(r);
    r = run("%timeit -n 1 -r 1 *(volatile int *)0 = 1;");
    CHECK_STR(ename(r), "SegmentationFault");
    json_decref(r);
    r = run("%timeit -x 1;");
    CHECK_STR(ename(r), "UsageError");
    json_decref(r);
    r = run("%timeit -n 0 x;");
    CHECK_STR(ename(r), "UsageError");
    json_decref(r);
    r = run("%timeit");
    CHECK_STR(ename(r), "UsageError");
    json_decref(r);
}

static void test_time(void)
{
    json_t *r = run("%%time\n#include <unistd.h>\nint timed = 6;\nusleep(30000);\n"
                    "printf(\"hi\\n\");\ntimed * 7");
    CHECK_STR(field(r, "status"), "ok");
    CHECK_STR(result(r), "42");
    /* a compile over 0.1 s (a cold start, a busy machine) adds its line */
    CHECK(matches(out, "^hi\nCPU times: user " T ", sys: " T ", total: " T "\nWall time: " T
                       "\n(Compiler : " T "\n)?$"));
    /* the wall time covers the usleep: at least 30 ms */
    CHECK(matches(out, "Wall time: ([3-9][0-9]|[1-9][0-9][0-9])(\\.[0-9]+)? ms"));
    json_decref(r);
    r = run("timed");
    CHECK_STR(result(r), "6");
    json_decref(r);
    r = run("%%time\nint bad = ;");
    CHECK_STR(ename(r), "CompileError");
    CHECK(strstr(json_dumps(error_of(r), 0), "line 2"));
    CHECK_STR(out, "");
    json_decref(r);
    r = run("%%time -n 3\nint q;");
    CHECK_STR(ename(r), "UsageError");
    json_decref(r);
}

SESSION_TEST_MAIN("test_rt_timeit", test_format, test_timeit, test_cell_timeit, test_time)
