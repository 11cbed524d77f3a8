#include "jk_shell.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "cm_buf.h"
#include "cm_limits.h"
#include "cm_link.h"
#include "cm_log.h"
#include "cm_time.h"
#include "jk_info.h"
#include "jk_reply.h"
#include "jk_socket.h"

#define IDLE_POLL_MS 500 /* the longest poll: how often the loop checks on a watched parent */
/* After the time limit's interrupt, before the executor is killed */
#define INTERRUPT_GRACE_MS 5000

typedef struct request {
    jk_shell_t *s;
    const jk_message_t *msg;
    int silent; /* publish nothing but status */
    /* runs once the request is on its way to the executor, so that what it
     * publishes overlaps the executor's work (NULL for none) */
    void (*after_send)(struct request *r);
    const char *code;
    int count;
    int allow_stdin; /* the front end answers input_request */
} request_t;

static void on_stream(void *ctx, const char *name, const char *text, size_t len)
{
    request_t *r = ctx;
    if (!r->silent)
        jk_iopub_publish(r->s->iopub, r->msg, "stream",
                         json_pack("{s:s, s:s%}", "name", name, "text", text, len));
}

static void on_output(void *ctx, const json_t *frame)
{
    request_t *r = ctx;
    if (r->silent)
        return;
    if (cm_link_op_is(frame, CM_LINK_CLEAR_OUTPUT)) {
        jk_iopub_publish(r->s->iopub, r->msg, "clear_output",
                         json_pack("{s:b}", "wait", json_is_true(json_object_get(frame, "wait"))));
        return;
    }
    json_t *content = json_object();
    const char *keys[] = {"data", "metadata", "transient"};
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object_get(frame, keys[i]);
        json_object_set_new(content, keys[i], json_is_object(v) ? json_incref(v) : json_object());
    }
    int update = json_is_true(json_object_get(frame, "update"));
    jk_iopub_publish(r->s->iopub, r->msg, update ? "update_display_data" : "display_data", content);
}

static void send_reply(jk_shell_t *s, const jk_message_t *msg, const char *msg_type, json_t *content)
{
    s->reply(s->ctx, s->socket, msg, msg_type, content);
}

/* Throws away what waits on stdin: replies to input requests of cells
 * that were interrupted (ipykernel does the same). */
static void drop_stale_input(jk_shell_t *s)
{
    for (;;) {
        jk_message_t msg = {0};
        cm_error_t err;
        cm_error_clear(&err);
        int rc = jk_socket_recv_message(s->stdin_socket, s->signer, ZMQ_DONTWAIT, &msg, &err);
        if (rc == 0)
            jk_message_clear(&msg);
        else if (rc == 1 || err.code == JK_SOCKET_ETERM)
            return;
    }
}

/* The cell reads stdin: the front end is asked on the stdin channel, to
 * the identities of the execute request, as ipykernel does. */
static int on_input_request(void *ctx, const json_t *frame)
{
    request_t *r = ctx;
    jk_shell_t *s = r->s;
    if (!r->allow_stdin || !s->stdin_socket)
        return -1;
    drop_stale_input(s);
    const char *prompt = json_string_value(json_object_get(frame, "prompt"));
    s->reply(s->ctx, s->stdin_socket, r->msg, "input_request",
             json_pack("{s:s, s:b}", "prompt", prompt ? prompt : "", "password",
                       json_is_true(json_object_get(frame, "password"))));
    s->awaiting_input = 1;
    return 0;
}

/* An input_reply from the front end goes to the waiting cell. */
static void take_input(jk_shell_t *s)
{
    jk_message_t msg = {0};
    cm_error_t err;
    cm_error_clear(&err);
    while (jk_socket_recv_message(s->stdin_socket, s->signer, ZMQ_DONTWAIT, &msg, &err) == 0) {
        if (s->awaiting_input && strcmp(msg.msg_type, "input_reply") == 0) {
            const char *value = json_string_value(json_object_get(msg.content, "value"));
            s->awaiting_input = 0;
            if (s->executor)
                jk_executor_send_input(s->executor, value ? value : "");
        }
        jk_message_clear(&msg);
    }
}

