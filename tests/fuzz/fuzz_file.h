/* fuzz_file: for targets whose module reads a path, not bytes: the input
 * is written to one temporary file per process, rewritten for each run. */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes data[0, size) as the file path (replacing it). Aborts when the
 * file cannot be written: the run would test nothing. */
static inline void fuzz_file_write_at(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            perror(path);
            abort();
        }
        done += (size_t)n;
    }
    close(fd);
}

/* The temporary file holding data[0, size); its path is borrowed (static). */
static inline const char *fuzz_file_write(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[256];
    if (!path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/gpuc-fuzz-%ld%s", tmp && *tmp ? tmp : "/tmp",
                 (long)getpid(), suffix);
    }
    fuzz_file_write_at(path, data, size);
    return path;
}

#endif
