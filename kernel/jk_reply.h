/* jk_reply: the one place in kernel/ that turns the runtime's error values
 * into Jupyter error replies, and builds the errors the kernel makes itself.
 *
 * The executor's "reply" frame says {"status":"ok", ...} or
 * {"status":"error", "error":{"kind", "message", "cell", "line", "column",
 * "hint", "traceback"}}; every consumer (the shell, `gpuc run`) sees the
 * rendered form {"status":"error", "ename", "evalue", "traceback":[...]}.
 * A frame that already has "ename" (the runtime's older form) passes
 * through unchanged. */
#ifndef JK_REPLY_H
#define JK_REPLY_H

#include <jansson.h>

/* The reply an executor frame stands for: frame unchanged when it is ok
 * or already rendered, else frame with its "error" replaced by ename,
 * evalue and traceback. Steals frame and returns it (NULL for NULL). */
json_t *jk_reply_from_executor(json_t *frame);

/* {"status":"error", "ename":kind, "evalue":message, "traceback":[message]}
 * for an error the kernel makes itself (ExecutorDied...). Returns a new
 * reference, or NULL when out of memory. */
json_t *jk_reply_error(const char *kind, const char *message);

#endif