/* Frees the executor (dead, or exiting after its reply) and, if restart,
 * starts a fresh one. */
static void replace_executor(jk_shell_t *s, int restart)
{
    s->drop_executor(s->ctx);
    s->replaced++;
    jk_journal_replaced(&s->journal);
    if (restart)
        s->ensure_executor(s->ctx);
}

enum { WOKEN = 1, SOCKET_READY = 2, STDIN_READY = 4 };

/* Waits for the wake pipe, the executor's output, the stdin socket while
 * a cell waits for input and, if watch_socket, the shell socket: at most
 * IDLE_POLL_MS, less when buffered output is due. Returns zmq_poll's
 * result; *ready gets WOKEN | SOCKET_READY | STDIN_READY. */
static int wait_for_input(jk_shell_t *s, int watch_socket, int max_ms, int *ready)
{
    zmq_pollitem_t items[3 + JK_EXECUTOR_NFDS] = {{NULL, s->wake_fd, ZMQ_POLLIN, 0},
                                                  {s->socket, 0, ZMQ_POLLIN, 0},
                                                  {s->stdin_socket, 0, ZMQ_POLLIN, 0}};
    int watch_stdin = s->awaiting_input && s->stdin_socket;
    if (!watch_socket)
        items[1] = items[2];
    int n = 1 + (watch_socket != 0) + watch_stdin;
    int stdin_item = watch_socket ? 2 : 1;
    int fds[JK_EXECUTOR_NFDS];
    int nfds = s->executor ? jk_executor_fds(s->executor, fds) : 0;
    for (int i = 0; i < nfds; i++)
        items[n++] = (zmq_pollitem_t){NULL, fds[i], ZMQ_POLLIN, 0};
    int timeout = max_ms >= 0 && max_ms < IDLE_POLL_MS ? max_ms : IDLE_POLL_MS;
    int flush = s->executor ? jk_executor_timeout_ms(s->executor) : -1;
    if (flush >= 0 && flush < timeout)
        timeout = flush;
    int rc = zmq_poll(items, n, timeout);
    *ready = (items[0].revents & ZMQ_POLLIN ? WOKEN : 0) |
             (watch_socket && (items[1].revents & ZMQ_POLLIN) ? SOCKET_READY : 0) |
             (watch_stdin && (items[stdin_item].revents & ZMQ_POLLIN) ? STDIN_READY : 0);
    return rc;
}

/* The cell ran past the operator's time limit (GPUC_LIMIT_CELL_TIME): the
 * first time it is interrupted, then killed if it did not stop within
 * INTERRUPT_GRACE_MS (a GPU kernel that cannot be stopped). Returns the
 * next deadline. */
static long long time_limit(jk_shell_t *s, int *timed_out)
{
    if (!*timed_out) {
        *timed_out = 1;
        jk_executor_interrupt(s->executor);
        return cm_ms() + INTERRUPT_GRACE_MS;
    }
    pid_t pid = jk_executor_pid(s->executor);
    if (pid > 0)
        kill(pid, SIGKILL); /* the next pump sees it die */
    return -1;
}

/* The reply of a cell stopped by the time limit: a CellTimeoutError that
 * says so, with what the interrupted cell said about itself; NULL (the
 * executor died: death says why) when it had to be killed. */
static json_t *timed_out_reply(json_t *reply, double limit, cm_error_t *death)
{
    char evalue[CM_ERROR_TEXT + 400];
    const char *status = json_string_value(json_object_get(reply, "status"));
    if (reply && status && strcmp(status, "ok") == 0)
        return reply; /* it finished as the interrupt came */
    const char *said = json_string_value(json_object_get(reply, "evalue"));
    snprintf(evalue, sizeof evalue,
             "the cell ran past this kernel's time limit of %g s (%s) and was %s%s%.512s", limit,
             CM_LIMIT_CELL_TIME, reply ? "interrupted" : "killed, as it ignored the interrupt",
             said && *said ? ": " : "", said ? said : "");
    if (!reply) {
        cm_error_clear(death);
        CM_ERROR(death, -1, "%s", evalue);
        return NULL;
    }
    json_decref(reply);
    return jk_reply_error("CellTimeoutError", evalue);
}

