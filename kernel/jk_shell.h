/* jk_shell: the shell channel, on the main thread — its poll loop and its
 * requests. Requests that need the session go to the executor; while one
 * runs, the loop keeps forwarding its output and watching for its death,
 * for a shutdown and for the operator's time limit per cell
 * (GPUC_LIMIT_CELL_TIME: interrupted, then killed; time waiting for typed
 * input does not count).
 *
 * The kernel (jk_kernel.c) fills in the interface part of jk_shell_t: what
 * the shell uses but does not own, and the callbacks through which it asks
 * the kernel to start or drop an executor, send a reply and stop. */
#ifndef JK_SHELL_H
#define JK_SHELL_H

#include <stdatomic.h>
#include <sys/types.h>

#include "jk_executor.h"
#include "jk_history.h"
#include "jk_journal.h"
#include "jk_parent.h"
#include "jk_iopub.h"
#include "jk_wire.h"

/* Sends a reply on socket to msg (content stolen); failures are logged. */
typedef void jk_shell_reply_fn(void *ctx, void *socket, const jk_message_t *msg, const char *msg_type,
                         json_t *content);

typedef struct jk_shell {
    /* set by the kernel, borrowed */
    void *socket;               /* the shell ROUTER socket */
    void *stdin_socket;         /* the stdin ROUTER socket: input for cells that read */
    jk_signer_t *signer;        /* verifies what arrives on socket */
    jk_iopub_t *iopub;
    jk_history_t *history;
    int wake_fd;                /* readable when the kernel wakes the loop */
    const atomic_int *stopping; /* a shutdown was requested */
    jk_parent_t parent;         /* the loop ends when it is gone (if watched) */
    jk_executor_t *executor;    /* set by ensure_executor / drop_executor only */
    void *ctx;                  /* the callbacks' first argument */
    int (*ensure_executor)(void *ctx); /* starts one if none runs: 0, or -1 (logged) */
    void (*drop_executor)(void *ctx);  /* frees a dead one; executor becomes NULL */
    jk_shell_reply_fn *reply;
    void (*stop)(void *ctx);    /* requests a shutdown (sets stopping) */

    /* the shell's own state */
    int execution_count;
    jk_message_t *queued;       /* requests waiting when an execute failed */
    size_t n_queued;
    jk_message_t last_execute;  /* parent of output printed between cells */
    jk_journal_t journal;       /* the cells %recover replays */
    unsigned long replaced;     /* executors replaced so far */
    int awaiting_input;         /* an input_request is out; its reply goes to the executor */
} jk_shell_t;

/* Serves the shell socket until stopping is set, the socket's context is
 * terminated or the watched parent process is gone (jk_parent.h). */
void jk_shell_run(jk_shell_t *s);

/* Frees the shell's own state (not what the kernel set). */
void jk_shell_clear(jk_shell_t *s);

#endif
