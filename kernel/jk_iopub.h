/* jk_iopub: the IOPub channel, shared by the shell and control threads
 * (every publish takes a mutex: ZeroMQ sockets are not thread-safe). */
#ifndef JK_IOPUB_H
#define JK_IOPUB_H

#include <jansson.h>

#include "jk_wire.h"

typedef struct jk_iopub jk_iopub_t;

/* Wraps a bound PUB socket (not taken: the caller closes it after
 * jk_iopub_free). Returns NULL when out of memory. */
jk_iopub_t *jk_iopub_new(void *socket, const jk_signer_t *signer, const char *session);
void jk_iopub_free(jk_iopub_t *io);

/* Publishes msg_type with content (stolen; NULL = {}) and parent's header
 * as parent_header (parent may be NULL). Failures are logged, not fatal. */
void jk_iopub_publish(jk_iopub_t *io, const jk_message_t *parent, const char *msg_type,
                      json_t *content);

/* Publishes {"execution_state": state}: "starting", "busy" or "idle". */
void jk_iopub_status(jk_iopub_t *io, const jk_message_t *parent, const char *state);

#endif