/* Runs one request in the executor and waits for its reply, forwarding
 * output. Returns the reply (new reference), or NULL when the executor
 * died (then *death says how, and a fresh executor is started) or a
 * shutdown was requested. */
static json_t *call_executor(request_t *r, const json_t *request, cm_error_t *death)
{
    jk_shell_t *s = r->s;
    if (s->ensure_executor(s->ctx) != 0) {
        if (r->after_send)
            r->after_send(r);
        cm_limits_t limits;
        cm_error_t why = {0}; /* the one cause a user can be told of: the operator's typo */
        if (cm_limits_from_env(&limits, &why) != 0)
            CM_ERROR(death, -1, "the executor could not be started: %s", why.text);
        else
            CM_ERROR(death, -1, "the executor could not be started");
        return NULL;
    }
    jk_executor_events_t events = {.ctx = r, .on_stream = on_stream, .on_output = on_output,
                                   .on_input_request = on_input_request};
    json_t *reply = NULL;
    double limit = jk_executor_limits(s->executor)->cell_time;
    long long deadline = limit > 0 && cm_link_op_is(request, CM_LINK_EXECUTE)
                             ? cm_ms() + (long long)(limit * 1000)
                             : -1;
    int timed_out = 0;
    int rc = jk_executor_send(s->executor, request, death) == 0 ? JK_EXECUTOR_PENDING
                                                                  : JK_EXECUTOR_DIED;
    if (r->after_send)
        r->after_send(r);
    long long waited_from = cm_ms();
    while (rc == JK_EXECUTOR_PENDING && !atomic_load(s->stopping)) {
        int ready;
        long long left = deadline < 0 || s->awaiting_input ? -1 : deadline - cm_ms();
        if (wait_for_input(s, 0, left < 0 ? -1 : (int)left, &ready) < 0 && zmq_errno() != EINTR)
            CM_WARN("poll: %s", zmq_strerror(zmq_errno()));
        if (deadline >= 0 && s->awaiting_input) /* a person typing is not the cell's time */
            deadline += cm_ms() - waited_from;
        waited_from = cm_ms();
        if (jk_parent_gone(&s->parent))
            s->stop(s->ctx);
        if (ready & STDIN_READY)
            take_input(s);
        rc = jk_executor_pump(s->executor, &events, &reply, death);
        if (rc == JK_EXECUTOR_PENDING && deadline >= 0 && cm_ms() >= deadline)
            deadline = time_limit(s, &timed_out);
    }
    if (timed_out)
        reply = timed_out_reply(reply, limit, death);
    s->awaiting_input = 0; /* a late input_reply is dropped */
    if (rc == JK_EXECUTOR_REPLY && jk_executor_pid(s->executor) == 0)
        replace_executor(s, 1); /* it exited after this reply (its GPU context was lost) */
    if (rc == JK_EXECUTOR_DIED) {
        CM_WARN("executor died: %s", death->text);
        replace_executor(s, !atomic_load(s->stopping));
    }
    return reply;
}

static const char *code_of(const jk_message_t *msg)
{
    const char *code = json_string_value(json_object_get(msg->content, "code"));
    return code ? code : "";
}

static int flag(const jk_message_t *msg, const char *key, int fallback)
{
    json_t *v = json_object_get(msg->content, key);
    return json_is_boolean(v) ? json_is_true(v) : fallback;
}

/* What to do after the session was lost: %recover, when it has cells. */
static void recover_hint(const jk_shell_t *s, char *buf, size_t len)
{
    if (s->journal.nrecover)
        snprintf(buf, len, "%%recover re-runs the %zu cell%s that succeeded before, in order.",
                 s->journal.nrecover, s->journal.nrecover == 1 ? "" : "s");
    else
        snprintf(buf, len, "Re-run the cells you need.");
}

