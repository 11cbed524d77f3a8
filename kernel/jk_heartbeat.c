#include "jk_heartbeat.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <zmq.h>

#include "cm_log.h"
#include "jk_socket.h"
#include "jk_wire.h"

#define POLL_MS 100 /* how soon the thread notices jk_heartbeat_stop */

struct jk_heartbeat {
    void *socket; /* REP; owned by the thread once started, closed by it */
    pthread_t thread;
    atomic_int stop;
};

/* Echoes one whole multipart message. REP accepts no send before the
 * request's last part, so the parts are held first (at most
 * JK_WIRE_MAX_FRAMES; any beyond are dropped from the echo). Returns 0,
 * or the zmq errno. */
static int echo(void *socket)
{
    zmq_msg_t parts[JK_WIRE_MAX_FRAMES];
    int n = 0, more = 1, e = 0;
    while (more) {
        zmq_msg_t part;
        zmq_msg_init(&part);
        if (zmq_msg_recv(&part, socket, 0) < 0) {
            int err = zmq_errno();
            zmq_msg_close(&part);
            if (err == EINTR)
                continue;
            e = err;
            goto done;
        }
        more = zmq_msg_more(&part);
        if (n < JK_WIRE_MAX_FRAMES) {
            zmq_msg_init(&parts[n]);
            zmq_msg_move(&parts[n++], &part); /* part becomes empty */
        }
        zmq_msg_close(&part);
    }
    for (int i = 0; i < n; i++) {
        int rc;
        do
            rc = zmq_msg_send(&parts[i], socket, i + 1 < n ? ZMQ_SNDMORE : 0);
        while (rc < 0 && zmq_errno() == EINTR);
        if (rc < 0) {
            e = zmq_errno();
            goto done;
        }
    }
done:
    /* sent messages are emptied by zmq; closing them is still required */
    for (int i = 0; i < n; i++)
        zmq_msg_close(&parts[i]);
    return e;
}

/* The thread closes the socket itself, so that zmq_ctx_term in another
 * thread (which waits for every socket to close) can finish even when
 * jk_heartbeat_stop has not been called yet. */
static void *run(void *arg)
{
    jk_heartbeat_t *hb = arg;
    while (!atomic_load(&hb->stop)) {
        zmq_pollitem_t item = {.socket = hb->socket, .events = ZMQ_POLLIN};
        int rc = zmq_poll(&item, 1, POLL_MS);
        if (rc < 0) {
            int e = zmq_errno();
            if (e == EINTR)
                continue;
            if (e != ETERM)
                CM_ERR("heartbeat: poll failed: %s", zmq_strerror(e));
            break;
        }
        if (rc == 0 || !(item.revents & ZMQ_POLLIN))
            continue;
        int e = echo(hb->socket);
        if (e == ETERM)
            break;
        if (e)
            CM_WARN("heartbeat: echo failed: %s", zmq_strerror(e));
    }
    zmq_close(hb->socket);
    hb->socket = NULL;
    return NULL;
}

jk_heartbeat_t *jk_heartbeat_start(void *ctx, const char *endpoint, cm_error_t *err)
{
    jk_heartbeat_t *hb = calloc(1, sizeof *hb);
    if (!hb) {
        CM_ERROR(err, -1, "heartbeat: out of memory");
        return NULL;
    }
    hb->socket = zmq_socket(ctx, ZMQ_REP);
    if (!hb->socket) {
        jk_zmq_check(-1, "heartbeat: zmq_socket(ZMQ_REP)", err, __FILE__, __LINE__);
        free(hb);
        return NULL;
    }
    int linger = 0;
    int64_t max_size = JK_WIRE_MAX_FRAME_BYTES;
    if (JK_ZMQ_CHECK(zmq_setsockopt(hb->socket, ZMQ_LINGER, &linger, sizeof linger), err) < 0 ||
        JK_ZMQ_CHECK(zmq_setsockopt(hb->socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size),
                     err) < 0)
        goto fail;
    if (zmq_bind(hb->socket, endpoint) < 0) {
        int e = zmq_errno();
        CM_ERROR(err, e == ETERM ? JK_SOCKET_ETERM : e, "heartbeat: cannot bind %s: %s",
                 endpoint, zmq_strerror(e));
        goto fail;
    }
    int rc = pthread_create(&hb->thread, NULL, run, hb);
    if (rc) {
        CM_ERROR(err, rc, "heartbeat: cannot start the thread");
        goto fail;
    }
    return hb;
fail:
    zmq_close(hb->socket);
    free(hb);
    return NULL;
}

void jk_heartbeat_stop(jk_heartbeat_t *hb)
{
    if (!hb)
        return;
    atomic_store(&hb->stop, 1);
    pthread_join(hb->thread, NULL); /* the thread closes the socket */
    free(hb);
}
