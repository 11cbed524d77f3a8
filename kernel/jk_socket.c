#include "jk_socket.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

int jk_zmq_check(int rc, const char *what, cm_error_t *err, const char *file, int line)
{
    if (rc >= 0)
        return rc;
    int e = zmq_errno();
    cm_error_setf(err, file, line, e == ETERM ? JK_SOCKET_ETERM : e, "%s: %s", what,
                  zmq_strerror(e));
    return rc;
}

/* Appends a copy of part to the growing array. Returns 0, or -1. */
static int append(jk_frame_t **frames, size_t *n, size_t *cap, zmq_msg_t *part)
{
    if (*n == *cap) {
        size_t new_cap = *cap ? *cap * 2 : 8;
        jk_frame_t *grown = realloc(*frames, new_cap * sizeof *grown);
        if (!grown)
            return -1;
        *frames = grown;
        *cap = new_cap;
    }
    size_t len = zmq_msg_size(part);
    unsigned char *data = malloc(len ? len : 1);
    if (!data)
        return -1;
    if (len)
        memcpy(data, zmq_msg_data(part), len);
    (*frames)[*n].data = data;
    (*frames)[*n].len = len;
    (*n)++;
    return 0;
}

int jk_socket_recv(void *socket, int flags, jk_frame_t **frames, size_t *n, cm_error_t *err)
{
    *frames = NULL;
    *n = 0;
    jk_frame_t *got = NULL;
    size_t count = 0, cap = 0, parts = 0;
    const char *broken = NULL; /* why the message is being discarded */
    size_t big = 0;
    for (;;) {
        zmq_msg_t part;
        zmq_msg_init(&part);
        /* only the first part may wait: the rest of a multipart message
         * arrives with it (ZeroMQ delivers messages atomically) */
        if (zmq_msg_recv(&part, socket, parts == 0 ? flags : 0) < 0) {
            int e = zmq_errno();
            zmq_msg_close(&part);
            if (e == EINTR && parts > 0)
                continue;
            if (parts == 0 && (e == EAGAIN || e == EINTR))
                return 1;
            jk_frames_free(got, count);
            jk_zmq_check(-1, "zmq_msg_recv", err, __FILE__, __LINE__);
            return -1;
        }
        parts++;
        int more = zmq_msg_more(&part);
        if (!broken) {
            if (parts > JK_WIRE_MAX_FRAMES) {
                broken = "too many frames";
            } else if (zmq_msg_size(&part) > JK_WIRE_MAX_FRAME_BYTES) {
                broken = "frame too large";
                big = zmq_msg_size(&part);
            } else if (append(&got, &count, &cap, &part)) {
                broken = "out of memory";
            }
            if (broken) {
                jk_frames_free(got, count);
                got = NULL;
                count = 0;
            }
        }
        zmq_msg_close(&part);
        if (!more)
            break;
    }
    if (broken) {
        if (big)
            CM_ERROR(err, JK_WIRE_EFRAMES,
                     "dropped message: frame of %zu bytes (at most %u)", big,
                     JK_WIRE_MAX_FRAME_BYTES);
        else
            CM_ERROR(err, JK_WIRE_EFRAMES, "dropped message of %zu frames: %s (at most %d)",
                     parts, broken, JK_WIRE_MAX_FRAMES);
        return -1;
    }
    *frames = got;
    *n = count;
    return 0;
}

int jk_socket_send(void *socket, const jk_frame_t *frames, size_t n, cm_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        int flags = i + 1 < n ? ZMQ_SNDMORE : 0;
        int rc;
        do
            rc = zmq_send(socket, frames[i].data, frames[i].len, flags);
        while (rc < 0 && zmq_errno() == EINTR);
        if (jk_zmq_check(rc, "zmq_send", err, __FILE__, __LINE__) < 0)
            return -1;
    }
    return 0;
}

int jk_socket_recv_message(void *socket, jk_signer_t *signer, int flags, jk_message_t *msg,
                           cm_error_t *err)
{
    memset(msg, 0, sizeof *msg);
    jk_frame_t *frames;
    size_t n;
    int rc = jk_socket_recv(socket, flags, &frames, &n, err);
    if (rc != 0)
        return rc;
    rc = jk_wire_parse(signer, frames, n, msg, err);
    jk_frames_free(frames, n);
    return rc;
}

/* Builds a header, serialises and sends; content is stolen. */
static int send_with(void *socket, const jk_signer_t *signer, const char *session,
                     const jk_frame_t *ids, size_t n_ids, const jk_message_t *parent,
                     const char *msg_type, json_t *content, cm_error_t *err)
{
    json_t *header = jk_wire_header_new(msg_type, session);
    if (!header) {
        json_decref(content);
        CM_ERROR(err, -1, "%s: cannot build the header", msg_type);
        return -1;
    }
    jk_frame_t *frames;
    size_t n;
    int rc = jk_wire_serialize(signer, ids, n_ids, header, parent ? parent->header : NULL,
                               NULL, content, &frames, &n, err);
    json_decref(header);
    json_decref(content);
    if (rc)
        return -1;
    rc = jk_socket_send(socket, frames, n, err);
    jk_frames_free(frames, n);
    return rc;
}

int jk_socket_send_message(void *socket, const jk_signer_t *signer, const char *session,
                           const jk_message_t *parent, const char *msg_type, json_t *content,
                           cm_error_t *err)
{
    return send_with(socket, signer, session, parent ? parent->identities : NULL,
                     parent ? parent->n_identities : 0, parent, msg_type, content, err);
}

int jk_socket_publish(void *socket, const jk_signer_t *signer, const char *session,
                      const jk_message_t *parent, const char *msg_type, json_t *content,
                      cm_error_t *err)
{
    if (!session)
        session = "";
    size_t len = strlen("kernel.") + strlen(session) + 1 + strlen(msg_type);
    char *topic = malloc(len + 1);
    if (!topic) {
        json_decref(content);
        CM_ERROR(err, -1, "%s: out of memory", msg_type);
        return -1;
    }
    strcpy(topic, "kernel.");
    strcat(topic, session);
    strcat(topic, ".");
    strcat(topic, msg_type);
    jk_frame_t id = {(unsigned char *)topic, len};
    int rc = send_with(socket, signer, session, &id, 1, parent, msg_type, content, err);
    free(topic);
    return rc;
}
