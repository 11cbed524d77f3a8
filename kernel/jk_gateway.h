/* jk_gateway: Enterprise Gateway's remote-kernel launcher protocol, spoken
 * by the kernel itself so that no Python is needed on the node.
 *
 * EG's remote process proxies (DistributedProcessProxy over SSH,
 * KubernetesProcessProxy in a pod) start the kernelspec's argv with
 * --RemoteProcessProxy.kernel-id, .response-address, .public-key and
 * .port-range. The launcher then picks the five kernel ports (in the
 * range), writes the connection file, sends the connection information
 * with pid, pgid, comm_port and kernel_id to the response address, sealed
 * for the gateway (jk_seal.h), and serves the communication port: each
 * connection carries one JSON request, {"signum": N} (a signal for the
 * kernel; 0 is EG's liveness poll) or {"shutdown": 1} (stop listening).
 *
 * Order: jk_gateway_args_take while reading argv, jk_gateway_new before the
 * connection file is loaded, jk_gateway_announce AFTER the kernel's sockets
 * are bound, jk_gateway_free at exit. */
#ifndef JK_GATEWAY_H
#define JK_GATEWAY_H

#include <stddef.h>

#include "cm_error.h"

/* EG's launcher arguments, borrowed from argv. */
typedef struct jk_gateway_args {
    const char *kernel_id;        /* the id EG registered; required */
    const char *response_address; /* "IP:PORT" of EG's response listener */
    const char *public_key;       /* EG's RSA public key, base64 DER */
    const char *port_range;       /* "LOW..HIGH"; "0..0" or NULL: any port */
    const char *spark_mode;       /* spark-context-initialization-mode; only none */
    const char *cluster_type;     /* cluster-type; only none */
} jk_gateway_args_t;

typedef struct jk_gateway jk_gateway_t;

/* Takes argv[*i] (and its value) when it is one of EG's launcher arguments,
 * spelled --RemoteProcessProxy.NAME or --NAME, with the value after a space
 * or '='; *i moves to the last word taken. Returns 1 when taken, 0 when
 * argv[*i] is not one of them, -1 with err set when its value is missing. */
int jk_gateway_args_take(jk_gateway_args_t *args, int argc, char **argv, int *i,
                         cm_error_t *err);

/* Non-zero when EG started this kernel (a kernel id was given). */
int jk_gateway_args_given(const jk_gateway_args_t *args);

/* Checks the arguments, picks five ports in the range and writes a
 * connection file for them (at path when its folder exists, else a new
 * file in $TMPDIR, as EG's launchers do), then binds the communication
 * port. Returns the gateway session (free with jk_gateway_free), or NULL
 * with err set (kernel id, response address or public key missing, a bad range,
 * no free port). */
jk_gateway_t *jk_gateway_new(const jk_gateway_args_t *args, const char *path, cm_error_t *err);

/* The connection file written by jk_gateway_new. Borrowed. */
const char *jk_gateway_connection_file(const jk_gateway_t *g);

/* Sends the sealed connection information to EG's response address and
 * starts serving the communication port on a thread of its own. Returns
 * 0, or -1 with err set (libcrypto missing, EG unreachable). */
int jk_gateway_announce(jk_gateway_t *g, cm_error_t *err);

/* Stops the listener, closes the port and removes the connection file
 * written. NULL is a no-op. */
void jk_gateway_free(jk_gateway_t *g);

#endif
