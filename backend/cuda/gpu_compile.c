/* gpu_compile: kernel compile units through NVRTC (and g++ on the
 * simulator), the compile cache, and NVRTC's log mapped back to cell lines.
 *
 * The unit comes planned from the cell layer (runtime/cell/rt_kprelude.c):
 * its parts (the earlier cells of the device prelude it needs, the new
 * cell in its place), their variables, the new cell's kernels. Nothing here
 * reads device source. The source given to NVRTC is the parts, each opened
 * by `#line 1 "cell[K]"` where K is the part's position (not its execution
 * count, so that re-running a cell gives the same text and hits the
 * cache). NVRTC's messages read "cell[K](L): ..." and are rewritten to
 * "cell N, line L: ..." with N the part's cell number (gpu_compile_log.c).
 * An earlier part's variables become references to their one storage. */
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"
#include "gpu_internal.h"
#include "gpu_nvrtc.h"
#include "gpuc_config.h"
#include "sim.h"

#define MAX_OPTS 64
#define PROGRAM_NAME "gpuc"

/* ---- buffers ---------------------------------------------------------- */

typedef struct strbuf {
    char *p;
    size_t len, cap;
    int failed;
} strbuf_t;

static void sb_add(strbuf_t *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(strbuf_t *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_printf(strbuf_t *b, const char *fmt, int v)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, fmt, v);
    sb_puts(b, tmp);
}

/* ---- options ---------------------------------------------------------- */

typedef struct options {
    char *store;               /* the split words, NUL-separated */
    const char *argv[MAX_OPTS];
    int argc;
    char extra[4][640];        /* options gpuc adds */
    int user_arch;             /* the user gave -arch / --gpu-architecture */
} options_t;

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Splits the magic line's options on blanks (single and double quotes
 * group); -O0..-O3 become -Xptxas=-ON. */
static int options_split(options_t *o, const char *line, cm_error_t *err)
{
    memset(o, 0, sizeof *o);
    size_t n = line ? strlen(line) : 0;
    o->store = malloc(4 * n + 64); /* "-O3" grows to "-Xptxas=-O3" */
    if (!o->store) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        return -1;
    }
    char *w = o->store;
    for (size_t i = 0; i < n;) {
        while (i < n && isspace((unsigned char)line[i]))
            i++;
        if (i >= n)
            break;
        char *word = w;
        char quote = 0;
        for (; i < n && (quote || !isspace((unsigned char)line[i])); i++) {
            if (!quote && (line[i] == '"' || line[i] == '\'')) {
                quote = line[i];
            } else if (quote && line[i] == quote) {
                quote = 0;
            } else {
                *w++ = line[i];
            }
        }
        *w++ = '\0';
        if (o->argc >= MAX_OPTS - 8) {
            CM_ERROR(err, GPU_E_INVALID, "too many kernel cell options (at most %d)",
                     MAX_OPTS - 8);
            return -1;
        }
        if (word[0] == '-' && word[1] == 'O' && word[2] >= '0' && word[2] <= '3' && !word[3]) {
            char level = word[2];
            word = w;
            w += sprintf(w, "-Xptxas=-O%c", level) + 1;
        }
        if (starts(word, "-arch") || starts(word, "--gpu-architecture"))
            o->user_arch = 1;
        o->argv[o->argc++] = word;
    }
    return 0;
}

static int has_option(const options_t *o, const char *prefix)
{
    for (int i = 0; i < o->argc; i++)
        if (starts(o->argv[i], prefix))
            return 1;
    return 0;
}

int gpu_compile_image(const gpu_nvrtc_t *nv, gpu_nvrtc_program_t prog, int cubin,
                      gpu_image_t *img, cm_error_t *err)
{
    size_t size = 0;
    if (cubin ? GPU_NVRTC_CHECK(nv->nvrtcGetCUBINSize(prog, &size), err)
              : GPU_NVRTC_CHECK(nv->nvrtcGetPTXSize(prog, &size), err))
        return -1;
    img->kind = cubin ? GPU_IMAGE_CUBIN : GPU_IMAGE_PTX;
    img->size = size;
    img->data = malloc(size ? size : 1);
    if (!img->data) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        return -1;
    }
    if (cubin ? GPU_NVRTC_CHECK(nv->nvrtcGetCUBIN(prog, (char *)img->data), err)
              : GPU_NVRTC_CHECK(nv->nvrtcGetPTX(prog, (char *)img->data), err))
        return -1;
    return 0;
}

