/* jk_executor: the kernel-side client of the executor process.
 *
 * Spawns `gpuc executor --link-fd N --output-fd M` in its own process
 * group (it dies with us: PR_SET_PDEATHSIG), sends requests over the link,
 * forwards what it writes as it arrives (the cell's ordered output and
 * its plain stdout/stderr pipes; coalesced, in order, UTF-8 made valid,
 * capped in volume per request and in rate: the operator's limits), passes its reads of stdin on, and notices when it
 * dies. Used by the kernel's poll loop and by
 * `gpuc run`. MUST BE USED from one thread, except jk_executor_interrupt. */
#ifndef JK_EXECUTOR_H
#define JK_EXECUTOR_H

#include <jansson.h>
#include <sys/types.h>

#include "cm_error.h"
#include "cm_limits.h"

/* stream bytes per request unless GPUC_LIMIT_OUTPUT says otherwise */
#define JK_EXECUTOR_OUTPUT_CAP CM_LIMITS_OUTPUT_DEFAULT
#define JK_EXECUTOR_FLUSH_MS 100            /* stream coalescing interval */

typedef struct jk_executor jk_executor_t;

typedef struct jk_executor_events {
    void *ctx;
    /* Text the cell wrote; name is "stdout" or "stderr"; text is valid UTF-8. */
    void (*on_stream)(void *ctx, const char *name, const char *text, size_t len);
    /* A "display" or "clear_output" frame (borrowed). */
    void (*on_output)(void *ctx, const json_t *msg);
    /* An "input_request" frame (borrowed; "prompt", "password"): the cell
     * waits for jk_executor_send_input. Returns 0 when the line was asked
     * for, -1 when it cannot be (then the cell reads end of file). NULL:
     * end of file. */
    int (*on_input_request)(void *ctx, const json_t *msg);
} jk_executor_events_t;

/* Starts an executor from the gpuc binary at exe and waits (up to 10 s)
 * for its "ready" frame. The operator's limits (cm_limits.h) are read from
 * the environment here: the output's volume and rate are applied to what
 * it writes. Returns NULL with err set on failure (a limit that is not a
 * size or a number of seconds, too). */
jk_executor_t *jk_executor_new(const char *exe, cm_error_t *err);

/* Kills the executor's process group (if alive), reaps it, frees. NULL ok. */
void jk_executor_free(jk_executor_t *ex);

/* Sends one request (not taken). Returns 0, or -1 with err set. A new
 * request MUST NOT be sent before the previous one's reply arrived. */
int jk_executor_send(jk_executor_t *ex, const json_t *request, cm_error_t *err);

/* Answers the executor's input_request: line (no newline), or NULL for
 * end of file. Returns 0, or -1 when the link failed (the next pump says). */
int jk_executor_send_input(jk_executor_t *ex, const char *line);

#define JK_EXECUTOR_NFDS 4

/* The fds to poll for input (the link and the output pipes). Returns
 * their count (1..JK_EXECUTOR_NFDS; closed pipes are left out). */
int jk_executor_fds(const jk_executor_t *ex, int fds[JK_EXECUTOR_NFDS]);

/* Milliseconds until buffered stream text must be flushed, -1 if none. */
int jk_executor_timeout_ms(const jk_executor_t *ex);

enum { JK_EXECUTOR_PENDING = 0, JK_EXECUTOR_REPLY = 1, JK_EXECUTOR_DIED = -1 };

/* Reads whatever is ready without blocking, delivering events in order.
 * Returns JK_EXECUTOR_REPLY with a new reference in *reply (the "reply"
 * frame, "op" removed, errors rendered by jk_reply_from_executor),
 * JK_EXECUTOR_PENDING, or JK_EXECUTOR_DIED with err
 * saying how it ended ("the executor exited with status 3", "... was
 * killed by SIGKILL") — then jk_executor_free it and start another. */
int jk_executor_pump(jk_executor_t *ex, const jk_executor_events_t *events, json_t **reply,
                     cm_error_t *err);

/* Sends request and blocks until its reply (or the executor's death),
 * delivering events meanwhile. Same returns as jk_executor_pump. */
int jk_executor_call(jk_executor_t *ex, const json_t *request, const jk_executor_events_t *events,
                     json_t **reply, cm_error_t *err);

/* Sends SIGINT to the executor. Async-signal-safe and thread-safe. */
void jk_executor_interrupt(jk_executor_t *ex);

/* The executor's pid (0 when it is gone: after a death, or after a reply
 * that said the executor exits, as it does once its GPU context is lost;
 * then free it and start another). */
pid_t jk_executor_pid(const jk_executor_t *ex);

/* The limits read when the executor started (cm_limits.h). Borrowed. */
const cm_limits_t *jk_executor_limits(const jk_executor_t *ex);

#endif
