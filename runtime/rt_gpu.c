/* rt_gpu: kernel cells, launches and %gpu (see rt_gpu.h). */
#include "rt_gpu.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_log.h"
#include "gpu.h"
#include "rt_buf.h"
#include "rt_cell.h"
#include "rt_lex.h"
#include "rt_protect.h"
#include "rt_traceback.h"

typedef struct dim3 {
    unsigned int x, y, z;
} dim3_t;

static int launched;     /* kernels launched by the running cell */
static unsigned long launches; /* kernels launched ever (rt_gpu_launch_count) */
static int context_lost; /* a sticky error happened */
static char runtime_note[CM_ERROR_TEXT + 64];

/* ---- launches from host cells ----------------------------------------- */

/* A grid or block as the cell gave it: a dim3, or an integer of `size`
 * bytes (x only). */
static void read_dim(const void *v, int is_dim3, unsigned size, unsigned out[3])
{
    if (is_dim3) {
        const dim3_t *d = v;
        out[0] = d->x, out[1] = d->y, out[2] = d->z;
        return;
    }
    unsigned long long n = size == 1 ? *(const unsigned char *)v
                           : size == 2 ? *(const unsigned short *)v
                           : size == 4 ? *(const unsigned int *)v
                                       : *(const unsigned long long *)v;
    out[0] = (unsigned)n, out[1] = 1, out[2] = 1;
}

/* What `name<<<grid, block, shared, stream>>>(args)` becomes (rt_launch.c).
 * An error ends the cell at once, naming the kernel and the line. */
static int launch(const char *kernel, const void *grid, int grid_is_dim3, unsigned grid_size,
                  const void *block, int block_is_dim3, unsigned block_size,
                  unsigned long long shared, void *stream, int nargs, void **args,
                  const unsigned long long *sizes, const char *kinds, int cell, int line)
{
    cm_error_t err = {0};
    unsigned g[3], b[3];
    read_dim(grid, grid_is_dim3, grid_size, g);
    read_dim(block, block_is_dim3, block_size, b);
    size_t sz[64];
    for (int i = 0; i < nargs && i < 64; i++)
        sz[i] = (size_t)sizes[i];
    if (gpu_launch(kernel, g, b, (unsigned)shared, stream, nargs, args, sz, kinds, cell, line,
                   &err) != 0) {
        const char *ename = err.code == GPU_E_ARGS || err.code == GPU_E_NO_KERNEL ? "LaunchError"
                            : err.code == GPU_E_NO_GPU || err.code == GPU_E_NO_LIBRARY
                                ? "NoGPU"
                                : "CudaError";
        if (err.code > 0 && err.code < 10000 && gpu_error_is_sticky(err.code)) {
            context_lost = 1;
            char msg[CM_ERROR_TEXT];
            gpu_sticky_message(err.code, msg, sizeof msg);
            rt_protect_raise("CudaError", msg);
        }
        rt_protect_raise(ename, err.text);
    }
    launched++;
    launches++;
    return 0;
}

static int current_cell; /* for the labels of tracked allocations */

typedef int (*cuda_malloc_fn)(void **ptr, size_t size);
typedef int (*cuda_free_fn)(void *ptr);

/* cudaMalloc in host cells (a macro in the header names the pointer and the
 * line): the real libcudart call, then the allocation is remembered, and a
 * failure says how much was asked and what is free. */
static int cuda_malloc(void *ptr, size_t size, const char *what, int line)
{
    static cuda_malloc_fn real;
    cm_error_t err = {0};
    if (!real && gpu_runtime_load(&err) == 0)
        real = (cuda_malloc_fn)dlsym(gpu_runtime_handle(), "cudaMalloc");
    if (!real) {
        fprintf(stderr, "cudaMalloc: %s\n", err.text[0] ? err.text : "no CUDA runtime");
        return 35; /* cudaErrorInsufficientDriver */
    }
    int rc = real((void **)ptr, size);
    const char *name = what[0] == '&' ? what + 1 : what;
    if (rc == 0) {
        char label[160];
        snprintf(label, sizeof label, "%.100s (cell %d, line %d)", name, current_cell, line);
        gpu_track_alloc(*(void **)ptr, size, label);
    } else if (rc == 2) { /* cudaErrorMemoryAllocation: the cell decides what to do */
        gpu_error_oom(&err, size, name);
        fprintf(stderr, "cell %d, line %d: cudaMalloc(%s): %s\n", current_cell, line, name,
                err.text);
    }
    return rc;
}