/* Picks the target: sm_XY cubin for the selected GPU when NVRTC knows it;
 * compute_XY PTX otherwise (the newest NVRTC knows when there is no GPU). */
static int pick_arch(const gpu_nvrtc_t *nv, int target, int major, int minor, char *arch,
                     size_t len, int *cubin, cm_error_t *err)
{
    int count = 0, archs[128];
    if (GPU_NVRTC_CHECK(nv->nvrtcGetNumSupportedArchs(&count), err))
        return -1;
    if (count <= 0 || count > 128 || GPU_NVRTC_CHECK(nv->nvrtcGetSupportedArchs(archs), err)) {
        CM_ERROR(err, GPU_E_NVRTC, "NVRTC lists no supported architectures");
        return -1;
    }
    int newest = archs[0], oldest = archs[0];
    for (int i = 0; i < count; i++) {
        newest = archs[i] > newest ? archs[i] : newest;
        oldest = archs[i] < oldest ? archs[i] : oldest;
    }
    if (!target) {
        snprintf(arch, len, "compute_%d", newest);
        *cubin = 0;
        return 0;
    }
    int cc = major * 10 + minor;
    for (int i = 0; i < count; i++) {
        if (archs[i] == cc) {
            snprintf(arch, len, "sm_%d", cc);
            *cubin = 1;
            return 0;
        }
    }
    if (cc < oldest) {
        CM_ERROR(err, GPU_E_NVRTC, "this GPU (sm_%d) is older than this NVRTC (%d.%d) supports "
                 "(sm_%d and newer)", cc, nv->version / 1000, nv->version % 1000 / 10, oldest);
        return -1;
    }
    int best = oldest; /* the newest virtual architecture the GPU can run */
    for (int i = 0; i < count; i++)
        if (archs[i] <= cc && archs[i] > best)
            best = archs[i];
    snprintf(arch, len, "compute_%d", best);
    *cubin = 0;
    return 0;
}

int gpu_compile_arch(const gpu_nvrtc_t *nv, char *arch, size_t len, int *cubin, cm_error_t *err)
{
    /* every compile asks (a memory hit's too): NVRTC's list is asked once
     * per GPU kind (compute capability; 0: no GPU), not each time */
    static struct {
        int cc, cubin;
        char arch[32];
    } known[GPU_MAX_DEVICES + 1];
    static int nknown;
    int major = 0, minor = 0, target = gpu_device_target(&major, &minor);
    int cc = target ? major * 100 + minor : 0;
    for (int i = 0; i < nknown; i++)
        if (known[i].cc == cc) {
            snprintf(arch, len, "%s", known[i].arch);
            *cubin = known[i].cubin;
            return 0;
        }
    if (pick_arch(nv, target, major, minor, arch, len, cubin, err))
        return -1;
    if (nknown <= GPU_MAX_DEVICES) {
        known[nknown].cc = cc;
        known[nknown].cubin = *cubin;
        snprintf(known[nknown].arch, sizeof known[nknown].arch, "%s", arch);
        nknown++;
    }
    return 0;
}

void gpu_reset_kernels(void)
{
    gpu_module_reset();
    gpu_symbol_reset();
}

/* ---- device variables across cells ----------------------------------- */

/* The global names a compile's module must give addresses of: the cell's
 * own variables, then the references to earlier cells' variables. */
typedef struct globals {
    char **names;
    int n, nown;
} globals_t;

static void globals_free(globals_t *g)
{
    for (int i = 0; i < g->n; i++)
        free(g->names[i]);
    free(g->names);
    memset(g, 0, sizeof *g);
}

