#include "cm_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* warnings and errors only: info lines would reach the terminal of jupyter
 * console, nbconvert and papermill, which show the kernel's stderr */
static cm_log_level_t threshold = CM_LOG_WARN;
static const char *process = "gpuc";

void cm_log_init(const char *process_name)
{
    process = process_name;
    const char *env = getenv("GPUC_LOG");
    if (!env)
        return;
    static const char *names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++)
        if (strcmp(env, names[i]) == 0)
            threshold = (cm_log_level_t)i;
}

int cm_log_enabled(cm_log_level_t level)
{
    return level <= threshold;
}

void cm_log(cm_log_level_t level, const char *fmt, ...)
{
    if (!cm_log_enabled(level))
        return;
    char line[2048];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "[gpuc %s %02d:%02d:%02d.%03d %c] ", process, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000), "EWID"[level]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    /* one write() so lines from two threads never interleave */
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}
