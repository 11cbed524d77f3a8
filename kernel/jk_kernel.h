/* jk_kernel: one Jupyter session served by the kernel process — the
 * sockets, the threads, and the state the request handlers share.
 * Internal to kernel/: jk_kernel.c sets it up and runs the shell loop,
 * jk_shell.c and jk_control.c handle the requests. */
#ifndef JK_KERNEL_H
#define JK_KERNEL_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>

#include "jk_connection.h"
#include "jk_executor.h"
#include "jk_history.h"
#include "jk_iopub.h"
#include "jk_wire.h"

typedef struct jk_kernel {
    jk_connection_t conn;
    jk_signer_t *signer;
    char session[37];          /* our session id, in every header we send */
    char exe[PATH_MAX];        /* this gpuc binary, to start executors */
    void *zmq;                 /* ZeroMQ context */
    void *shell, *control, *stdin_socket, *iopub_socket;
    jk_iopub_t *iopub;
    jk_executor_t *executor;   /* shell thread only; NULL until started */
    _Atomic pid_t executor_pid;/* for interrupts from other threads and signals */
    jk_history_t *history;     /* shell thread only */
    int execution_count;       /* shell thread only */
    jk_message_t *queued;      /* requests waiting when an execute failed */
    size_t n_queued;
    jk_message_t last_execute; /* parent of output printed between cells */
    int wake[2];               /* pipe: control thread / signals -> shell loop */
    atomic_int stopping;       /* a shutdown was requested */
    pid_t parent_pid;          /* exit when it changes (parent died) */
} jk_kernel_t;

/* Handles one message from the shell socket (the shell thread). */
void jk_shell_dispatch(jk_kernel_t *k, jk_message_t *msg);


/* The control thread's loop; returns when stopping is set. */
void *jk_control_thread(void *kernel);

/* Content of kernel_info_reply (new reference). */
json_t *jk_kernel_info(void);

/* Sends a reply on socket to msg (content stolen). */
void jk_kernel_reply(jk_kernel_t *k, void *socket, const jk_message_t *msg, const char *msg_type,
                     json_t *content);

/* Sets stopping and wakes the shell loop. Async-signal-safe. */
void jk_kernel_request_stop(jk_kernel_t *k);

/* Starts an executor if none runs. Returns 0, or -1 (logged). */
int jk_kernel_ensure_executor(jk_kernel_t *k);

#endif