static int cuda_free(void *ptr)
{
    static cuda_free_fn real;
    cm_error_t err = {0};
    if (!real && gpu_runtime_load(&err) == 0)
        real = (cuda_free_fn)dlsym(gpu_runtime_handle(), "cudaFree");
    if (!real)
        return 35;
    gpu_track_free(ptr);
    return real(ptr);
}

const rt_symbol_t rt_gpu_symbols[] = {
    {"__gpuc_cuda_malloc", (const void *)cuda_malloc},
    {"__gpuc_cuda_free", (const void *)cuda_free},
    {"__gpuc_launch", (const void *)launch},
    {"gpu_device_properties", (const void *)gpu_device_properties},
    {NULL, NULL},
};

void rt_gpu_prepare_host(const char *code, int cell)
{
    current_cell = cell;
    if (!strstr(code, "cuda") && !strstr(code, "<<<"))
        return;
    cm_error_t err = {0};
    if (gpu_runtime_load(&err) == 0) {
        runtime_note[0] = '\0';
        return;
    }
    snprintf(runtime_note, sizeof runtime_note,
             "the CUDA runtime cannot be used here: %s", err.text);
}

const char *rt_gpu_runtime_note(void)
{
    return runtime_note;
}

json_t *rt_gpu_after_cell(int cell)
{
    if (!launched)
        return NULL;
    launched = 0;
    cm_error_t err = {0};
    if (gpu_synchronize(&err) == 0)
        return NULL;
    /* err names the kernel and the line that launched it and, for a sticky
     * error, what was lost with the context (gpu_synchronize) */
    if (err.code > 0 && err.code < 10000 && gpu_error_is_sticky(err.code))
        context_lost = 1;
    char evalue[CM_ERROR_TEXT + 64];
    snprintf(evalue, sizeof evalue, "cell %d: %s", cell, err.text);
    return json_pack("{s:s, s:s, s:s, s:[s]}", "status", "error", "ename", "CudaError", "evalue",
                     evalue, "traceback", evalue);
}

json_t *rt_gpu_interrupted(json_t *reply, int cell)
{
    const char *name;
    int at_cell, line;
    if (!launched || !gpu_busy(&name, &at_cell, &line))
        return reply;
    launched = 0; /* nothing to wait for at the end of this cell: it would never end */
    char evalue[CM_ERROR_TEXT];
    snprintf(evalue, sizeof evalue,
             "cell %d was interrupted, but the GPU kernel %s (launched at cell %d, line %d) is "
             "still running, and a running GPU kernel cannot be stopped. Later GPU calls will "
             "wait for it: restart the kernel (Kernel > Restart) to get the GPU back; the "
             "session's state is lost then.",
             cell, name, at_cell, line);
    json_object_set_new(reply, "evalue", json_string(evalue));
    json_object_set_new(reply, "traceback", json_pack("[s]", evalue));
    return reply;
}

unsigned long rt_gpu_launch_count(void)
{
    return launches;
}

int rt_gpu_context_lost(void)
{
    return context_lost;
}

/* ---- kernel cells ------------------------------------------------------ */

static json_t *error_reply(const char *ename, const char *evalue, json_t *traceback)
{
    if (!traceback)
        traceback = json_pack("[s]", evalue);
    return json_pack("{s:s, s:s, s:s, s:o}", "status", "error", "ename", ename, "evalue", evalue,
                     "traceback", traceback);
}

/* The CudaCompileError reply: every NVRTC message on the cell's lines,
 * with the source line and a caret where NVRTC gave a column. */
