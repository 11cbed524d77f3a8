/* jk_notebook: `gpuc run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace]
 * [--allow-errors] [--timeout SECONDS] [-p NAME VALUE]... [-f FILE] [--kernel gpuc]`
 * — executes a notebook headless, with no Python and no Jupyter, through
 * the same executor the kernel uses.
 *
 * Code cells run in order; each one's outputs are stored as nbclient would
 * store them (jk_nbformat.c). The run stops at the first failing cell
 * unless --allow-errors; a cell over --timeout (or the operator's
 * GPUC_LIMIT_CELL_TIME) is interrupted, recorded as
 * a CellTimeoutError, and always stops the run. The notebook is written
 * (to OUT; by default NOTEBOOK.out.ipynb beside it; over itself only with
 * --inplace) in every case once it could be read: once before the first
 * cell and again as each cell finishes, each time whole through a rename,
 * so a run killed outright (SIGKILL, a node lost) leaves the notebook as
 * it was after its last finished cell. SIGINT, SIGTERM and SIGHUP (Ctrl-C,
 * scancel, a Slurm job's time limit, a closed terminal) interrupt the
 * running cell, keep what it printed, stop the run, write the notebook and
 * exit with 128 + the signal's number; a second signal kills the cell at
 * once. A notebook of another kernel is refused unless --kernel gpuc; -p
 * and -f inject parameters as papermill does (jk_params). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm_error.h"
#include "cm_link.h"
#include "cm_time.h"
#include "jk_commands.h"
#include "jk_executor.h"
#include "jk_nbformat.h"
#include "jk_params.h"

/* After a timeout's or a signal's SIGINT to the cell, before a kill; well
 * within Slurm's KillWait (30 s by default) between SIGTERM and SIGKILL. */
#define INTERRUPT_GRACE_MS 5000

#define MAX_PARAMS 64

typedef struct options {
    const char *in, *out;
    int allow_errors, inplace, force_kernel;
    double timeout_s; /* per cell; 0 = none */
    jk_param_t params[MAX_PARAMS];
    int nparams;
    const char *params_file; /* -f FILE, before the -p values */
} options_t;

/* How one cell went. */
enum { CELL_OK, CELL_ERROR, CELL_STOP /* an error that ends the run regardless */ };

typedef struct runner {
    char exe[PATH_MAX];
    jk_executor_t *ex;  /* NULL until needed, and after a death */
    jk_nb_outputs_t out; /* the cell being run */
    json_t *display_ids; /* display_id -> outputs, for the whole run */
} runner_t;

/* A signal that ends the run (SIGINT, SIGTERM, SIGHUP). The handler only
 * records it and wakes the cell's poll loop through a pipe; the loop
 * interrupts the cell, and kills it on a second signal. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
static volatile sig_atomic_t stop_signal; /* the first one's number */
static volatile sig_atomic_t stop_count;
static int wake_pipe[2] = {-1, -1};

static void on_stop_signal(int sig)
{
    int saved = errno;
    if (!stop_signal)
        stop_signal = sig;
    if (stop_count < 2)
        stop_count = stop_count + 1;
    if (wake_pipe[1] >= 0 && write(wake_pipe[1], "", 1) < 0) {
        /* full: the loop wakes anyway */
    }
    errno = saved;
}

