/* cm_log: levelled logging to stderr for both processes.
 *
 * The level comes from GPUC_LOG (error, warn, info, debug; default
 * warn: front ends such as jupyter console show the kernel's stderr),
 * read once by cm_log_init. Lines look like
 *   [gpuc kernel 12:01:02.345 W] dropped message: bad signature
 * Thread-safe; never allocates; safe to call before cm_log_init. */
#ifndef CM_LOG_H
#define CM_LOG_H

typedef enum { CM_LOG_ERROR, CM_LOG_WARN, CM_LOG_INFO, CM_LOG_DEBUG } cm_log_level_t;

/* Names the process in log lines ("kernel", "executor") and reads GPUC_LOG. */
void cm_log_init(const char *process_name);

/* Returns non-zero when messages of this level are printed. */
int cm_log_enabled(cm_log_level_t level);

void cm_log(cm_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define CM_ERR(...) cm_log(CM_LOG_ERROR, __VA_ARGS__)
#define CM_WARN(...) cm_log(CM_LOG_WARN, __VA_ARGS__)
#define CM_INFO(...) cm_log(CM_LOG_INFO, __VA_ARGS__)
#define CM_DEBUG(...) cm_log(CM_LOG_DEBUG, __VA_ARGS__)

#endif
