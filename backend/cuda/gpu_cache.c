/* gpu_cache: compiled kernel images in the one compile cache
 * (common/cm_cache: its folder, its memory), in the CUDA backend's entry
 * format.
 *
 * The key is SHA-256 of everything that decides the image (gpu_compile.c
 * builds it). A disk entry is one file, <hex key>.nvc:
 *   magic "GPUCNVC1", u32 format 1, u32 kind (1 cubin, 2 PTX),
 *   u64 payload bytes, u64 names bytes, key[32], sha256(payload + names)[32],
 *   payload, names
 * written to a temporary file in the same folder and renamed into place, so
 * readers never see half an entry; by a thread of its own, so that a
 * compile does not wait for the disk (gpu_cache_flush waits for it). An entry that fails any check is a miss
 * and is removed; the next compile writes it again. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_cache.h"
#include "cm_file.h"
#include "gpu_internal.h"

#define MAGIC "GPUCNVC1"
#define FORMAT 1u
#define HEADER_SIZE (8 + 4 + 4 + 8 + 8 + 32 + 32)
#define MAX_ENTRY ((size_t)512 << 20)

void gpu_image_clear(gpu_image_t *img)
{
    free(img->data);
    free(img->names);
    memset(img, 0, sizeof *img);
}

static int image_copy(gpu_image_t *dst, const gpu_image_t *src)
{
    memset(dst, 0, sizeof *dst);
    dst->kind = src->kind;
    dst->size = src->size;
    dst->names_size = src->names_size;
    dst->data = malloc(src->size ? src->size : 1);
    dst->names = malloc(src->names_size ? src->names_size : 1);
    if (!dst->data || !dst->names) {
        gpu_image_clear(dst);
        return -1;
    }
    memcpy(dst->data, src->data, src->size);
    if (src->names_size)
        memcpy(dst->names, src->names, src->names_size);
    return 0;
}

int gpu_cache_path(const unsigned char key[32], char *buf, size_t len)
{
    return cm_cache_path(key, "nvc", buf, len);
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void checksum(const gpu_image_t *img, unsigned char out[32])
{
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, img->data, img->size);
    if (img->names_size)
        crypto_hash_sha256_update(&st, (const unsigned char *)img->names, img->names_size);
    crypto_hash_sha256_final(&st, out);
}

static void image_free(void *img)
{
    gpu_image_clear(img);
    free(img);
}

/* A copy of img kept in the compile cache's memory under key. */
static void memory_put(const unsigned char key[32], const gpu_image_t *img)
{
    gpu_image_t *copy = malloc(sizeof *copy);
    if (!copy || image_copy(copy, img)) {
        free(copy);
        return;
    }
    cm_cache_keep(key, copy, image_free);
}

/* Reads and checks one entry; 0 and img filled, or -1 (corrupt / absent). */
static int disk_read(const char *path, const unsigned char key[32], gpu_image_t *img, int *corrupt)
{
    *corrupt = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    unsigned char head[HEADER_SIZE];
    int rc = -1;
    memset(img, 0, sizeof *img);
    *corrupt = 1;
    if (fstat(fd, &st) || (size_t)st.st_size < HEADER_SIZE || (size_t)st.st_size > MAX_ENTRY ||
        read(fd, head, HEADER_SIZE) != HEADER_SIZE)
        goto out;
    uint32_t format, kind;
    memcpy(&format, head + 8, 4);
    memcpy(&kind, head + 12, 4);
    uint64_t size = get64(head + 16), names = get64(head + 24);
    if (memcmp(head, MAGIC, 8) || format != FORMAT || (kind != GPU_IMAGE_CUBIN && kind != GPU_IMAGE_PTX) ||
        size == 0 || size > MAX_ENTRY || names > MAX_ENTRY ||
        HEADER_SIZE + size + names != (uint64_t)st.st_size || memcmp(head + 32, key, 32))
        goto out;
    img->kind = (int)kind;
    img->size = size;
    img->names_size = names;
    img->data = malloc(size);
    img->names = malloc(names ? names : 1);
    if (!img->data || !img->names || read(fd, img->data, size) != (ssize_t)size ||
        (names && read(fd, img->names, names) != (ssize_t)names))
        goto out;
    unsigned char sum[32];
    checksum(img, sum);
    if (memcmp(sum, head + 64, 32))
        goto out;
    if (kind == GPU_IMAGE_PTX && img->data[size - 1] != '\0')
        goto out;
    if (names && img->names[names - 1] != '\0')
        goto out;
    rc = 0;
    *corrupt = 0;
out:
    close(fd);
    if (rc)
        gpu_image_clear(img);
    return rc;
}

