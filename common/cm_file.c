/* cm_file: whole files written through a rename (see cm_file.h). */
#include "cm_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_buf.h"

static int write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int cm_file_writev(const char *path, const void *const *parts, const size_t *lens, int nparts,
                   mode_t mode, cm_error_t *err)
{
    static unsigned serial;
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(), __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
    if (n < 0 || (size_t)n >= sizeof tmp) {
        CM_ERROR(err, ENAMETOOLONG, "%s: name too long", path);
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        CM_ERROR(err, errno, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int ok = 1, saved = 0;
    for (int i = 0; i < nparts && ok; i++)
        if (lens[i] && write_all(fd, parts[i], lens[i]) != 0) {
            ok = 0;
            saved = errno;
        }
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        CM_ERROR(err, saved ? saved : EIO, "cannot write %s: %s", path,
                 strerror(saved ? saved : EIO));
        return -1;
    }
    return 0;
}

int cm_file_write(const char *path, const void *data, size_t len, mode_t mode, cm_error_t *err)
{
    const void *parts[1] = {data};
    return cm_file_writev(path, parts, &len, 1, mode, err);
}

int cm_file_mkdirs(const char *path, cm_error_t *err)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        CM_ERROR(err, ENAMETOOLONG, "%s: name too long", path);
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) {
            CM_ERROR(err, errno, "cannot make %s: %s", tmp, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST) {
        CM_ERROR(err, errno, "cannot make %s: %s", tmp, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode)) {
        CM_ERROR(err, ENOTDIR, "%s is not a folder", tmp);
        return -1;
    }
    return 0;
}

char *cm_file_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    cm_buf_t b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cm_buf_add(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        cm_buf_free(&b);
        return NULL;
    }
    return cm_buf_steal(&b);
}
