/* session_check.h: what the unit tests that drive an rt_session share:
 * ASan options that leave the fault signals to the session's boundary,
 * the session S the tests run cells in and the test main
 * (SESSION_TEST_MAIN: `test_x NAME...` runs only the tests named,
 * `--reverse` runs them backwards), accessors of a reply, a run that captures the
 * cell's stdout, a regex match, and the EXPECT / EXPECT_OUT / EXPECT_ERROR
 * checks (they call the test's own `run(code)`). Include after check.h. */
#ifndef SESSION_CHECK_H
#define SESSION_CHECK_H

#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_complete.h"
#include "rt_execute.h"
#include "cm_log.h"
#include "rt_session.h"

/* ASan must leave the fault signals to the session's boundary. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0:"
           "use_sigaltstack=0:detect_leaks=0";
}

/* reply[key] as a string, "" when absent. */
static inline const char *field(const json_t *r, const char *key)
{
    const char *v = json_string_value(json_object_get(r, key));
    return v ? v : "";
}

static inline const char *status(const json_t *r) { return field(r, "status"); }
/* The error of a reply (rt_error_json: kind, message, traceback...). */
static inline const json_t *error_of(const json_t *r) { return json_object_get(r, "error"); }
static inline const char *ename(const json_t *r) { return field(error_of(r), "kind"); }
static inline const char *evalue(const json_t *r) { return field(error_of(r), "message"); }

/* The text/plain result, or NULL. */
static inline const char *result(const json_t *r)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(r, "result"), "data"), "text/plain"));
}

static char out[65536]; /* what the last run_capturing cell wrote to stdout */

static inline void dump(const json_t *r)
{
    char *s = json_dumps(r, JSON_INDENT(1));
    fprintf(stderr, "%s\nstdout: [%s]\n", s, out);
    free(s);
}

/* Runs a cell with fd 1 sent to a temporary file, kept in out[]. */
static inline json_t *run_capturing(rt_session_t *s, const char *code, int cell)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    json_t *r = rt_execute(s, code, cell);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, sizeof out - 1, tmp);
    out[n] = 0;
    fclose(tmp);
    return r;
}

/* Non-zero when text matches the extended regex (printed when it does not). */
static inline int matches(const char *text, const char *re)
{
    regex_t rx;
    if (!text || regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE) != 0)
        return 0;
    int ok = regexec(&rx, text, 0, NULL, 0) == 0;
    regfree(&rx);
    if (!ok)
        fprintf(stderr, "no match for /%s/ in [%s]\n", re, text);
    return ok;
}

/* The cell succeeds with result want (NULL = none) and, unless want_out is
 * NULL, stdout want_out (with a capturing run). */
#define EXPECT_OUT(code, want, want_out)                                     \
    do {                                                                     \
        int f_ = check_failures;                                             \
        json_t *r_ = run(code);                                              \
        CHECK_STR(status(r_), "ok");                                         \
        if ((want) == NULL)                                                  \
            CHECK(result(r_) == NULL);                                       \
        else                                                                 \
            CHECK_STR(result(r_), (want));                                   \
        if ((want_out) != NULL)                                              \
            CHECK_STR(out, (want_out));                                      \
        if (check_failures > f_)                                             \
            dump(r_);                                                        \
        json_decref(r_);                                                     \
    } while (0)

#define EXPECT(code, want) EXPECT_OUT(code, want, NULL)

/* The cell fails with ename and an evalue containing evalue_part. */
#define EXPECT_ERROR(code, want_ename, evalue_part)                          \
    do {                                                                     \
        int f_ = check_failures;                                             \
        json_t *r_ = run(code);                                              \
        CHECK_STR(status(r_), "error");                                      \
        CHECK_STR(ename(r_), (want_ename));                                  \
        CHECK(strstr(evalue(r_), (evalue_part)) != NULL);                    \
        if (check_failures > f_)                                             \
            dump(r_);                                                        \
        json_decref(r_);                                                     \
    } while (0)

