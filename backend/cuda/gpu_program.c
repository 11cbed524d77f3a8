/* gpu_program: kernels gpuc writes itself (see gpu.h, "library kernels").
 *
 * A program is one source and its options, compiled once by NVRTC for the
 * selected device (through the compile cache: a new process finds it on
 * disk) and loaded into the current context on first use. Programs are
 * kept for the process in a short list: array math makes one per
 * expression and dtype combination, a few dozen in a session. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "gpu_internal.h"
#include "gpuc_config.h"

#define PROGRAM_NAME "gpuc_program.cu"
#define MAX_FUNCTIONS 8

struct gpu_program {
    unsigned char key[32];         /* of the source and options, before the target */
    gpu_image_t img;
    gpu_cumodule_t mod;            /* NULL until loaded on the current context */
    struct {
        char name[64];
        gpu_cufunction_t fn;
    } fns[MAX_FUNCTIONS];
    int nfns;
    struct gpu_program *next;
};

static gpu_program_t *programs;

/* ---- context changes: every module stays in the old context ---------- */

static int on_context(gpu_context_event_t event, void *user, cm_error_t *err)
{
    (void)user;
    (void)err;
    if (event == GPU_CONTEXT_LEAVING)
        for (gpu_program_t *p = programs; p; p = p->next) {
            p->mod = NULL;
            p->nfns = 0;
        }
    return 0;
}

/* Registering again is a no-op (gpu_device_on_context). */
static int subscribe(cm_error_t *err)
{
    if (gpu_device_on_context(on_context, NULL)) {
        CM_ERROR(err, GPU_E_INVALID, "too many listeners of GPU context changes");
        return -1;
    }
    return 0;
}

/* ---- compiling -------------------------------------------------------- */

static void hash_parts(const char *const *parts, int n, unsigned char key[32])
{
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    for (int i = 0; i < n; i++)
        crypto_hash_sha256_update(&st, (const unsigned char *)parts[i], strlen(parts[i]) + 1);
    crypto_hash_sha256_final(&st, key);
}

/* The first line of log that says "error", as "line L: error: ...". */
static void first_error(const char *log, char *buf, size_t len)
{
    const char *line = log, *pick = log;
    while (*line) {
        size_t n = strcspn(line, "\n");
        if (memmem(line, n, "error", 5)) {
            pick = line;
            break;
        }
        line += n + (line[n] == '\n');
    }
    int ln = 0;
    const char *msg = pick;
    if (!strncmp(pick, PROGRAM_NAME "(", sizeof PROGRAM_NAME) &&
        sscanf(pick + sizeof PROGRAM_NAME, "%d", &ln) == 1) {
        const char *close = strstr(pick, "): ");
        msg = close ? close + 3 : pick;
    }
    snprintf(buf, len, "line %d: %.*s", ln, (int)strcspn(msg, "\n"), msg);
}

static int run_nvrtc(const gpu_nvrtc_t *nv, const char *source, int argc, const char **argv,
                     int cubin, gpu_image_t *img, cm_error_t *err)
{
    gpu_nvrtc_program_t prog = NULL;
    if (GPU_NVRTC_CHECK(nv->nvrtcCreateProgram(&prog, source, PROGRAM_NAME, 0, NULL, NULL), err))
        return -1;
    int rc = -1, crc = nv->nvrtcCompileProgram(prog, argc, argv);
    if (crc != 0) {
        size_t log_size = 0;
        char *log = NULL, first[CM_ERROR_TEXT - 64] = "NVRTC rejected the program";
        if (nv->nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 1 &&
            (log = malloc(log_size)) && nv->nvrtcGetProgramLog(prog, log) == 0)
            first_error(log, first, sizeof first);
        if (getenv("GPUC_DUMP_SOURCE"))
            fprintf(stderr, "---- gpu_program ----\n%s\n---- log ----\n%s\n", source, log ? log : "");
        free(log);
        CM_ERROR(err, crc == 6 ? GPU_E_COMPILE : GPU_E_NVRTC, "%s", first);
        goto out;
    }
    rc = gpu_compile_image(nv, prog, cubin, img, err);
out:
    nv->nvrtcDestroyProgram(&prog);
    if (rc)
        gpu_image_clear(img);
    return rc;
}

