/* rt_options: the state of %cflags and %lib (see rt_options.h). */
#include "rt_options.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where %lib looks for libNAME.so.N after the dynamic loader's own search. */
static const char *const lib_dirs[] = {
#if defined(__x86_64__)
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
    "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
    "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", NULL,
};

/* Opens libNAME.so.N in dir (the shortest such name, e.g. libz.so.1 over
 * libz.so.1.2.13). */
static void *open_versioned(const char *dir, const char *stem)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.so.", stem);
    size_t pl = strlen(prefix);
    char best[512] = "";
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *f = de->d_name;
        if (strncmp(f, prefix, pl) != 0 || !isdigit((unsigned char)f[pl]))
            continue;
        if (!best[0] || strlen(f) < strlen(best))
            snprintf(best, sizeof best, "%s", f);
    }
    closedir(d);
    if (!best[0])
        return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, best);
    return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

/* Loads library `name` ("z", "libz.so", "-lz" or a path) for good, with
 * its symbols global. Returns the handle, or NULL with why[] set to the
 * folders searched. */
static void *open_library(const char *name, char *why, size_t size)
{
    if (strchr(name, '/')) {
        void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
        if (!h)
            snprintf(why, size, "%s", dlerror());
        return h;
    }
    char stem[256];
    const char *n = strncmp(name, "-l", 2) == 0 ? name + 2 : name;
    if (strncmp(n, "lib", 3) == 0 && strstr(n, ".so"))
        snprintf(stem, sizeof stem, "%.*s", (int)(strstr(n, ".so") - n), n);
    else
        snprintf(stem, sizeof stem, "lib%s", n);
    char file[300];
    snprintf(file, sizeof file, "%s.so", stem);
    void *h = dlopen(file, RTLD_NOW | RTLD_GLOBAL);
    if (h)
        return h;
    char first[256];
    snprintf(first, sizeof first, "%s", dlerror());
    cm_buf_t dirs = {0};
    const char *env = getenv("LD_LIBRARY_PATH");
    char *copy = env ? cm_strndup(env, strlen(env)) : NULL;
    for (char *save, *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !h;
         d = strtok_r(NULL, ":", &save)) {
        cm_buf_addf(&dirs, "%s%s", dirs.len ? ", " : "", d);
        h = open_versioned(d, stem);
    }
    free(copy);
    for (size_t i = 0; lib_dirs[i] && !h; i++) {
        cm_buf_addf(&dirs, "%s%s", dirs.len ? ", " : "", lib_dirs[i]);
        h = open_versioned(lib_dirs[i], stem);
    }
    if (!h)
        snprintf(why, size, "no %s or %s.so.N that loads, in the loader's path and %s (%s)", file,
                 stem, cm_buf_str(&dirs), first);
    cm_buf_free(&dirs);
    return h;
}

int rt_options_add_library(rt_options_t *o, const char *name, char *why, size_t size)
{
    if (cm_names_find(&o->lib_names, name, (size_t)-1) >= 0)
        return 0;
    void *h = open_library(name, why, size);
    if (!h)
        return -1;
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0] &&
        cm_names_find(&o->lib_paths, lm->l_name, (size_t)-1) < 0) {
        cm_names_add(&o->lib_names, name, (size_t)-1);
        cm_names_add(&o->lib_paths, lm->l_name, (size_t)-1);
    }
    /* the handle stays open: code compiled against it may run at any time */
    return 0;
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The name a -D/-U option is about ("-DX=3" -> X), in name[]. */
static void macro_of(const char *opt, char *name, size_t size)
{
    size_t n = 0;
    opt += 2;
    while (name_char(opt[n]) && n + 1 < size)
        n++;
    memcpy(name, opt, n);
    name[n] = 0;
}

void rt_options_add_cflag(rt_options_t *o, const char *opt)
{
    if (cm_names_find(&o->cflags, opt, (size_t)-1) >= 0)
        return;
    if (opt[0] == '-' && (opt[1] == 'D' || opt[1] == 'U')) {
        char name[256], other[256];
        macro_of(opt, name, sizeof name);
        for (size_t i = 0; i < o->cflags.n; i++) {
            const char *c = o->cflags.v[i];
            if (c[0] != '-' || (c[1] != 'D' && c[1] != 'U'))
                continue;
            macro_of(c, other, sizeof other);
            if (strcmp(name, other) == 0) {
                free(o->cflags.v[i]);
                memmove(&o->cflags.v[i], &o->cflags.v[i + 1],
                        (o->cflags.n - i - 1) * sizeof *o->cflags.v);
                o->cflags.n--;
                break;
            }
        }
    }
    cm_names_add(&o->cflags, opt, (size_t)-1);
}

char *rt_options_cflags_text(const rt_options_t *o)
{
    if (!o->cflags.n)
        return NULL;
    cm_buf_t b = {0};
    for (size_t i = 0; i < o->cflags.n; i++) {
        if (i)
            cm_buf_addc(&b, ' ');
        cm_buf_adds(&b, o->cflags.v[i]);
    }
    return cm_buf_steal(&b);
}

void rt_options_clear(rt_options_t *o)
{
    cm_names_free(&o->cflags);
    cm_names_free(&o->lib_names);
    cm_names_free(&o->lib_paths);
}