/* The error reply content when the executor died during cell n. */
static json_t *death_error(const jk_shell_t *s, const cm_error_t *death, int n)
{
    char evalue[1400], hint[128];
    recover_hint(s, hint, sizeof hint);
    if (!s->executor) /* none could be started again */
        snprintf(evalue, sizeof evalue,
                 "%s, for cell [%d]; there is no session: the kernel tries again at the next cell",
                 death->text, n);
    else
        snprintf(evalue, sizeof evalue,
                 "%s while running cell [%d]; the session's state (variables, functions, device "
                 "arrays) was lost. A fresh session has started: %s",
                 death->text, n, hint);
    return jk_reply_error("ExecutorDied", evalue);
}

static void dispatch(jk_shell_t *s, jk_message_t *msg);

/* Takes every request already waiting on shell, BEFORE the failed cell's
 * reply goes out: only what was sent before the client could know of the
 * error is aborted (see answer_queued). */
static void take_queued(jk_shell_t *s)
{
    for (;;) {
        jk_message_t msg = {0};
        cm_error_t err;
        cm_error_clear(&err);
        int rc = jk_socket_recv_message(s->socket, s->signer, ZMQ_DONTWAIT, &msg, &err);
        if (rc == 1 || (rc < 0 && err.code == JK_SOCKET_ETERM))
            return;
        if (rc < 0) {
            CM_WARN("shell: dropped a message: %s", err.text);
            continue;
        }
        jk_message_t *q = realloc(s->queued, (s->n_queued + 1) * sizeof *q);
        if (!q) {
            jk_message_clear(&msg);
            return;
        }
        s->queued = q;
        s->queued[s->n_queued++] = msg;
    }
}

/* stop_on_error: the execute requests taken by take_queued are answered
 * "aborted"; other requests are handled as usual. */
static void answer_queued(jk_shell_t *s)
{
    jk_message_t *queued = s->queued;
    size_t n = s->n_queued;
    s->queued = NULL;
    s->n_queued = 0;
    for (size_t i = 0; i < n; i++) {
        jk_message_t *msg = &queued[i];
        if (strcmp(msg->msg_type, "execute_request") == 0) {
            jk_iopub_status(s->iopub, msg, "busy");
            /* as ipykernel: no execution_count, the cell did not run */
            send_reply(s, msg, "execute_reply", json_pack("{s:s}", "status", "aborted"));
            jk_iopub_status(s->iopub, msg, "idle");
        } else {
            dispatch(s, msg);
        }
        jk_message_clear(msg);
    }
    free(queued);
}

/* busy and execute_input, published while the executor compiles */
static void announce_execute(request_t *r)
{
    jk_iopub_status(r->s->iopub, r->msg, "busy");
    if (!r->silent)
        jk_iopub_publish(r->s->iopub, r->msg, "execute_input",
                         json_pack("{s:s, s:i}", "code", r->code, "execution_count", r->count));
}

static void handle_recover(jk_shell_t *s, jk_message_t *msg, int n);

