/* rt_output: stdout and stderr in the order written (see rt_output.h). */
#include "rt_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_protect.h"

#define BUFFER_BYTES (1 << 16)
#define RECORD_MAX (PIPE_BUF - RT_OUTPUT_HEADER) /* text bytes in one record */
#define FLUSH_INTERVAL_NS (50 * 1000 * 1000)

/* buf holds whole records; the last one (at last, of stream last_stream)
 * grows while the same stream writes. Guarded by lock, a recursive mutex:
 * the cell thread never leaves it by a jump (rt_protect_hold), so only
 * the owner's own nesting (a write from a write) takes it twice. */
static char buf[BUFFER_BYTES];
static size_t used;
static size_t last;      /* offset of the last record's header */
static int last_stream;  /* 0: no record in buf */
static int out_fd = -1;
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void put_header(char *h, int stream, size_t len)
{
    h[0] = (char)stream;
    h[1] = (char)(len >> 24);
    h[2] = (char)(len >> 16);
    h[3] = (char)(len >> 8);
    h[4] = (char)len;
}

static size_t record_len(size_t at)
{
    const unsigned char *h = (const unsigned char *)buf + at;
    return (size_t)h[1] << 24 | (size_t)h[2] << 16 | (size_t)h[3] << 8 | h[4];
}

/* The only writer of out_fd is the holder of lock. A reader that went
 * away loses the text, never the cell. */
static void write_all(const char *p, size_t len)
{
    while (len) {
        ssize_t w = write(out_fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        len -= (size_t)w;
    }
}

/* Writes the buffer in pieces of whole records, each at most PIPE_BUF
 * bytes: such a write to a pipe is atomic, so a child forked by the cell
 * that writes its own records (its exit flushes its copy of this buffer)
 * cannot cut one of ours in two. */
static void flush_locked(void)
{
    size_t start = 0, end = 0;
    while (end < used) {
        size_t next = end + RT_OUTPUT_HEADER + record_len(end);
        if (next - start > PIPE_BUF) {
            write_all(buf + start, end - start);
            start = end;
        }
        end = next;
    }
    if (end > start)
        write_all(buf + start, end - start);
    used = 0;
    last_stream = 0;
}

static void enter(void)
{
    rt_protect_hold();
    pthread_mutex_lock(&lock);
}

static void leave(void)
{
    pthread_mutex_unlock(&lock);
    rt_protect_release();
}

long rt_output_write(int stream, const void *data, size_t len)
{
    if (out_fd < 0)
        return (long)write(stream == RT_OUTPUT_STDERR ? 2 : 1, data, len);
    const char *p = data;
    size_t left = len;
    enter();
    while (left) {
        size_t have = last_stream == stream ? record_len(last) : RECORD_MAX;
        if (have < RECORD_MAX && used < sizeof buf) { /* the same stream goes on */
            size_t n = RECORD_MAX - have;
            if (n > sizeof buf - used)
                n = sizeof buf - used;
            if (n > left)
                n = left;
            memcpy(buf + used, p, n);
            used += n;
            put_header(buf + last, stream, have + n);
            p += n;
            left -= n;
            continue;
        }
        if (sizeof buf - used <= RT_OUTPUT_HEADER)
            flush_locked();
        last = used;
        last_stream = stream;
        put_header(buf + used, stream, 0);
        used += RT_OUTPUT_HEADER;
    }
    leave();
    return (long)len;
}

void rt_output_flush(void)
{
    if (out_fd < 0) {
        fflush(stdout);
        fflush(stderr);
        return;
    }
    enter();
    flush_locked();
    leave();
}

size_t rt_output_take_line(char *out, size_t size)
{
    size_t n = 0;
    enter();
    if (last_stream == RT_OUTPUT_STDOUT && size) {
        const char *text = buf + last + RT_OUTPUT_HEADER;
        size_t len = record_len(last);
        const char *nl = memrchr(text, '\n', len);
        size_t from = nl ? (size_t)(nl - text) + 1 : 0;
        n = len - from;
        if (n > size - 1)
            n = 0; /* too long for a prompt: it stays output */
        memcpy(out, text + from, n);
        if (n) {
            if (from) {
                put_header(buf + last, RT_OUTPUT_STDOUT, from);
            } else { /* the whole record was the prompt */
                used = last;
                last_stream = 0;
            }
            if (last_stream)
                used -= n;
        }
    }
    if (size)
        out[n] = '\0';
    leave();
    return n;
}

/* The streams' cookies: the stream number is the cookie. */
static ssize_t cookie_write(void *cookie, const char *data, size_t len)
{
    return (ssize_t)rt_output_write((int)(intptr_t)cookie, data, len);
}

static FILE *open_stream(int stream)
{
    cookie_io_functions_t io = {.write = cookie_write};
    FILE *f = fopencookie((void *)(intptr_t)stream, "w", io);
    if (f)
        setvbuf(f, NULL, _IONBF, 0); /* buffered here, in order */
    return f;
}

/* Text streams while a cell runs; trylock: never wait behind a cell. */
static void *flusher(void *arg)
{
    (void)arg;
    struct timespec ts = {0, FLUSH_INTERVAL_NS};
    for (;;) {
        nanosleep(&ts, NULL);
        if (pthread_mutex_trylock(&lock) == 0) {
            flush_locked();
            pthread_mutex_unlock(&lock);
        }
    }
    return NULL;
}

int rt_output_init(int fd, cm_error_t *err)
{
    FILE *out = open_stream(RT_OUTPUT_STDOUT), *errs = open_stream(RT_OUTPUT_STDERR);
    if (!out || !errs) {
        CM_ERROR(err, errno, "cannot open the output streams");
        return -1;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC); /* a child writes to fds 1 and 2 */
    fflush(stdout);
    fflush(stderr);
    out_fd = fd;
    stdout = out;
    stderr = errs;
    /* text written before a fork or an exit is out before the child's */
    pthread_atfork(rt_output_flush, NULL, NULL);
    atexit(rt_output_flush);
    /* the thread must never take SIGINT or faults meant for the cell thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    if (pthread_create(&th, NULL, flusher, NULL) == 0)
        pthread_detach(th);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 0;
}
