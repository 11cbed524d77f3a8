/* rt_shortcut: running the whole cells that are IPython's habits, not C
 * (their form is the cell language's: rt_cell_shortcut). `exit` and
 * `quit` (alone, optionally with `()`) ask the front end to leave (the
 * ask_exit payload); `name?`, `name??` and `?name` give what inspection
 * (rt_complete) shows of the name (?? with its definition) to the front
 * end's pager (the page payload, as IPython's). rt_execute asks here
 * before it runs a cell as C. */
#ifndef RT_SHORTCUT_H
#define RT_SHORTCUT_H

#include "rt_session.h"

/* Runs cell `code` when it is one of the shortcuts: adds its payload to
 * the session (an unknown name? is said on stdout), and returns 1.
 * Returns 0, doing nothing, for any other cell (and for `exit` or `quit`
 * when the session declared a variable or function of that name). */
int rt_shortcut_run(rt_session_t *s, const char *code);

#endif
