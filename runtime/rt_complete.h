/* rt_complete: what a front end asks about code without running it —
 * completion (session names, header names, struct members, magics),
 * inspection (a declaration and where it was defined, short docs) and
 * is_complete. Each returns a new reply content object as the Jupyter
 * protocol defines it, with "status". */
#ifndef RT_COMPLETE_H
#define RT_COMPLETE_H

#include <jansson.h>

#include "rt_session.h"

json_t *rt_complete(rt_session_t *s, const char *code, int cursor_pos);
json_t *rt_inspect(rt_session_t *s, const char *code, int cursor_pos, int detail_level);
json_t *rt_is_complete(rt_session_t *s, const char *code);

#endif
