#include "gpu_dl.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void loaded_path(void *h, char *path, size_t len)
{
    struct link_map *lm = NULL;
    if (!path || !len)
        return;
    path[0] = '\0';
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        snprintf(path, len, "%s", lm->l_name);
}

static void add_dir(char dirs[][400], int *n, const char *base, const char *suffix)
{
    char d[400];
    if (!base || !*base)
        return;
    snprintf(d, sizeof d, "%.380s%s", base, suffix);
    for (int i = 0; i < *n; i++)
        if (strcmp(dirs[i], d) == 0)
            return;
    snprintf(dirs[(*n)++], 400, "%s", d);
}

/* Non-zero when $GPUC_HIDE_LIBS (a test hook: "libcufft,libnvrtc") names
 * a prefix of name: it is then not loaded, as if it were not there. */
static int hidden(const char *name)
{
    const char *list = getenv("GPUC_HIDE_LIBS");
    for (const char *p = list; p && *p; p += strcspn(p, ","), p += *p == ',') {
        size_t n = strcspn(p, ",");
        if (n && strncmp(name, p, n) == 0)
            return 1;
    }
    return 0;
}

void *gpu_dl_open(const char *const *names, int flags, char *path, size_t path_len,
                  char *where, size_t where_len)
{
    char dirs[3][400];
    int ndirs = 0;
    add_dir(dirs, &ndirs, "/usr/local/cuda/lib64", "");
    add_dir(dirs, &ndirs, getenv("CUDA_HOME"), "/lib64");
    add_dir(dirs, &ndirs, getenv("CUDA_PATH"), "/lib64");
    for (int i = 0; names[i]; i++) {
        void *h = hidden(names[i]) ? NULL : dlopen(names[i], flags);
        if (h) {
            loaded_path(h, path, path_len);
            return h;
        }
    }
    for (int d = 0; d < ndirs; d++) {
        for (int i = 0; names[i]; i++) {
            char file[512];
            snprintf(file, sizeof file, "%.380s/%.100s", dirs[d], names[i]);
            void *h = hidden(names[i]) ? NULL : dlopen(file, flags);
            if (h) {
                loaded_path(h, path, path_len);
                return h;
            }
        }
    }
    if (where && where_len) {
        size_t n = 0;
        where[0] = '\0';
        for (int i = 0; names[i]; i++)
            n += (size_t)snprintf(where + n, n < where_len ? where_len - n : 0, "%s%s",
                                  i ? ", " : "", names[i]);
        n += (size_t)snprintf(where + n, n < where_len ? where_len - n : 0,
                              " in the loader's path");
        for (int d = 0; d < ndirs; d++)
            n += (size_t)snprintf(where + n, n < where_len ? where_len - n : 0, ", %s", dirs[d]);
    }
    return NULL;
}

void *gpu_dl_sym(void *handle, const char *name)
{
    return handle ? dlsym(handle, name) : NULL;
}
