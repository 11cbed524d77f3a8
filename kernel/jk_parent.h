/* jk_parent: the parent-process watch. Like ipykernel, a kernel watches the
 * process that launched it only when asked: jupyter_client sets
 * JPY_PARENT_PID when it starts a kernel as its child, and `gpuc kernel
 * --parent PID` asks explicitly. Without either the kernel lives until it
 * is shut down or signalled, so `nohup gpuc kernel ... &` from a shell that
 * exits (what Enterprise Gateway runs over SSH) keeps it alive. */
#ifndef JK_PARENT_H
#define JK_PARENT_H

#include <sys/types.h>

typedef struct jk_parent {
    pid_t pid;     /* the watched process; 0: no watch */
    int is_parent; /* it was our parent at start: gone when getppid() changes */
} jk_parent_t;

/* Sets up the watch from flag (the --parent value, or NULL), else from
 * JPY_PARENT_PID. 0, 1 (init never goes away) and values that are not a
 * pid turn the watch off. MUST BE CALLED before the parent can exit, at
 * the kernel's start. */
void jk_parent_init(jk_parent_t *w, const char *flag);

/* Returns 1 when the watched process is gone (our parent changed, or a
 * process that was not our parent no longer exists), else 0. */
int jk_parent_gone(const jk_parent_t *w);

#endif
