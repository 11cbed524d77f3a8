/* cm_link: length-prefixed JSON frames between the kernel process and the
 * executor process, over one end of a socketpair.
 *
 * A frame is a 4-byte big-endian length followed by that many bytes of
 * UTF-8 JSON (one object). Frames over CM_LINK_MAX_FRAME are refused.
 *
 * Every frame has an "op" (CM_LINK_OP): its message type, one of the
 * CM_LINK_* names below, the only place they are spelt. What each carries
 * is described in docs/architecture.md, section "The executor link". */
#ifndef CM_LINK_H
#define CM_LINK_H

#include <jansson.h>
#include <stddef.h>

#include "cm_error.h"

#define CM_LINK_MAX_FRAME (256u * 1024u * 1024u)

/* The key of a frame's message type. */
#define CM_LINK_OP "op"

/* Kernel -> executor: requests, one at a time ... */
#define CM_LINK_EXECUTE "execute"         /* code, cell, silent, allow_stdin */
#define CM_LINK_COMPLETE "complete"       /* code, cursor_pos */
#define CM_LINK_INSPECT "inspect"         /* code, cursor_pos, detail_level */
#define CM_LINK_IS_COMPLETE "is_complete" /* code */
#define CM_LINK_SHUTDOWN "shutdown"       /* no reply: the executor exits */
/* ... and answers to what a running cell sent. */
#define CM_LINK_ACK "ack"                 /* after each display / clear_output */
#define CM_LINK_INPUT "input"             /* value, or eof: answers input_request */

/* Executor -> kernel. */
#define CM_LINK_READY "ready"             /* once, at start: pid, version */
#define CM_LINK_DISPLAY "display"         /* data, metadata, transient, update */
#define CM_LINK_CLEAR_OUTPUT "clear_output" /* wait */
#define CM_LINK_INPUT_REQUEST "input_request" /* prompt, password */
#define CM_LINK_REPLY "reply"             /* the request is done */

/* The message type of frame msg (borrowed), or NULL when it has none. */
const char *cm_link_op(const json_t *msg);

/* Non-zero when frame msg's message type is op (a CM_LINK_* name). */
int cm_link_op_is(const json_t *msg, const char *op);

/* Writes one frame (blocking, retries on EINTR). Does not take msg.
 * Returns 0, or -1 with err set (peer gone, encoding failed). */
int cm_link_send(int fd, const json_t *msg, cm_error_t *err);

/* Reads one whole frame (blocking, retries on EINTR). On success returns 0
 * and a new reference in *msg (caller frees). Returns 1 on clean end of
 * file before a frame starts, -1 with err set on anything else. */
int cm_link_recv(int fd, json_t **msg, cm_error_t *err);

/* An incremental reader for a non-blocking fd, for poll loops. */
typedef struct cm_link_reader {
    unsigned char *buf;  /* bytes received, not yet consumed */
    size_t len, cap;
} cm_link_reader_t;

/* Reads what is available from fd into r. Returns 0 if the fd may have
 * more later, 1 on end of file, -1 with err set on a read error. */
int cm_link_reader_fill(cm_link_reader_t *r, int fd, cm_error_t *err);

/* Takes the next complete frame out of r. Returns 1 with a new reference
 * in *msg, 0 when no whole frame is buffered yet, -1 with err set when the
 * stream is corrupt (bad length or invalid JSON). */
int cm_link_reader_next(cm_link_reader_t *r, json_t **msg, cm_error_t *err);

/* Frees the reader's buffer; r may be reused after. */
void cm_link_reader_free(cm_link_reader_t *r);

#endif
