/* jk_connection: the Jupyter connection file that starts a kernel.
 *
 * Reads transport (tcp or ipc), ip, the five ports, key and
 * signature_scheme. Only "hmac-sha256" is supported (an empty key turns
 * signing off). */
#ifndef JK_CONNECTION_H
#define JK_CONNECTION_H

#include <stddef.h>

#include "cm_error.h"

typedef enum {
    JK_CHANNEL_SHELL,
    JK_CHANNEL_CONTROL,
    JK_CHANNEL_STDIN,
    JK_CHANNEL_IOPUB,
    JK_CHANNEL_HB,
    JK_CHANNEL_COUNT
} jk_channel_t;

typedef struct jk_connection {
    char transport[8];          /* "tcp" or "ipc" */
    char ip[256];               /* address for tcp; path prefix for ipc */
    int ports[JK_CHANNEL_COUNT];/* indexed by jk_channel_t */
    char key[1024];             /* signing key; "" disables signing */
    char signature_scheme[32];  /* "hmac-sha256" */
} jk_connection_t;

/* Loads and validates a connection file. Returns 0, or -1 with err set
 * (unreadable file, invalid JSON, missing or bad field, unsupported
 * transport or signature scheme), naming the file and the field. */
int jk_connection_load(const char *path, jk_connection_t *conn, cm_error_t *err);

/* Writes the ZeroMQ endpoint of a channel ("tcp://127.0.0.1:5555" or
 * "ipc://PATH-N") into buf. Returns 0, or -1 when buf is too small. */
int jk_connection_endpoint(const jk_connection_t *conn, jk_channel_t channel, char *buf,
                           size_t size);

#endif