static json_t *compile_error(const gpu_cell_t *gc, const cm_error_t *err)
{
    json_t *tb = json_array();
    for (int i = 0; gc && i < gc->ndiags; i++) {
        const gpu_diag_t *d = &gc->diags[i];
        char head[CM_ERROR_TEXT];
        if (d->line > 0 && d->column > 0)
            snprintf(head, sizeof head, "cell %d, line %d, column %d: %s: %s", d->cell, d->line,
                     d->column, d->severity, d->message);
        else if (d->line > 0)
            snprintf(head, sizeof head, "cell %d, line %d: %s: %s", d->cell, d->line,
                     d->severity, d->message);
        else
            snprintf(head, sizeof head, "cell %d: %s: %s", d->cell, d->severity, d->message);
        json_array_append_new(tb, json_string(head));
        if (d->source_line)
            rt_traceback_add_source(tb, d->source_line, strlen(d->source_line), d->column);
    }
    if (json_array_size(tb) == 0)
        json_array_append_new(tb, json_string(err->text));
    return error_reply("CudaCompileError", err->text, tb);
}

/* Compiles device source (the cell's own lines) and says how it went. */
static json_t *compile_device(const char *src, const char *options, int cell)
{
    gpu_cell_t *gc = NULL;
    cm_error_t err = {0};
    int rc = gpu_compile_cell(src, options, cell, &gc, &err);
    json_t *reply = NULL;
    if (rc != 0) {
        reply = err.code == GPU_E_COMPILE ? compile_error(gc, &err)
                                          : error_reply("CudaUnavailable", err.text, NULL);
    } else {
        rt_buf_t names = {0};
        for (int k = 0; k < gc->nkernels; k++)
            rt_buf_addf(&names, "%s%s", k ? ", " : "", gc->kernels[k].name);
        if (strcmp(gc->cache, "miss") == 0)
            printf("compiled %s for %s in %.1f ms", gc->nkernels ? rt_buf_str(&names) : "device code",
                   gc->arch, gc->compile_ms);
        else
            printf("%s for %s: cache hit (%s, %.3f ms)",
                   gc->nkernels ? rt_buf_str(&names) : "device code", gc->arch, gc->cache,
                   gc->compile_ms);
        if (gc->setup_ms >= 1.0)
            printf(" (GPU set-up on first use: %.0f ms)", gc->setup_ms);
        if (gc->loaded)
            printf(", loaded in %.2f ms\n", gc->load_ms);
        else
            printf("; no GPU here: launches will fail until one is available\n");
        rt_buf_free(&names);
    }
    gpu_cell_free(gc);
    return reply;
}

/* code with every byte outside [from, to) that is not a newline blanked. */
static char *keep_only(const char *code, size_t from, size_t to)
{
    size_t n = strlen(code);
    char *out = malloc(n + 1);
    if (!out)
        abort();
    for (size_t i = 0; i < n; i++)
        out[i] = (i >= from && i < to) || code[i] == '\n' ? code[i] : ' ';
    out[n] = '\0';
    return out;
}

json_t *rt_gpu_kernel_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                            int cell)
{
    char options[1024] = "";
    if (m->args_len < sizeof options) {
        memcpy(options, code + m->args, m->args_len);
        options[m->args_len] = '\0';
    }
    char *src = keep_only(code, m->next, strlen(code));
    json_t *reply = compile_device(src, options, cell);
    free(src);
    return reply;
}

/* The CUDA words that make a top-level item device code. */
static int device_word(const char *w, size_t n)
{
    static const char *const words[] = {"__global__", "__device__", "__constant__",
                                        "__managed__", "__shared__", NULL};
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == n && memcmp(w, words[i], n) == 0)
            return 1;
    return 0;
}

static int cuda_word(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    return device_word(name, len) || (len == 8 && memcmp(name, "__host__", 8) == 0) ||
           (len == 15 && memcmp(name, "__forceinline__", 15) == 0);
}

