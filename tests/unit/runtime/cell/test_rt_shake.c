/* test_rt_shake: header tree-shaking (rt_shake) gives the same results as
 * the full headers: every cell runs with shaking on, off, and broken on
 * purpose (so that the fallback compiles everything). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "session_check.h"
#include "cm_log.h"
#include "rt_session.h"

typedef struct cell {
    const char *code;
    const char *result; /* text/plain result; NULL = none */
} cell_t;

static const cell_t cells[] = {
    {"#include <limits.h>\n#include <errno.h>\n#include <assert.h>\n#include <ctype.h>\n"
     "#include <time.h>", NULL},
    {"int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }", NULL},
    {"int v[] = {3, 1, 2};\nqsort(v, 3, sizeof v[0], cmp);\nv[0] * 100 + v[1] * 10 + v[2]", "123"},
    {"printf(\"hi %d\\n\", 1); puts(\"x\"); fprintf(stderr, \"err\\n\"); fflush(stdout); 7", "7"},
    {"char *p = malloc(16);\nstrcpy(p, \"hello\");\nsize_t L = strlen(p);\nfree(p);\nL", "5"},
    {"char d[8]; memcpy(d, \"abc\", 4); strcmp(d, \"abc\")", "0"},
    {"sqrt(16.0) + sin(0.0) + pow(2, 3) + fabs(-1.0)", "13"},
    {"M_PI > 3.14 && M_PI < 3.15", "1"},
    {"INT_MAX", "2147483647"},
    {"errno = 0; strtol(\"99999999999999999999\", NULL, 10); errno == ERANGE", "1"},
    {"assert(1 + 1 == 2); 1", "1"},
    {"isdigit('7') != 0 && !isdigit('x')", "1"},
    {"time(NULL) > 1000000", "1"},
    {"FILE *f = stdout;\nf != NULL", "1"},
    {"uint8_t b = 255;\nb + 1", "256"},
    {"bool ok = true;\nok", "true"},
    {"struct timespec ts;\nclock_gettime(CLOCK_REALTIME, &ts);\nts.tv_sec > 0", "1"},
    {"getenv(\"PATH\") != NULL", "1"},
    {"atoi(\"42\") + (int)strtod(\"0.5e1\", NULL)", "47"},
    {"char buf[32];\nsnprintf(buf, sizeof buf, \"%d-%s\", 7, \"x\");\nstrcmp(buf, \"7-x\") == 0",
     "1"},
    {"#define TWICE(x) (2 * (x))", NULL},
    {"TWICE(21)", "42"},
    {"typedef size_t count_t;\ncount_t c = sizeof(int);\nc", "4"},
    {"c + TWICE(1)", "6"},
    {"NAN != NAN && isinf(INFINITY) && HUGE_VAL > 1e308", "1"},
    {"EOF", "-1"},
    {"struct point { int x, y; };\nstruct point origin = {1, 2};", NULL},
    {"struct point *q = &origin;\nq->x + q->y", "3"},
    {"enum color { RED, GREEN = 5 };\nenum color col = GREEN;", NULL},
    {"col + RED", "5"},
    {"double scale(double x) { return x * M_PI; }\nscale(1) == M_PI", "1"},
    {"sqrt(2)", "1.4142135623730951"},
    {"\"text\"", "\"text\""},
    {"int neg = abs(-3);\nneg", "3"},
};

#define NCELLS (sizeof cells / sizeof cells[0])

static rt_session_t *new_session(rt_headers_mode_t mode)
{
    cm_error_t err = {0};
    rt_session_t *s = rt_session_new(NULL, NULL, NULL, &err);
    if (!s) {
        fprintf(stderr, "rt_session_new: %s\n", err.text);
        exit(1);
    }
    rt_session_set_headers(s, mode);
    return s;
}

