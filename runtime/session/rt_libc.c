/* rt_libc: libc functions served to cells (see rt_libc.h). */
#include "rt_libc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "rt_input.h"
#include "rt_output.h"
#include "rt_protect.h"

/* Where the cell called from: the address the call returns to. */
#define CALLER() __builtin_return_address(0)

/* A call that reads f waits (for the front end) when f is the cell's
 * stdin; other files are libc's as they are. */
static void before(int waits)
{
    if (waits)
        rt_protect_wait_begin();
}

static void after(const char *name, int waits, void *ret)
{
    if (waits)
        rt_protect_wait_end(name, ret);
    else
        rt_protect_checkpoint(name, ret);
}

/* ---- waits ---------------------------------------------------------- */

static unsigned int cell_sleep(unsigned int seconds)
{
    void *ret = CALLER();
    before(1);
    unsigned int left = rt_protect_interrupted() ? seconds : sleep(seconds);
    after("sleep", 1, ret);
    return left;
}

static int cell_usleep(useconds_t usec)
{
    void *ret = CALLER();
    before(1);
    int rc = rt_protect_interrupted() ? -1 : usleep(usec);
    after("usleep", 1, ret);
    return rc;
}

static int cell_nanosleep(const struct timespec *req, struct timespec *rem)
{
    void *ret = CALLER();
    before(1);
    int rc = rt_protect_interrupted() ? -1 : nanosleep(req, rem);
    after("nanosleep", 1, ret);
    return rc;
}

static int cell_clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
                                struct timespec *rem)
{
    void *ret = CALLER();
    before(1);
    int rc = rt_protect_interrupted() ? EINTR : clock_nanosleep(clock, flags, req, rem);
    after("clock_nanosleep", 1, ret);
    return rc;
}

/* ---- the standard fds ------------------------------------------------ */

static ssize_t cell_read(int fd, void *buf, size_t len)
{
    void *ret = CALLER();
    before(fd == 0);
    ssize_t n = fd == 0 ? (ssize_t)rt_input_read(buf, len) : read(fd, buf, len);
    after("read", fd == 0, ret);
    return n;
}

static ssize_t cell_write(int fd, const void *buf, size_t len)
{
    if (fd == 1 || fd == 2)
        return (ssize_t)rt_output_write(fd == 1 ? RT_OUTPUT_STDOUT : RT_OUTPUT_STDERR, buf, len);
    return write(fd, buf, len);
}

/* stdout and stderr are buffered in rt_output, below stdio */
static int cell_fflush(FILE *f)
{
    int rc = fflush(f);
    if (!f || f == stdout || f == stderr)
        rt_output_flush();
    return rc;
}

/* A child writes to fds 1 and 2 directly: what the cell wrote before
 * goes out first (glibc's system and popen do not run fork handlers). */
static int cell_system(const char *command)
{
    rt_output_flush();
    return system(command);
}

static FILE *cell_popen(const char *command, const char *mode)
{
    rt_output_flush();
    return popen(command, mode);
}

/* ---- stdio reads ------------------------------------------------------ */

static int cell_vfscanf(FILE *f, const char *format, va_list ap)
{
    void *ret = CALLER();
    before(f == stdin);
    int n = vfscanf(f, format, ap);
    after("scanf", f == stdin, ret);
    return n;
}

static int cell_vscanf(const char *format, va_list ap)
{
    void *ret = CALLER();
    before(1);
    int n = vfscanf(stdin, format, ap);
    after("scanf", 1, ret);
    return n;
}

static int cell_scanf(const char *format, ...)
{
    void *ret = CALLER();
    va_list ap;
    va_start(ap, format);
    before(1);
    int n = vfscanf(stdin, format, ap);
    va_end(ap);
    after("scanf", 1, ret);
    return n;
}

static int cell_fscanf(FILE *f, const char *format, ...)
{
    void *ret = CALLER();
    va_list ap;
    va_start(ap, format);
    before(f == stdin);
    int n = vfscanf(f, format, ap);
    va_end(ap);
    after("fscanf", f == stdin, ret);
    return n;
}

