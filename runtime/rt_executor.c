/* rt_executor: the executor process's main loop (see rt_executor.h). */
#include "rt_executor.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_link.h"
#include "cm_log.h"
#include "gpuc_config.h"
#include "rt_protect.h"
#include "rt_complete.h"
#include "rt_execute.h"
#include "rt_gpu_host.h"
#include "rt_input.h"
#include "rt_limits.h"
#include "rt_output.h"
#include "rt_session.h"

typedef struct executor {
    int fd;                /* the link */
    rt_session_t *session;
    int done;              /* shutdown requested */
    int link_failed;
} executor_t;

typedef json_t *(*handler_fn)(executor_t *x, json_t *req);

/* Flushes the output so the kernel publishes text before the frame. */
static int send_frame(executor_t *x, json_t *msg)
{
    rt_output_flush();
    cm_error_t err = {0};
    if (cm_link_send(x->fd, msg, &err) != 0) {
        CM_ERR("link send failed: %s", err.text);
        x->link_failed = 1;
        return -1;
    }
    return 0;
}

/* A display waits for the kernel's "ack": the kernel publishes the text
 * already in the pipes first, and nothing printed after the display can
 * overtake it. An ack left unread (a cell interrupted here) is skipped by
 * the main loop. */
static void emit(void *ctx, const json_t *msg)
{
    executor_t *x = ctx;
    if (send_frame(x, (json_t *)msg) != 0)
        return;
    json_t *ack = NULL;
    cm_error_t err = {0};
    if (cm_link_recv(x->fd, &ack, &err) != 0) {
        x->link_failed = 1;
        return;
    }
    json_decref(ack);
}

/* A cell reads stdin: an "input_request" frame, then the kernel's "input"
 * frame with the front end's line (or "eof"). The wait is a poll, so that
 * an interrupt (which does not jump out of a read of stdin: see rt_input)
 * ends it; an "input" frame that comes after is skipped by the main loop. */
static int ask(void *ctx, const char *prompt, char **line)
{
    executor_t *x = ctx;
    json_t *req = json_pack("{s:s, s:s, s:b}", CM_LINK_OP, CM_LINK_INPUT_REQUEST, "prompt", prompt,
                            "password", 0);
    int sent = req && send_frame(x, req) == 0;
    json_decref(req);
    if (!sent)
        return -1;
    for (;;) {
        struct pollfd p = {.fd = x->fd, .events = POLLIN};
        int rc = poll(&p, 1, -1);
        if (rt_protect_interrupted())
            return -1;
        if (rc < 0 && errno == EINTR)
            continue;
        json_t *msg = NULL;
        cm_error_t err = {0};
        if (rc < 0 || cm_link_recv(x->fd, &msg, &err) != 0) {
            x->link_failed = 1;
            return -1;
        }
        if (cm_link_op_is(msg, CM_LINK_INPUT)) {
            const char *value = json_string_value(json_object_get(msg, "value"));
            int eof = !value || json_is_true(json_object_get(msg, "eof"));
            *line = eof ? NULL : strdup(value);
            json_decref(msg);
            return eof ? 1 : (*line ? 0 : -1);
        }
        json_decref(msg); /* a stray ack: see emit */
    }
}

static const char *str_field(json_t *req, const char *key)
{
    const char *v = json_string_value(json_object_get(req, key));
    return v ? v : "";
}

