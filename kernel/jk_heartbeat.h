/* jk_heartbeat: the heartbeat channel, an echo on its own thread. */
#ifndef JK_HEARTBEAT_H
#define JK_HEARTBEAT_H

#include "cm_error.h"

typedef struct jk_heartbeat jk_heartbeat_t;

/* Binds a REP socket on endpoint in zmq context ctx and starts echoing
 * every multipart message back on a new thread. Returns NULL with err set
 * when the socket, the bind or the thread fails. */
jk_heartbeat_t *jk_heartbeat_start(void *ctx, const char *endpoint, cm_error_t *err);

/* Stops the thread (within about 100 ms), waits for it and frees hb. The
 * thread owns and closes the socket (ZMQ_LINGER 0) itself, and also ends
 * by itself when ctx terminates, so this may be called before or after
 * zmq_ctx_term; it MUST BE CALLED exactly once per started heartbeat.
 * hb NULL is a no-op. */
void jk_heartbeat_stop(jk_heartbeat_t *hb);

#endif
