/* cm_run: a shell command run to its end, its output captured: for the
 * system compiler (backend/cpu/cpu_jit) and %%cc's, %%cpp's builds. */
#ifndef CM_RUN_H
#define CM_RUN_H

/* Runs cmd (sh -c), its stdout and stderr into *out (caller frees; never
 * NULL). Flushes stdout and stderr first. The exit status, 128 when a
 * signal ended it, or -1 when it could not run. */
int cm_run(const char *cmd, char **out);

#endif
