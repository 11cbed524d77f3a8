/* cm_file: writing a whole file so that no reader ever sees half of it —
 * a temporary file beside it, then a rename — and reading one whole. For the compile caches, the
 * notebooks `gpuc run` writes and `.npy` files. */
#ifndef CM_FILE_H
#define CM_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "cm_error.h"

/* Writes len bytes of data to path, through "<path>.tmp.<pid>.<n>" and a
 * rename (mode: as for open(2), e.g. 0644). 0, or -1 with err set (code:
 * the errno) and no file left behind. */
int cm_file_write(const char *path, const void *data, size_t len, mode_t mode, cm_error_t *err);

/* The same from pieces: parts[i] of lens[i] bytes, written in order. */
int cm_file_writev(const char *path, const void *const *parts, const size_t *lens, int nparts,
                   mode_t mode, cm_error_t *err);

/* The whole file at path, NUL-terminated (caller frees); NULL when it
 * cannot be read. */
char *cm_file_read(const char *path);

/* Makes path and its parents (mode 0700 for new folders); 0 / -1 with
 * err. An existing folder is fine. */
int cm_file_mkdirs(const char *path, cm_error_t *err);

#endif
