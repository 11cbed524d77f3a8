/* gpuc kernel -f CONNECTION_FILE: sets up the sockets and threads, then
 * runs the shell loop on the main thread until a shutdown. */
#include "jk_kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>
#include <pthread.h>

#include "cm_log.h"
#include "gpuc_config.h"
#include "jk_commands.h"
#include "jk_heartbeat.h"
#include "jk_socket.h"

#define IDLE_POLL_MS 500 /* how often the shell loop checks on its parent */

static jk_kernel_t *signal_kernel; /* for the signal handlers */

static void on_sigint(int sig)
{
    (void)sig;
    /* interrupt_mode "signal": Jupyter signals our process group; the
     * executor has a group of its own, so forward it exactly once */
    pid_t pid = signal_kernel ? atomic_load(&signal_kernel->executor_pid) : 0;
    if (pid > 0)
        kill(pid, SIGINT);
}

static void on_sigterm(int sig)
{
    (void)sig;
    if (signal_kernel)
        jk_kernel_request_stop(signal_kernel);
}

void jk_kernel_request_stop(jk_kernel_t *k)
{
    atomic_store(&k->stopping, 1);
    char byte = 1;
    ssize_t w = write(k->wake[1], &byte, 1);
    (void)w;
}

static void install_signals(jk_kernel_t *k)
{
    signal_kernel = k;
    struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_sigterm;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

json_t *jk_kernel_info(void)
{
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:s, s:[{s:s, s:s}, {s:s, s:s}], "
        "s:b}",
        "status", "ok", "protocol_version", JK_PROTOCOL_VERSION, "implementation", "gpuc",
        "implementation_version", GPUC_VERSION, "language_info", "name", "c", "version", "C11",
        "mimetype", "text/x-csrc", "file_extension", ".c", "pygments_lexer", "c",
        "codemirror_mode", "text/x-csrc", "banner",
        "gpuc " GPUC_VERSION " — C and CUDA in Jupyter: cells compiled by TCC, state kept "
        "between cells, crashes caught.",
        "help_links", "text", "gpuc user guide", "url",
        "https://github.com/gpuc/gpuc/blob/main/docs/cells.md", "text", "gpuc architecture",
        "url", "https://github.com/gpuc/gpuc/blob/main/docs/architecture.md", "debugger", 0);
}

void jk_kernel_reply(jk_kernel_t *k, void *socket, const jk_message_t *msg, const char *msg_type,
                     json_t *content)
{
    cm_error_t err;
    cm_error_clear(&err);
    if (jk_socket_send_message(socket, k->signer, k->session, msg, msg_type, content, &err) != 0)
        CM_WARN("cannot send %s: %s", msg_type, err.text);
}

int jk_kernel_ensure_executor(jk_kernel_t *k)
{
    if (k->executor)
        return 0;
    cm_error_t err;
    cm_error_clear(&err);
    k->executor = jk_executor_new(k->exe, &err);
    if (!k->executor) {
        CM_ERR("cannot start the executor: %s", err.text);
        return -1;
    }
    atomic_store(&k->executor_pid, jk_executor_pid(k->executor));
    return 0;
}

/* Binds a socket of type on channel. Returns it, or NULL with err set. */
static void *bind_channel(jk_kernel_t *k, int type, jk_channel_t channel, cm_error_t *err)
{
    char endpoint[512];
    if (jk_connection_endpoint(&k->conn, channel, endpoint, sizeof endpoint) != 0) {
        CM_ERROR(err, -1, "connection file: address too long");
        return NULL;
    }
    void *s = zmq_socket(k->zmq, type);
    int linger = 1000;
    int ipv6 = strchr(k->conn.ip, ':') != NULL;
    int64_t max_size = JK_WIRE_MAX_FRAME_BYTES;
    if (!s || JK_ZMQ_CHECK(zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger), err) != 0 ||
        JK_ZMQ_CHECK(zmq_setsockopt(s, ZMQ_IPV6, &ipv6, sizeof ipv6), err) != 0 ||
        JK_ZMQ_CHECK(zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size), err) != 0 ||
        JK_ZMQ_CHECK(zmq_bind(s, endpoint), err) != 0) {
        CM_ERROR(err, -1, "cannot bind %s", endpoint);
        if (s)
            zmq_close(s);
        return NULL;
    }
    CM_DEBUG("bound %s", endpoint);
    return s;
}