/* Compiles (or finds in the compile cache) source for the selected device. */
static int build(gpu_program_t *p, const char *source, const char *options, cm_error_t *err)
{
    const gpu_nvrtc_t *nv = gpu_nvrtc_get(err);
    if (!nv)
        return -1;
    char arch[32], arch_opt[64], inc_opts[2][640], version[32];
    int cubin = 0;
    if (gpu_compile_arch(nv, arch, sizeof arch, &cubin, err))
        return -1;
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", arch);
    int ninc = gpu_include_options(nv, inc_opts);
    /* the options: ours, then the caller's split at spaces */
    char *opts = strdup(options ? options : "");
    const char *argv[40];
    int argc = 0;
    argv[argc++] = arch_opt;
    argv[argc++] = "--std=c++17";
    for (int k = 0; k < ninc; k++)
        argv[argc++] = inc_opts[k];
    for (char *save, *t = strtok_r(opts, " ", &save); t && argc < 40; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    snprintf(version, sizeof version, "%d", nv->version);
    const char *parts[] = {"gpu_program", GPUC_VERSION, version, arch, options ? options : "", source};
    unsigned char key[32];
    hash_parts(parts, 6, key);
    const char *where;
    int rc = 0;
    if (!gpu_cache_lookup(key, &p->img, &where)) {
        rc = run_nvrtc(nv, source, argc, argv, cubin, &p->img, err);
        if (rc == 0)
            gpu_cache_store(key, &p->img);
    }
    free(opts);
    return rc;
}

gpu_program_t *gpu_program_get(const char *source, const char *options, cm_error_t *err)
{
    unsigned char key[32];
    const char *parts[] = {options ? options : "", source};
    hash_parts(parts, 2, key);
    for (gpu_program_t *p = programs; p; p = p->next)
        if (!memcmp(p->key, key, 32))
            return p;
    if (subscribe(err))
        return NULL;
    gpu_program_t *p = calloc(1, sizeof *p);
    if (!p) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        return NULL;
    }
    memcpy(p->key, key, 32);
    if (build(p, source, options, err)) {
        free(p);
        return NULL;
    }
    p->next = programs;
    programs = p;
    return p;
}

void *gpu_program_kernel(gpu_program_t *p, const char *name, cm_error_t *err)
{
    for (int i = 0; i < p->nfns; i++)
        if (!strcmp(p->fns[i].name, name))
            return p->fns[i].fn;
    if (gpu_context_ensure(err))
        return NULL;
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d)
        return NULL;
    if (!p->mod && GPU_CU_CHECK(d->cuModuleLoadData(&p->mod, p->img.data), err)) {
        p->mod = NULL;
        return NULL;
    }
    gpu_cufunction_t fn = NULL;
    if (GPU_CU_CHECK(d->cuModuleGetFunction(&fn, p->mod, name), err))
        return NULL;
    if (p->nfns < MAX_FUNCTIONS) {
        snprintf(p->fns[p->nfns].name, sizeof p->fns[p->nfns].name, "%s", name);
        p->fns[p->nfns++].fn = fn;
    }
    return fn;
}

int gpu_program_launch(void *kernel, const unsigned grid[3], const unsigned block[3],
                       unsigned shared_bytes, void **args, const char *what, cm_error_t *err)
{
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d || gpu_context_ensure(err))
        return -1;
    gpu_module_note_launch(what, 0, 0);
    gpu_kernel_clock_before(NULL);
    gpu_curesult_t rc = d->cuLaunchKernel((gpu_cufunction_t)kernel, grid[0], grid[1], grid[2],
                                          block[0], block[1], block[2], shared_bytes, NULL, args,
                                          NULL);
    gpu_kernel_clock_after(NULL);
    if (rc != GPU_CU_SUCCESS) {
        char text[300];
        gpu_driver_error_text(rc, text, sizeof text);
        CM_ERROR(err, rc, "launching %s<<<(%u,%u,%u), (%u,%u,%u)>>> failed: %s", what, grid[0],
                 grid[1], grid[2], block[0], block[1], block[2], text);
        return -1;
    }
    return 0;
}

int gpu_program_sm_count(void)
{
    static int cached = -1;
    if (cached < 0) {
        gpu_info_t info;
        memset(&info, 0, sizeof info);
        if (gpu_probe(&info) > 0 && info.selected >= 0)
            cached = info.devices[info.selected].sm_count;
        else
            return 0;
    }
    return cached;
}
