/* jk_spool: records in an anonymous file (see jk_spool.h).
 *
 * A record on disk: its tag (1 byte), its number and its text's length
 * (native int32 and uint32: the file lives and dies with this process),
 * then the text and a NUL. */
#include "jk_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cm_vec.h"

struct jk_spool {
    int fd;
    off_t size; /* bytes written */
};

enum { HEAD = 1 + 4 + 4 };

/* An anonymous file in dir, or -1. */
static int anonymous_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    char path[4096];
    if (snprintf(path, sizeof path, "%s/gpuc-spool-XXXXXX", dir) >= (int)sizeof path)
        return -1;
    int fd2 = mkostemp(path, O_CLOEXEC);
    if (fd2 >= 0)
        unlink(path);
    return fd2;
}

jk_spool_t *jk_spool_new(void)
{
    jk_spool_t *sp = calloc(1, sizeof *sp);
    if (!sp)
        return NULL;
    const char *tmp = getenv("TMPDIR");
    sp->fd = tmp && *tmp ? anonymous_file(tmp) : -1;
    if (sp->fd < 0)
        sp->fd = anonymous_file("/tmp");
    if (sp->fd < 0)
        sp->fd = memfd_create("gpuc-spool", MFD_CLOEXEC);
    if (sp->fd < 0) {
        free(sp);
        return NULL;
    }
    return sp;
}

void jk_spool_free(jk_spool_t *sp)
{
    if (!sp)
        return;
    close(sp->fd);
    free(sp);
}

int jk_spool_add(jk_spool_t *sp, char tag, int number, const char *text, size_t len)
{
    if (len > UINT32_MAX - 1)
        return -1;
    char head[HEAD];
    int32_t num = number;
    uint32_t n = (uint32_t)len;
    head[0] = tag;
    memcpy(head + 1, &num, 4);
    memcpy(head + 5, &n, 4);
    /* one system call per record (the shell writes two or three a cell) */
    struct iovec iov[3] = {{head, HEAD}, {(void *)text, len}, {"", 1}};
    size_t want = HEAD + len + 1, done = 0;
    off_t at = sp->size;
    while (done < want) {
        ssize_t w = pwritev(sp->fd, iov, 3, at + (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1; /* a partial record is past size: the next one overwrites it */
        done += (size_t)w;
        for (int i = 0; i < 3; i++) { /* skip what was written */
            size_t k = (size_t)w < iov[i].iov_len ? (size_t)w : iov[i].iov_len;
            iov[i].iov_base = (char *)iov[i].iov_base + k;
            iov[i].iov_len -= k;
            w -= (ssize_t)k;
        }
    }
    sp->size = at + (off_t)want;
    return 0;
}

int jk_spool_clear(jk_spool_t *sp)
{
    if (ftruncate(sp->fd, 0) != 0)
        return -1;
    sp->size = 0;
    return 0;
}

jk_spool_record_t *jk_spool_read(const jk_spool_t *sp, size_t *n, char **buf)
{
    *n = 0;
    *buf = NULL;
    if (sp->size == 0)
        return NULL;
    char *b = malloc((size_t)sp->size);
    if (!b)
        return NULL;
    size_t got = 0;
    while (got < (size_t)sp->size) {
        ssize_t r = pread(sp->fd, b + got, (size_t)sp->size - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    size_t count = 0, cap = 0;
    jk_spool_record_t *v = NULL; /* (count) */
    for (size_t at = 0; at + HEAD <= got;) {
        int32_t num;
        uint32_t len;
        memcpy(&num, b + at + 1, 4);
        memcpy(&len, b + at + 5, 4);
        if (len >= got - at - HEAD) /* the text and its NUL must be there */
            break;
        CM_VEC_GROW(v, count, cap);
        v[count++] = (jk_spool_record_t){b[at], num, b + at + HEAD, len};
        at += HEAD + len + 1;
    }
    if (!count) {
        free(v);
        free(b);
        return NULL;
    }
    *n = count;
    *buf = b;
    return v;
}