static int open_sockets(jk_kernel_t *k, cm_error_t *err)
{
    k->zmq = zmq_ctx_new();
    k->shell = bind_channel(k, ZMQ_ROUTER, JK_CHANNEL_SHELL, err);
    k->control = k->shell ? bind_channel(k, ZMQ_ROUTER, JK_CHANNEL_CONTROL, err) : NULL;
    k->stdin_socket = k->control ? bind_channel(k, ZMQ_ROUTER, JK_CHANNEL_STDIN, err) : NULL;
    k->iopub_socket = k->stdin_socket ? bind_channel(k, ZMQ_PUB, JK_CHANNEL_IOPUB, err) : NULL;
    if (!k->iopub_socket)
        return -1;
    k->iopub = jk_iopub_new(k->iopub_socket, k->signer, k->session);
    return k->iopub ? 0 : -1;
}

/* Publishes what an executor prints between requests (a thread a cell
 * started, say) under the last execute request. Returns -1 if it died. */
static void pump_idle_executor(jk_kernel_t *k);

static void drain_wake(jk_kernel_t *k)
{
    char buf[64];
    while (read(k->wake[0], buf, sizeof buf) > 0) {
    }
}

static void shell_loop(jk_kernel_t *k)
{
    while (!atomic_load(&k->stopping)) {
        zmq_pollitem_t items[5] = {{k->shell, 0, ZMQ_POLLIN, 0}, {NULL, k->wake[0], ZMQ_POLLIN, 0}};
        int n = 2;
        int fds[3];
        int nfds = k->executor ? jk_executor_fds(k->executor, fds) : 0;
        for (int i = 0; i < nfds; i++)
            items[n++] = (zmq_pollitem_t){NULL, fds[i], ZMQ_POLLIN, 0};
        int timeout = IDLE_POLL_MS;
        int flush = k->executor ? jk_executor_timeout_ms(k->executor) : -1;
        if (flush >= 0 && flush < timeout)
            timeout = flush;
        int rc = zmq_poll(items, n, timeout);
        if (rc < 0 && zmq_errno() != EINTR) {
            CM_ERR("poll failed: %s", zmq_strerror(zmq_errno()));
            break;
        }
        if (getppid() != k->parent_pid) {
            CM_INFO("parent process %d is gone; shutting down", (int)k->parent_pid);
            break;
        }
        if (items[1].revents & ZMQ_POLLIN)
            drain_wake(k);
        if (k->executor)
            pump_idle_executor(k);
        if (!(items[0].revents & ZMQ_POLLIN))
            continue;
        jk_message_t msg = {0};
        cm_error_t err;
        cm_error_clear(&err);
        int got = jk_socket_recv_message(k->shell, k->signer, ZMQ_DONTWAIT, &msg, &err);
        if (got < 0) {
            if (err.code == JK_SOCKET_ETERM)
                break;
            CM_WARN("shell: dropped a message: %s", err.text);
            continue;
        }
        if (got == 0) {
            jk_shell_dispatch(k, &msg);
            jk_message_clear(&msg);
        }
    }
}

static void on_idle_stream(void *ctx, const char *name, const char *text, size_t len)
{
    jk_kernel_t *k = ctx;
    jk_iopub_publish(k->iopub, &k->last_execute, "stream",
                     json_pack("{s:s, s:s%}", "name", name, "text", text, len));
}

