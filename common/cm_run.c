/* cm_run: a command and its output (see cm_run.h). */
#include "cm_run.h"

#include <stdio.h>
#include <sys/wait.h>

#include "cm_buf.h"

int cm_run(const char *cmd, char **out)
{
    cm_buf_t b = {0};
    fflush(stdout);
    fflush(stderr);
    FILE *p = popen(cmd, "r");
    if (!p) {
        *out = cm_buf_steal(&b);
        return -1;
    }
    cm_buf_add_stream(&b, p);
    int st = pclose(p);
    *out = cm_buf_steal(&b);
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}
