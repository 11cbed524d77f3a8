/* jk_history: the inputs of this kernel's session, for history_request.
 * Kept in an anonymous file (jk_spool), read back for each request, so
 * that the kernel's memory does not grow with the cells; session number 1
 * is the current one. Thread-compatible (used from the shell thread only). */
#ifndef JK_HISTORY_H
#define JK_HISTORY_H

#include <jansson.h>

typedef struct jk_history jk_history_t;

jk_history_t *jk_history_new(void); /* NULL when out of memory or no file can be made */
void jk_history_free(jk_history_t *h);

/* Records the input of execution number line (copied). */
void jk_history_add(jk_history_t *h, int line, const char *code);

/* Records the text/plain result of execution number line (copied). */
void jk_history_set_output(jk_history_t *h, int line, const char *text);

/* Answers a history_request: returns a new reply content object
 * ({"status":"ok","history":[[session, line, input], ...]}) for
 * hist_access_type tail (n), range (session, start, stop) or search
 * (pattern with * and ?, n, unique). */
json_t *jk_history_reply(const jk_history_t *h, const json_t *request_content);

#endif
