/* Tests of jk_socket and jk_heartbeat over real ZeroMQ sockets. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zmq.h>

#include "check.h"
#include "jk_heartbeat.h"
#include "jk_socket.h"

#define KEY "socket-test-key"

static void *make_socket(void *ctx, int type)
{
    void *s = zmq_socket(ctx, type);
    int linger = 0, timeout = 5000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    return s;
}

/* The client side: a signed request from a DEALER (no identities). */
static int send_request(void *dealer, jk_signer_t *signer, const char *msg_type,
                        json_t *content)
{
    json_t *header = jk_wire_header_new(msg_type, "client-session");
    jk_frame_t *frames;
    size_t n;
    int rc = jk_wire_serialize(signer, NULL, 0, header, NULL, NULL, content, &frames, &n, NULL);
    if (rc == 0)
        rc = jk_socket_send(dealer, frames, n, NULL);
    jk_frames_free(frames, n);
    json_decref(header);
    json_decref(content);
    return rc;
}

static void test_round_trip(void *ctx)
{
    void *router = make_socket(ctx, ZMQ_ROUTER);
    void *dealer = make_socket(ctx, ZMQ_DEALER);
    CHECK(zmq_bind(router, "inproc://shell") == 0);
    CHECK(zmq_connect(dealer, "inproc://shell") == 0);
    jk_signer_t *kernel = jk_signer_new(KEY, "hmac-sha256", NULL);
    jk_signer_t *client = jk_signer_new(KEY, "hmac-sha256", NULL);

    jk_message_t req;
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(jk_socket_recv_message(router, kernel, ZMQ_DONTWAIT, &req, &err) == 1);

    CHECK(send_request(dealer, client, "kernel_info_request", json_object()) == 0);
    CHECK(jk_socket_recv_message(router, kernel, 0, &req, &err) == 0);
    CHECK_STR(req.msg_type, "kernel_info_request");
    CHECK(req.n_identities == 1); /* the ROUTER's routing id */

    json_t *content = json_pack("{s:s, s:s}", "status", "ok", "protocol_version",
                                JK_PROTOCOL_VERSION);
    CHECK(jk_socket_send_message(router, kernel, "kernel-session", &req, "kernel_info_reply",
                                 content, &err) == 0);
    jk_message_t reply;
    CHECK(jk_socket_recv_message(dealer, client, 0, &reply, &err) == 0);
    CHECK_STR(reply.msg_type, "kernel_info_reply");
    CHECK(reply.n_identities == 0);
    CHECK(json_equal(reply.parent_header, req.header));
    CHECK_STR(json_string_value(json_object_get(reply.header, "session")), "kernel-session");
    CHECK_STR(json_string_value(json_object_get(reply.content, "status")), "ok");

    /* a frame over the cap: dropped (rest drained), the next one is fine */
    size_t big = (size_t)JK_WIRE_MAX_FRAME_BYTES + 1;
    void *blob = calloc(1, big);
    CHECK(zmq_send(dealer, JK_WIRE_DELIMITER, strlen(JK_WIRE_DELIMITER), ZMQ_SNDMORE) >= 0);
    CHECK(zmq_send(dealer, blob, big, ZMQ_SNDMORE) >= 0);
    CHECK(zmq_send(dealer, "{}", 2, ZMQ_SNDMORE) >= 0);
    CHECK(zmq_send(dealer, "{}", 2, 0) >= 0);
    free(blob);
    /* too many frames */
    for (int i = 0; i < JK_WIRE_MAX_FRAMES; i++)
        CHECK(zmq_send(dealer, "x", 1, i + 1 < JK_WIRE_MAX_FRAMES ? ZMQ_SNDMORE : 0) >= 0);
    CHECK(send_request(dealer, client, "execute_request", json_pack("{s:s}", "code", "1")) == 0);

    jk_message_t m;
    cm_error_clear(&err);
    CHECK(jk_socket_recv_message(router, kernel, 0, &m, &err) == -1);
    CHECK(err.code == JK_WIRE_EFRAMES && strstr(err.text, "bytes"));
    cm_error_clear(&err);
    CHECK(jk_socket_recv_message(router, kernel, 0, &m, &err) == -1);
    CHECK(err.code == JK_WIRE_EFRAMES && strstr(err.text, "too many frames"));
    cm_error_clear(&err);
    CHECK(jk_socket_recv_message(router, kernel, 0, &m, &err) == 0);
    CHECK_STR(m.msg_type, "execute_request");
    CHECK_STR(json_string_value(json_object_get(m.content, "code")), "1");
    jk_message_clear(&m);
    CHECK(jk_socket_recv_message(router, kernel, ZMQ_DONTWAIT, &m, &err) == 1);

    /* a bad signature is dropped with ESIG */
    jk_signer_t *wrong = jk_signer_new("another-key", "hmac-sha256", NULL);
    CHECK(send_request(dealer, wrong, "execute_request", NULL) == 0);
    cm_error_clear(&err);
    CHECK(jk_socket_recv_message(router, kernel, 0, &m, &err) == -1 &&
          err.code == JK_WIRE_ESIG);
    jk_signer_free(wrong);

    /* IOPub: the topic is the only identity, the parent's ids are not used */
    void *pub = make_socket(ctx, ZMQ_PAIR);
    void *sub = make_socket(ctx, ZMQ_PAIR);
    CHECK(zmq_bind(pub, "inproc://iopub") == 0);
    CHECK(zmq_connect(sub, "inproc://iopub") == 0);
    CHECK(jk_socket_publish(pub, kernel, "kernel-session", &req, "status",
                            json_pack("{s:s}", "execution_state", "busy"), &err) == 0);
    CHECK(jk_socket_publish(pub, kernel, "kernel-session", NULL, "status", NULL, &err) == 0);
    CHECK(jk_socket_recv_message(sub, client, 0, &m, &err) == 0);
    CHECK(m.n_identities == 1 && m.identities[0].len == strlen("kernel.kernel-session.status") &&
          memcmp(m.identities[0].data, "kernel.kernel-session.status", m.identities[0].len) == 0);
    CHECK(json_equal(m.parent_header, req.header));
    CHECK_STR(json_string_value(json_object_get(m.content, "execution_state")), "busy");
    jk_message_clear(&m);
    CHECK(jk_socket_recv_message(sub, client, 0, &m, &err) == 0);
    CHECK(json_object_size(m.parent_header) == 0 && json_object_size(m.content) == 0);
    jk_message_clear(&m);

    jk_message_clear(&req);
    jk_message_clear(&reply);
    jk_signer_free(kernel);
    jk_signer_free(client);
    zmq_close(pub);
    zmq_close(sub);
    zmq_close(router);
    zmq_close(dealer);
}