int gpu_cache_lookup(const unsigned char key[32], gpu_image_t *img, const char **where)
{
    const gpu_image_t *kept = cm_cache_find(key);
    if (kept) {
        if (image_copy(img, kept))
            return 0;
        *where = "memory hit";
        return 1;
    }
    char path[1200];
    int corrupt = 0;
    if (gpu_cache_path(key, path, sizeof path))
        return 0;
    gpu_cache_flush(); /* what this process queued is on disk first */
    if (disk_read(path, key, img, &corrupt)) {
        if (corrupt)
            unlink(path);
        return 0;
    }
    memory_put(key, img);
    *where = "disk hit";
    return 1;
}

/* ---- the disk side, written off the compile's path --------------------
 * A store keeps the image in memory at once and hands its entry to one
 * writer thread (a compile does not wait for the file system: 0.3 ms on
 * the development machine, more on a slow disk). Reading the disk, the
 * end of a kernel cell (gpu_cache_flush) and the process's exit wait for
 * what is queued, so a later process finds it. A forked child (no writer
 * thread there) writes at once. */

typedef struct job {
    char path[1200];
    unsigned char *bytes; /* the whole entry, its checksum left to the writer */
    size_t size, names_size; /* of the payload and the names after the header */
    size_t len;
    struct job *next;
} job_t;

/* Fills in j's checksum (the last 32 bytes of the header) and writes it. */
static void write_entry(job_t *j)
{
    gpu_image_t view = {.data = j->bytes + HEADER_SIZE, .size = j->size,
                        .names = (char *)j->bytes + HEADER_SIZE + j->size,
                        .names_size = j->names_size};
    checksum(&view, j->bytes + 64);
    cm_file_write(j->path, j->bytes, j->len, 0600, NULL); /* a cache: a failure is no error */
}

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER, drained = PTHREAD_COND_INITIALIZER;
static job_t *jobs, **jobs_end = &jobs;
static int writing;       /* the writer holds a job */
static pid_t writer_pid;  /* the process whose writer runs; 0: none yet */

static void *writer(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&wlock);
        while (!jobs)
            pthread_cond_wait(&queued, &wlock);
        job_t *j = jobs;
        jobs = j->next;
        if (!jobs)
            jobs_end = &jobs;
        writing = 1;
        pthread_mutex_unlock(&wlock);
        write_entry(j);
        free(j->bytes);
        free(j);
        pthread_mutex_lock(&wlock);
        writing = 0;
        if (!jobs)
            pthread_cond_broadcast(&drained);
        pthread_mutex_unlock(&wlock);
    }
    return NULL;
}

void gpu_cache_flush(void)
{
    if (writer_pid != getpid())
        return;
    pthread_mutex_lock(&wlock);
    while (jobs || writing)
        pthread_cond_wait(&drained, &wlock);
    pthread_mutex_unlock(&wlock);
}

/* 1 when this process's writer runs (started here the first time). */
static int writer_running(void)
{
    if (writer_pid == getpid())
        return 1;
    if (writer_pid) /* a forked child: the parent's thread is not here */
        return 0;
    sigset_t all, old;
    sigfillset(&all); /* signals are the cell thread's */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    int ok = pthread_create(&th, NULL, writer, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ok)
        return 0;
    pthread_detach(th);
    writer_pid = getpid();
    atexit(gpu_cache_flush);
    return 1;
}

void gpu_cache_store(const unsigned char key[32], const gpu_image_t *img)
{
    memory_put(key, img);
    job_t *j = calloc(1, sizeof *j);
    if (!j || gpu_cache_path(key, j->path, sizeof j->path)) {
        free(j);
        return;
    }
    unsigned char head[HEADER_SIZE];
    uint32_t format = FORMAT, kind = (uint32_t)img->kind;
    memcpy(head, MAGIC, 8);
    memcpy(head + 8, &format, 4);
    memcpy(head + 12, &kind, 4);
    put64(head + 16, img->size);
    put64(head + 24, img->names_size);
    memcpy(head + 32, key, 32);
    memset(head + 64, 0, 32); /* the checksum: the writer's work */
    j->size = img->size;
    j->names_size = img->names_size;
    j->len = sizeof head + img->size + img->names_size;
    if (!(j->bytes = malloc(j->len))) {
        free(j);
        return;
    }
    memcpy(j->bytes, head, sizeof head);
    memcpy(j->bytes + sizeof head, img->data, img->size);
    if (img->names_size)
        memcpy(j->bytes + sizeof head + img->size, img->names, img->names_size);
    if (!writer_running()) {
        write_entry(j);
        free(j->bytes);
        free(j);
        return;
    }
    pthread_mutex_lock(&wlock);
    *jobs_end = j;
    jobs_end = &j->next;
    pthread_cond_signal(&queued);
    pthread_mutex_unlock(&wlock);
}

void gpu_cache_reset_memory(void)
{
    cm_cache_forget();
}
