#include "cm_link.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *cm_link_op(const json_t *msg)
{
    return json_string_value(json_object_get(msg, CM_LINK_OP));
}

int cm_link_op_is(const json_t *msg, const char *op)
{
    const char *got = cm_link_op(msg);
    return got && strcmp(got, op) == 0;
}

static int write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Returns 0 when all read, 1 on EOF before any byte, -1 on error or EOF midway. */
static int read_all(int fd, void *data, size_t len)
{
    unsigned char *p = data;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            return got == 0 ? 1 : -1;
        got += (size_t)n;
    }
    return 0;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int cm_link_send(int fd, const json_t *msg, cm_error_t *err)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text) {
        CM_ERROR(err, -1, "link: cannot encode message");
        return -1;
    }
    size_t len = strlen(text);
    if (len > CM_LINK_MAX_FRAME) {
        free(text);
        CM_ERROR(err, -1, "link: message of %zu bytes is too large", len);
        return -1;
    }
    unsigned char head[4];
    put_be32(head, (uint32_t)len);
    int rc = write_all(fd, head, 4) || write_all(fd, text, len) ? -1 : 0;
    free(text);
    if (rc)
        CM_ERROR(err, errno, "link: write failed: %s", strerror(errno));
    return rc;
}

static json_t *decode(const unsigned char *data, size_t len, cm_error_t *err)
{
    json_error_t jerr;
    json_t *msg = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!msg || !json_is_object(msg)) {
        json_decref(msg);
        CM_ERROR(err, -1, "link: invalid frame: %s", msg ? "not an object" : jerr.text);
        return NULL;
    }
    return msg;
}

int cm_link_recv(int fd, json_t **msg, cm_error_t *err)
{
    unsigned char head[4];
    int rc = read_all(fd, head, 4);
    if (rc == 1)
        return 1;
    if (rc < 0) {
        CM_ERROR(err, -1, "link: read failed or peer closed mid-frame");
        return -1;
    }
    uint32_t len = get_be32(head);
    if (len > CM_LINK_MAX_FRAME) {
        CM_ERROR(err, -1, "link: frame of %u bytes is too large", len);
        return -1;
    }
    unsigned char *body = malloc(len ? len : 1);
    if (!body) {
        CM_ERROR(err, ENOMEM, "link: out of memory");
        return -1;
    }
    if (read_all(fd, body, len) != 0 && len > 0) {
        free(body);
        CM_ERROR(err, -1, "link: peer closed mid-frame");
        return -1;
    }
    *msg = decode(body, len, err);
    free(body);
    return *msg ? 0 : -1;
}

int cm_link_reader_fill(cm_link_reader_t *r, int fd, cm_error_t *err)
{
    for (;;) {
        if (r->cap - r->len < 65536) {
            size_t cap = r->cap ? r->cap * 2 : 131072;
            unsigned char *buf = realloc(r->buf, cap);
            if (!buf) {
                CM_ERROR(err, ENOMEM, "link: out of memory");
                return -1;
            }
            r->buf = buf;
            r->cap = cap;
        }
        ssize_t n = read(fd, r->buf + r->len, r->cap - r->len);
        if (n > 0) {
            r->len += (size_t)n;
            continue;
        }
        if (n == 0)
            return 1;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        CM_ERROR(err, errno, "link: read failed: %s", strerror(errno));
        return -1;
    }
}

int cm_link_reader_next(cm_link_reader_t *r, json_t **msg, cm_error_t *err)
{
    if (r->len < 4)
        return 0;
    uint32_t len = get_be32(r->buf);
    if (len > CM_LINK_MAX_FRAME) {
        CM_ERROR(err, -1, "link: frame of %u bytes is too large", len);
        return -1;
    }
    if (r->len - 4 < len)
        return 0;
    *msg = decode(r->buf + 4, len, err);
    memmove(r->buf, r->buf + 4 + len, r->len - 4 - len);
    r->len -= 4 + (size_t)len;
    return *msg ? 1 : -1;
}

void cm_link_reader_free(cm_link_reader_t *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}
