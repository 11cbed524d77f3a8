/* rt_input: what cells read from stdin (see rt_input.h). */
#include "rt_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "rt_output.h"
#include "rt_protect.h"

#define PROMPT_BYTES 1024

static rt_ask_fn asker;
static void *asker_ctx;
static int allowed;      /* this cell's front end sends input */
static int noted;        /* the "no input" note was printed for this cell */
static char *line;       /* the line being read, with its newline */
static size_t line_len, line_pos;

static void drop_line(void)
{
    free(line);
    line = NULL;
    line_len = line_pos = 0;
}

/* Gets the next line from the front end. Returns 1 with line set, 0 at end
 * of file, -1 (errno set) on an interrupt or a failed link. */
static int next_line(void)
{
    if (!allowed || !asker) {
        if (!noted) {
            noted = 1;
            static const char note[] =
                "[gpuc] this front end sends no input (allow_stdin is false): reads from stdin "
                "get end of file\n";
            rt_output_write(RT_OUTPUT_STDERR, note, sizeof note - 1);
        }
        return 0;
    }
    if (rt_protect_interrupted()) {
        errno = EINTR;
        return -1;
    }
    char prompt[PROMPT_BYTES];
    rt_output_take_line(prompt, sizeof prompt);
    char *got = NULL;
    /* no jump out of the wait below: the caller's stdin lock is held */
    rt_protect_hold();
    int rc = asker(asker_ctx, prompt, &got);
    rt_protect_release();
    if (rc != 0) {
        if (prompt[0]) /* the prompt was not shown: show it as output */
            rt_output_write(RT_OUTPUT_STDOUT, prompt, strlen(prompt));
        errno = rt_protect_interrupted() ? EINTR : EIO;
        return rc > 0 ? 0 : -1;
    }
    size_t n = strlen(got);
    char *l = realloc(got, n + 2);
    if (!l) {
        free(got);
        errno = ENOMEM;
        return -1;
    }
    l[n] = '\n';
    l[n + 1] = '\0';
    drop_line();
    line = l;
    line_len = n + 1;
    return 1;
}

long rt_input_read(void *dst, size_t len)
{
    if (line_pos == line_len) {
        int rc = next_line();
        if (rc <= 0)
            return rc;
    }
    size_t n = line_len - line_pos < len ? line_len - line_pos : len;
    memcpy(dst, line + line_pos, n);
    line_pos += n;
    return (long)n;
}

static ssize_t cookie_read(void *cookie, char *dst, size_t len)
{
    (void)cookie;
    return (ssize_t)rt_input_read(dst, len);
}

void rt_input_begin_cell(int allow)
{
    allowed = allow;
    noted = 0;
    drop_line();
    __fpurge(stdin);
    clearerr(stdin);
}

int rt_input_init(rt_ask_fn ask, void *ctx, cm_error_t *err)
{
    cookie_io_functions_t io = {.read = cookie_read};
    FILE *in = fopencookie(NULL, "r", io);
    if (!in) {
        CM_ERROR(err, errno, "cannot open the input stream");
        return -1;
    }
    asker = ask;
    asker_ctx = ctx;
    stdin = in;
    return 0;
}
