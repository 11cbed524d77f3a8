/* The executor's surroundings: `%cd`, `%pwd` (its working folder) and
 * `%env` (its environment variables). Later cells, `!` commands and the
 * programs cells start see what these set. */
#include "rt_magic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_buf.h"

extern char **environ;

static int print_cwd(int cell_no, int line, rt_error_t *err)
{
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
        return rt_error_set(err, "OSError", cell_no, line, "the working folder is gone: %s",
                            strerror(errno));
    printf("%s\n", cwd);
    free(cwd);
    return 0;
}

int rt_magic_pwd(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err)
{
    (void)s;
    (void)code;
    return print_cwd(cell_no, m->line, err);
}

/* %cd DIR; %cd alone: $HOME; %cd -: the folder before; ~ is $HOME. */
int rt_magic_cd(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                rt_error_t *err)
{
    (void)s;
    const char *home = getenv("HOME");
    cm_buf_t dir = {0};
    const char *arg = code + m->args;
    size_t n = m->args_len;
    if (n >= 2 && (arg[0] == '"' || arg[0] == '\'') && arg[n - 1] == arg[0]) {
        arg++;
        n -= 2;
    }
    if (n == 0) {
        cm_buf_adds(&dir, home ? home : "/");
    } else if (n == 1 && arg[0] == '-') {
        const char *old = getenv("OLDPWD");
        if (!old)
            return rt_error_set(err, "UsageError", cell_no, m->line,
                                "%%cd -: no folder to go back to yet");
        cm_buf_adds(&dir, old);
    } else {
        if (arg[0] == '~' && (n == 1 || arg[1] == '/') && home) {
            cm_buf_adds(&dir, home);
            arg++;
            n--;
        }
        cm_buf_add(&dir, arg, n);
    }
    char *before = getcwd(NULL, 0);
    if (chdir(cm_buf_str(&dir)) != 0) {
        rt_error_set(err, "OSError", cell_no, m->line, "%%cd: cannot go to %s: %s",
                     cm_buf_str(&dir), strerror(errno));
        cm_buf_free(&dir);
        free(before);
        return -1;
    }
    cm_buf_free(&dir);
    if (before)
        setenv("OLDPWD", before, 1);
    free(before);
    char *now = getcwd(NULL, 0);
    if (now)
        setenv("PWD", now, 1);
    free(now);
    return print_cwd(cell_no, m->line, err);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_environment(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return;
    memcpy(sorted, environ, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_names);
    for (size_t i = 0; i < n; i++)
        printf("%s\n", sorted[i]);
    free(sorted);
}

/* %env; %env NAME; %env NAME=VALUE or %env NAME VALUE (IPython's forms). */
int rt_magic_env(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err)
{
    (void)s;
    if (m->args_len == 0) {
        list_environment();
        return 0;
    }
    const char *arg = code + m->args, *end = arg + m->args_len;
    const char *name_end = arg;
    while (name_end < end && *name_end != '=' && *name_end != ' ' && *name_end != '\t')
        name_end++;
    char *name = cm_strndup(arg, (size_t)(name_end - arg));
    int rc = 0;
    if (name_end == end) {
        const char *value = getenv(name);
        if (value)
            printf("%s\n", value);
        else
            rc = rt_error_set(err, "KeyError", cell_no, m->line,
                              "%%env: %s is not set (%%env NAME=VALUE sets it)", name);
    } else {
        const char *value = name_end + 1;
        while (value < end && (*value == ' ' || *value == '\t' || *value == '='))
            value++;
        char *v = cm_strndup(value, (size_t)(end - value));
        if (setenv(name, v, 1) != 0)
            rc = rt_error_set(err, "UsageError", cell_no, m->line, "%%env: cannot set '%s': %s",
                              name, strerror(errno));
        else
            printf("env: %s=%s\n", name, v);
        free(v);
    }
    free(name);
    return rc;
}
