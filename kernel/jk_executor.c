#include "jk_executor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cm_limits.h"
#include "cm_link.h"
#include "cm_log.h"
#include "cm_time.h"
#include "jk_reply.h"
#include "jk_utf8.h"

#define READY_TIMEOUT_MS 10000
#define STREAM_FLUSH_BYTES 65536
#define LINK_FD_IN_CHILD 3
#define OUTPUT_FD_IN_CHILD 4

/* What the executor writes comes from three pipes: its stdout and stderr
 * as they are (what child processes write) and the ordered output of the
 * cell itself (records: a stream byte, 1 stdout or 2 stderr, a 4-byte
 * big-endian length, the text; see runtime/session/rt_output.h). */
typedef struct source {
    int fd;                /* read end, -1 once closed */
    const char *name;      /* a plain pipe's stream; NULL for the ordered one */
    unsigned char hdr[5];  /* ordered: the record header being read */
    size_t hdr_len;
    size_t remaining;      /* ordered: text bytes left in the current record */
} source_t;

enum { SOURCE_OUT, SOURCE_ERR, SOURCE_ORDERED, NSOURCES };

/* Text not yet delivered: one stream's, in order (a change of stream
 * delivers what was there before). */
typedef struct pending {
    const char *name;
    char *buf;
    size_t len, cap;
    long long first_ms; /* when the oldest undelivered byte arrived, 0 if none */
} pending_t;

struct jk_executor {
    _Atomic pid_t pid;
    int link_fd;
    cm_link_reader_t reader;
    source_t sources[NSOURCES];
    pending_t pending;
    cm_limits_t limits;   /* the operator's, read at the start */
    size_t request_bytes; /* stream bytes the current request wrote */
    int capped;           /* the volume notice was sent for this request */
    long long window_ms;  /* start of the output rate's one-second window */
    size_t window_bytes;  /* stream bytes written in it */
    int rate_noticed;     /* the rate notice was sent for this request */
};

static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* In the child between fork and exec: async-signal-safe calls only.
 * helper is gpuc-executor beside gpuc (NULL when there is none): the same
 * executor without the kernel's libraries (libzmq and what it pulls in),
 * which makes each session ~2.4 MB smaller; else `gpuc executor`. */
static void exec_child(const char *exe, const char *helper, pid_t parent, int link_fd, int out_fd,
                       int err_fd, int ordered_fd)
{
    setpgid(0, 0); /* our own group: SIGINT to the kernel's group is forwarded, not doubled */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0 ||
        dup2(link_fd, LINK_FD_IN_CHILD) < 0 || dup2(ordered_fd, OUTPUT_FD_IN_CHILD) < 0)
        _exit(127);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    char *argv[] = {"gpuc", "executor", "--link-fd", "3", "--output-fd", "4", NULL};
    if (helper)
        execv(helper, argv);
    execv(exe, argv);
    static const char msg[] = "gpuc: cannot start the executor\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
}

/* Waits for the "ready" frame. Returns 0, or -1 with err set. */
static int await_ready(jk_executor_t *ex, cm_error_t *err)
{
    long long deadline = cm_ms() + READY_TIMEOUT_MS;
    for (;;) {
        json_t *msg = NULL;
        int rc = cm_link_reader_next(&ex->reader, &msg, err);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            int ready = cm_link_op_is(msg, CM_LINK_READY);
            json_decref(msg);
            if (ready)
                return 0;
            continue;
        }
        long long left = deadline - cm_ms();
        if (left <= 0) {
            CM_ERROR(err, -1, "the executor did not start within %d s", READY_TIMEOUT_MS / 1000);
            return -1;
        }
        struct pollfd p = {.fd = ex->link_fd, .events = POLLIN};
        if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
            CM_ERROR(err, errno, "poll: %s", strerror(errno));
            return -1;
        }
        if (cm_link_reader_fill(&ex->reader, ex->link_fd, err) != 0) {
            CM_ERROR(err, -1, "the executor exited while starting");
            return -1;
        }
    }
}

