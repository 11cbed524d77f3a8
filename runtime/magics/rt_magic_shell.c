/* The shell: `!COMMAND` and `%sh COMMAND` (one line), `%%sh` and `%%bash`
 * (the cell). The child writes straight to the executor's stdout and
 * stderr pipes, so its output streams while it runs, after what the cell
 * printed before (flushed first). An interrupt stops it: SIGINT to its
 * process group, then SIGKILL if it will not go. */
#include "rt_magic.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cm_buf.h"
#include "rt_output.h"
#include "rt_protect.h"

#define POLL_NS 10000000L   /* 10 ms between looks at the child */
#define GRACE_POLLS 200     /* 2 s after SIGINT before SIGKILL */

/* Waits for child; an interrupt sends it SIGINT, and SIGKILL later.
 * Returns its wait status; *interrupted gets 1 after an interrupt. */
static int wait_child(pid_t child, int *interrupted)
{
    int status = 0, polls = 0;
    *interrupted = 0;
    for (;;) {
        pid_t r = waitpid(child, &status, WNOHANG);
        if (r == child || (r < 0 && errno != EINTR))
            return status;
        if (rt_protect_take_pending_interrupt() && !*interrupted) {
            *interrupted = 1;
            kill(-child, SIGINT);
        }
        if (*interrupted && ++polls == GRACE_POLLS)
            kill(-child, SIGKILL);
        struct timespec ts = {0, POLL_NS};
        nanosleep(&ts, NULL);
    }
}

/* Runs `shell -c script`, its own process group, stdin from /dev/null.
 * Returns 0 with *status set, or -1 with err set. */
static int run_script(const char *shell, const char *script, int cell_no, int line,
                      int *status, rt_error_t *err)
{
    fflush(stdout);
    fflush(stderr);
    rt_output_flush(); /* what the cell printed goes out before the child's output */
    pid_t child = fork();
    if (child < 0)
        return rt_error_set(err, "OSError", cell_no, line, "cannot start %s: %s", shell,
                            strerror(errno));
    if (child == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        execlp(shell, shell, "-c", script, (char *)NULL);
        dprintf(2, "%s: %s\n", shell, strerror(errno));
        _exit(127);
    }
    setpgid(child, child);
    int interrupted;
    *status = wait_child(child, &interrupted);
    if (interrupted)
        return rt_error_set(err, "Interrupted", cell_no, line, "interrupted: %s was stopped",
                            shell);
    return 0;
}

/* "exit status N" or "killed by SIGNAME" for a wait status that is not 0. */
static void describe(int status, char *out, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(out, size, "killed by %s", rt_protect_signal_name(WTERMSIG(status)));
    else
        snprintf(out, size, "exit status %d", WEXITSTATUS(status));
}

/* `!COMMAND`, `%sh COMMAND`: a non-zero exit is shown on stderr, and the
 * cell goes on (as IPython's `!`). */
int rt_magic_sh_line(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                     rt_error_t *err)
{
    (void)s;
    if (m->args_len == 0)
        return rt_error_set(err, "UsageError", cell_no, m->line,
                            "!: give a command, e.g. `!ls -l` or `!nvcc -o app app.cu`");
    char *command = cm_strndup(code + m->args, m->args_len);
    int status;
    int rc = run_script("sh", command, cell_no, m->line, &status, err);
    free(command);
    if (rc == 0 && status != 0) {
        char what[64];
        describe(status, what, sizeof what);
        fprintf(stderr, "[%s]\n", what);
        fflush(stderr);
    }
    return rc;
}

/* %%sh and %%bash: the cell's body as a script; a non-zero exit is an
 * error (IPython's %%script raises CalledProcessError). */
static int run_cell(const char *shell, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    if (m->args_len)
        return rt_error_set(err, "UsageError", cell_no, m->line,
                            "%%%%%s takes no arguments; the cell is the script", m->name);
    int status;
    if (run_script(shell, code + m->next, cell_no, m->line, &status, err) != 0)
        return -1;
    if (status == 0)
        return 0;
    char what[64];
    describe(status, what, sizeof what);
    return rt_error_set(err, "CalledProcessError", cell_no, m->line,
                        "the %%%%%s script ended with %s", m->name, what);
}

int rt_magic_sh(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                rt_error_t *err)
{
    (void)s;
    return run_cell("sh", code, m, cell_no, err);
}

int rt_magic_bash(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                  rt_error_t *err)
{
    (void)s;
    return run_cell("bash", code, m, cell_no, err);
}