static int cell_getchar(void)
{
    void *ret = CALLER();
    before(1);
    int c = getc(stdin);
    after("getchar", 1, ret);
    return c;
}

static int cell_fgetc(FILE *f)
{
    void *ret = CALLER();
    before(f == stdin);
    int c = fgetc(f);
    after("fgetc", f == stdin, ret);
    return c;
}

static char *cell_fgets(char *s, int n, FILE *f)
{
    void *ret = CALLER();
    before(f == stdin);
    char *r = fgets(s, n, f);
    after("fgets", f == stdin, ret);
    return r;
}

static size_t cell_fread(void *p, size_t size, size_t n, FILE *f)
{
    void *ret = CALLER();
    before(f == stdin);
    size_t r = fread(p, size, n, f);
    after("fread", f == stdin, ret);
    return r;
}

static ssize_t cell_getdelim(char **lineptr, size_t *n, int delim, FILE *f)
{
    void *ret = CALLER();
    before(f == stdin);
    ssize_t r = getdelim(lineptr, n, delim, f);
    after("getline", f == stdin, ret);
    return r;
}

static ssize_t cell_getline(char **lineptr, size_t *n, FILE *f)
{
    void *ret = CALLER();
    before(f == stdin);
    ssize_t r = getdelim(lineptr, n, '\n', f);
    after("getline", f == stdin, ret);
    return r;
}

/* ---- exit ----------------------------------------------------------- */

/* exit() ends the cell, not the session, as sys.exit() does in IPython:
 * the handlers the cells gave atexit() run (last first) and stdio is
 * flushed, as a program's exit does, then the cell stops there. Handlers
 * not yet run when the executor itself ends run then. */
#define MAX_AT_EXIT 32 /* as C requires at least */
static void (*at_exit[MAX_AT_EXIT])(void);
static int n_at_exit;

static void run_at_exit(void)
{
    while (n_at_exit > 0)
        at_exit[--n_at_exit](); /* taken off first: a handler that exits ends the list */
}

static int cell_atexit(void (*fn)(void))
{
    static int registered;
    if (n_at_exit == MAX_AT_EXIT)
        return -1;
    if (!registered)
        registered = atexit(run_at_exit) == 0;
    at_exit[n_at_exit++] = fn;
    return 0;
}

static _Noreturn void cell_exit(int status)
{
    void *ret = CALLER();
    run_at_exit();
    cell_fflush(NULL);
    rt_protect_exit(status, ret);
}

/* glibc's headers name the C99 scanf family __isoc99_*: both names are
 * served. getc may be a macro over _IO_getc in older headers. */
const rt_symbol_t rt_libc_symbols[] = {
    {"exit", (const void *)cell_exit},
    {"atexit", (const void *)cell_atexit},
    {"sleep", (const void *)cell_sleep},
    {"usleep", (const void *)cell_usleep},
    {"nanosleep", (const void *)cell_nanosleep},
    {"clock_nanosleep", (const void *)cell_clock_nanosleep},
    {"read", (const void *)cell_read},
    {"write", (const void *)cell_write},
    {"fflush", (const void *)cell_fflush},
    {"system", (const void *)cell_system},
    {"popen", (const void *)cell_popen},
    {"scanf", (const void *)cell_scanf},
    {"__isoc99_scanf", (const void *)cell_scanf},
    {"fscanf", (const void *)cell_fscanf},
    {"__isoc99_fscanf", (const void *)cell_fscanf},
    {"vscanf", (const void *)cell_vscanf},
    {"__isoc99_vscanf", (const void *)cell_vscanf},
    {"vfscanf", (const void *)cell_vfscanf},
    {"__isoc99_vfscanf", (const void *)cell_vfscanf},
    {"getchar", (const void *)cell_getchar},
    {"getc", (const void *)cell_fgetc},
    {"_IO_getc", (const void *)cell_fgetc},
    {"fgetc", (const void *)cell_fgetc},
    {"fgets", (const void *)cell_fgets},
    {"fread", (const void *)cell_fread},
    {"getline", (const void *)cell_getline},
    {"getdelim", (const void *)cell_getdelim},
    {NULL, NULL},
};