jk_executor_t *jk_executor_new(const char *exe, cm_error_t *err)
{
    cm_limits_t limits;
    if (cm_limits_from_env(&limits, err) != 0)
        return NULL;
    signal(SIGPIPE, SIG_IGN); /* a dead executor's link is an error, not a signal */
    int sv[2];
    int pipes[NSOURCES][2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        CM_ERROR(err, errno, "socketpair: %s", strerror(errno));
        return NULL;
    }
    int made = 0;
    while (made < NSOURCES && pipe2(pipes[made], O_CLOEXEC) == 0)
        made++;
    if (made < NSOURCES) {
        CM_ERROR(err, errno, "pipe: %s", strerror(errno));
        for (int i = 0; i < made; i++) {
            close(pipes[i][0]);
            close(pipes[i][1]);
        }
        close(sv[0]);
        close(sv[1]);
        return NULL;
    }
    char helper[PATH_MAX + 32];
    const char *slash = strrchr(exe, '/');
    snprintf(helper, sizeof helper, "%.*s/gpuc-executor", slash ? (int)(slash - exe) : 1,
             slash ? exe : ".");
    int have_helper = access(helper, X_OK) == 0;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(exe, have_helper ? helper : NULL, parent, sv[1], pipes[SOURCE_OUT][1],
                   pipes[SOURCE_ERR][1], pipes[SOURCE_ORDERED][1]);
    close(sv[1]);
    for (int i = 0; i < NSOURCES; i++)
        close(pipes[i][1]);
    if (pid < 0) {
        CM_ERROR(err, errno, "fork: %s", strerror(errno));
        close(sv[0]);
        for (int i = 0; i < NSOURCES; i++)
            close(pipes[i][0]);
        return NULL;
    }
    setpgid(pid, pid); /* also here, so the group exists before we ever signal it */
    jk_executor_t *ex = calloc(1, sizeof *ex);
    if (!ex) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        CM_ERROR(err, ENOMEM, "out of memory");
        return NULL;
    }
    atomic_store(&ex->pid, pid);
    ex->limits = limits;
    ex->link_fd = sv[0];
    static const char *const names[NSOURCES] = {"stdout", "stderr", NULL};
    for (int i = 0; i < NSOURCES; i++) {
        ex->sources[i] = (source_t){.fd = pipes[i][0], .name = names[i]};
        set_nonblocking(pipes[i][0]);
    }
    set_nonblocking(ex->link_fd);
    if (await_ready(ex, err) != 0) {
        jk_executor_free(ex);
        return NULL;
    }
    CM_DEBUG("executor %d ready", (int)pid);
    return ex;
}

