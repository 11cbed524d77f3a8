/* jk_socket: multipart ZeroMQ messages to and from jk_frame_t arrays, with
 * the frame-count and frame-size caps of jk_wire applied on receive. */
#ifndef JK_SOCKET_H
#define JK_SOCKET_H

#include "cm_error.h"
#include "jk_wire.h"

/* Receives one whole multipart message (blocking unless flags has
 * ZMQ_DONTWAIT). Returns 0 with a new array in *frames (free with
 * jk_frames_free); 1 when nothing is waiting (ZMQ_DONTWAIT) or the call
 * was interrupted; -1 with err set when the message broke the caps (the
 * rest of it is drained and discarded) or the socket failed (code
 * JK_SOCKET_ETERM when the context is terminating). */
int jk_socket_recv(void *socket, int flags, jk_frame_t **frames, size_t *n, cm_error_t *err);

enum { JK_SOCKET_ETERM = 100 };

/* The zmq check: when rc < 0, records zmq_strerror(zmq_errno()) for the
 * call `what` at the call site in err (code JK_SOCKET_ETERM for ETERM,
 * else the errno). Returns rc. Use JK_ZMQ_CHECK(zmq_bind(s, ep), err). */
int jk_zmq_check(int rc, const char *what, cm_error_t *err, const char *file, int line);
#define JK_ZMQ_CHECK(call, err) jk_zmq_check((call), #call, (err), __FILE__, __LINE__)

/* Sends frames as one multipart message. Returns 0, or -1 with err set. */
int jk_socket_send(void *socket, const jk_frame_t *frames, size_t n, cm_error_t *err);

/* Receives, parses and verifies one message: jk_socket_recv then
 * jk_wire_parse. Returns 0 with msg filled, 1 when nothing was waiting,
 * -1 with err set for a dropped message or a socket failure. */
int jk_socket_recv_message(void *socket, jk_signer_t *signer, int flags, jk_message_t *msg,
                           cm_error_t *err);

/* Serialises and sends: the reply to `parent` (its identities and header
 * become ours) of type msg_type with content (stolen, NULL for {}).
 * Pass parent NULL for a message with no parent and no identities. For
 * IOPub use jk_socket_publish. Returns 0, or -1 with err set. */
int jk_socket_send_message(void *socket, const jk_signer_t *signer, const char *session,
                           const jk_message_t *parent, const char *msg_type, json_t *content,
                           cm_error_t *err);

/* Publishes on IOPub: one topic frame "kernel.<session>.<msg_type>" in
 * place of identities (the parent's are never used), the parent's header
 * as parent_header (parent NULL for {}), content stolen (NULL for {}).
 * Returns 0, or -1 with err set. */
int jk_socket_publish(void *socket, const jk_signer_t *signer, const char *session,
                      const jk_message_t *parent, const char *msg_type, json_t *content,
                      cm_error_t *err);

#endif