static int globals_add(globals_t *g, const char *prefix, const char *name)
{
    char **grown = realloc(g->names, (size_t)(g->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    g->names = grown;
    size_t len = strlen(prefix) + strlen(name) + 1;
    if (!(grown[g->n] = malloc(len)))
        return -1;
    snprintf(grown[g->n++], len, "%s%s", prefix, name);
    return 0;
}

/* Adds an earlier cell's text as a part of a later cell's compile, with its
 * variables made references to the one storage of the session: each NAME
 * becomes `(*__gpuc_ref_NAME)` (a macro, so its declaration declares that
 * pointer, of the right type, and every use goes through it) and loses its
 * initializer (blanked, so lines stay). The macros come before the part's
 * `#line 1 "cell[part]"`, so its lines are the cell's. The pointers are set
 * after the module is loaded (gpu_symbol_ref). */
static void add_earlier_part(strbuf_t *src, int part, const gpu_part_t *p, globals_t *g)
{
    const gpu_var_info_t *vars = p->vars;
    for (int i = 0; i < p->nvars; i++) {
        sb_puts(src, "#define ");
        sb_puts(src, vars[i].name);
        sb_puts(src, " (*__gpuc_ref_");
        sb_puts(src, vars[i].name);
        sb_puts(src, ")\n");
        if (globals_add(g, "__gpuc_ref_", vars[i].name))
            src->failed = 1;
    }
    sb_printf(src, "#line 1 \"cell[%d]\"\n", part);
    size_t start = src->len;
    sb_puts(src, p->text);
    for (int i = 0; i < p->nvars && !src->failed; i++)
        for (size_t k = vars[i].init_from; k < vars[i].init_to; k++)
            if (src->p[start + k] != '\n')
                src->p[start + k] = ' ';
}

/* Gives the session the addresses of a compiled cell's variables and
 * points its references at the earlier cells' ones. */
static void globals_publish(const globals_t *g, const gpu_cell_t *c,
                            const unsigned long long *addrs, const size_t *sizes, int sim)
{
    for (int i = g->nown; i < g->n; i++)
        gpu_symbol_ref(g->names[i] + strlen("__gpuc_ref_"), addrs[i], sim);
    for (int i = 0; i < g->nown; i++)
        gpu_symbol_define(g->names[i], c->vars[i].decl, c->cell, addrs[i], sizes[i], sim);
}

/* A reference of a checked simulator module, now loaded: it joins the
 * others, pointed at the variable's one storage. */
static size_t ref_checked(const char *name, void *where)
{
    gpu_symbol_ref(name, (unsigned long long)(uintptr_t)where, 1);
    void *addr;
    size_t size;
    return gpu_symbol_lookup(name, &addr, &size) == 0 ? size : 0;
}

/* ---- compiling -------------------------------------------------------- */

void gpu_kernels_free(gpu_kernel_info_t *kernels, int n)
{
    for (int i = 0; kernels && i < n; i++)
        free(kernels[i].params);
    free(kernels);
}

void gpu_cell_free(gpu_cell_t *c)
{
    if (!c)
        return;
    gpu_kernels_free(c->kernels, c->nkernels);
    free(c->vars);
    for (int i = 0; i < c->ndiags; i++) {
        free(c->diags[i].message);
        free(c->diags[i].source_line);
    }
    free(c->diags);
    free(c->log);
    free(c);
}

/* The user's headers the unit includes, as they read now (gpu_include_digest),
 * made part of its text: their SHA-256 in a comment after the last part,
 * so that every compile of it changes when one of them does: NVRTC's key,
 * g++'s on the simulator and its checked variant (each cached by its text).
 * Nothing for a unit that includes none of the user's. */
static void add_headers_note(const gpu_nvrtc_t *nv, const options_t *o, strbuf_t *src,
                             strbuf_t *checked)
{
    cm_buf_t headers = {0};
    if (!src->failed && src->p)
        gpu_include_digest(nv, src->p, o->argv, o->argc, &headers);
    if (headers.len) {
        unsigned char sum[32];
        char hex[65], note[120];
        crypto_hash_sha256(sum, (const unsigned char *)headers.s, headers.len);
        sodium_bin2hex(hex, sizeof hex, sum, sizeof sum);
        snprintf(note, sizeof note, "/* gpuc: the headers included, as read: %s */\n", hex);
        sb_puts(src, note);
        if (checked)
            sb_puts(checked, note);
    }
    cm_buf_free(&headers);
}

/* ---- keys -------------------------------------------------------------- */

/* The key of a compile is the SHA-256 of its material: "gpuc VERSION|nvrtc
 * N|ARCH|", each option with its NUL, "|", the source (with the note of the
 * user's headers it includes, add_headers_note). The keys of the
 * units this process has compiled or found are remembered by their
 * material, found by a 64-bit FNV-1a hash and one comparison in full, so
 * a cell run again costs a lookup, not a SHA-256 (about 2.5 us of the
 * 10 us a memory hit took on the development machine). */
#define KEY_BUCKETS 256
#define KEYS_KEPT 4096

typedef struct known_key {
    uint64_t hash;
    char *material;
    size_t len;
    unsigned char key[32];
    struct known_key *next;
} known_key_t;

static known_key_t *known_keys[KEY_BUCKETS];
static int nknown_keys;

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

static void known_keys_forget(void)
{
    for (int b = 0; b < KEY_BUCKETS; b++)
        while (known_keys[b]) {
            known_key_t *k = known_keys[b];
            known_keys[b] = k->next;
            free(k->material);
            free(k);
        }
    nknown_keys = 0;
}

/* key for a compile; 0, or -1 when there is no memory (no cache then). */
static int make_key(const gpu_nvrtc_t *nv, const options_t *o, const char *arch,
                    const char *source, size_t len, unsigned char key[32])
{
    strbuf_t m = {0};
    char head[128];
    snprintf(head, sizeof head, "gpuc %s|nvrtc %d|%s|", GPUC_VERSION, nv->version, arch);
    sb_puts(&m, head);
    for (int i = 0; i < o->argc; i++)
        sb_add(&m, o->argv[i], strlen(o->argv[i]) + 1);
    sb_add(&m, "|", 1);
    sb_add(&m, source, len);
    if (m.failed) {
        free(m.p);
        return -1;
    }
    uint64_t h = fnv1a(m.p, m.len);
    for (known_key_t *k = known_keys[h % KEY_BUCKETS]; k; k = k->next)
        if (k->hash == h && k->len == m.len && memcmp(k->material, m.p, m.len) == 0) {
            memcpy(key, k->key, 32);
            free(m.p);
            return 0;
        }
    crypto_hash_sha256(key, (const unsigned char *)m.p, m.len);
    if (nknown_keys >= KEYS_KEPT)
        known_keys_forget();
    known_key_t *k = malloc(sizeof *k);
    if (!k) {
        free(m.p);
        return 0;
    }
    *k = (known_key_t){h, m.p, m.len, {0}, known_keys[h % KEY_BUCKETS]};
    memcpy(k->key, key, 32);
    known_keys[h % KEY_BUCKETS] = k;
    nknown_keys++;
    return 0;
}

/* Runs NVRTC. 0 with img filled; -1 with err (and c's log/diags on a
 * compile error). */
static int run_nvrtc(const gpu_nvrtc_t *nv, const char *source, const options_t *o, int cubin,
                     gpu_kernel_info_t *kernels, int nkernels, const int *cells, int ncells,
                     gpu_cell_t *c, gpu_image_t *img, cm_error_t *err)
{
    gpu_nvrtc_program_t prog = NULL;
    int rc = -1;
    char expr[160];
    strbuf_t names = {0};
    if (GPU_NVRTC_CHECK(nv->nvrtcCreateProgram(&prog, source, PROGRAM_NAME, 0, NULL, NULL), err))
        return -1;
    for (int i = 0; i < nkernels; i++) {
        snprintf(expr, sizeof expr, "&%s", kernels[i].name);
        if (GPU_NVRTC_CHECK(nv->nvrtcAddNameExpression(prog, expr), err))
            goto out;
    }
    int crc = nv->nvrtcCompileProgram(prog, o->argc, o->argv);
    size_t log_size = 0;
    char *log = NULL;
    if (nv->nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 1 &&
        (log = malloc(log_size)) && nv->nvrtcGetProgramLog(prog, log) == 0) {
        char first[CM_ERROR_TEXT];
        gpu_compile_map_log(log, cells, ncells, c, first, sizeof first);
        if (crc == 6 /* NVRTC_ERROR_COMPILATION */)
            CM_ERROR(err, GPU_E_COMPILE, "%s", first[0] ? first : "NVRTC rejected the cell");
        else if (crc != 0)
            CM_ERROR(err, GPU_E_NVRTC, "%s", first[0] ? first : "NVRTC failed");
    }
    free(log);
    if (crc == 6) {
        CM_ERROR(err, GPU_E_COMPILE, "NVRTC rejected the cell");
        goto out;
    }
    if (GPU_NVRTC_CHECK(crc, err))
        goto out;
    if (gpu_compile_image(nv, prog, cubin, img, err))
        goto out;
    for (int i = 0; i < nkernels; i++) {
        const char *lowered = NULL;
        snprintf(expr, sizeof expr, "&%s", kernels[i].name);
        if (GPU_NVRTC_CHECK(nv->nvrtcGetLoweredName(prog, expr, &lowered), err))
            goto out;
        snprintf(kernels[i].lowered, sizeof kernels[i].lowered, "%s", lowered);
        sb_add(&names, kernels[i].name, strlen(kernels[i].name) + 1);
        sb_add(&names, lowered, strlen(lowered) + 1);
    }
    if (names.failed) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        goto out;
    }
    img->names = names.p;
    img->names_size = names.len;
    names.p = NULL;
    rc = 0;
out:
    free(names.p);
    nv->nvrtcDestroyProgram(&prog);
    if (rc)
        gpu_image_clear(img);
    return rc;
}

/* Fills the lowered names of kernels from a cached image's name table. */
static int lowered_from_image(const gpu_image_t *img, gpu_kernel_info_t *kernels, int n)
{
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (size_t off = 0; off < img->names_size && !found;) {
            const char *name = img->names + off;
            const char *low = name + strlen(name) + 1;
            if ((size_t)(low - img->names) >= img->names_size)
                break;
            if (strcmp(name, kernels[i].name) == 0) {
                snprintf(kernels[i].lowered, sizeof kernels[i].lowered, "%s", low);
                found = 1;
            }
            off = (size_t)(low - img->names) + strlen(low) + 1;
        }
        if (!found)
            return -1;
    }
    return 0;
}

