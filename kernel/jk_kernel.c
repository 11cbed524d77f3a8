/* gpuc kernel -f CONNECTION_FILE: sets up the sockets and threads, then
 * runs the shell loop (jk_shell.c) on the main thread until a shutdown.
 * Started by Enterprise Gateway's remote proxies, it writes its own
 * connection file and reports it back (jk_gateway.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>
#include <pthread.h>

#include "cm_log.h"
#include "gpuc_config.h"
#include "jk_commands.h"
#include "jk_connection.h"
#include "jk_control.h"
#include "jk_gateway.h"
#include "jk_heartbeat.h"
#include "jk_parent.h"
#include "jk_shell.h"
#include "jk_socket.h"

/* One Jupyter session served by the kernel process: the sockets, the
 * threads, and what the shell and control channels are lent. */
typedef struct jk_kernel {
    jk_connection_t conn;
    jk_signer_t *signer;
    char session[37];          /* our session id, in every header we send */
    char exe[PATH_MAX];        /* this gpuc binary, to start executors */
    void *zmq;                 /* ZeroMQ context */
    void *shell_socket, *control_socket, *stdin_socket, *iopub_socket;
    jk_iopub_t *iopub;
    jk_history_t *history;     /* shell thread only */
    _Atomic pid_t executor_pid;/* for interrupts from other threads and signals */
    int wake[2];               /* pipe: control thread / signals -> shell loop */
    atomic_int stopping;       /* a shutdown was requested */
    jk_shell_t shell;          /* shell thread only; holds the executor */
    jk_control_t control;
} jk_kernel_t;

static jk_kernel_t *signal_kernel; /* for the signal handlers */

/* Sets stopping and wakes the shell loop. Async-signal-safe. */
static void request_stop(void *ctx)
{
    jk_kernel_t *k = ctx;
    atomic_store(&k->stopping, 1);
    char byte = 1;
    ssize_t w = write(k->wake[1], &byte, 1);
    (void)w;
}

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
        request_stop(signal_kernel);
}

static void install_signals(jk_kernel_t *k)
{
    signal_kernel = k;
    struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_sigterm;
    sigaction(SIGTERM, &sa, NULL);
    /* a hang-up ends the kernel, unless it was started under nohup (an
     * ignored SIGHUP), as Enterprise Gateway starts it over SSH */
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) != 0 || hup.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

static void send_reply(void *ctx, void *socket, const jk_message_t *msg, const char *msg_type,
                       json_t *content)
{
    jk_kernel_t *k = ctx;
    cm_error_t err;
    cm_error_clear(&err);
    if (jk_socket_send_message(socket, k->signer, k->session, msg, msg_type, content, &err) != 0)
        CM_WARN("cannot send %s: %s", msg_type, err.text);
}

/* Starts an executor if none runs. Returns 0, or -1 (logged). */
static int ensure_executor(void *ctx)
{
    jk_kernel_t *k = ctx;
    if (k->shell.executor)
        return 0;
    cm_error_t err;
    cm_error_clear(&err);
    k->shell.executor = jk_executor_new(k->exe, &err);
    if (!k->shell.executor) {
        CM_ERR("cannot start the executor: %s", err.text);
        return -1;
    }
    atomic_store(&k->executor_pid, jk_executor_pid(k->shell.executor));
    return 0;
}

/* Frees the executor (killing its process group, if alive). */
static void drop_executor(void *ctx)
{
    jk_kernel_t *k = ctx;
    atomic_store(&k->executor_pid, 0);
    jk_executor_free(k->shell.executor);
    k->shell.executor = NULL;
}

#define IOPUB_QUEUE_MESSAGES 200000

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
    /* ZeroMQ drops what a PUB socket cannot queue for a slow subscriber:
     * past its high-water mark (1000 messages by default) IOPub output would
     * be lost silently, and a cell that alternates stdout and stderr makes
     * one message per switch. A cell's text is capped
     * (JK_EXECUTOR_OUTPUT_CAP), so the deeper queue is bounded too. */
    int hwm = type == ZMQ_PUB ? IOPUB_QUEUE_MESSAGES : 1000;
    if (!s || JK_ZMQ_CHECK(zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger), err) != 0 ||
        JK_ZMQ_CHECK(zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof hwm), err) != 0 ||
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
    k->shell_socket = bind_channel(k, ZMQ_ROUTER, JK_CHANNEL_SHELL, err);
    k->control_socket =
        k->shell_socket ? bind_channel(k, ZMQ_ROUTER, JK_CHANNEL_CONTROL, err) : NULL;
    k->stdin_socket = k->control_socket ? bind_channel(k, ZMQ_ROUTER, JK_CHANNEL_STDIN, err) : NULL;
    k->iopub_socket = k->stdin_socket ? bind_channel(k, ZMQ_PUB, JK_CHANNEL_IOPUB, err) : NULL;
    if (!k->iopub_socket)
        return -1;
    k->iopub = jk_iopub_new(k->iopub_socket, k->signer, k->session);
    return k->iopub ? 0 : -1;
}

/* What the shell and control channels use of the kernel. */
static void lend(jk_kernel_t *k, jk_parent_t parent)
{
    k->shell = (jk_shell_t){.socket = k->shell_socket, .stdin_socket = k->stdin_socket, .signer = k->signer, .iopub = k->iopub,
                            .history = k->history, .wake_fd = k->wake[0],
                            .stopping = &k->stopping, .parent = parent, .ctx = k,
                            .ensure_executor = ensure_executor, .drop_executor = drop_executor,
                            .reply = send_reply, .stop = request_stop};
    k->control = (jk_control_t){.socket = k->control_socket, .signer = k->signer,
                                .iopub = k->iopub, .stopping = &k->stopping,
                                .executor_pid = &k->executor_pid, .ctx = k, .reply = send_reply,
                                .stop = request_stop};
}

