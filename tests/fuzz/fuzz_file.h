/* fuzz_file: for targets whose module reads a path, not bytes: the input
 * is written to a file for each run. */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* A file holding data[0, size), in memory (a memfd, named by its
 * /proc/self/fd path, rewritten for each run: no disk I/O, which ran the
 * connection file target at 900 inputs/s). The path is borrowed (static). */
static inline const char *fuzz_file_write(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[64];
    static int fd = -1;
    if (fd < 0) {
        fd = memfd_create(suffix, MFD_CLOEXEC);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror(path);
        abort();
    }
    return path;
}

#endif
