/* rt_shortcut: exit, quit and name? cells (see rt_shortcut.h). */
#include "rt_shortcut.h"

#include <stdio.h>
#include <string.h>

#include "rt_cell.h"
#include "rt_complete.h"
#include "rt_session_query.h"

/* `exit` or `quit` leaves unless the user's cells declared that name. */
static int is_declared(rt_session_t *s, const char *name)
{
    rt_name_info_t info = {0};
    return rt_session_name_info(s, name, &info) == 0 && info.cell > 0;
}

/* As IPython: what inspection shows goes to the front end's pager (the
 * "page" payload of the execute reply), not to the cell's stdout; a name
 * not found is said on stdout. */
static void show_help(rt_session_t *s, const char *name, int detail)
{
    json_t *reply = rt_inspect(s, name, (int)strlen(name), detail);
    json_t *data = json_object_get(reply, "data");
    if (json_is_true(json_object_get(reply, "found")) && json_object_get(data, "text/plain"))
        rt_session_add_payload(s, json_pack("{s:s, s:O, s:i}", "source", "page", "data", data,
                                            "start", 0));
    else
        printf("Object `%s` not found.\n", name);
    json_decref(reply);
}

int rt_shortcut_run(rt_session_t *s, const char *code)
{
    rt_shortcut_form_t f;
    switch (rt_cell_shortcut(code, &f)) {
    case RT_SHORTCUT_EXIT:
        if (is_declared(s, f.name))
            return 0;
        rt_session_add_payload(s, json_pack("{s:s, s:b}", "source", "ask_exit", "keepkernel", 0));
        return 1;
    case RT_SHORTCUT_HELP:
        show_help(s, f.name, f.detail);
        fflush(stdout);
        return 1;
    default:
        return 0;
    }
}