static void usage(void)
{
    fprintf(stderr, "usage: gpuc kernel -f CONNECTION_FILE [--parent PID]\n"
                    "       gpuc kernel --RemoteProcessProxy.kernel-id ID "
                    "--RemoteProcessProxy.response-address IP:PORT\n"
                    "                   --RemoteProcessProxy.public-key KEY "
                    "[--RemoteProcessProxy.port-range LOW..HIGH]  (Enterprise Gateway)\n");
}

static void teardown(jk_kernel_t *k, pthread_t control, int control_started,
                     jk_heartbeat_t *hb)
{
    atomic_store(&k->stopping, 1);
    drop_executor(k);
    if (control_started)
        pthread_join(control, NULL);
    jk_heartbeat_stop(hb);
    void *sockets[] = {k->shell_socket, k->control_socket, k->stdin_socket, k->iopub_socket};
    for (size_t i = 0; i < 4; i++)
        if (sockets[i])
            zmq_close(sockets[i]);
    jk_iopub_free(k->iopub);
    if (k->zmq)
        zmq_ctx_term(k->zmq);
    jk_shell_clear(&k->shell);
    jk_history_free(k->history);
    jk_signer_free(k->signer);
}

/* What `gpuc kernel` was asked on its command line. */
typedef struct kernel_args {
    const char *path;           /* -f CONNECTION_FILE */
    const char *parent;         /* --parent PID, else JPY_PARENT_PID */
    jk_gateway_args_t gateway;  /* Enterprise Gateway's launcher arguments */
} kernel_args_t;

/* Returns 0, or -1 with err set (a flag without its value). Words that are
 * not ours are ignored, as before. */
static int parse_args(int argc, char **argv, kernel_args_t *a, cm_error_t *err)
{
    for (int i = 1; i < argc; i++) {
        int taken = jk_gateway_args_take(&a->gateway, argc, argv, &i, err);
        if (taken < 0)
            return -1;
        if (taken)
            continue;
        if ((strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--connection-file") == 0) &&
            i + 1 < argc)
            a->path = argv[++i];
        else if (strncmp(argv[i], "--connection-file=", 18) == 0)
            a->path = argv[i] + 18;
        else if (strcmp(argv[i], "--parent") == 0 && i + 1 < argc)
            a->parent = argv[++i];
        else if (strncmp(argv[i], "--parent=", 9) == 0)
            a->parent = argv[i] + 9;
    }
    return 0;
}

int jk_kernel_main(int argc, char **argv)
{
    cm_log_init("kernel");
    static jk_kernel_t kernel;
    jk_kernel_t *k = &kernel;
    cm_error_t err;
    cm_error_clear(&err);
    kernel_args_t args = {0};
    jk_parent_t parent;
    jk_gateway_t *gateway = NULL;
    if (parse_args(argc, argv, &args, &err) != 0) {
        fprintf(stderr, "gpuc kernel: %s\n", err.text);
        return 2;
    }
    jk_parent_init(&parent, args.parent); /* before the launcher can exit */
    if (jk_gateway_args_given(&args.gateway)) {
        gateway = jk_gateway_new(&args.gateway, args.path, &err);
        if (!gateway) {
            fprintf(stderr, "gpuc kernel: %s\n", err.text);
            return 1;
        }
        args.path = jk_gateway_connection_file(gateway);
    }
    if (!args.path) {
        usage();
        return 2;
    }
    if (jk_connection_load(args.path, &k->conn, &err) != 0) {
        fprintf(stderr, "gpuc kernel: %s\n", err.text);
        jk_gateway_free(gateway);
        return 1;
    }
    k->signer = jk_signer_new(k->conn.key, k->conn.signature_scheme, &err);
    if (!k->signer || jk_self_exe(k->exe, sizeof k->exe) != 0 || pipe2(k->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, "gpuc kernel: %s\n", err.code ? err.text : "cannot set up");
        jk_gateway_free(gateway);
        return 1;
    }
    jk_wire_uuid(k->session);
    k->history = jk_history_new();
    if (!k->history) {
        fprintf(stderr, "gpuc kernel: no file for the history\n");
        jk_gateway_free(gateway);
        return 1;
    }
    install_signals(k);
    jk_heartbeat_t *hb = NULL;
    pthread_t control;
    int control_started = 0;
    if (open_sockets(k, &err) == 0) {
        char endpoint[512];
        jk_connection_endpoint(&k->conn, JK_CHANNEL_HB, endpoint, sizeof endpoint);
        hb = jk_heartbeat_start(k->zmq, endpoint, &err);
    }
    lend(k, parent);
    if (hb)
        control_started = pthread_create(&control, NULL, jk_control_thread, &k->control) == 0;
    /* the gateway connects as soon as it hears from us: sockets first */
    if (!control_started || (gateway && jk_gateway_announce(gateway, &err) != 0)) {
        fprintf(stderr, "gpuc kernel: %s\n", err.code ? err.text : "cannot start threads");
        teardown(k, control, control_started, hb);
        jk_gateway_free(gateway);
        return 1;
    }
    CM_INFO("gpuc %s kernel ready (pid %d)", GPUC_VERSION, (int)getpid());
    jk_iopub_status(k->iopub, NULL, "starting");
    ensure_executor(k); /* warm: the first cell need not wait for it */
    jk_shell_run(&k->shell);
    teardown(k, control, control_started, hb);
    jk_gateway_free(gateway);
    CM_INFO("kernel stopped");
    return 0;
}
