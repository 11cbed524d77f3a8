/* cpu_jit: the system compiler, cached shared objects (see cpu_jit.h). */
#include "cpu_jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_buf.h"
#include "cm_cache.h"
#include "cm_run.h"
#include "cm_file.h"
#include "cm_time.h"


/* The compiler's environment: messages in English, and a PATH where the
 * process has none (gcc finds its own programs, cc1 and as, through it). */
#define SHELL_ENV "LC_ALL=C PATH=\"${PATH:-/usr/local/bin:/usr/bin:/bin}\" "

/* ---- the compiler --------------------------------------------------- */

typedef struct compiler {
    int state;               /* 0 unknown, 1 found, -1 missing */
    char command[PATH_MAX];  /* "cc", or $CC as given */
    char identity[512];      /* path and first line of --version: part of the key */
} compiler_t;

static compiler_t compilers[2];

static compiler_t *find_compiler(cpu_jit_lang_t lang, cm_error_t *err)
{
    compiler_t *c = &compilers[lang];
    if (c->state == 0) {
        const char *env = getenv(lang == CPU_JIT_CXX ? "CXX" : "CC");
        const char *name = env && *env ? env : lang == CPU_JIT_CXX ? "c++" : "cc";
        size_t n = strnlen(name, sizeof c->command - 1);
        memcpy(c->command, name, n);
        c->command[n] = '\0';
        char cmd[PATH_MAX + 64], *out;
        snprintf(cmd, sizeof cmd, SHELL_ENV "%s --version 2>/dev/null", c->command);
        int rc = cm_run(cmd, &out);
        c->state = rc == 0 && *out ? 1 : -1;
        char id[sizeof c->identity];
        snprintf(id, sizeof id, "%s|%.*s", name, (int)strcspn(out, "\n"), out);
        memcpy(c->identity, id, sizeof id);
        free(out);
    }
    if (c->state < 0) {
        CM_ERROR(err, CPU_E_JIT_COMPILER,
                 "no %s compiler: '%s' did not run (install %s, or set %s)",
                 lang == CPU_JIT_CXX ? "C++" : "C", c->command, lang == CPU_JIT_CXX ? "g++" : "gcc",
                 lang == CPU_JIT_CXX ? "CXX" : "CC");
        return NULL;
    }
    return c;
}

/* ---- the cache ------------------------------------------------------ */

void cpu_jit_reset_memory(void)
{
    cm_cache_forget();
}

static void make_key(cpu_jit_lang_t lang, const compiler_t *c, const char *flags, const char *source,
                     unsigned char key[32])
{
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    const char *parts[] = {"cpu_jit", lang == CPU_JIT_CXX ? "c++" : "c", c->identity, flags ? flags : "", source};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        crypto_hash_sha256_update(&st, (const unsigned char *)parts[i], strlen(parts[i]) + 1);
    crypto_hash_sha256_final(&st, key);
}

/* ---- compiling ------------------------------------------------------ */

/* The compiler's first line that says "error", for err->text. */
static void first_error(const char *log, char *buf, size_t len)
{
    const char *line = log, *pick = NULL;
    while (*line && !pick) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (memmem(line, n, "error", 5))
            pick = line;
        else
            line = end ? end + 1 : line + n;
    }
    if (!pick)
        pick = log;
    snprintf(buf, len, "%.*s", (int)strcspn(pick, "\n"), pick);
}