static void handle_execute(jk_shell_t *s, jk_message_t *msg)
{
    const char *code = code_of(msg);
    if (jk_journal_is_recover(code)) {
        int silent = flag(msg, "silent", 0);
        if (!silent && flag(msg, "store_history", 1)) {
            s->execution_count++;
            jk_history_add(s->history, s->execution_count, code);
        }
        handle_recover(s, msg, s->execution_count);
        return;
    }
    int silent = flag(msg, "silent", 0);
    int store_history = silent ? 0 : flag(msg, "store_history", 1);
    if (store_history)
        s->execution_count++;
    int n = s->execution_count;
    request_t r = {s, msg, silent, announce_execute, code, n, flag(msg, "allow_stdin", 0)};
    if (store_history)
        jk_history_add(s->history, n, code);
    jk_message_clear(&s->last_execute);
    jk_message_t *last = &s->last_execute;
    last->header = json_deep_copy(msg->header);
    json_t *request = json_pack("{s:s, s:s, s:i, s:b, s:b}", CM_LINK_OP, CM_LINK_EXECUTE, "code", code,
                                "cell", n, "silent", silent, "allow_stdin", r.allow_stdin);
    cm_error_t death;
    cm_error_clear(&death);
    unsigned long replaced = s->replaced;
    json_t *reply = call_executor(&r, request, &death);
    json_decref(request);
    int died = !reply;
    if (died)
        reply = death_error(s, &death, n);
    const char *status = json_string_value(json_object_get(reply, "status"));
    int ok = status && strcmp(status, "ok") == 0;
    if (ok)
        jk_journal_add(&s->journal, n, code);
    else if (!died && s->replaced != replaced &&
             json_is_array(json_object_get(reply, "traceback"))) {
        char hint[128]; /* the executor went after its reply: a lost GPU context */
        recover_hint(s, hint, sizeof hint);
        json_array_append_new(json_object_get(reply, "traceback"), json_string(hint));
    }
    json_t *result = json_object_get(reply, "result");
    const char *text = json_string_value(json_object_get(json_object_get(result, "data"),
                                                         "text/plain"));
    if (ok && text && store_history)
        jk_history_set_output(s->history, n, text);
    if (ok && json_is_object(result) && !silent)
        jk_iopub_publish(s->iopub, msg, "execute_result",
                         json_pack("{s:i, s:O, s:O}", "execution_count", n, "data",
                                   json_object_get(result, "data"), "metadata",
                                   json_object_get(result, "metadata")
                                       ? json_object_get(result, "metadata")
                                       : json_object()));
    json_t *payload = json_object_get(reply, "payload"); /* ask_exit, set_next_input */
    json_t *content = json_pack("{s:s, s:i, s:{}, s:o}", "status", ok ? "ok" : "error",
                                "execution_count", n, "user_expressions", "payload",
                                ok && json_is_array(payload) ? json_incref(payload)
                                                             : json_array());
    if (!ok) {
        const char *keys[] = {"ename", "evalue", "traceback"};
        for (size_t i = 0; i < 3; i++)
            json_object_set(content, keys[i], json_object_get(reply, keys[i]));
        if (!silent)
            jk_iopub_publish(s->iopub, msg, "error",
                             json_pack("{s:O, s:O, s:O}", "ename", json_object_get(reply, "ename"),
                                       "evalue", json_object_get(reply, "evalue"), "traceback",
                                       json_object_get(reply, "traceback")));
    }
    json_decref(reply);
    if (!ok && flag(msg, "stop_on_error", 1))
        take_queued(s);
    send_reply(s, msg, "execute_reply", content);
}

/* %recover: the cells that succeeded in the executor(s) that had to be
 * replaced, run again in order (their output not shown), and a report. */
static void handle_recover(jk_shell_t *s, jk_message_t *msg, int n)
{
    request_t announce = {s, msg, flag(msg, "silent", 0), NULL, code_of(msg), n, 0};
    announce_execute(&announce);
    size_t ntodo;
    char *codes;
    jk_journal_entry_t *todo = jk_journal_take_recover(&s->journal, &ntodo, &codes);
    cm_buf_t done = {0}, failed = {0};
    size_t ndone = 0, i = 0;
    int died = 0;
    for (; i < ntodo && !died; i++) {
        request_t r = {s, msg, 1, NULL, todo[i].code, todo[i].cell, 0};
        json_t *request = json_pack("{s:s, s:s, s:i, s:b}", CM_LINK_OP, CM_LINK_EXECUTE,
                                    "code", todo[i].code, "cell", todo[i].cell, "silent", 1);
        cm_error_t death;
        cm_error_clear(&death);
        json_t *reply = call_executor(&r, request, &death);
        json_decref(request);
        const char *status = json_string_value(json_object_get(reply, "status"));
        if (status && strcmp(status, "ok") == 0) {
            jk_journal_add(&s->journal, todo[i].cell, todo[i].code);
            cm_buf_addf(&done, "%s[%d]", ndone++ ? " " : "", todo[i].cell);
        } else if (!reply) {
            died = 1;
            cm_buf_addf(&failed, "cell [%d] ended the executor again (%s); stopped there\n",
                        todo[i].cell, death.text);
        } else {
            cm_buf_addf(&failed, "cell [%d] failed this time: %s: %s\n", todo[i].cell,
                        json_string_value(json_object_get(reply, "ename")),
                        json_string_value(json_object_get(reply, "evalue")));
        }
        json_decref(reply);
    }
    for (; i < ntodo; i++) /* not run: still recoverable */
        jk_journal_add(&s->journal, todo[i].cell, todo[i].code);
    if (died) /* what was replayed went with the executor: recoverable again */
        jk_journal_replaced(&s->journal);
    free(todo);
    free(codes);
    cm_buf_t report = {0};
    if (!ntodo)
        cm_buf_adds(&report, "Nothing to recover: no session was lost since the kernel started, "
                             "or it was recovered already.\n");
    else
        cm_buf_addf(&report, "Recovered %zu of %zu cell%s%s%s\n%s", ndone, ntodo,
                    ntodo == 1 ? "" : "s", ndone ? ": " : ".", cm_buf_str(&done),
                    cm_buf_str(&failed));
    if (!announce.silent)
        jk_iopub_publish(s->iopub, msg, "stream",
                         json_pack("{s:s, s:s}", "name", "stdout", "text", cm_buf_str(&report)));
    cm_buf_free(&report);
    cm_buf_free(&done);
    cm_buf_free(&failed);
    send_reply(s, msg, "execute_reply",
               json_pack("{s:s, s:i, s:{}, s:[]}", "status", "ok", "execution_count", n,
                         "user_expressions", "payload"));
}

