/* rt_shortcut: exit, quit and name? cells (see rt_shortcut.h). */
#include "rt_shortcut.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "rt_complete.h"
#include "rt_session_query.h"

/* The cell trimmed of blanks: *len bytes from the returned pointer. */
static const char *trimmed(const char *code, size_t *len)
{
    while (isspace((unsigned char)*code))
        code++;
    size_t n = strlen(code);
    while (n > 0 && isspace((unsigned char)code[n - 1]))
        n--;
    *len = n;
    return code;
}

static int is_identifier(const char *p, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)p[0]) || p[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)p[i]) || p[i] == '_'))
            return 0;
    return 1;
}

/* `exit`, `quit`, `exit()`, `quit()`: not a name the user's cells declared. */
static int asks_exit(rt_session_t *s, const char *p, size_t n)
{
    if (n >= 2 && p[n - 2] == '(' && p[n - 1] == ')')
        n -= 2;
    char name[8];
    if (n != 4 || (strncmp(p, "exit", 4) != 0 && strncmp(p, "quit", 4) != 0))
        return 0;
    memcpy(name, p, 4);
    name[4] = '\0';
    rt_name_info_t info = {0};
    return !(rt_session_name_info(s, name, &info) == 0 && info.cell > 0);
}

/* `name?`, `name??`, `?name`, `??name`: the name's bounds and the detail
 * level (1 for ??), or 0 when the cell is not one. */
static int asks_help(const char *p, size_t n, size_t *a, size_t *b, int *detail)
{
    size_t lead = 0, trail = 0;
    while (lead < n && lead < 2 && p[lead] == '?')
        lead++;
    while (trail < n - lead && trail < 2 && p[n - 1 - trail] == '?')
        trail++;
    if ((lead == 0) == (trail == 0))
        return 0;
    *a = lead;
    *b = n - trail;
    *detail = (lead == 2 || trail == 2);
    return is_identifier(p + *a, *b - *a);
}

static void show_help(rt_session_t *s, const char *name, int detail)
{
    json_t *reply = rt_inspect(s, name, (int)strlen(name), detail);
    const char *text = json_string_value(
        json_object_get(json_object_get(reply, "data"), "text/plain"));
    if (json_is_true(json_object_get(reply, "found")) && text)
        printf("%s%s", text, text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
    else
        printf("Object `%s` not found.\n", name);
    json_decref(reply);
}

int rt_shortcut_is_one(const char *code)
{
    size_t n, a, b;
    int detail;
    const char *p = trimmed(code, &n);
    if (n >= 2 && p[n - 2] == '(' && p[n - 1] == ')')
        n -= 2;
    if (n == 4 && (strncmp(p, "exit", 4) == 0 || strncmp(p, "quit", 4) == 0))
        return 1;
    p = trimmed(code, &n);
    return n < 256 && asks_help(p, n, &a, &b, &detail);
}

int rt_shortcut_run(rt_session_t *s, const char *code)
{
    size_t n, a, b;
    int detail;
    const char *p = trimmed(code, &n);
    if (asks_exit(s, p, n)) {
        rt_session_add_payload(s, json_pack("{s:s, s:b}", "source", "ask_exit", "keepkernel", 0));
        return 1;
    }
    if (n < 256 && asks_help(p, n, &a, &b, &detail)) {
        char name[256];
        memcpy(name, p + a, b - a);
        name[b - a] = '\0';
        show_help(s, name, detail);
        fflush(stdout);
        return 1;
    }
    return 0;
}