/* Runs every cell in a fresh session in mode; returns its stats. */
static rt_compile_stats_t run_cells(rt_headers_mode_t mode)
{
    rt_session_t *s = new_session(mode);
    for (size_t i = 0; i < NCELLS; i++) {
        int f = check_failures;
        json_t *r = rt_execute(s, cells[i].code, (int)i + 1);
        CHECK_STR(status(r), "ok");
        if (cells[i].result)
            CHECK_STR(result(r), cells[i].result);
        else
            CHECK(result(r) == NULL);
        if (check_failures > f) {
            char *d = json_dumps(r, 0);
            fprintf(stderr, "mode %d, cell %zu:\n%s\n-> %s\n", (int)mode, i + 1, cells[i].code, d);
            free(d);
        }
        json_decref(r);
    }
    rt_compile_stats_t st;
    rt_session_stats(s, &st);
    rt_session_free(s);
    return st;
}

static void test_same_results(void)
{
    rt_compile_stats_t on = run_cells(RT_HEADERS_SHAKE);
    rt_compile_stats_t off = run_cells(RT_HEADERS_FULL);
    rt_compile_stats_t broken = run_cells(RT_HEADERS_BROKEN);
    printf("shaking on: %lu shaken, %lu fallbacks, %lu full, %lu preprocessings\n", on.shaken,
           on.fallbacks, on.full, on.preprocess);
    /* the first cell has #include lines of its own: compiled in full */
    CHECK(on.full >= 1);
    CHECK(on.shaken >= NCELLS - 3);
    CHECK(off.shaken == 0 && off.fallbacks == 0);
    /* broken on purpose: every shaken compile fails, the fallback does it all */
    CHECK(broken.shaken == 0);
    CHECK(broken.fallbacks >= NCELLS - 1);
}

/* Errors and their text come from the full compile. */
static void test_errors_unchanged(void)
{
    const char *bad[] = {"int q = nothing_here + 1;", "strlen(1, 2)", "undefined_fn(3)", NULL};
    char *evalues[2][3] = {{0}};
    rt_headers_mode_t modes[2] = {RT_HEADERS_SHAKE, RT_HEADERS_FULL};
    for (int m = 0; m < 2; m++) {
        rt_session_t *s = new_session(modes[m]);
        json_t *r = rt_execute(s, "int base = 1;", 1);
        json_decref(r);
        for (int i = 0; bad[i]; i++) {
            r = rt_execute(s, bad[i], i + 2);
            CHECK_STR(status(r), "error");
            const char *ev = evalue(r);
            evalues[m][i] = strdup(ev ? ev : "");
            json_decref(r);
        }
        rt_session_free(s);
    }
    for (int i = 0; bad[i]; i++) {
        CHECK_STR(evalues[0][i], evalues[1][i]);
        free(evalues[0][i]);
        free(evalues[1][i]);
    }
}

/* A user header edited on disk is read again. */
static void test_header_edited(void)
{
    char path[] = "/tmp/gpuc_test_shake_XXXXXX.h";
    int fd = mkstemps(path, 2);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    fputs("#define HV 1\nstatic int hv_twice(void) { return 2 * HV; }\n", f);
    fclose(f);
    rt_session_t *s = new_session(RT_HEADERS_SHAKE);
    char inc[128];
    snprintf(inc, sizeof inc, "#include \"%s\"", path);
    json_t *r = rt_execute(s, inc, 1);
    CHECK_STR(status(r), "ok");
    json_decref(r);
    r = rt_execute(s, "HV + hv_twice()", 2);
    CHECK_STR(result(r), "3");
    json_decref(r);
    f = fopen(path, "w");
    fputs("#define HV 100\nstatic int hv_twice(void) { return 2 * HV; }\n", f);
    fclose(f);
    r = rt_execute(s, "HV + hv_twice()", 3);
    CHECK_STR(result(r), "300");
    json_decref(r);
    rt_compile_stats_t st;
    rt_session_stats(s, &st);
    CHECK(st.preprocess == 2);
    rt_session_free(s);
    unlink(path);
}

int main(void)
{
    cm_log_init("test"); /* GPUC_LOG=debug shows every fallback */
    test_same_results();
    test_errors_unchanged();
    test_header_edited();
    return check_report("test_rt_shake");
}
