/* cm_error: the caller-owned error value every module fills on failure.
 *
 * Functions that can fail return 0 / -1 (or a pointer / NULL) and, when the
 * caller passes a cm_error_t, record what went wrong there. The FIRST error
 * recorded wins: later cm_error_set calls on a set error are ignored, so the
 * root cause is what reaches the user. Pass NULL to ignore details. */
#ifndef CM_ERROR_H
#define CM_ERROR_H

#include <stdarg.h>

#define CM_ERROR_TEXT 1024

typedef struct cm_error {
    int code;                  /* 0 = no error; otherwise module-specific */
    char text[CM_ERROR_TEXT];  /* human-readable, one line */
    const char *file;          /* source file of the call site (static) */
    int line;                  /* source line of the call site */
} cm_error_t;

/* Clears err (no-op for NULL). */
void cm_error_clear(cm_error_t *err);

/* Records an error unless one is already set. Use the CM_ERROR macro. */
void cm_error_setf(cm_error_t *err, const char *file, int line, int code,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define CM_ERROR(err, code, ...) \
    cm_error_setf((err), __FILE__, __LINE__, (code), __VA_ARGS__)

#endif
