/* sim_module: the compiled cells the simulator knows, and their checked
 * variants (see sim_check.h).
 *
 * sim_compile (sim_cell.c) keeps each cell's source here; the first
 * launch with a check on compiles the cell once more, instrumented
 * (sim_compile_variant; the first launch under %%profile once more again,
 * with trace-pc too: the profiled variant), and
 * reads the new module's symbol table so that its __shared__ arrays and
 * __device__ variables become regions of the memory map, with their names
 * and sizes. Kernels are known by their plain entry point, which is what
 * backend/cuda/ keeps. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "sim_check.h"

typedef struct module {
    char *source, *options;
    char *checked_source;      /* what the checked variant compiles, or NULL: source */
    char **refs;               /* its variable references (sim_module_refs) */
    int nrefs;
    int n;
    char **names;
    sim_entry_fn *plain;       /* [n] */
    /* the instrumented variants: [0] checked, [1] profiled (checked and
     * trace-pc, for %%profile's operation counts) */
    sim_entry_fn *checked[2];  /* [n]; NULL until compiled */
    char *shared[2];           /* the variant's __shared__ section */
    size_t shared_bytes[2];
    uintptr_t base[2];         /* where the variant is loaded */
    cm_error_t *failed[2];     /* why the variant could not be made (not tried again) */
} module_t;

typedef struct image {
    uintptr_t lo, hi;
} image_t;

static struct {
    module_t *v;
    size_t n, cap;
    image_t *images;           /* the checked modules' loaded segments */
    size_t nimages, capimages;
} D;

static void add_images_of(const void *in_module);

static char *text_copy(const char *s)
{
    return strdup(s ? s : "");
}

void sim_module_keep(const char *source, const char *options, int n, const char *const *names,
                     const sim_entry_fn *entries)
{
    for (size_t i = 0; i < D.n; i++) /* the same cell again: the same module */
        if (D.v[i].n == n && !strcmp(D.v[i].source, source) &&
            !strcmp(D.v[i].options, options ? options : "") &&
            !memcmp(D.v[i].plain, entries, (size_t)n * sizeof *entries))
            return;
    if (D.n == D.cap) {
        size_t cap = D.cap ? D.cap * 2 : 16;
        module_t *v = realloc(D.v, cap * sizeof *v);
        if (!v)
            return;
        D.v = v;
        D.cap = cap;
    }
    module_t m = {text_copy(source), text_copy(options), NULL, NULL, 0, n,
                  calloc((size_t)n + 1, sizeof(char *)), calloc((size_t)n + 1, sizeof(sim_entry_fn)),
                  {NULL, NULL}, {NULL, NULL}, {0, 0}, {0, 0}, {NULL, NULL}};
    if (!m.source || !m.options || !m.names || !m.plain)
        goto fail;
    for (int k = 0; k < n; k++)
        if (!(m.names[k] = text_copy(names[k])))
            goto fail;
    memcpy(m.plain, entries, (size_t)n * sizeof *entries);
    D.v[D.n++] = m;
    /* the plain module's data is the kernel's too: a checked module reads
     * an `inline __device__` table (cuRAND's) from the first module that
     * defined it (see compile_checked) */
    if (n > 0 && !sim_module_image((uintptr_t)entries[0]))
        add_images_of((const void *)entries[0]);
    return;
fail:
    for (int k = 0; m.names && k < n; k++)
        free(m.names[k]);
    free(m.names);
    free(m.plain);
    free(m.source);
    free(m.options);
}

/* ---- the symbol table ------------------------------------------------- */

/* "tile" from "_ZZ6matmulPKfS0_PfiE4tile", "sum" from "_ZL3sum" or "sum":
 * the last <length><name> of a mangled name. */
static void short_name(const char *sym, char *buf, size_t len)
{
    snprintf(buf, len, "%s", sym);
    if (strncmp(sym, "_Z", 2) != 0)
        return;
    const char *last = NULL;
    size_t last_len = 0;
    for (const char *p = sym + 2; *p;) {
        if (*p >= '1' && *p <= '9') {
            char *end;
            unsigned long k = strtoul(p, &end, 10);
            if (k > strlen(end))
                break;
            last = end;
            last_len = k;
            p = end + k;
        } else {
            p++;
        }
    }
    if (last)
        snprintf(buf, len, "%.*s", (int)last_len, last);
}

