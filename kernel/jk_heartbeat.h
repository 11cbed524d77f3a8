/* jk_heartbeat: the heartbeat channel, an echo on its own thread. */
#ifndef JK_HEARTBEAT_H
#define JK_HEARTBEAT_H

#include "cm_error.h"

typedef struct jk_heartbeat jk_heartbeat_t;

/* Binds a REP socket on endpoint in zmq context ctx and starts echoing on a
 * new thread. Returns NULL with err set when the bind fails. */
jk_heartbeat_t *jk_heartbeat_start(void *ctx, const char *endpoint, cm_error_t *err);

/* Stops the thread. MUST BE CALLED before zmq_ctx_term on ctx... the thread
 * also ends by itself when the context terminates. */
void jk_heartbeat_stop(jk_heartbeat_t *hb);

#endif