/* Returns 0, or -1 when the wake-up pipe cannot be made. */
static int install_stop_signals(void)
{
    if (pipe(wake_pipe) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
        fcntl(wake_pipe[i], F_SETFL, O_NONBLOCK);
    }
    struct sigaction sa = {.sa_handler = on_stop_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
        sigaction(stop_signals[i], &sa, NULL);
    sa.sa_handler = SIG_IGN; /* a dead executor is an error value, not our death */
    sigaction(SIGPIPE, &sa, NULL);
    return 0;
}

static void drain_wake_pipe(void)
{
    char buf[64];
    while (read(wake_pipe[0], buf, sizeof buf) > 0)
        ;
}

static int usage(FILE *out)
{
    fprintf(out, "usage: gpuc run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [--allow-errors]\n"
                 "                     [--timeout SECONDS] [-p NAME VALUE]... [-f FILE]\n"
                 "                     [--kernel gpuc]\n"
                 "  -o, --output OUT   write the executed notebook to OUT\n"
                 "                     (default: NOTEBOOK.out.ipynb beside it)\n"
                 "  --inplace          write it over NOTEBOOK\n"
                 "  --allow-errors     run every cell even after one fails\n"
                 "  --timeout SECONDS  interrupt a cell that runs longer, and stop\n"
                 "                     (default: GPUC_LIMIT_CELL_TIME, if set)\n"
                 "  -p NAME VALUE      a parameter, as papermill's -p: after the cell tagged\n"
                 "                     \"parameters\", a cell assigns NAME = VALUE in C\n"
                 "  -f FILE            parameters from a YAML (name: value a line) or JSON\n"
                 "                     file, as papermill's -f; -p values win\n"
                 "  --kernel gpuc      run a notebook made for another kernel anyway\n");
    return out == stderr ? 2 : 0;
}

/* "--name VALUE" or "--name=VALUE"; advances *i past a separate value. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

/* Returns 0, or the exit status for a usage error. */
static int parse(int argc, char **argv, options_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(a, "--allow-errors") == 0) {
            o->allow_errors = 1;
        } else if (strcmp(a, "--inplace") == 0) {
            o->inplace = 1;
        } else if (strcmp(a, "-p") == 0 || strcmp(a, "--parameters") == 0) {
            if (i + 2 >= argc) {
                fprintf(stderr, "gpuc run: %s needs a NAME and a VALUE\n", a);
                return usage(stderr);
            }
            if (o->nparams == MAX_PARAMS) {
                fprintf(stderr, "gpuc run: at most %d parameters\n", MAX_PARAMS);
                return usage(stderr);
            }
            o->params[o->nparams].name = argv[++i];
            o->params[o->nparams++].value = argv[++i];
        } else if ((v = option_value(argc, argv, &i, "-f")) ||
                   (v = option_value(argc, argv, &i, "--parameters_file"))) {
            o->params_file = v;
        } else if ((v = option_value(argc, argv, &i, "--kernel"))) {
            if (strcmp(v, "gpuc") != 0) {
                fprintf(stderr, "gpuc run: --kernel %s: gpuc runs notebooks as gpuc only\n", v);
                return usage(stderr);
            }
            o->force_kernel = 1;
        } else if ((v = option_value(argc, argv, &i, "-o")) ||
                   (v = option_value(argc, argv, &i, "--output"))) {
            o->out = v;
        } else if ((v = option_value(argc, argv, &i, "--timeout"))) {
            char *end;
            errno = 0;
            o->timeout_s = strtod(v, &end);
            if (errno || end == v || *end || !(o->timeout_s > 0) || o->timeout_s > 1e7) {
                fprintf(stderr, "gpuc run: --timeout needs a number of seconds > 0, not '%s'\n", v);
                return usage(stderr);
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "gpuc run: unknown or incomplete option '%s'\n", a);
            return usage(stderr);
        } else if (!o->in) {
            o->in = a;
        } else {
            fprintf(stderr, "gpuc run: one notebook at a time ('%s' and '%s')\n", o->in, a);
            return usage(stderr);
        }
    }
    if (!o->in) {
        fprintf(stderr, "gpuc run: which notebook?\n");
        return usage(stderr);
    }
    if (o->inplace && o->out) {
        fprintf(stderr, "gpuc run: -o and --inplace together: choose one\n");
        return usage(stderr);
    }
    return 0;
}

/* NOTEBOOK.out.ipynb beside NOTEBOOK (its .ipynb replaced). New string. */
static char *default_output(const char *in)
{
    size_t n = strlen(in);
    const char *ext = ".ipynb";
    size_t e = strlen(ext);
    size_t stem = n >= e && !strcmp(in + n - e, ext) ? n - e : n;
    char *out = malloc(stem + 16);
    if (out)
        snprintf(out, stem + 16, "%.*s.out.ipynb", (int)stem, in);
    return out;
}

/* The kernel a notebook was made for (metadata.kernelspec.name), or NULL. */
static const char *notebook_kernel(const json_t *nb)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(nb, "metadata"), "kernelspec"), "name"));
}

static void on_stream(void *ctx, const char *name, const char *text, size_t len)
{
    runner_t *r = ctx;
    jk_nb_outputs_stream(&r->out, name, text, len);
}

static void on_output(void *ctx, const json_t *msg)
{
    runner_t *r = ctx;
    jk_nb_outputs_message(&r->out, msg);
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (!strchr(" \t\r\n\f\v", *s))
            return 0;
    return 1;
}

