/* The executor client against a real executor process (GPUC_EXE). */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "jk_executor.h"
#include "jk_utf8.h"

typedef struct events_log {
    char text[1 << 16];   /* "[stdout]..." / "[stderr]..." / "[display]" in arrival order */
    size_t len;
    size_t stream_bytes;
} events_log_t;

static void log_add(events_log_t *log, const char *s, size_t n)
{
    if (log->len + n < sizeof log->text) {
        memcpy(log->text + log->len, s, n);
        log->len += n;
        log->text[log->len] = '\0';
    }
}

static void on_stream(void *ctx, const char *name, const char *text, size_t len)
{
    events_log_t *log = ctx;
    log->stream_bytes += len;
    if (len > 200)
        return; /* the output cap test: only count */
    log_add(log, "[", 1);
    log_add(log, name, strlen(name));
    log_add(log, "]", 1);
    log_add(log, text, len);
}

static void on_output(void *ctx, const json_t *msg)
{
    log_add(ctx, "[display]", 9);
}

static json_t *run(jk_executor_t *ex, const char *code, events_log_t *log, int *rc)
{
    memset(log, 0, sizeof *log);
    jk_executor_events_t events = {.ctx = log, .on_stream = on_stream, .on_output = on_output};
    json_t *request = json_pack("{s:s, s:s, s:i, s:b}", "op", "execute", "code", code, "cell", 1,
                                "silent", 0);
    json_t *reply = NULL;
    cm_error_t err = {0};
    *rc = jk_executor_call(ex, request, &events, &reply, &err);
    json_decref(request);
    return reply;
}

static const char *field(json_t *reply, const char *key)
{
    return json_string_value(json_object_get(reply, key));
}

static void test_streams_in_order(jk_executor_t *ex)
{
    events_log_t log;
    int rc;
    json_t *reply = run(ex,
                        "printf(\"one\\n\"); display_html(\"<b>x</b>\"); printf(\"two\\n\");"
                        "fprintf(stderr, \"err\\n\");",
                        &log, &rc);
    CHECK(rc == JK_EXECUTOR_REPLY);
    CHECK_STR(field(reply, "status"), "ok");
    CHECK_STR(log.text, "[stdout]one\n[display][stdout]two\n[stderr]err\n");
    json_decref(reply);
}

static void test_invalid_utf8_replaced(jk_executor_t *ex)
{
    events_log_t log;
    int rc;
    json_t *reply = run(ex, "printf(\"a\\xff\\xc3\\xa9\\n\");", &log, &rc);
    CHECK(rc == JK_EXECUTOR_REPLY);
    CHECK_STR(log.text, "[stdout]a\xEF\xBF\xBD\xC3\xA9\n");
    json_decref(reply);
}

static void test_output_cap(jk_executor_t *ex)
{
    events_log_t log;
    int rc;
    json_t *reply = run(ex, "for (int i = 0; i < 12 * 1024; i++) printf(\"%01023d\\n\", i);", &log,
                        &rc);
    CHECK(rc == JK_EXECUTOR_REPLY);
    CHECK(log.stream_bytes <= JK_EXECUTOR_OUTPUT_CAP + 200);
    CHECK(log.stream_bytes >= JK_EXECUTOR_OUTPUT_CAP);
    CHECK(strstr(log.text, "the rest is discarded") != NULL);
    json_decref(reply);
    /* the cap is per request */
    reply = run(ex, "printf(\"after\\n\");", &log, &rc);
    CHECK_STR(log.text, "[stdout]after\n");
    json_decref(reply);
}

static void test_interrupt(jk_executor_t *ex)
{
    json_t *request = json_pack("{s:s, s:s, s:i, s:b}", "op", "execute", "code", "for (;;);",
                                "cell", 2, "silent", 0);
    cm_error_t err = {0};
    CHECK(jk_executor_send(ex, request, &err) == 0);
    json_decref(request);
    usleep(200 * 1000);
    jk_executor_interrupt(ex);
    json_t *reply = NULL;
    int rc = JK_EXECUTOR_PENDING;
    for (int i = 0; i < 200 && rc == JK_EXECUTOR_PENDING; i++) {
        int fds[JK_EXECUTOR_NFDS];
        int n = jk_executor_fds(ex, fds);
        struct pollfd p[JK_EXECUTOR_NFDS];
        for (int k = 0; k < n; k++)
            p[k] = (struct pollfd){.fd = fds[k], .events = POLLIN};
        poll(p, (nfds_t)n, 10);
        rc = jk_executor_pump(ex, NULL, &reply, &err);
    }
    CHECK(rc == JK_EXECUTOR_REPLY);
    CHECK_STR(field(reply, "ename"), "Interrupted");
    json_decref(reply);
}

static void test_death(const char *exe)
{
    cm_error_t err = {0};
    jk_executor_t *ex = jk_executor_new(exe, &err);
    CHECK(ex != NULL);
    if (!ex)
        return;
    events_log_t log;
    int rc;
    json_t *reply = run(ex, "#include <unistd.h>\nprintf(\"bye\\n\"); fflush(stdout); _exit(3);", &log, &rc);
    CHECK(rc == JK_EXECUTOR_DIED);
    CHECK(reply == NULL);
    CHECK_STR(log.text, "[stdout]bye\n");
    jk_executor_free(ex);

    ex = jk_executor_new(exe, &err);
    memset(&err, 0, sizeof err);
    jk_executor_events_t events = {.ctx = &log, .on_stream = on_stream, .on_output = on_output};
    json_t *request = json_pack("{s:s, s:s, s:i, s:b}", "op", "execute", "code",
                                "#include <signal.h>\nraise(SIGKILL);", "cell", 1, "silent", 0);
    rc = jk_executor_call(ex, request, &events, &reply, &err);
    json_decref(request);
    CHECK(rc == JK_EXECUTOR_DIED);
    CHECK(strstr(err.text, "SIGKILL") || strstr(err.text, "KILL"));
    jk_executor_free(ex);
}

static void test_utf8(void)
{
    CHECK(jk_utf8_complete_prefix("ab\xC3", 3) == 2);      /* é cut after its first byte */
    CHECK(jk_utf8_complete_prefix("ab\xE2\x82", 4) == 2);  /* € cut after two */
    CHECK(jk_utf8_complete_prefix("ab\xE2\x82\xAC", 5) == 5);
    CHECK(jk_utf8_complete_prefix("ab\xFF", 3) == 3);      /* invalid: nothing to wait for */
    size_t n;
    char *s = jk_utf8_sanitize("\xC0\x80x\xED\xA0\x80", 6, &n); /* overlong, surrogate */
    CHECK_STR(s, "\xEF\xBF\xBD\xEF\xBF\xBDx\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    free(s);
}

int main(void)
{
    test_utf8();
    const char *exe = getenv("GPUC_EXE");
    if (!exe) {
        fprintf(stderr, "GPUC_EXE is not set\n");
        return 1;
    }
    cm_error_t err = {0};
    jk_executor_t *ex = jk_executor_new(exe, &err);
    CHECK(ex != NULL);
    if (ex) {
        test_streams_in_order(ex);
        test_invalid_utf8_replaced(ex);
        test_output_cap(ex);
        test_interrupt(ex);
        jk_executor_free(ex);
    }
    test_death(exe);
    return check_report("test_jk_executor");
}