/* complete, inspect and is_complete: forwarded as they are. */
static void forward(jk_shell_t *s, jk_message_t *msg, const char *op, const char *reply_type,
                    json_t *fallback)
{
    request_t r = {s, msg, 1, NULL, NULL, 0, 0};
    json_t *request = json_deep_copy(msg->content);
    json_object_set_new(request, CM_LINK_OP, json_string(op));
    cm_error_t death;
    cm_error_clear(&death);
    json_t *reply = call_executor(&r, request, &death);
    json_decref(request);
    if (reply)
        json_decref(fallback);
    send_reply(s, msg, reply_type, reply ? reply : fallback);
}

static void handle_complete(jk_shell_t *s, jk_message_t *msg)
{
    json_t *pos = json_object_get(msg->content, "cursor_pos");
    json_int_t p = json_is_integer(pos) ? json_integer_value(pos) : 0;
    forward(s, msg, CM_LINK_COMPLETE, "complete_reply",
            json_pack("{s:s, s:[], s:I, s:I, s:{}}", "status", "ok", "matches", "cursor_start", p,
                      "cursor_end", p, "metadata"));
}

static void handle_inspect(jk_shell_t *s, jk_message_t *msg)
{
    forward(s, msg, CM_LINK_INSPECT, "inspect_reply",
            json_pack("{s:s, s:b, s:{}, s:{}}", "status", "ok", "found", 0, "data", "metadata"));
}

static void handle_is_complete(jk_shell_t *s, jk_message_t *msg)
{
    forward(s, msg, CM_LINK_IS_COMPLETE, "is_complete_reply", json_pack("{s:s}", "status", "unknown"));
}

static void handle_kernel_info(jk_shell_t *s, jk_message_t *msg)
{
    send_reply(s, msg, "kernel_info_reply", jk_info_reply());
}

static void handle_history(jk_shell_t *s, jk_message_t *msg)
{
    send_reply(s, msg, "history_reply", jk_history_reply(s->history, msg->content));
}

static void handle_comm_info(jk_shell_t *s, jk_message_t *msg)
{
    send_reply(s, msg, "comm_info_reply",
                    json_pack("{s:s, s:{}}", "status", "ok", "comms"));
}

static void handle_shutdown(jk_shell_t *s, jk_message_t *msg)
{
    json_t *content = json_pack("{s:s, s:b}", "status", "ok", "restart", flag(msg, "restart", 0));
    jk_iopub_publish(s->iopub, msg, "shutdown_reply", json_incref(content));
    send_reply(s, msg, "shutdown_reply", content);
    s->stop(s->ctx);
}

typedef struct handler {
    const char *msg_type;
    void (*handle)(jk_shell_t *s, jk_message_t *msg);
    int announces; /* publishes "busy" itself (see announce_execute) */
} handler_t;