static int int_field(json_t *req, const char *key, int dflt)
{
    json_t *v = json_object_get(req, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static json_t *handle_execute(executor_t *x, json_t *req)
{
    static int counter;
    int cell = int_field(req, "cell", ++counter);
    rt_input_begin_cell(json_is_true(json_object_get(req, "allow_stdin")));
    return rt_execute(x->session, str_field(req, "code"), cell);
}

static json_t *handle_complete(executor_t *x, json_t *req)
{
    const char *code = str_field(req, "code");
    return rt_complete(x->session, code, int_field(req, "cursor_pos", (int)strlen(code)));
}

static json_t *handle_inspect(executor_t *x, json_t *req)
{
    const char *code = str_field(req, "code");
    return rt_inspect(x->session, code, int_field(req, "cursor_pos", (int)strlen(code)),
                      int_field(req, "detail_level", 0));
}

static json_t *handle_is_complete(executor_t *x, json_t *req)
{
    return rt_is_complete(x->session, str_field(req, "code"));
}

static json_t *handle_shutdown(executor_t *x, json_t *req)
{
    (void)req;
    x->done = 1;
    return NULL; /* no reply: the executor exits */
}

static const struct {
    const char *op;
    handler_fn handle;
} handlers[] = {
    {CM_LINK_EXECUTE, handle_execute},
    {CM_LINK_COMPLETE, handle_complete},
    {CM_LINK_INSPECT, handle_inspect},
    {CM_LINK_IS_COMPLETE, handle_is_complete},
    {CM_LINK_SHUTDOWN, handle_shutdown},
};

static void dispatch(executor_t *x, json_t *req)
{
    const char *op = str_field(req, CM_LINK_OP);
    json_t *reply = NULL;
    size_t i;
    for (i = 0; i < sizeof handlers / sizeof handlers[0]; i++) {
        if (strcmp(op, handlers[i].op) == 0) {
            reply = handlers[i].handle(x, req);
            break;
        }
    }
    if (i == sizeof handlers / sizeof handlers[0]) {
        rt_error_t err = {0};
        rt_error_set(&err, "ProtocolError", 0, 0, "unknown op '%.200s'", op);
        reply = json_pack("{s:s, s:o}", "status", "error", "error", rt_error_json(&err));
        rt_error_free(&err);
    }
    if (!reply)
        return;
    json_object_set_new(reply, CM_LINK_OP, json_string(CM_LINK_REPLY));
    if (rt_gpu_context_lost()) /* the executor exits after this reply */
        json_object_set_new(reply, "restarting", json_true());
    send_frame(x, reply);
    json_decref(reply);
}

/* Every TRIM_EVERY requests, at the first moment no request waits, the
 * heap's free pages go back to the system. Each cell's compile allocates
 * and frees libtcc's ~2 MiB state; a block the session keeps, carved from
 * the space it leaves, makes the next state come from new pages, and glibc
 * gives back only the top of its heap: the resident size would climb in
 * steps of up to a MiB that nothing uses. malloc_trim takes ~0.4 ms here
 * (up to 2.6 ms), so it runs only while the link is idle; the next cell
 * faults libtcc's pages in again (~0.3 ms, once per TRIM_EVERY cells). */
#define TRIM_EVERY 64

static void trim_when_idle(executor_t *x, unsigned *requests)
{
    struct pollfd p = {.fd = x->fd, .events = POLLIN};
    if (*requests >= TRIM_EVERY && poll(&p, 1, 0) == 0) {
        malloc_trim(0);
        *requests = 0;
    }
}

/* The fd given as --NAME N, or -1. */
static int parse_fd(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return atoi(argv[i + 1]);
    return -1;
}

int rt_executor_main(int argc, char **argv)
{
    cm_log_init("executor");
    executor_t x = {0};
    x.fd = parse_fd(argc, argv, "--link-fd");
    int out_fd = parse_fd(argc, argv, "--output-fd");
    if (x.fd < 0 || fcntl(x.fd, F_GETFD) < 0 || out_fd < 0 || fcntl(out_fd, F_GETFD) < 0) {
        CM_ERR("usage: gpuc executor --link-fd N --output-fd M (N an open socket, M a pipe)");
        return 2;
    }
    fcntl(x.fd, F_SETFD, FD_CLOEXEC);
    signal(SIGPIPE, SIG_IGN);
    rt_protect_on_fork(x.fd);
    cm_error_t err = {0};
    if (rt_output_init(out_fd, &err) != 0 || rt_input_init(ask, &x, &err) != 0) {
        CM_ERR("cannot set up the standard streams: %s", err.text);
        return 1;
    }
    x.session = rt_session_new(NULL, emit, &x, &err);
    if (!x.session) {
        CM_ERR("cannot start the session: %s", err.text);
        return 1;
    }
    if (rt_limits_apply(&err) != 0) {
        CM_ERR("cannot apply the operator's limits: %s", err.text);
        rt_session_free(x.session);
        return 1;
    }
    json_t *ready = json_pack("{s:s, s:I, s:s}", CM_LINK_OP, CM_LINK_READY, "pid", (json_int_t)getpid(),
                              "version", GPUC_VERSION);
    send_frame(&x, ready);
    json_decref(ready);
    int status = 0;
    unsigned requests = 0; /* since the last trim */
    while (!x.done && !x.link_failed) {
        trim_when_idle(&x, &requests);
        json_t *req = NULL;
        int rc = cm_link_recv(x.fd, &req, &err);
        if (rc == 1)
            break; /* the kernel closed the link */
        if (rc < 0) {
            CM_ERR("link receive failed: %s", err.text);
            status = 1;
            break;
        }
        rt_protect_take_pending_interrupt(); /* an interrupt between cells is spent */
        /* a stray ack (see emit) or input (see ask) */
        if (!cm_link_op_is(req, CM_LINK_ACK) && !cm_link_op_is(req, CM_LINK_INPUT)) {
            dispatch(&x, req);
            requests++;
        }
        json_decref(req);
        if (rt_gpu_context_lost()) {
            /* no CUDA call can work in this process any more (seen on the
             * H100: even a new primary context fails): make way for a new
             * executor, after the reply that said so */
            CM_WARN("the GPU context is lost: the executor exits for a fresh one");
            status = 75;
            break;
        }
    }
    rt_output_flush();
    rt_session_free(x.session);
    return status;
}
