/* Tests of cm_link: blocking frames and the incremental reader over a
 * socketpair. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cm_link.h"

static void pair(int fds[2])
{
    int rc = socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
    CHECK(rc == 0);
}

static void write_raw(int fd, const void *data, size_t len)
{
    CHECK(write(fd, data, len) == (ssize_t)len);
}

static void be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void test_blocking(void)
{
    int fds[2];
    pair(fds);
    json_t *a = json_pack("{s:s, s:i, s:s}", "op", "execute", "cell", 7, "code", "int x = 1;");
    json_t *b = json_pack("{s:s}", "op", "shutdown");
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(cm_link_send(fds[0], a, &err) == 0);
    CHECK(cm_link_send(fds[0], b, &err) == 0);
    json_t *got = NULL;
    CHECK(cm_link_recv(fds[1], &got, &err) == 0);
    CHECK(json_equal(got, a));
    json_decref(got);
    CHECK(cm_link_recv(fds[1], &got, &err) == 0);
    CHECK(json_equal(got, b));
    json_decref(got);

    /* oversized length: refused before reading the body */
    unsigned char head[4];
    be32(head, CM_LINK_MAX_FRAME + 1);
    write_raw(fds[0], head, 4);
    cm_error_clear(&err);
    CHECK(cm_link_recv(fds[1], &got, &err) == -1 && strstr(err.text, "too large"));

    /* invalid JSON, then a non-object */
    be32(head, 5);
    write_raw(fds[0], head, 4);
    write_raw(fds[0], "{nope", 5);
    cm_error_clear(&err);
    CHECK(cm_link_recv(fds[1], &got, &err) == -1 && strstr(err.text, "invalid frame"));
    be32(head, 3);
    write_raw(fds[0], head, 4);
    write_raw(fds[0], "[1]", 3);
    cm_error_clear(&err);
    CHECK(cm_link_recv(fds[1], &got, &err) == -1 && strstr(err.text, "not an object"));

    /* EOF mid-frame is an error; clean EOF is 1 */
    be32(head, 100);
    write_raw(fds[0], head, 4);
    write_raw(fds[0], "{\"op\"", 5);
    shutdown(fds[0], SHUT_WR);
    cm_error_clear(&err);
    CHECK(cm_link_recv(fds[1], &got, &err) == -1);
    close(fds[0]);
    close(fds[1]);

    pair(fds);
    close(fds[0]);
    CHECK(cm_link_recv(fds[1], &got, NULL) == 1);
    close(fds[1]);
    json_decref(a);
    json_decref(b);
}

/* Encodes two frames into one byte string the way cm_link_send does. */
static unsigned char *two_frames(size_t *len, json_t **a, json_t **b)
{
    *a = json_pack("{s:s, s:{s:s}}", "op", "display", "data", "text/plain", "hello");
    *b = json_pack("{s:s, s:s}", "op", "reply", "status", "ok");
    char *ta = json_dumps(*a, JSON_COMPACT), *tb = json_dumps(*b, JSON_COMPACT);
    size_t la = strlen(ta), lb = strlen(tb);
    unsigned char *buf = malloc(8 + la + lb);
    be32(buf, (uint32_t)la);
    memcpy(buf + 4, ta, la);
    be32(buf + 4 + la, (uint32_t)lb);
    memcpy(buf + 8 + la, tb, lb);
    free(ta);
    free(tb);
    *len = 8 + la + lb;
    return buf;
}

/* Feeds the stream in two writes split at every byte boundary. */
static void test_reader_splits(void)
{
    json_t *a, *b;
    size_t len;
    unsigned char *bytes = two_frames(&len, &a, &b);
    int bad = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        int fds[2];
        pair(fds);
        fcntl(fds[1], F_SETFL, O_NONBLOCK);
        cm_link_reader_t r = {0};
        json_t *got[2] = {NULL, NULL};
        int n_got = 0;
        const unsigned char *chunks[2] = {bytes, bytes + cut};
        size_t sizes[2] = {cut, len - cut};
        for (int c = 0; c < 2; c++) {
            if (sizes[c])
                write_raw(fds[0], chunks[c], sizes[c]);
            if (cm_link_reader_fill(&r, fds[1], NULL) != 0)
                bad++;
            json_t *m;
            int rc;
            while ((rc = cm_link_reader_next(&r, &m, NULL)) == 1)
                if (n_got < 2)
                    got[n_got++] = m;
                else
                    json_decref(m);
            if (rc < 0)
                bad++;
        }
        if (n_got != 2 || !json_equal(got[0], a) || !json_equal(got[1], b) || r.len != 0)
            bad++;
        json_decref(got[0]);
        json_decref(got[1]);
        close(fds[0]);
        CHECK(cm_link_reader_fill(&r, fds[1], NULL) == 1); /* EOF */
        cm_link_reader_free(&r);
        close(fds[1]);
    }
    CHECK(bad == 0);

    /* byte by byte into the reader's buffer directly */
    cm_link_reader_t r = {0};
    r.buf = malloc(len);
    r.cap = len;
    int frames = 0;
    for (size_t i = 0; i < len; i++) {
        r.buf[r.len++] = bytes[i];
        json_t *m;
        int rc = cm_link_reader_next(&r, &m, NULL);
        CHECK(rc >= 0);
        if (rc == 1) {
            frames++;
            json_decref(m);
        }
    }
    CHECK(frames == 2);
    cm_link_reader_free(&r);
    free(bytes);
    json_decref(a);
    json_decref(b);
}

static void test_reader_errors(void)
{
    cm_link_reader_t r = {0};
    r.buf = malloc(64);
    r.cap = 64;
    be32(r.buf, CM_LINK_MAX_FRAME + 1);
    r.len = 4;
    json_t *m = NULL;
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(cm_link_reader_next(&r, &m, &err) == -1 && strstr(err.text, "too large"));

    be32(r.buf, 4);
    memcpy(r.buf + 4, "{]}x", 4);
    r.len = 8;
    cm_error_clear(&err);
    CHECK(cm_link_reader_next(&r, &m, &err) == -1 && strstr(err.text, "invalid frame"));
    cm_link_reader_free(&r);
    CHECK(r.buf == NULL && r.len == 0);

    /* a large frame through a real socketpair */
    int fds[2];
    pair(fds);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    size_t big = 1 << 20;
    char *text = malloc(big + 1);
    memset(text, 'x', big);
    text[big] = '\0';
    json_t *msg = json_pack("{s:s, s:s}", "op", "display", "blob", text);
    free(text);
    cm_link_reader_t rr = {0};
    /* the writer blocks once the socket buffer is full: write in a child */
    pid_t pid = fork();
    if (pid == 0) {
        int rc = cm_link_send(fds[0], msg, NULL);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[0]);
    int rc = 0;
    json_t *got = NULL;
    while (rc == 0) {
        rc = cm_link_reader_fill(&rr, fds[1], NULL);
        if (cm_link_reader_next(&rr, &got, NULL) == 1)
            break;
        if (rc == 0)
            usleep(1000);
    }
    CHECK(got != NULL && json_equal(got, msg));
    int status = -1;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    json_decref(got);
    json_decref(msg);
    cm_link_reader_free(&rr);
    close(fds[1]);
}

int main(void)
{
    test_blocking();
    test_reader_splits();
    test_reader_errors();
    return check_report("test_cm_link");
}