static int compile(cpu_jit_lang_t lang, const compiler_t *c, const char *source, const char *flags,
                   const char *so_path, cpu_jit_result_t *out, cm_error_t *err)
{
    char src_path[PATH_MAX + 200], tmp_so[PATH_MAX + 200];
    static unsigned serial;
    unsigned k = __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
    snprintf(src_path, sizeof src_path, "%s.%ld.%u.%s", so_path, (long)getpid(), k,
             lang == CPU_JIT_CXX ? "cc" : "c");
    snprintf(tmp_so, sizeof tmp_so, "%s.%ld.%u.tmp", so_path, (long)getpid(), k);
    cm_error_t werr = {0};
    if (cm_file_write(src_path, source, strlen(source), 0600, &werr) != 0) {
        CM_ERROR(err, CPU_E_JIT_LOAD, "cannot write the source to compile: %s", werr.text);
        return -1;
    }
    cm_buf_t cmd = {0};
    cm_buf_addf(&cmd, SHELL_ENV "%s -fno-diagnostics-color -shared -fPIC %s -o '%s' '%s' -lm 2>&1",
                c->command, flags ? flags : "", tmp_so, src_path);
    double t0 = cm_seconds();
    char *log;
    int rc = cm_run(cm_buf_str(&cmd), &log);
    out->compile_ms = (cm_seconds() - t0) * 1e3;
    cm_buf_free(&cmd);
    unlink(src_path);
    if (rc != 0) {
        char first[512];
        first_error(log, first, sizeof first);
        CM_ERROR(err, CPU_E_JIT_COMPILE, "%s", first);
        out->log = log;
        unlink(tmp_so);
        return -1;
    }
    free(log);
    if (rename(tmp_so, so_path) != 0) {
        CM_ERROR(err, CPU_E_JIT_LOAD, "cannot keep %s: %s", so_path, strerror(errno));
        unlink(tmp_so);
        return -1;
    }
    return 0;
}

static void *load(const char *path, cm_error_t *err)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        CM_ERROR(err, CPU_E_JIT_LOAD, "cannot load compiled code: %s", dlerror());
    return h;
}

int cpu_jit_load(cpu_jit_lang_t lang, const char *source, const char *flags, cpu_jit_result_t *out,
                 cm_error_t *err)
{
    out->handle = NULL;
    out->compile_ms = 0;
    out->cache = "miss";
    out->log = NULL;
    const compiler_t *c = find_compiler(lang, err);
    if (!c)
        return -1;
    unsigned char key[32];
    make_key(lang, c, flags, source, key);
    void *h = cm_cache_find(key);
    if (h) {
        out->handle = h;
        out->cache = "memory hit";
        return 0;
    }

    char tmp_dir[PATH_MAX] = "", so_path[PATH_MAX + 80], hex[65];
    if (cm_cache_path(key, "so", so_path, sizeof so_path) != 0) { /* no cache: a private temporary folder, removed after loading */
        const char *t = getenv("TMPDIR");
        snprintf(tmp_dir, sizeof tmp_dir, "%s/gpuc-jit-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmp_dir)) {
            CM_ERROR(err, CPU_E_JIT_LOAD, "cannot make a folder in %s: %s", t && *t ? t : "/tmp",
                     strerror(errno));
            return -1;
        }
        sodium_bin2hex(hex, sizeof hex, key, 32);
        snprintf(so_path, sizeof so_path, "%s/%s.so", tmp_dir, hex);
    }
    struct stat st;
    if (!tmp_dir[0] && stat(so_path, &st) == 0 && (h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL))) {
        out->cache = "disk hit";
    } else {
        if (!tmp_dir[0])
            unlink(so_path); /* a file that does not load is a miss */
        if (compile(lang, c, source, flags, so_path, out, err) == 0)
            h = load(so_path, err);
    }
    if (tmp_dir[0]) {
        unlink(so_path);
        rmdir(tmp_dir);
    }
    if (!h)
        return -1;
    cm_cache_keep(key, h, NULL); /* handles are never closed */
    out->handle = h;
    return 0;
}

void *cpu_jit_symbol(void *handle, const char *symbol, cm_error_t *err)
{
    dlerror();
    void *p = dlsym(handle, symbol);
    if (!p)
        CM_ERROR(err, CPU_E_JIT_LOAD, "compiled code has no '%s'", symbol);
    return p;
}
