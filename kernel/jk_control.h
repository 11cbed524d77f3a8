/* jk_control: the control channel, on its own thread, so that it answers
 * while a cell runs: interrupts, shutdowns and kernel_info. */
#ifndef JK_CONTROL_H
#define JK_CONTROL_H

#include <stdatomic.h>
#include <sys/types.h>

#include "jk_iopub.h"
#include "jk_shell.h"
#include "jk_wire.h"

typedef struct jk_control {
    /* set by the kernel, borrowed */
    void *socket;               /* the control ROUTER socket */
    jk_signer_t *signer;        /* verifies what arrives on socket */
    jk_iopub_t *iopub;
    const atomic_int *stopping; /* the thread returns once it is set */
    _Atomic pid_t *executor_pid;/* the running executor's, 0 while none */
    void *ctx;                  /* the callbacks' first argument */
    jk_shell_reply_fn *reply;
    void (*stop)(void *ctx);    /* requests a shutdown (sets stopping) */
} jk_control_t;

/* The control thread's loop (arg: a jk_control_t); returns when stopping
 * is set or the socket's context is terminated. */
void *jk_control_thread(void *control);

#endif
