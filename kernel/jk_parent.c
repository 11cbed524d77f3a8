/* jk_parent: the parent-process watch (see jk_parent.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "jk_parent.h"

void jk_parent_init(jk_parent_t *w, const char *flag)
{
    const char *text = flag ? flag : getenv("JPY_PARENT_PID");
    char *end = NULL;
    long pid = text ? strtol(text, &end, 10) : 0;
    if (!text || end == text || *end != '\0' || pid <= 1 || (pid_t)pid != pid) {
        *w = (jk_parent_t){0};
        return;
    }
    /* A pid that is not our parent (a wrapper script between Jupyter and
     * the kernel) is watched for its existence instead of by getppid. */
    *w = (jk_parent_t){.pid = (pid_t)pid, .is_parent = getppid() == (pid_t)pid};
}

int jk_parent_gone(const jk_parent_t *w)
{
    if (w->pid == 0)
        return 0;
    if (w->is_parent)
        return getppid() != w->pid;
    return kill(w->pid, 0) != 0 && errno == ESRCH;
}