/* The TLS segment of the module loaded at base: its module id and where
 * its template lies (0, 0 when it has none). */
typedef struct tls_segment {
    uintptr_t base;
    size_t modid;
    uintptr_t start;
} tls_segment_t;

static int find_tls(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    tls_segment_t *t = data;
    if (info->dlpi_addr != t->base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS) {
            t->modid = info->dlpi_tls_modid;
            t->start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        }
    return 1;
}

/* glibc's, for the general-dynamic TLS model: the calling thread's copy of
 * byte offset of module modid's segment, allocated at its first use */
typedef struct tls_index {
    unsigned long module, offset;
} tls_index_t;
extern void *__tls_get_addr(tls_index_t *ti);

/* The calling thread's copy of the TLS segment of the module that holds
 * addr, and the segment's template (NULL when it has none). */
static char *tls_block(const void *addr, uintptr_t *start)
{
    Dl_info info;
    if (!addr || !dladdr(addr, &info) || !info.dli_fbase)
        return NULL;
    tls_segment_t t = {(uintptr_t)info.dli_fbase, 0, 0};
    dl_iterate_phdr(find_tls, &t);
    if (!t.modid)
        return NULL;
    *start = t.start;
    return __tls_get_addr(&(tls_index_t){t.modid, 0});
}

char *sim_module_tls(char *template_at)
{
    uintptr_t start = 0;
    char *block = tls_block(template_at, &start);
    return block ? block + ((uintptr_t)template_at - start) : NULL;
}

/* Adds a module's data object to the memory map: one of the section
 * gpuc_shared (thread-local: its value is an offset in the TLS segment)
 * as a __shared__ array, in the calling thread's copy, the rest as a
 * __device__ variable at the module's base + value. */
typedef struct objects_at {
    uintptr_t base;
    char *tls;
} objects_at_t;

static void add_object(void *ctx, const char *name, uintptr_t value, size_t size, int shared)
{
    const objects_at_t *at = ctx;
    char shown[48];
    short_name(name, shown, sizeof shown);
    if (shared && at->tls)
        sim_mem_add(at->tls + value, size, SIM_MEM_SHARED, shown);
    else if (!shared)
        sim_mem_add((void *)(at->base + value), size, SIM_MEM_GLOBAL, shown);
}

static void add_symbols(const char *path, uintptr_t base, const void *in_module)
{
    uintptr_t start = 0;
    objects_at_t at = {base, tls_block(in_module, &start)};
    sim_compile_objects(path, &at, add_object);
}

static int add_images(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_addr != *(uintptr_t *)data)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (D.nimages == D.capimages) {
            size_t cap = D.capimages ? D.capimages * 2 : 16;
            image_t *v = realloc(D.images, cap * sizeof *v);
            if (!v)
                return 1;
            D.images = v;
            D.capimages = cap;
        }
        D.images[D.nimages++] = (image_t){info->dlpi_addr + ph->p_vaddr,
                                          info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
    }
    return 1;
}

static void add_images_of(const void *in_module)
{
    Dl_info info;
    if (!dladdr(in_module, &info) || !info.dli_fbase)
        return;
    uintptr_t base = (uintptr_t)info.dli_fbase;
    dl_iterate_phdr(add_images, &base);
}

static sim_ref_hook_fn ref_hook;

void sim_set_ref_hook(sim_ref_hook_fn hook)
{
    ref_hook = hook;
}

void sim_module_refs(const char *source, const char *checked_source, int nrefs,
                     const char *const *refs)
{
    for (size_t i = 0; i < D.n; i++) {
        module_t *m = &D.v[i];
        if (strcmp(m->source, source) != 0 || m->checked_source)
            continue;
        char **names = calloc((size_t)nrefs + 1, sizeof *names);
        char *text = text_copy(checked_source);
        int ok = names && text;
        for (int k = 0; ok && k < nrefs; k++)
            ok = (names[k] = text_copy(refs[k])) != NULL;
        if (!ok) {
            for (int k = 0; names && k < nrefs; k++)
                free(names[k]);
            free(names);
            free(text);
            return;
        }
        m->checked_source = text;
        m->refs = names;
        m->nrefs = nrefs;
    }
}