static void pump_idle_executor(jk_kernel_t *k)
{
    jk_executor_events_t events = {.ctx = k, .on_stream = on_idle_stream};
    json_t *reply = NULL;
    cm_error_t err;
    cm_error_clear(&err);
    int rc = jk_executor_pump(k->executor, &events, &reply, &err);
    json_decref(reply); /* no request is pending: nothing should reply */
    if (rc == JK_EXECUTOR_DIED && atomic_load(&k->stopping)) {
        atomic_store(&k->executor_pid, 0); /* killed by a shutdown: expected */
        jk_executor_free(k->executor);
        k->executor = NULL;
    } else if (rc == JK_EXECUTOR_DIED) {
        CM_WARN("the executor died between cells: %s", err.text);
        jk_iopub_publish(k->iopub, &k->last_execute, "stream",
                         json_pack("{s:s, s:s++}", "name", "stderr", "text",
                                   "[gpuc] between cells, ", err.text,
                                   "; the session's state was lost and a fresh one started.\n"));
        atomic_store(&k->executor_pid, 0);
        jk_executor_free(k->executor);
        k->executor = NULL;
        jk_kernel_ensure_executor(k);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: gpuc kernel -f CONNECTION_FILE\n");
}

static void teardown(jk_kernel_t *k, pthread_t control, int control_started,
                     jk_heartbeat_t *hb)
{
    atomic_store(&k->stopping, 1);
    atomic_store(&k->executor_pid, 0);
    jk_executor_free(k->executor); /* kills its process group */
    k->executor = NULL;
    if (control_started)
        pthread_join(control, NULL);
    jk_heartbeat_stop(hb);
    void *sockets[] = {k->shell, k->control, k->stdin_socket, k->iopub_socket};
    for (size_t i = 0; i < 4; i++)
        if (sockets[i])
            zmq_close(sockets[i]);
    jk_iopub_free(k->iopub);
    if (k->zmq)
        zmq_ctx_term(k->zmq);
    jk_message_clear(&k->last_execute);
    for (size_t i = 0; i < k->n_queued; i++)
        jk_message_clear(&k->queued[i]);
    free(k->queued);
    jk_history_free(k->history);
    jk_signer_free(k->signer);
}

int jk_kernel_main(int argc, char **argv)
{
    cm_log_init("kernel");
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--connection-file") == 0) &&
            i + 1 < argc)
            path = argv[++i];
        else if (strncmp(argv[i], "--connection-file=", 18) == 0)
            path = argv[i] + 18;
    }
    if (!path) {
        usage();
        return 2;
    }
    static jk_kernel_t kernel;
    jk_kernel_t *k = &kernel;
    cm_error_t err;
    cm_error_clear(&err);
    k->parent_pid = getppid();
    if (jk_connection_load(path, &k->conn, &err) != 0) {
        fprintf(stderr, "gpuc kernel: %s\n", err.text);
        return 1;
    }
    k->signer = jk_signer_new(k->conn.key, k->conn.signature_scheme, &err);
    if (!k->signer || jk_self_exe(k->exe, sizeof k->exe) != 0 || pipe2(k->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, "gpuc kernel: %s\n", err.code ? err.text : "cannot set up");
        return 1;
    }
    jk_wire_uuid(k->session);
    k->history = jk_history_new();
    install_signals(k);
    jk_heartbeat_t *hb = NULL;
    pthread_t control;
    int control_started = 0;
    if (open_sockets(k, &err) == 0) {
        char endpoint[512];
        jk_connection_endpoint(&k->conn, JK_CHANNEL_HB, endpoint, sizeof endpoint);
        hb = jk_heartbeat_start(k->zmq, endpoint, &err);
    }
    if (hb)
        control_started = pthread_create(&control, NULL, jk_control_thread, k) == 0;
    if (!control_started) {
        fprintf(stderr, "gpuc kernel: %s\n", err.code ? err.text : "cannot start threads");
        teardown(k, control, 0, hb);
        return 1;
    }
    CM_INFO("gpuc %s kernel ready (pid %d)", GPUC_VERSION, (int)getpid());
    jk_iopub_status(k->iopub, NULL, "starting");
    jk_kernel_ensure_executor(k); /* warm: the first cell need not wait for it */
    shell_loop(k);
    teardown(k, control, control_started, hb);
    CM_INFO("kernel stopped");
    return 0;
}