/* Non-zero when the item is device code. */
static int is_device_item(const char *code, const rt_item_t *it)
{
    rt_tok_t *toks;
    size_t n = rt_lex_all(code, it->start, it->end, it->line, &toks, NULL);
    int device = 0;
    for (size_t i = 0; i < n && !device; i++)
        device = toks[i].kind == RT_TOK_IDENT && device_word(code + toks[i].start, toks[i].len);
    if (!device && n && toks[0].kind == RT_TOK_IDENT && rt_tok_is(code, &toks[0], "template"))
        device = 1;
    free(toks);
    return device;
}

/* #include of a CUDA header goes to the device part; other includes stay
 * on the host; #define lines go to both. */
static int directive_side(const char *code, const rt_item_t *it)
{
    const char *d = code + it->start;
    size_t n = it->end - it->start;
    if (!memmem(d, n, "include", 7))
        return 3; /* both */
    if (memmem(d, n, "cuda", 4) || memmem(d, n, "curand", 6) || memmem(d, n, "cooperative", 11) ||
        memmem(d, n, "cub/", 4) || memmem(d, n, "thrust/", 7))
        return 1; /* device */
    return 2;     /* host */
}

json_t *rt_gpu_mixed_cell(rt_session_t *s, const char *code, int cell, char **host)
{
    *host = NULL;
    if (!strstr(code, "__global__") && !strstr(code, "__device__"))
        return NULL;
    rt_cell_t items;
    rt_cell_split(code, cuda_word, NULL, &items);
    size_t n = strlen(code);
    char *device = malloc(n + 1), *rest = malloc(n + 1);
    if (!device || !rest)
        abort();
    for (size_t i = 0; i < n; i++)
        device[i] = rest[i] = code[i] == '\n' ? '\n' : ' ';
    device[n] = rest[n] = '\0';
    int any = 0;
    for (size_t i = 0; i < items.n; i++) {
        const rt_item_t *it = &items.items[i];
        int side = it->kind == RT_ITEM_DIRECTIVE ? directive_side(code, it)
                   : is_device_item(code, it)    ? 1
                                                 : 2;
        if (side == 1 && it->kind != RT_ITEM_DIRECTIVE)
            any = 1;
        if (side & 1)
            memcpy(device + it->start, code + it->start, it->end - it->start);
        if (side & 2)
            memcpy(rest + it->start, code + it->start, it->end - it->start);
    }
    rt_cell_free(&items);
    json_t *reply = NULL;
    if (any)
        reply = compile_device(device, "", cell);
    free(device);
    if (!any || reply) {
        free(rest);
        return reply;
    }
    *host = rest;
    return NULL;
}

/* ---- %gpu -------------------------------------------------------------- */

json_t *rt_gpu_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell)
{
    if (m->args_len) {
        int device = atoi(code + m->args);
        cm_error_t err = {0};
        if (gpu_select(device, &err) != 0)
            return error_reply("UsageError", err.text, NULL);
    }
    gpu_info_t info;
    int usable = gpu_probe(&info);
    if (info.driver_present)
        printf("driver %d.%d", info.driver_version / 1000, info.driver_version % 1000 / 10);
    else
        printf("no NVIDIA driver");
    if (info.nvrtc_version)
        printf(", NVRTC %d.%d", info.nvrtc_version / 1000, info.nvrtc_version % 1000 / 10);
    if (info.cudart_version)
        printf(", CUDA runtime %d.%d", info.cudart_version / 1000,
               info.cudart_version % 1000 / 10);
    printf("\n");
    for (int i = 0; i < info.device_count && i < GPU_MAX_DEVICES; i++) {
        const gpu_device_info_t *d = &info.devices[i];
        printf("%s %d: %s, compute capability %d.%d (sm_%d%d), %d SMs, %.1f GiB\n",
               i == info.selected ? "*" : " ", i, d->name, d->major, d->minor, d->major, d->minor,
               d->sm_count, (double)d->total_mem / (1 << 30));
    }
    if (!usable)
        printf("no GPU: %s\n", info.reason);
    return NULL;
}