int sim_module_image(uintptr_t addr)
{
    for (size_t i = 0; i < D.nimages; i++)
        if (addr >= D.images[i].lo && addr < D.images[i].hi)
            return 1;
    return 0;
}

static int compile_checked(module_t *m, int v, const struct sim_hooks *hooks, cm_error_t *err)
{
    sim_entry_fn *entries = calloc((size_t)m->n + 1, sizeof *entries);
    char *log = NULL;
    double ms;
    const char *cache;
    if (!entries) {
        CM_ERROR(err, SIM_E_CUDA + 2, "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
        return -1;
    }
    void **where = calloc((size_t)m->nrefs + 1, sizeof *where);
    size_t *sizes = calloc((size_t)m->nrefs + 1, sizeof *sizes);
    if (!where || !sizes ||
        sim_compile_variant(m->checked_source ? m->checked_source : m->source, m->options, 1 + v,
                            m->n, (const char *const *)m->names, entries, NULL, m->nrefs,
                            (const char *const *)m->refs, where, sizes, &m->shared[v],
                            &m->shared_bytes[v], &log, &ms, &cache, hooks, err)) {
        if (!where || !sizes)
            CM_ERROR(err, SIM_E_CUDA + 2, "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
        free(where);
        free(sizes);
        free(log);
        free(entries);
        return -1;
    }
    /* the checked module's variables are references to the session's ones,
     * which become regions of the memory map too */
    for (int i = 0; i < m->nrefs && ref_hook; i++) {
        const char *name = m->refs[i] + strlen("__gpuc_ref_");
        size_t size = ref_hook(name, where[i]);
        void *target = *(void **)where[i];
        char shown[48];
        short_name(name, shown, sizeof shown);
        if (target && size && !sim_mem_find((uintptr_t)target))
            sim_mem_add(target, size, SIM_MEM_GLOBAL, shown);
    }
    free(where);
    free(sizes);
    Dl_info info;
    if (dladdr((void *)entries[0], &info) && info.dli_fname && info.dli_fbase) {
        m->base[v] = (uintptr_t)info.dli_fbase;
        add_symbols(info.dli_fname, m->base[v], (void *)entries[0]);
        dl_iterate_phdr(add_images, &m->base[v]);
    }
    /* a template's __shared__ array and an `inline __device__` variable
     * are unique symbols, which the dynamic linker binds to the first
     * module that defined them, the plain one: its objects are the
     * kernel's too */
    if (dladdr((void *)m->plain[0], &info) && info.dli_fname && info.dli_fbase)
        add_symbols(info.dli_fname, (uintptr_t)info.dli_fbase, (void *)m->plain[0]);
    m->checked[v] = entries;
    return 0;
}

int sim_module_checked(const sim_kernel_t *k, const struct sim_hooks *hooks, int profiled,
                       sim_kernel_t *checked, uintptr_t *base, cm_error_t *err)
{
    int v = profiled ? 1 : 0;
    for (size_t i = 0; i < D.n; i++) {
        module_t *m = &D.v[i];
        for (int j = 0; j < m->n; j++) {
            if (m->plain[j] != k->entry)
                continue;
            if (m->failed[v]) {
                CM_ERROR(err, m->failed[v]->code, "%s", m->failed[v]->text);
                return -1;
            }
            if (!m->checked[v] && compile_checked(m, v, hooks, err)) {
                if ((m->failed[v] = malloc(sizeof *m->failed[v])))
                    *m->failed[v] = *err;
                return -1;
            }
            *checked = *k;
            checked->entry = m->checked[v][j];
            checked->shared = m->shared[v];
            checked->shared_bytes = m->shared_bytes[v];
            *base = m->base[v];
            return 0;
        }
    }
    CM_ERROR(err, SIM_E_CUDA + 400, "CUDA_ERROR_INVALID_HANDLE (400): the simulator has no "
             "source for kernel %s, so it cannot check it: run its kernel cell again", k->name);
    return -1;
}