static void test_eterm(void)
{
    void *ctx = zmq_ctx_new();
    void *s = make_socket(ctx, ZMQ_PULL);
    CHECK(zmq_bind(s, "inproc://eterm") == 0);
    zmq_ctx_shutdown(ctx);
    jk_frame_t *frames;
    size_t n;
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(jk_socket_recv(s, 0, &frames, &n, &err) == -1);
    CHECK(err.code == JK_SOCKET_ETERM && err.text[0] != '\0');
    zmq_close(s);
    zmq_ctx_term(ctx);
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    close(fd);
    return ntohs(a.sin_port);
}

static void test_heartbeat(void)
{
    void *ctx = zmq_ctx_new();
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", free_port());
    cm_error_t err;
    cm_error_clear(&err);
    jk_heartbeat_t *hb = jk_heartbeat_start(ctx, ep, &err);
    CHECK(hb != NULL);
    cm_error_clear(&err);
    CHECK(jk_heartbeat_start(ctx, ep, &err) == NULL); /* address in use */
    CHECK(strstr(err.text, ep) != NULL);

    void *req = make_socket(ctx, ZMQ_REQ);
    CHECK(zmq_connect(req, ep) == 0);
    for (int i = 0; i < 3; i++) {
        CHECK(zmq_send(req, "ping", 4, ZMQ_SNDMORE) == 4);
        CHECK(zmq_send(req, "second", 6, 0) == 6);
        char buf[16] = {0};
        CHECK(zmq_recv(req, buf, sizeof buf, 0) == 4 && memcmp(buf, "ping", 4) == 0);
        int more = 0;
        size_t sz = sizeof more;
        zmq_getsockopt(req, ZMQ_RCVMORE, &more, &sz);
        CHECK(more == 1);
        CHECK(zmq_recv(req, buf, sizeof buf, 0) == 6 && memcmp(buf, "second", 6) == 0);
    }
    zmq_close(req);
    jk_heartbeat_stop(hb);
    CHECK(zmq_ctx_term(ctx) == 0);

    /* the context terminates first: the thread closes its socket itself */
    ctx = zmq_ctx_new();
    hb = jk_heartbeat_start(ctx, "inproc://hb", NULL);
    CHECK(hb != NULL);
    CHECK(zmq_ctx_term(ctx) == 0); /* would hang if the socket stayed open */
    jk_heartbeat_stop(hb);
}

int main(void)
{
    void *ctx = zmq_ctx_new();
    test_round_trip(ctx);
    zmq_ctx_term(ctx);
    test_eterm();
    test_heartbeat();
    return check_report("test_jk_socket");
}
