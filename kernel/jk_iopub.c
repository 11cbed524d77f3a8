#include "jk_iopub.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_log.h"
#include "jk_socket.h"

struct jk_iopub {
    void *socket;
    const jk_signer_t *signer;
    char session[64];
    pthread_mutex_t lock;
};

jk_iopub_t *jk_iopub_new(void *socket, const jk_signer_t *signer, const char *session)
{
    jk_iopub_t *io = calloc(1, sizeof *io);
    if (!io)
        return NULL;
    io->socket = socket;
    io->signer = signer;
    snprintf(io->session, sizeof io->session, "%s", session);
    pthread_mutex_init(&io->lock, NULL);
    return io;
}

void jk_iopub_free(jk_iopub_t *io)
{
    if (!io)
        return;
    pthread_mutex_destroy(&io->lock);
    free(io);
}

void jk_iopub_publish(jk_iopub_t *io, const jk_message_t *parent, const char *msg_type,
                      json_t *content)
{
    cm_error_t err;
    cm_error_clear(&err);
    pthread_mutex_lock(&io->lock);
    int rc = jk_socket_publish(io->socket, io->signer, io->session, parent, msg_type, content, &err);
    pthread_mutex_unlock(&io->lock);
    if (rc != 0)
        CM_WARN("iopub: cannot publish %s: %s", msg_type, err.text);
}

void jk_iopub_status(jk_iopub_t *io, const jk_message_t *parent, const char *state)
{
    jk_iopub_publish(io, parent, "status", json_pack("{s:s}", "execution_state", state));
}
