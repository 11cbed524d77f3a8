#include "jk_control.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <zmq.h>

#include "cm_log.h"
#include "jk_info.h"
#include "jk_socket.h"

#define CONTROL_POLL_MS 100

static void handle_kernel_info(jk_control_t *c, jk_message_t *msg)
{
    c->reply(c->ctx, c->socket, msg, "kernel_info_reply", jk_info_reply());
}

static void handle_interrupt(jk_control_t *c, jk_message_t *msg)
{
    pid_t pid = atomic_load(c->executor_pid);
    if (pid > 0)
        kill(pid, SIGINT);
    c->reply(c->ctx, c->socket, msg, "interrupt_reply", json_pack("{s:s}", "status", "ok"));
}

static void handle_shutdown(jk_control_t *c, jk_message_t *msg)
{
    json_t *restart = json_object_get(msg->content, "restart");
    json_t *content =
        json_pack("{s:s, s:b}", "status", "ok", "restart", json_is_true(restart));
    jk_iopub_publish(c->iopub, msg, "shutdown_reply", json_incref(content));
    c->reply(c->ctx, c->socket, msg, "shutdown_reply", content);
    c->stop(c->ctx);
    /* stop the executor now: a cell stuck in a loop must not delay us */
    pid_t pid = atomic_exchange(c->executor_pid, 0);
    if (pid > 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
}

typedef struct handler {
    const char *msg_type;
    void (*handle)(jk_control_t *c, jk_message_t *msg);
} handler_t;

static const handler_t handlers[] = {
    {"kernel_info_request", handle_kernel_info},
    {"interrupt_request", handle_interrupt},
    {"shutdown_request", handle_shutdown},
};

static void dispatch(jk_control_t *c, jk_message_t *msg)
{
    jk_iopub_status(c->iopub, msg, "busy");
    const handler_t *h = NULL;
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0] && !h; i++)
        if (strcmp(msg->msg_type, handlers[i].msg_type) == 0)
            h = &handlers[i];
    if (h)
        h->handle(c, msg);
    else
        CM_WARN("control: unknown message type '%s' ignored", msg->msg_type);
    jk_iopub_status(c->iopub, msg, "idle");
}

void *jk_control_thread(void *control)
{
    jk_control_t *c = control;
    sigset_t block;
    sigfillset(&block); /* signals are the main thread's business */
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    while (!atomic_load(c->stopping)) {
        zmq_pollitem_t item = {c->socket, 0, ZMQ_POLLIN, 0};
        int rc = zmq_poll(&item, 1, CONTROL_POLL_MS);
        if (rc < 0) {
            if (zmq_errno() == ETERM)
                break;
            continue;
        }
        if (!(item.revents & ZMQ_POLLIN))
            continue;
        jk_message_t msg = {0};
        cm_error_t err;
        cm_error_clear(&err);
        rc = jk_socket_recv_message(c->socket, c->signer, ZMQ_DONTWAIT, &msg, &err);
        if (rc < 0 && err.code == JK_SOCKET_ETERM)
            break;
        if (rc < 0)
            CM_WARN("control: dropped a message: %s", err.text);
        if (rc == 0) {
            dispatch(c, &msg);
            jk_message_clear(&msg);
        }
    }
    return NULL;
}