/* The first line of an error's evalue, for the progress line. */
static void first_line(const char *text, char *buf, size_t size)
{
    size_t n = strcspn(text, "\n");
    if (n >= size)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

/* "SIGTERM" for SIGTERM: the signals that stop a run, by name. */
static const char *stop_signal_name(int sig)
{
    return sig == SIGINT    ? "SIGINT"
           : sig == SIGTERM ? "SIGTERM"
           : sig == SIGHUP  ? "SIGHUP"
                            : "a signal";
}

/* Stores a reply; when it is an error, describes it in what. Returns
 * whether it was one. */
static int store_reply(runner_t *r, json_t *reply, int count, char *what, size_t what_size)
{
    int failed = jk_nb_outputs_reply(&r->out, reply, count);
    if (failed) {
        const char *ename = json_string_value(json_object_get(reply, "ename"));
        const char *evalue = json_string_value(json_object_get(reply, "evalue"));
        char line[200];
        first_line(evalue ? evalue : "", line, sizeof line);
        snprintf(what, what_size, "%s%s%s", ename ? ename : "Error", *line ? ": " : "", line);
    }
    return failed;
}

/* The cell that was running when a stop signal came: its reply (the
 * executor's Interrupted error, or a finish in time) is stored as any
 * other; an executor that is gone (killed at a second signal or after the
 * grace, or by the scheduler along with us) leaves an Interrupted error.
 * Takes reply. */
static int stopped_by_signal(runner_t *r, int rc, json_t *reply, int count, const cm_error_t *err,
                             char *what, size_t what_size)
{
    int status = CELL_OK;
    if (rc == JK_EXECUTOR_REPLY) {
        if (store_reply(r, reply, count, what, what_size))
            status = CELL_STOP;
    } else {
        char evalue[CM_ERROR_TEXT + 128];
        snprintf(evalue, sizeof evalue,
                 "gpuc run was stopped by %s while this cell ran: %s",
                 stop_signal_name(stop_signal), err->text);
        jk_nb_outputs_error(&r->out, "Interrupted", evalue);
        snprintf(what, what_size, "Interrupted: %s", evalue);
        jk_executor_free(r->ex);
        r->ex = NULL;
        status = CELL_STOP;
    }
    json_decref(reply);
    return status;
}

/* Executes code on the executor, storing outputs in r->out. On an error,
 * describes it in what ("CompileError: ..."). */
static int execute(runner_t *r, const char *code, int count, const options_t *opt, char *what,
                   size_t what_size)
{
    cm_error_t err = {0};
    if (r->ex && jk_executor_pid(r->ex) == 0) { /* it exited after its last reply */
        jk_executor_free(r->ex);
        r->ex = NULL;
    }
    if (!r->ex && !(r->ex = jk_executor_new(r->exe, &err))) {
        char evalue[CM_ERROR_TEXT + 64];
        snprintf(evalue, sizeof evalue, "cannot start the executor: %s", err.text);
        jk_nb_outputs_error(&r->out, "ExecutorError", evalue);
        snprintf(what, what_size, "ExecutorError: %s", evalue);
        return CELL_STOP;
    }

    json_t *request = json_pack("{s:s, s:s, s:i, s:b}", CM_LINK_OP, CM_LINK_EXECUTE, "code", code,
                                "cell", count, "silent", 0);
    jk_executor_events_t events = {.ctx = r, .on_stream = on_stream, .on_output = on_output};
    json_t *reply = NULL;
    int rc = JK_EXECUTOR_DIED;
    int timed_out = 0, signalled = 0; /* the cell was interrupted for these */
    /* --timeout, else the operator's GPUC_LIMIT_CELL_TIME */
    double limit_s = opt->timeout_s > 0 ? opt->timeout_s : jk_executor_limits(r->ex)->cell_time;
    if (!request) {
        CM_ERROR(&err, 1, "cannot build the request (the cell is not valid UTF-8?)");
    } else if (jk_executor_send(r->ex, request, &err) == 0) {
        long long deadline = limit_s > 0 ? cm_ms() + (long long)(limit_s * 1000) : -1;
        for (;;) {
            rc = jk_executor_pump(r->ex, &events, &reply, &err);
            if (rc != JK_EXECUTOR_PENDING)
                break;
            if (stop_count > 1) { /* a second signal: no more waiting */
                CM_ERROR(&err, 1, "killed at a second signal");
                rc = JK_EXECUTOR_DIED;
                break;
            }
            if (stop_signal && !signalled && !timed_out) {
                signalled = 1;
                jk_executor_interrupt(r->ex);
                deadline = cm_ms() + INTERRUPT_GRACE_MS;
            }
            int wait = jk_executor_timeout_ms(r->ex);
            if (deadline >= 0) {
                long long left = deadline - cm_ms();
                if (left <= 0) {
                    if (timed_out || signalled) { /* it ignored the interrupt: kill it */
                        CM_ERROR(&err, 1, "it ignored the interrupt and was killed");
                        rc = JK_EXECUTOR_DIED;
                        break;
                    }
                    timed_out = 1;
                    jk_executor_interrupt(r->ex);
                    deadline = cm_ms() + INTERRUPT_GRACE_MS;
                    left = INTERRUPT_GRACE_MS;
                }
                if (wait < 0 || left < wait)
                    wait = (int)left;
            }
            int fds[JK_EXECUTOR_NFDS];
            int n = jk_executor_fds(r->ex, fds);
            struct pollfd p[JK_EXECUTOR_NFDS + 1];
            for (int i = 0; i < n; i++)
                p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
            if (n == 0 && wait < 0)
                wait = 100;
            p[n++] = (struct pollfd){.fd = wake_pipe[0], .events = POLLIN};
            poll(p, (nfds_t)n, wait);
            if (p[n - 1].revents)
                drain_wake_pipe();
        }
    }
    json_decref(request);

    if (stop_signal && !timed_out)
        return stopped_by_signal(r, rc, reply, count, &err, what, what_size);

    if (timed_out) {
        char evalue[2 * CM_ERROR_TEXT + 128];
        /* what the interrupted cell said about itself (a GPU kernel that
         * cannot be stopped, say) */
        const char *said = rc == JK_EXECUTOR_REPLY
                               ? json_string_value(json_object_get(reply, "evalue"))
                               : NULL;
        snprintf(evalue, sizeof evalue,
                 "the cell did not finish within %g second%s and was interrupted%s%s%s%s%.1024s",
                 limit_s, limit_s == 1 ? "" : "s", rc == JK_EXECUTOR_DIED ? "; " : "",
                 rc == JK_EXECUTOR_DIED ? err.text : "",
                 rc == JK_EXECUTOR_DIED ? " — the session's state was lost" : "",
                 said ? ": " : "", said ? said : "");
        jk_nb_outputs_error(&r->out, "CellTimeoutError", evalue);
        snprintf(what, what_size, "CellTimeoutError: %.300s", evalue);
        if (rc == JK_EXECUTOR_DIED) {
            jk_executor_free(r->ex);
            r->ex = NULL;
        }
        json_decref(reply);
        return CELL_STOP;
    }
    if (rc != JK_EXECUTOR_REPLY) {
        char evalue[CM_ERROR_TEXT + 64];
        snprintf(evalue, sizeof evalue, "%s — the session's state was lost", err.text);
        jk_nb_outputs_error(&r->out, "ExecutorDied", evalue);
        snprintf(what, what_size, "ExecutorDied: %s", evalue);
        jk_executor_free(r->ex);
        r->ex = NULL; /* the next cell starts a fresh one */
        return CELL_ERROR;
    }
    int failed = store_reply(r, reply, count, what, what_size);
    json_decref(reply);
    return failed ? CELL_ERROR : CELL_OK;
}

static int count_code_cells(const json_t *cells)
{
    int n = 0;
    size_t i;
    const json_t *cell;
    json_t *code = json_string("code");
    json_array_foreach(cells, i, cell)
        n += json_equal(json_object_get(cell, "cell_type"), code);
    json_decref(code);
    return n;
}

/* -f FILE's parameters, then -p's (a name given again wins). */
static int inject_parameters(json_t *nb, const options_t *o, cm_error_t *err)
{
    jk_param_t all[2 * MAX_PARAMS];
    int n = 0, rc = 0;
    json_t *owner = json_array();
    if (o->params_file)
        rc = jk_params_load(o->params_file, all, &n, MAX_PARAMS, owner, err);
    memcpy(all + n, o->params, (size_t)o->nparams * sizeof *all);
    n += o->nparams;
    if (rc == 0 && n)
        rc = jk_params_inject(nb, all, n, err);
    json_decref(owner);
    return rc;
}

/* Writes the notebook as it stands, whole (jk_nb_save renames a finished
 * temporary file over it). Returns 0, or -1 with err set. */
static int save(json_t *nb, const char *path, cm_error_t *err)
{
    if (jk_nb_set_gpuc_metadata(nb) != 0) {
        CM_ERROR(err, 1, "cannot write %s: out of memory", path);
        return -1;
    }
    return jk_nb_save(nb, path, err);
}

int jk_notebook_main(int argc, char **argv)
{
    options_t opt = {0};
    int rc = parse(argc, argv, &opt);
    if (rc)
        return rc < 0 ? 0 : rc;
    char *default_out = opt.out || opt.inplace ? NULL : default_output(opt.in);
    const char *out_path = opt.out ? opt.out : opt.inplace ? opt.in : default_out;
    if (!out_path) {
        fprintf(stderr, "gpuc run: out of memory\n");
        return 1;
    }

    cm_error_t err = {0};
    json_t *nb = jk_nb_load(opt.in, &err);
    if (!nb) {
        fprintf(stderr, "gpuc run: %s\n", err.text);
        free(default_out);
        return 1;
    }
    const char *kernel = notebook_kernel(nb);
    if (kernel && strncmp(kernel, "gpuc", 4) != 0 && !opt.force_kernel) {
        fprintf(stderr, "gpuc run: %s is a notebook for the %s kernel, not gpuc: nothing run, "
                        "nothing written (--kernel gpuc runs it as gpuc)\n", opt.in, kernel);
        json_decref(nb);
        free(default_out);
        return 1;
    }
    if (inject_parameters(nb, &opt, &err) != 0) {
        fprintf(stderr, "gpuc run: %s\n", err.text);
        json_decref(nb);
        free(default_out);
        return 1;
    }
    runner_t r = {.display_ids = json_object()};
    if (jk_self_exe(r.exe, sizeof r.exe) != 0) {
        fprintf(stderr, "gpuc run: cannot find this program's path (/proc/self/exe)\n");
        json_decref(nb);
        json_decref(r.display_ids);
        return 1;
    }
    if (install_stop_signals() != 0) {
        fprintf(stderr, "gpuc run: cannot make a pipe: %s\n", strerror(errno));
        json_decref(nb);
        json_decref(r.display_ids);
        free(default_out);
        return 1;
    }
    /* written before the first cell: a wrong -o fails now, not after hours */
    if (save(nb, out_path, &err) != 0) {
        fprintf(stderr, "gpuc run: nothing run: %s\n", err.text);
        json_decref(nb);
        json_decref(r.display_ids);
        free(default_out);
        return 1;
    }

    json_t *cells = json_object_get(nb, "cells"), *cell;
    int total = count_code_cells(cells), index = 0, count = 0, ok = 0, failed = 0, stopped = 0;
    size_t i;
    json_array_foreach(cells, i, cell) {
        const char *type = json_string_value(json_object_get(cell, "cell_type"));
        if (!type || strcmp(type, "code") != 0)
            continue;
        index++;
        if (!stopped && stop_signal)
            stopped = index - 1 > 0 ? index - 1 : index;
        if (stopped)
            continue;
        char *code = jk_nb_cell_source(cell);
        if (!code) {
            fprintf(stderr, "gpuc run: out of memory\n");
            stopped = index;
            failed++;
            continue;
        }
        if (is_blank(code)) { /* as Jupyter: not run, left as it is */
            fprintf(stderr, "[%d/%d] skipped (empty)\n", index, total);
            free(code);
            continue;
        }
        json_t *outputs = json_object_get(cell, "outputs");
        if (!json_is_array(outputs)) {
            outputs = json_array();
            json_object_set_new(cell, "outputs", outputs);
        }
        count++;
        json_object_set_new(cell, "execution_count", json_integer(count));
        jk_nb_outputs_begin(&r.out, outputs, r.display_ids);

        char what[2 * CM_ERROR_TEXT] = "";
        int status = execute(&r, code, count, &opt, what, sizeof what);
        free(code);
        if (status == CELL_OK) {
            ok++;
            fprintf(stderr, "[%d/%d] ok\n", index, total);
        } else {
            failed++;
            fprintf(stderr, "[%d/%d] error: %s\n", index, total, what);
            if (status == CELL_STOP || !opt.allow_errors)
                stopped = index;
        }
        if (save(nb, out_path, &err) != 0) /* tried again at the end */
            fprintf(stderr, "gpuc run: %s\n", err.text);
    }
    jk_executor_free(r.ex);

    int written = save(nb, out_path, &err) == 0;
    json_decref(nb);
    json_decref(r.display_ids);

    fprintf(stderr, "gpuc run: %d ok, %d failed", ok, failed);
    if (stop_signal)
        fprintf(stderr, ", stopped by %s", stop_signal_name(stop_signal));
    if (stopped)
        fprintf(stderr, ", stopped at code cell %d of %d (%d not run)", stopped, total,
                total - stopped);
    if (written)
        fprintf(stderr, "; wrote %s\n", out_path);
    else
        fprintf(stderr, "; NOT written: %s\n", err.text);
    free(default_out);
    if (stop_signal) /* as a shell reports a program its signal ended */
        return 128 + stop_signal;
    return failed || !written ? 1 : 0;
}