static const handler_t handlers[] = {
    {"execute_request", handle_execute, 1},
    {"kernel_info_request", handle_kernel_info, 0},
    {"complete_request", handle_complete, 0},
    {"inspect_request", handle_inspect, 0},
    {"is_complete_request", handle_is_complete, 0},
    {"history_request", handle_history, 0},
    {"comm_info_request", handle_comm_info, 0},
    {"shutdown_request", handle_shutdown, 0},
};

static void dispatch(jk_shell_t *s, jk_message_t *msg)
{
    const handler_t *h = NULL;
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0] && !h; i++)
        if (strcmp(msg->msg_type, handlers[i].msg_type) == 0)
            h = &handlers[i];
    if (!h || !h->announces)
        jk_iopub_status(s->iopub, msg, "busy");
    if (h)
        h->handle(s, msg);
    else
        CM_WARN("shell: unknown message type '%s' ignored", msg->msg_type);
    jk_iopub_status(s->iopub, msg, "idle");
    if (s->n_queued)
        answer_queued(s);
}

static void on_idle_stream(void *ctx, const char *name, const char *text, size_t len)
{
    jk_shell_t *s = ctx;
    jk_iopub_publish(s->iopub, &s->last_execute, "stream",
                     json_pack("{s:s, s:s%}", "name", name, "text", text, len));
}

/* Publishes what an executor prints between requests (a thread a cell
 * started, say) under the last execute request, and replaces it if it died. */
static void pump_idle_executor(jk_shell_t *s)
{
    jk_executor_events_t events = {.ctx = s, .on_stream = on_idle_stream};
    json_t *reply = NULL;
    cm_error_t err;
    cm_error_clear(&err);
    int rc = jk_executor_pump(s->executor, &events, &reply, &err);
    json_decref(reply); /* no request is pending: nothing should reply */
    if (rc != JK_EXECUTOR_DIED)
        return;
    int stopping = atomic_load(s->stopping); /* then killed by the shutdown: expected */
    if (!stopping) {
        CM_WARN("the executor died between cells: %s", err.text);
        jk_iopub_publish(s->iopub, &s->last_execute, "stream",
                         json_pack("{s:s, s:s++}", "name", "stderr", "text",
                                   "[gpuc] between cells, ", err.text,
                                   "; the session's state was lost and a fresh one started.\n"));
    }
    replace_executor(s, !stopping);
}

static void drain_wake(jk_shell_t *s)
{
    char buf[64];
    while (read(s->wake_fd, buf, sizeof buf) > 0) {
    }
}

void jk_shell_run(jk_shell_t *s)
{
    while (!atomic_load(s->stopping)) {
        int ready;
        if (wait_for_input(s, 1, -1, &ready) < 0 && zmq_errno() != EINTR) {
            CM_ERR("poll failed: %s", zmq_strerror(zmq_errno()));
            break;
        }
        if (jk_parent_gone(&s->parent)) {
            CM_INFO("parent process %d is gone; shutting down", (int)s->parent.pid);
            break;
        }
        if (ready & WOKEN)
            drain_wake(s);
        if (s->executor)
            pump_idle_executor(s);
        if (!(ready & SOCKET_READY))
            continue;
        jk_message_t msg = {0};
        cm_error_t err;
        cm_error_clear(&err);
        int got = jk_socket_recv_message(s->socket, s->signer, ZMQ_DONTWAIT, &msg, &err);
        if (got < 0) {
            if (err.code == JK_SOCKET_ETERM)
                break;
            CM_WARN("shell: dropped a message: %s", err.text);
            continue;
        }
        if (got == 0) {
            dispatch(s, &msg);
            jk_message_clear(&msg);
        }
    }
}

void jk_shell_clear(jk_shell_t *s)
{
    jk_journal_free(&s->journal);
    jk_message_clear(&s->last_execute);
    for (size_t i = 0; i < s->n_queued; i++)
        jk_message_clear(&s->queued[i]);
    free(s->queued);
    s->queued = NULL;
    s->n_queued = 0;
}
