/* cm_cache: the compile cache's folder and memory (see cm_cache.h). */
#include "cm_cache.h"

#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_file.h"

#define BUCKETS 256

typedef struct entry {
    unsigned char key[32];
    void *value;
    void (*drop)(void *);
    struct entry *next;
} entry_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t *buckets[BUCKETS];
static char dir[PATH_MAX];
static int dir_state; /* 0 untried, 1 usable, -1 none */

static int resolve(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(dir, sizeof dir, "%s/gpuc", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.cache/gpuc", home);
    else
        return -1;
    struct stat st;
    return cm_file_mkdirs(dir, NULL) == 0 && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
                   access(dir, W_OK | X_OK) == 0
               ? 1
               : -1;
}

const char *cm_cache_dir(void)
{
    pthread_mutex_lock(&lock);
    if (dir_state == 0)
        dir_state = resolve();
    pthread_mutex_unlock(&lock);
    return dir_state == 1 ? dir : NULL;
}

int cm_cache_path(const unsigned char key[32], const char *ext, char *buf, size_t len)
{
    const char *d = cm_cache_dir();
    char hex[65];
    if (!d)
        return -1;
    sodium_bin2hex(hex, sizeof hex, key, 32);
    snprintf(buf, len, "%s/%s.%s", d, hex, ext);
    return 0;
}

static entry_t *find(const unsigned char key[32])
{
    for (entry_t *e = buckets[key[0]]; e; e = e->next)
        if (memcmp(e->key, key, 32) == 0)
            return e;
    return NULL;
}

void *cm_cache_find(const unsigned char key[32])
{
    pthread_mutex_lock(&lock);
    entry_t *e = find(key);
    void *v = e ? e->value : NULL;
    pthread_mutex_unlock(&lock);
    return v;
}

void *cm_cache_keep(const unsigned char key[32], void *value, void (*drop)(void *))
{
    pthread_mutex_lock(&lock);
    entry_t *e = find(key);
    if (!e) {
        if (!(e = calloc(1, sizeof *e)))
            abort();
        memcpy(e->key, key, 32);
        e->value = value;
        e->drop = drop;
        e->next = buckets[key[0]];
        buckets[key[0]] = e;
        value = NULL; /* kept */
    }
    void *kept = e->value;
    pthread_mutex_unlock(&lock);
    if (value && drop) /* key was kept already */
        drop(value);
    return kept;
}

void cm_cache_forget(void)
{
    pthread_mutex_lock(&lock);
    entry_t *all[BUCKETS];
    memcpy(all, buckets, sizeof all);
    memset(buckets, 0, sizeof buckets);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < BUCKETS; i++)
        while (all[i]) {
            entry_t *e = all[i];
            all[i] = e->next;
            if (e->drop)
                e->drop(e->value);
            free(e);
        }
}