/* Compiles the put-together source for the simulator too, finding the
 * kernels' entry points; g++'s messages are mapped like NVRTC's (they come
 * in NVRTC's form). only: there is no NVRTC, so this compile is the cell's
 * (its time and cache are reported). 0 / -1 with err (GPU_E_COMPILE with
 * c's log and diags). */
static int compile_sim(const char *source, const char *options, gpu_cell_t *c, const int *cells,
                       int ncells, int only, const globals_t *g, sim_entry_fn *entries,
                       char **shared, size_t *shared_bytes, cm_error_t *err)
{
    gpu_device_note_sim();
    const char **names = calloc((size_t)c->nkernels + 1, sizeof *names);
    if (!names) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        return -1;
    }
    for (int i = 0; i < c->nkernels; i++)
        names[i] = c->kernels[i].name;
    char *log = NULL;
    double ms;
    const char *cache;
    cm_error_t e = {0};
    cm_buf_t opts = {0};
    gpu_include_sim_options(options, &opts);
    void **addrs = calloc((size_t)g->n + 1, sizeof *addrs);
    size_t *sizes = calloc((size_t)g->n + 1, sizeof *sizes);
    sim_sizes_fn *params = calloc((size_t)c->nkernels + 1, sizeof *params);
    int rc = !addrs || !sizes || !params
                 ? -1
                 : sim_compile(source, cm_buf_str(&opts), c->nkernels, names, entries, params,
                               g->n, (const char *const *)g->names, addrs, sizes, shared,
                               shared_bytes, &log, &ms, &cache, &e);
    free(names);
    cm_buf_free(&opts);
    for (int i = 0; rc == 0 && i < c->nkernels; i++) { /* what g++ made of by-value structs */
        unsigned long s[GPU_MAX_PARAMS];
        gpu_params_measured(&c->kernels[i], s, params[i](s, GPU_MAX_PARAMS));
    }
    free(params);
    for (int i = 0; rc == 0 && i < g->n; i++) /* host addresses, kept as device ones are */
        ((unsigned long long *)addrs)[i] = (unsigned long long)(uintptr_t)addrs[i];
    if (rc == 0)
        globals_publish(g, c, (const unsigned long long *)addrs, sizes, 1);
    free(addrs);
    free(sizes);
    if (rc == 0) {
        c->simulated = 1;
        if (only)
            c->cache = cache;
        return 0;
    }
    if (e.code == SIM_E_COMPILE && log) {
        char first[CM_ERROR_TEXT];
        free(c->log);
        c->log = NULL;
        gpu_compile_map_log(log, cells, ncells, c, first, sizeof first);
        CM_ERROR(err, GPU_E_COMPILE, "%s", first[0] ? first : e.text);
    } else {
        CM_ERROR(err, GPU_E_INVALID, "the CUDA simulator cannot compile kernels: %s", e.text);
    }
    free(log);
    return -1;
}