/* ---- the session and the test main ---- */

static rt_session_t *S; /* the session the tests run cells in */
static int cell_no;     /* the number of the last cell run */
static json_t *emitted; /* the session's display messages, in order */

static void emit(void *ctx, const json_t *msg)
{
    (void)ctx;
    json_array_append(emitted, (json_t *)msg);
}

/* Runs code as the next cell of S; the _capturing form keeps its stdout
 * in out[]. */
static inline json_t *run_next(const char *code)
{
    return rt_execute(S, code, ++cell_no);
}

static inline json_t *run_next_capturing(const char *code)
{
    return run_capturing(S, code, ++cell_no);
}

/* The main of a session test: a fresh session S (its displays collected
 * in emitted), then each of tests (NULL-terminated) in order, then the
 * report. */
static inline int session_test_main(const char *name, void (*const *tests)(void))
{
    cm_log_init("test"); /* GPUC_LOG=debug shows what the session does */
    emitted = json_array();
    cm_error_t err = {0};
    S = rt_session_new(NULL, emit, NULL, &err);
    CHECK(S != NULL);
    if (!S) {
        fprintf(stderr, "rt_session_new: %s\n", err.text);
        return check_report(name);
    }
    for (size_t i = 0; tests[i]; i++)
        tests[i]();
    rt_session_free(S);
    json_decref(emitted);
    return check_report(name);
}

/* Non-zero when the i-th name of names ("test_a, test_b, ...", as
 * SESSION_TEST_MAIN spells its arguments) is one of argv[1..]. */
static inline int session_test_named(const char *names, size_t i, int argc, char **argv)
{
    const char *p = names;
    for (size_t k = 0; k < i && p; k++)
        if ((p = strchr(p, ',')) != NULL)
            p++;
    if (!p)
        return 0;
    p += strspn(p, " \t\n");
    size_t len = strcspn(p, ", \t\n");
    for (int a = 1; a < argc; a++)
        if (strlen(argv[a]) == len && strncmp(argv[a], p, len) == 0)
            return 1;
    return 0;
}

/* SESSION_TEST_MAIN's main: the tests named on the command line (all when
 * none is), after setup (NULL: none), each in a session that setup made;
 * with --reverse, in reverse order. So each test can run alone and in any
 * order: a test never counts on what an earlier one left in S. */
static inline int session_test_main_args(const char *name, void (*setup)(void),
                                         void (*const *tests)(void), const char *names,
                                         int argc, char **argv)
{
    static void (*chosen[256])(void);
    size_t n = 0, count = 0;
    int reverse = 0, named = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--reverse") == 0)
            reverse = 1;
        else
            named = 1;
    }
    if (setup)
        chosen[count++] = setup;
    while (tests[n])
        n++;
    for (size_t k = 0; k < n && count + 1 < sizeof chosen / sizeof chosen[0]; k++) {
        size_t i = reverse ? n - 1 - k : k;
        if (!named || session_test_named(names, i, argc, argv))
            chosen[count++] = tests[i];
    }
    chosen[count] = NULL;
    return session_test_main(name, chosen);
}

/* The main of a session test file: `int main` running the tests given
 * (session_test_main_args); SESSION_TEST_MAIN_SETUP runs setup first, in
 * each run: the names and definitions the tests share (the fixture). */
#define SESSION_TEST_MAIN(name, ...) SESSION_TEST_MAIN_SETUP(name, NULL, __VA_ARGS__)

#define SESSION_TEST_MAIN_SETUP(name, setup, ...)                            \
    int main(int argc, char **argv)                                          \
    {                                                                        \
        static void (*const tests_[])(void) = {__VA_ARGS__, NULL};            \
        return session_test_main_args(name, setup, tests_, #__VA_ARGS__, argc, argv); \
    }

#endif
