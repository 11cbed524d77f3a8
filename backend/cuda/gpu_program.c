/* gpu_program: kernels gpuc writes itself (see gpu.h, "library kernels").
 *
 * A program is one source and its options, compiled once by NVRTC for the
 * selected device (through the compile cache: a new process finds it on
 * disk) and loaded on each GPU at its first use there (a module per
 * device, in its primary context, which lives as long as the process). Programs are
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
    struct {
        gpu_cumodule_t mod;        /* NULL until loaded on the device */
        struct {
            char name[64];
            gpu_cufunction_t fn;
        } fns[MAX_FUNCTIONS];
        int nfns;
    } on[GPU_MAX_DEVICES];
    struct gpu_program *next;
};

static gpu_program_t *programs;

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

void *gpu_program_kernel(gpu_program_t *p, int device, const char *name, cm_error_t *err)
{
    if (device < 0 || device >= GPU_MAX_DEVICES || gpu_context_use(device, err))
        return NULL;
    __typeof__(p->on[0]) *on = &p->on[device];
    for (int i = 0; i < on->nfns; i++)
        if (!strcmp(on->fns[i].name, name))
            return on->fns[i].fn;
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d)
        return NULL;
    if (!on->mod && GPU_CU_CHECK(d->cuModuleLoadData(&on->mod, p->img.data), err)) {
        on->mod = NULL;
        return NULL;
    }
    gpu_cufunction_t fn = NULL;
    if (GPU_CU_CHECK(d->cuModuleGetFunction(&fn, on->mod, name), err))
        return NULL;
    if (on->nfns < MAX_FUNCTIONS) {
        snprintf(on->fns[on->nfns].name, sizeof on->fns[on->nfns].name, "%s", name);
        on->fns[on->nfns++].fn = fn;
    }
    return fn;
}

int gpu_program_launch(int device, void *kernel, const unsigned grid[3], const unsigned block[3],
                       unsigned shared_bytes, void **args, const char *what, cm_error_t *err)
{
    const gpu_driver_t *d = gpu_driver_get(err);
    if (!d || gpu_context_use(device, err))
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

int gpu_program_cccl(int device)
{
    static int known[GPU_MAX_DEVICES]; /* 0: not asked yet, 1: no, 2: yes */
    if (device < 0 || device >= GPU_MAX_DEVICES)
        return 0;
    if (!known[device]) {
        gpu_info_t info;
        char opts[2][640];
        cm_error_t e = {0};
        memset(&info, 0, sizeof info);
        const gpu_nvrtc_t *nv = gpu_nvrtc_get(&e);
        int found = nv && gpu_include_options(nv, opts) == 2; /* include/cccl is there */
        known[device] = found && gpu_probe(&info) > device && info.devices[device].major >= 7 ? 2 : 1;
    }
    return known[device] == 2;
}

int gpu_program_sm_count(int device)
{
    static int cached[GPU_MAX_DEVICES];
    if (device < 0 || device >= GPU_MAX_DEVICES)
        return 0;
    if (!cached[device]) {
        gpu_info_t info;
        memset(&info, 0, sizeof info);
        if (gpu_probe(&info) <= device)
            return 0;
        cached[device] = info.devices[device].sm_count;
    }
    return cached[device];
}