/* A copy of n kernel records with their parameters (lowered names kept),
 * or NULL on OOM (n 0: NULL, and that is no failure). */
static gpu_kernel_info_t *kernels_copy(const gpu_kernel_info_t *k, int n)
{
    gpu_kernel_info_t *c = n ? calloc((size_t)n, sizeof *c) : NULL;
    for (int i = 0; c && i < n; i++) {
        c[i] = k[i];
        size_t bytes = (size_t)k[i].nparams * sizeof(gpu_param_t);
        c[i].params = bytes ? malloc(bytes) : NULL;
        if (bytes && !c[i].params) {
            c[i].nparams = 0;
            gpu_kernels_free(c, n);
            return NULL;
        }
        if (bytes)
            memcpy(c[i].params, k[i].params, bytes);
    }
    return c;
}

int gpu_compile_unit(const gpu_unit_t *u, gpu_cell_t **out, cm_error_t *err)
{
    const char *options = u->options;
    int cell = u->cell;
    double t0 = (cm_seconds() * 1e3);
    options_t o;
    gpu_image_t img = {0};
    strbuf_t src = {0};
    strbuf_t checked = {0};    /* the simulator's checked variant: every variable a reference */
    globals_t refs = {0};      /* its references */
    int *cells = NULL, rc = -1;
    sim_entry_fn *entries = NULL;
    globals_t g = {0};         /* the cell's variables, then its references */
    unsigned long long *addrs = NULL;
    size_t *sizes = NULL;
    char *shared = NULL;       /* the simulator module's static shared memory */
    size_t shared_bytes = 0;
    gpu_cell_t *c = NULL;
    *out = NULL;
    memset(&o, 0, sizeof o);
    if (u->nparts <= 0) {
        CM_ERROR(err, GPU_E_INVALID, "no device source");
        return -1;
    }
    /* on the simulator NVRTC is optional: it checks the cell where it exists */
    int simulating = gpu_simulating();
    const gpu_nvrtc_t *nv = gpu_nvrtc_get(simulating ? NULL : err); /* loads NVRTC the first time */
    if ((!nv && !simulating) || options_split(&o, options, err))
        goto out;
    c = calloc(1, sizeof *c);
    if (!c) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        goto out;
    }
    c->cell = cell;
    c->cache = "miss";
    if (!nv) {
        snprintf(c->arch, sizeof c->arch, "the simulator");
    } else if (o.user_arch) {
        for (int i = 0; i < o.argc; i++) {
            const char *a = o.argv[i];
            const char *eq = strchr(a, '=');
            if (starts(a, "-arch") || starts(a, "--gpu-architecture"))
                snprintf(c->arch, sizeof c->arch, "%s",
                         eq ? eq + 1 : (i + 1 < o.argc ? o.argv[i + 1] : ""));
        }
        c->cubin = starts(c->arch, "sm_");
    } else if (nv) {
        if (gpu_compile_arch(nv, c->arch, sizeof c->arch, &c->cubin, err))
            goto out;
        snprintf(o.extra[0], sizeof o.extra[0], "--gpu-architecture=%s", c->arch);
        o.argv[o.argc++] = o.extra[0];
    }
    /* loading NVRTC and finding the GPU (driver start) happen once, and are
     * set-up, not compiling: reported apart */
    double setup_ms = (cm_seconds() * 1e3) - t0;
    t0 = (cm_seconds() * 1e3);
    c->setup_ms = setup_ms;
    if (!has_option(&o, "--std") && !has_option(&o, "-std"))
        o.argv[o.argc++] = "--std=c++17";
    char inc[2][640];
    int ninc = nv ? gpu_include_options(nv, inc) : 0;
    for (int k = 0; k < ninc; k++) {
        memcpy(o.extra[1 + k], inc[k], sizeof inc[k]);
        o.argv[o.argc++] = o.extra[1 + k];
    }

    c->kernels = kernels_copy(u->kernels, u->nkernels);
    c->nkernels = c->kernels || !u->nkernels ? u->nkernels : -1;
    c->vars = u->nvars ? malloc((size_t)u->nvars * sizeof *c->vars) : NULL;
    c->nvars = c->vars || !u->nvars ? u->nvars : -1;
    if (c->vars)
        memcpy(c->vars, u->vars, (size_t)u->nvars * sizeof *c->vars);
    for (int i = 0; i < c->nvars; i++)
        if (globals_add(&g, "", c->vars[i].name))
            c->nvars = -1;
    g.nown = g.n;
    cells = malloc((size_t)u->nparts * sizeof *cells);
    if (c->nkernels < 0 || c->nvars < 0 || !cells) {
        c->nvars = c->nvars < 0 ? 0 : c->nvars;
        c->nkernels = c->nkernels < 0 ? 0 : c->nkernels;
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        goto out;
    }
    int ncompiled = 0;
    for (int i = 0; i < u->nparts; i++) {
        const gpu_part_t *p = &u->parts[i];
        cells[ncompiled] = p->cell;
        if (p->earlier) { /* an earlier cell: its variables are the session's */
            add_earlier_part(&src, ++ncompiled, p, &g);
        } else {
            sb_printf(&src, "#line 1 \"cell[%d]\"\n", ++ncompiled);
            sb_puts(&src, p->text);
        }
        sb_puts(&src, "\n");
        if (simulating) {
            add_earlier_part(&checked, ncompiled, p, &refs);
            sb_puts(&checked, "\n");
        }
    }
    add_headers_note(nv, &o, &src, simulating ? &checked : NULL);
    if (src.failed || checked.failed) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        goto out;
    }

    unsigned char key[32];
    const char *where = NULL;
    int keyed = nv && make_key(nv, &o, c->arch, src.p, src.len, key) == 0;
    if (!nv) {
        /* no NVRTC: the simulator's compile below is the only one */
    } else if (keyed && gpu_cache_lookup(key, &img, &where) &&
               lowered_from_image(&img, c->kernels, c->nkernels) == 0) {
        c->cache = where;
    } else {
        gpu_image_clear(&img);
        if (run_nvrtc(nv, src.p, &o, c->cubin, c->kernels, c->nkernels, cells, ncompiled, c, &img,
                      err)) {
            if (err && err->code == GPU_E_COMPILE) {
                c->compile_ms = (cm_seconds() * 1e3) - t0;
                *out = c; /* ok = 0: the log and diags are the reply */
                c = NULL;
            }
            goto out;
        }
        if (keyed)
            gpu_cache_store(key, &img);
    }
    if (simulating) {
        entries = calloc((size_t)c->nkernels + 1, sizeof *entries);
        if (!entries) {
            CM_ERROR(err, GPU_E_INVALID, "out of memory");
            goto out;
        }
        if (compile_sim(src.p, options, c, cells, ncompiled, !nv, &g, entries, &shared,
                        &shared_bytes, err) == 0) {
            sim_set_ref_hook(ref_checked);
            sim_module_refs(src.p, checked.p, refs.n, (const char *const *)refs.names);
        } else {
            if (err && err->code == GPU_E_COMPILE) {
                c->compile_ms = (cm_seconds() * 1e3) - t0;
                *out = c;
                c = NULL;
            }
            goto out;
        }
    }
    c->compile_ms = (cm_seconds() * 1e3) - t0;
    c->image_size = img.size;
    addrs = calloc((size_t)g.n + 1, sizeof *addrs);
    sizes = calloc((size_t)g.n + 1, sizeof *sizes);
    if (!addrs || !sizes) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        goto out;
    }
    if (gpu_module_add(cell, &img, c->kernels, c->nkernels, simulating ? 0 : g.n,
                       (const char *const *)g.names, addrs, sizes, &c->loaded, &c->load_ms, err))
        goto out;
    if (c->loaded && !simulating)
        globals_publish(&g, c, addrs, sizes, 0);
    for (int i = 0; simulating && i < c->nkernels; i++)
        gpu_module_set_sim(c->kernels[i].name, entries[i], cells, ncompiled, shared, shared_bytes);
    if (!simulating && c->nkernels) /* for %device cpu later */
        gpu_module_keep_source(c->kernels[0].name, src.p, options, cells, ncompiled);
    gpu_module_drop_instances(u->names, u->nnames);
    c->ok = 1;
    *out = c;
    c = NULL;
    rc = 0;
out:
    gpu_image_clear(&img);
    globals_free(&g);
    free(addrs);
    free(sizes);
    free(cells);
    free(entries);
    free(src.p);
    free(checked.p);
    globals_free(&refs);
    free(o.store);
    gpu_cell_free(c);
    return rc;
}