void jk_executor_free(jk_executor_t *ex)
{
    if (!ex)
        return;
    pid_t pid = atomic_exchange(&ex->pid, 0);
    if (pid > 0) {
        kill(-pid, SIGKILL); /* the group: children a cell forked go too */
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    close(ex->link_fd);
    for (int i = 0; i < NSOURCES; i++)
        if (ex->sources[i].fd >= 0)
            close(ex->sources[i].fd);
    free(ex->pending.buf);
    cm_link_reader_free(&ex->reader);
    free(ex);
}

/* The link is non-blocking for reads; what the kernel sends is small and
 * the executor is waiting for it, so a short blocking write is fine. */
static int send_blocking(jk_executor_t *ex, const json_t *msg, cm_error_t *err)
{
    int flags = fcntl(ex->link_fd, F_GETFL);
    fcntl(ex->link_fd, F_SETFL, flags & ~O_NONBLOCK);
    int rc = cm_link_send(ex->link_fd, msg, err);
    fcntl(ex->link_fd, F_SETFL, flags);
    return rc;
}

int jk_executor_send(jk_executor_t *ex, const json_t *request, cm_error_t *err)
{
    ex->request_bytes = 0;
    ex->capped = 0;
    ex->window_ms = 0;
    ex->window_bytes = 0;
    ex->rate_noticed = 0;
    return send_blocking(ex, request, err);
}

int jk_executor_fds(const jk_executor_t *ex, int fds[JK_EXECUTOR_NFDS])
{
    int n = 0;
    fds[n++] = ex->link_fd;
    for (int i = 0; i < NSOURCES; i++)
        if (ex->sources[i].fd >= 0)
            fds[n++] = ex->sources[i].fd;
    return n;
}

int jk_executor_timeout_ms(const jk_executor_t *ex)
{
    if (!ex->pending.len)
        return -1;
    long long left = ex->pending.first_ms + JK_EXECUTOR_FLUSH_MS - cm_ms();
    return left < 0 ? 0 : (int)left;
}

/* Delivers the pending text. Unless force, an incomplete UTF-8 sequence
 * at the end waits for its remaining bytes. */
static void flush_pending(jk_executor_t *ex, const jk_executor_events_t *events, int force)
{
    pending_t *p = &ex->pending;
    if (!p->len)
        return;
    size_t n = force ? p->len : jk_utf8_complete_prefix(p->buf, p->len);
    if (!n)
        return;
    size_t out_len = 0;
    char *text = jk_utf8_sanitize(p->buf, n, &out_len);
    if (text && events && events->on_stream)
        events->on_stream(events->ctx, p->name, text, out_len);
    free(text);
    memmove(p->buf, p->buf + n, p->len - n);
    p->len -= n;
    p->first_ms = p->len ? cm_ms() : 0;
}

static void append(pending_t *p, const char *name, const char *data, size_t len)
{
    if (p->cap - p->len < len) {
        size_t cap = p->cap ? p->cap : 8192;
        while (cap - p->len < len)
            cap *= 2;
        char *buf = realloc(p->buf, cap);
        if (!buf)
            return; /* drop output rather than the session */
        p->buf = buf;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, data, len);
    if (!p->len)
        p->first_ms = cm_ms();
    p->name = name;
    p->len += len;
}

/* bytes as "10 MB" where a whole number of MiB (the default cap), else
 * in bytes */
static const char *bytes_text(size_t bytes, char *buf, size_t size)
{
    if (bytes && bytes % (1u << 20) == 0)
        snprintf(buf, size, "%zu MB", bytes >> 20);
    else
        snprintf(buf, size, "%zu bytes", bytes);
    return buf;
}

/* A line of gpuc's own on stderr, after the text before it. */
static void notice(jk_executor_t *ex, const jk_executor_events_t *events, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void notice(jk_executor_t *ex, const jk_executor_events_t *events, const char *fmt, ...)
{
    flush_pending(ex, events, 1);
    char text[320];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (events && events->on_stream && len > 0)
        events->on_stream(events->ctx, "stderr", text, strlen(text));
}

/* How much of len bytes the output rate lets through now: at most
 * limits.output_rate bytes in each one-second window, as Jupyter's
 * iopub_data_rate_limit keeps a browser from drowning. */
static size_t rate_room(jk_executor_t *ex, size_t len)
{
    if (!ex->limits.output_rate)
        return len;
    long long now = cm_ms();
    if (now - ex->window_ms >= 1000) {
        ex->window_ms = now;
        ex->window_bytes = 0;
    }
    size_t room = ex->window_bytes < ex->limits.output_rate
                      ? ex->limits.output_rate - ex->window_bytes
                      : 0;
    size_t keep = len < room ? len : room;
    ex->window_bytes += len;
    return keep;
}

/* Text of one stream, in the order written, under the per-request volume
 * and the rate: past either it is dropped, with one notice each. */
static void deliver(jk_executor_t *ex, const char *name, const char *data, size_t len,
                    const jk_executor_events_t *events)
{
    size_t cap = ex->limits.output;
    size_t room = ex->request_bytes < cap ? cap - ex->request_bytes : 0;
    size_t keep = len < room ? len : room;
    ex->request_bytes += len;
    size_t rated = rate_room(ex, keep);
    if (rated < keep) {
        keep = rated;
        if (!ex->rate_noticed) {
            ex->rate_noticed = 1;
            char b[32];
            notice(ex, events,
                   "\n[gpuc] output is coming faster than %s/s (%s): what comes faster is "
                   "dropped until it slows down\n",
                   bytes_text(ex->limits.output_rate, b, sizeof b), CM_LIMIT_OUTPUT_RATE);
        }
    }
    if (keep && ex->pending.len && strcmp(ex->pending.name, name) != 0)
        flush_pending(ex, events, 1);
    if (keep)
        append(&ex->pending, name, data, keep);
    if (ex->request_bytes > cap && !ex->capped) {
        ex->capped = 1;
        char b[32];
        notice(ex, events,
               "\n[gpuc] this cell's output passed %s (%s); the rest is discarded (the cell "
               "keeps running: interrupt it to stop it)\n",
               bytes_text(cap, b, sizeof b), CM_LIMIT_OUTPUT);
    }
    if (ex->pending.len >= STREAM_FLUSH_BYTES)
        flush_pending(ex, events, 0);
}

/* The ordered pipe's records, delivered as their text arrives. */
static void parse_records(jk_executor_t *ex, source_t *src, const char *data, size_t len,
                          const jk_executor_events_t *events)
{
    while (len) {
        if (!src->remaining) {
            src->hdr[src->hdr_len++] = (unsigned char)*data++;
            len--;
            if (src->hdr_len == sizeof src->hdr) {
                src->hdr_len = 0;
                src->remaining = (size_t)src->hdr[1] << 24 | (size_t)src->hdr[2] << 16 |
                                 (size_t)src->hdr[3] << 8 | src->hdr[4];
            }
            continue;
        }
        size_t n = len < src->remaining ? len : src->remaining;
        deliver(ex, src->hdr[0] == 2 ? "stderr" : "stdout", data, n, events);
        data += n;
        len -= n;
        src->remaining -= n;
    }
}

/* Reads what a pipe holds. */
static void read_source(jk_executor_t *ex, source_t *src, const jk_executor_events_t *events)
{
    char chunk[65536];
    for (int rounds = 0; src->fd >= 0 && rounds < 64; rounds++) {
        ssize_t n = read(src->fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(src->fd);
            src->fd = -1;
            break;
        }
        if (n < 0)
            break;
        if (src->name)
            deliver(ex, src->name, chunk, (size_t)n, events);
        else
            parse_records(ex, src, chunk, (size_t)n, events);
    }
}

/* The cell's own output first: a child's output comes while the cell
 * waits for it, after what the cell wrote before. */
static void read_streams(jk_executor_t *ex, const jk_executor_events_t *events)
{
    read_source(ex, &ex->sources[SOURCE_ORDERED], events);
    read_source(ex, &ex->sources[SOURCE_OUT], events);
    read_source(ex, &ex->sources[SOURCE_ERR], events);
}

/* Reaps the executor after its link closed and says how it ended. */
static void describe_death(jk_executor_t *ex, cm_error_t *err)
{
    pid_t pid = atomic_exchange(&ex->pid, 0);
    int status = 0;
    pid_t got = 0;
    for (int i = 0; i < 200 && got == 0; i++) { /* up to 2 s for it to finish exiting */
        got = waitpid(pid, &status, WNOHANG);
        if (got == 0)
            usleep(10000);
    }
    if (got == 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        CM_ERROR(err, -1, "the executor closed its link and was killed");
        return;
    }
    kill(-pid, SIGKILL); /* whatever the cell forked */
    if (got < 0)
        CM_ERROR(err, -1, "the executor ended (status unknown)");
    else if (WIFEXITED(status))
        CM_ERROR(err, -1, "the executor exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        CM_ERROR(err, -1, "the executor was killed by %s (signal %d)", sigabbrev_np(WTERMSIG(status))
                     ? sigabbrev_np(WTERMSIG(status)) : "a signal", WTERMSIG(status));
    else
        CM_ERROR(err, -1, "the executor ended (status 0x%x)", status);
}

int jk_executor_send_input(jk_executor_t *ex, const char *line)
{
    json_t *msg = line ? json_pack("{s:s, s:s}", CM_LINK_OP, CM_LINK_INPUT, "value", line)
                       : json_pack("{s:s, s:b}", CM_LINK_OP, CM_LINK_INPUT, "eof", 1);
    cm_error_t err = {0};
    int rc = msg ? send_blocking(ex, msg, &err) : -1;
    json_decref(msg);
    return rc;
}

static void send_ack(jk_executor_t *ex)
{
    static const char frame[] = "\0\0\0\x0c{\"" CM_LINK_OP "\":\"" CM_LINK_ACK "\"}";
    _Static_assert(sizeof frame - 1 == 4 + 0x0c, "the ack frame's length prefix");
    ssize_t w;
    do
        w = write(ex->link_fd, frame, sizeof frame - 1);
    while (w < 0 && errno == EINTR);
    /* a short write cannot happen for 16 bytes on an empty socket; a
     * failure means the executor is gone, which the next read reports */
}

int jk_executor_pump(jk_executor_t *ex, const jk_executor_events_t *events, json_t **reply,
                     cm_error_t *err)
{
    *reply = NULL;
    read_streams(ex, events);
    int eof = cm_link_reader_fill(&ex->reader, ex->link_fd, err);
    for (;;) {
        json_t *msg = NULL;
        int rc = cm_link_reader_next(&ex->reader, &msg, err);
        if (rc < 0) {
            CM_WARN("executor link corrupt; restarting the executor");
            describe_death(ex, err);
            return JK_EXECUTOR_DIED;
        }
        if (rc == 0)
            break;
        /* text written before this frame is already in the pipes */
        read_streams(ex, events);
        flush_pending(ex, events, 1);
        const char *op = cm_link_op(msg);
        if (cm_link_op_is(msg, CM_LINK_REPLY)) {
            json_object_del(msg, CM_LINK_OP);
            if (json_is_true(json_object_get(msg, "restarting"))) {
                /* the executor exits after this reply (its GPU context is
                 * lost): reap it now, so the caller starts a fresh one */
                json_object_del(msg, "restarting");
                cm_error_t gone = {0};
                describe_death(ex, &gone);
                CM_INFO("executor replaced after its reply: %s", gone.text);
            }
            *reply = jk_reply_from_executor(msg);
            return JK_EXECUTOR_REPLY;
        }
        if (cm_link_op_is(msg, CM_LINK_INPUT_REQUEST)) {
            if (!events || !events->on_input_request ||
                events->on_input_request(events->ctx, msg) != 0)
                jk_executor_send_input(ex, NULL); /* no one to ask: end of file */
        } else if (cm_link_op_is(msg, CM_LINK_DISPLAY) || cm_link_op_is(msg, CM_LINK_CLEAR_OUTPUT)) {
            if (events && events->on_output)
                events->on_output(events->ctx, msg);
            send_ack(ex); /* the executor waits for it: see rt_executor.c */
        } else if (!cm_link_op_is(msg, CM_LINK_READY)) {
            CM_WARN("executor sent an unknown frame (op %s)", op ? op : "missing");
        }
        json_decref(msg);
    }
    if (eof != 0) {
        read_streams(ex, events);
        flush_pending(ex, events, 1);
        describe_death(ex, err);
        return JK_EXECUTOR_DIED;
    }
    if (jk_executor_timeout_ms(ex) == 0)
        flush_pending(ex, events, 0);
    return JK_EXECUTOR_PENDING;
}

int jk_executor_call(jk_executor_t *ex, const json_t *request, const jk_executor_events_t *events,
                     json_t **reply, cm_error_t *err)
{
    *reply = NULL;
    if (jk_executor_send(ex, request, err) != 0) {
        describe_death(ex, err);
        return JK_EXECUTOR_DIED;
    }
    for (;;) {
        int fds[JK_EXECUTOR_NFDS];
        int n = jk_executor_fds(ex, fds);
        struct pollfd p[JK_EXECUTOR_NFDS];
        for (int i = 0; i < n; i++)
            p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        if (poll(p, (nfds_t)n, jk_executor_timeout_ms(ex)) < 0 && errno != EINTR) {
            CM_ERROR(err, errno, "poll: %s", strerror(errno));
            return JK_EXECUTOR_DIED;
        }
        int rc = jk_executor_pump(ex, events, reply, err);
        if (rc != JK_EXECUTOR_PENDING)
            return rc;
    }
}

void jk_executor_interrupt(jk_executor_t *ex)
{
    pid_t pid = ex ? atomic_load(&ex->pid) : 0;
    if (pid > 0)
        kill(pid, SIGINT);
}

const cm_limits_t *jk_executor_limits(const jk_executor_t *ex)
{
    return &ex->limits;
}

pid_t jk_executor_pid(const jk_executor_t *ex)
{
    return ex ? atomic_load(&((jk_executor_t *)ex)->pid) : 0;
}
