/* gpu_include: where the CUDA toolkit's headers are (<cuda_fp16.h>,
 * <curand_kernel.h>, CCCL), as the options of the compiles that need them:
 * NVRTC's (kernel cells, gpu_compile; gpuc's own kernels, gpu_program) and
 * g++'s for the simulator (gpu_compile, gpu_module); and the headers of
 * the user's a compile reads (gpu_include_digest), for the compile
 * cache's key. Calls no other policy
 * file, so the compile and the module registry both reach down to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm_file.h"
#include "gpu_internal.h"
#include "gpu_nvrtc.h"

/* The CUDA include folder, for <cuda_fp16.h> and friends: next to NVRTC,
 * else $CUDA_HOME/include, else /usr/local/cuda/include. */
const char *gpu_include_dir(const gpu_nvrtc_t *nv)
{
    static char found[600];
    static int tried;
    if (tried)
        return found[0] ? found : NULL;
    tried = 1;
    char cand[3][600] = {{0}};
    const char *slash = nv ? strrchr(nv->path, '/') : NULL;
    if (slash)
        snprintf(cand[0], sizeof cand[0], "%.*s/../include", (int)(slash - nv->path), nv->path);
    const char *home = getenv("CUDA_HOME");
    if (home && *home)
        snprintf(cand[1], sizeof cand[1], "%s/include", home);
    snprintf(cand[2], sizeof cand[2], "/usr/local/cuda/include");
    for (int i = 0; i < 3; i++) {
        char probe[1024];
        struct stat st;
        if (!cand[i][0])
            continue;
        snprintf(probe, sizeof probe, "%.600s/cuda_fp16.h", cand[i]);
        if (stat(probe, &st) == 0) {
            char *real = realpath(cand[i], NULL);
            snprintf(found, sizeof found, "%.590s", real ? real : cand[i]);
            free(real);
            return found;
        }
    }
    return NULL;
}

int gpu_include_options(const gpu_nvrtc_t *nv, char opts[2][640])
{
    /* asked at every compile, a memory hit's included: the folders are
     * looked for once, as gpu_include_dir does */
    static char found[2][640];
    static int nfound = -1;
    if (nfound < 0) {
        const char *inc = gpu_include_dir(nv);
        char cccl[700];
        struct stat st;
        nfound = 0;
        if (inc) {
            snprintf(found[nfound++], sizeof found[0], "-I%.600s", inc);
            snprintf(cccl, sizeof cccl, "%.600s/cccl", inc);
            if (stat(cccl, &st) == 0 && S_ISDIR(st.st_mode))
                snprintf(found[nfound++], sizeof found[0], "-I%.600s/cccl", inc);
        }
    }
    memcpy(opts, found, sizeof found);
    return nfound;
}

void gpu_include_sim_options(const char *options, cm_buf_t *out)
{
    cm_buf_adds(out, options ? options : "");
    const char *inc = gpu_include_dir(NULL);
    if (inc)
        cm_buf_addf(out, " -I%s", inc);
}

/* ---- the headers a compile reads from disk ----------------------------- */

#define MAX_HEADERS 256
#define MAX_DEPTH 16

/* The -I folders of argv ("-Idir", "-I dir", "--include-path=dir"), in order. */
static int include_dirs(const char *const *argv, int argc, const char **dirs, int max)
{
    int n = 0;
    for (int i = 0; i < argc && n < max; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-I") == 0 || strcmp(a, "--include-path") == 0) {
            if (i + 1 < argc)
                dirs[n++] = argv[++i];
        } else if (strncmp(a, "-I", 2) == 0) {
            dirs[n++] = a + 2;
        } else if (strncmp(a, "--include-path=", 15) == 0) {
            dirs[n++] = a + 15;
        }
    }
    return n;
}

/* The file NVRTC reads for `#include "name"` (quoted: here first; here
 * NULL is the working folder) or `#include <name>`, made absolute, into
 * path; 0 when no folder has it (a header built into NVRTC). */
static int resolve(const char *name, int quoted, const char *here, const char *const *dirs,
                   int ndirs, char *path, size_t len)
{
    char cand[1400];
    struct stat st;
    for (int i = quoted ? -1 : 0; i < ndirs; i++) {
        const char *dir = i < 0 ? here : dirs[i];
        if (name[0] == '/')
            snprintf(cand, sizeof cand, "%s", name);
        else if (dir)
            snprintf(cand, sizeof cand, "%.600s/%.600s", dir, name);
        else
            snprintf(cand, sizeof cand, "%.600s", name);
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
            char *real = realpath(cand, NULL);
            snprintf(path, len, "%s", real ? real : cand);
            free(real);
            return 1;
        }
    }
    return 0;
}

/* Adds every header text's #include lines name (and theirs, to MAX_DEPTH)
 * to out, but those of the toolkit's folder: "\n#file PATH BYTES\n" and
 * the contents. seen holds the paths added. */
static void scan_includes(const char *text, const char *here, const char *const *dirs, int ndirs,
                          const char *toolkit, cm_names_t *seen, cm_buf_t *out, int depth)
{
    size_t tk = toolkit ? strlen(toolkit) : 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "include", 7) != 0)
            continue;
        p += 7;
        if (strncmp(p, "_next", 5) == 0)
            p += 5;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '"' && *p != '<')
            continue; /* a name a macro makes is not followed */
        char close = *p == '"' ? '"' : '>', name[600], path[1400];
        const char *end = strchr(p + 1, close), *nl = strchr(p + 1, '\n');
        if (!end || (nl && nl < end) || end - p - 1 >= (long)sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
        if (!resolve(name, close == '"', here, dirs, ndirs, path, sizeof path))
            continue;
        if ((tk && strncmp(path, toolkit, tk) == 0 && path[tk] == '/') ||
            cm_names_find(seen, path, (size_t)-1) >= 0 || seen->n >= MAX_HEADERS)
            continue; /* the toolkit's headers change with NVRTC, which is in the key */
        cm_names_add(seen, path, (size_t)-1);
        char *body = cm_file_read(path);
        cm_buf_addf(out, "\n#file %s %zu\n", path, body ? strlen(body) : (size_t)0);
        if (!body)
            continue;
        cm_buf_adds(out, body);
        if (depth < MAX_DEPTH) {
            char dir[1400];
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            scan_includes(body, slash ? dir : NULL, dirs, ndirs, toolkit, seen, out, depth + 1);
        }
        free(body);
    }
}

void gpu_include_digest(const gpu_nvrtc_t *nv, const char *source, const char *const *argv,
                        int argc, cm_buf_t *out)
{
    if (!strstr(source, "include")) /* most cells: nothing to look for */
        return;
    const char *dirs[64];
    int ndirs = include_dirs(argv, argc, dirs, 64);
    cm_names_t seen = {0};
    scan_includes(source, NULL, dirs, ndirs, gpu_include_dir(nv), &seen, out, 0);
    cm_names_free(&seen);
}
