/* rt_tcc: libtcc wrapper with diagnostics capture (see rt_tcc.h). */
#include "rt_tcc.h"

#include <dlfcn.h>
#include <libtcc.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_buf.h"
#include "cm_file.h"
#include "cm_jit.h"
#include "cm_vec.h"

struct rt_tcc {
    TCCState *s;
    unsigned char *image; /* the relocated code and data in the arena, or NULL */
    size_t image_size;    /* bytes reserved for it (a multiple of ARENA_ALIGN) */
    size_t image_raw;     /* bytes libtcc asked for */
    rt_diag_t *diags;
    size_t n, cap;
};

/* TCC messages look like "cell[3]:2: error: 'y' undeclared" or
 * "tcc: error: undefined symbol 'f'". */
static void on_message(void *opaque, const char *msg)
{
    rt_tcc_t *t = opaque;
    CM_VEC_GROW(t->diags, t->n, t->cap);
    rt_diag_t *d = &t->diags[t->n++];
    memset(d, 0, sizeof *d);
    const char *sev = strstr(msg, ": warning: ");
    const char *err = strstr(msg, ": error: ");
    const char *at = sev && (!err || sev < err) ? sev : err;
    d->warning = at == sev && sev;
    if (!at) {
        d->file = cm_strndup("", 0);
        d->msg = cm_strndup(msg, strlen(msg));
        return;
    }
    d->msg = cm_strndup(at + (d->warning ? 11 : 9), strlen(at + (d->warning ? 11 : 9)));
    /* "FILE:LINE" before the severity; the file may itself contain ':' */
    const char *colon = NULL;
    for (const char *p = at - 1; p >= msg; p--) {
        if (*p == ':') {
            colon = p;
            break;
        }
        if (*p < '0' || *p > '9')
            break;
    }
    if (colon && colon + 1 < at) {
        d->file = cm_strndup(msg, (size_t)(colon - msg));
        d->line = atoi(colon + 1);
    } else {
        d->file = cm_strndup("", 0);
    }
}

/* The file the shared library holding fn was loaded from, if its name
 * contains stem, into path (PATH_MAX bytes); 0, or -1. */
static int loaded_from(void *fn, const char *stem, char *path)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fname || !strstr(info.dli_fname, stem) ||
        strlen(info.dli_fname) >= PATH_MAX)
        return -1;
    strcpy(path, info.dli_fname);
    return 0;
}

/* The file the process's libm was loaded from, or NULL. */
static const char *libm_path(void)
{
    static char path[PATH_MAX];
    static int done;
    if (!done) {
        double (*fn)(double) = cos;
        if (loaded_from((void *)fn, "libm", path) != 0)
            path[0] = '\0';
        done = 1;
    }
    return path[0] ? path : NULL;
}

/* libc without its linker script. At relocation libtcc adds "-lc": it
 * finds libc.so, glibc's linker script, and reads it one byte per read()
 * call (~250 system calls, ~0.16 ms of every state). A folder of our own,
 * searched first, holds libc.so as a link to the libc this process runs
 * (which libtcc only dlopen()s: already loaded, nothing is read), and the
 * script's other member, libc_nonshared.a (atexit, pthread_atfork), is
 * added by rt_tcc_relocate. The folder is in gpuc's cache, named after
 * the libc's path, so every writer writes the same link; it is used only
 * when the link is the very file this process loaded (device and inode).
 * Without a cache folder, or on any doubt, libtcc reads the script. */
static struct {
    int state;                /* 0 not yet looked at, 1 usable, -1 not */
    char dir[PATH_MAX];       /* the folder with libc.so */
    char nonshared[PATH_MAX]; /* libc_nonshared.a */
} libc_link;

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int make_libc_link(void)
{
    char libc[PATH_MAX];
    int (*fn)(const char *, ...) = printf;
    const char *cache = cm_jit_cache_dir();
    if (!cache || loaded_from((void *)fn, "libc.so", libc) != 0)
        return -1;
    /* the script's directory: /usr + the libc's (/lib/x86_64-linux-gnu) */
    const char *slash = strrchr(libc, '/');
    int n = snprintf(libc_link.nonshared, PATH_MAX, "%s%.*s/libc_nonshared.a",
                     strncmp(libc, "/usr/", 5) == 0 ? "" : "/usr", (int)(slash - libc), libc);
    if (n >= PATH_MAX || access(libc_link.nonshared, R_OK) != 0)
        return -1;
    n = snprintf(libc_link.dir, PATH_MAX, "%s/tcc-libc", cache);
    for (const char *p = libc; *p && n < PATH_MAX - 1; p++) /* the libc's path, flattened */
        libc_link.dir[n++] = *p == '/' ? '_' : *p;
    libc_link.dir[n] = '\0';
    char link[PATH_MAX + 16], tmp[PATH_MAX + 48];
    snprintf(link, sizeof link, "%s/libc.so", libc_link.dir);
    if (same_file(link, libc))
        return 0;
    if (n >= PATH_MAX - 1 || cm_file_mkdirs(libc_link.dir, NULL) != 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s/libc.so.%ld", libc_link.dir, (long)getpid());
    unlink(tmp);
    if (symlink(libc, tmp) != 0 || rename(tmp, link) != 0) {
        unlink(tmp);
        return -1;
    }
    return same_file(link, libc) ? 0 : -1;
}

/* The folder with libc.so (see libc_link), or NULL. */
static const char *libc_link_dir(void)
{
    if (!libc_link.state)
        libc_link.state = make_libc_link() == 0 ? 1 : -1;
    return libc_link.state == 1 ? libc_link.dir : NULL;
}

/* The session's %cflags and %lib (rt_tcc_set_extra). */
static char *extra_opts;
static cm_names_t extra_files;

void rt_tcc_set_extra(const char *opts, char *const *files, size_t nfiles)
{
    free(extra_opts);
    extra_opts = opts && *opts ? cm_strndup(opts, strlen(opts)) : NULL;
    cm_names_free(&extra_files);
    for (size_t i = 0; i < nfiles; i++)
        cm_names_add(&extra_files, files[i], strlen(files[i]));
}

rt_tcc_t *rt_tcc_new(const char *libdir, cm_error_t *err)
{
    rt_tcc_t *t = calloc(1, sizeof *t);
    if (!t) {
        CM_ERROR(err, 1, "out of memory");
        return NULL;
    }
    t->s = tcc_new();
    if (!t->s) {
        free(t);
        CM_ERROR(err, 1, "libtcc: tcc_new failed");
        return NULL;
    }
    tcc_set_error_func(t->s, t, on_message);
    if (libdir && *libdir)
        tcc_set_lib_path(t->s, libdir);
    const char *libc_dir = libc_link_dir();
    if (libc_dir)
        tcc_add_library_path(t->s, libc_dir); /* before the defaults: the first libc.so */
    /* -g: the line tables of rt_tcc_lines (fault reports name the line) */
    tcc_set_options(t->s, "-g -Wall -Wno-unused-function");
    tcc_set_output_type(t->s, TCC_OUTPUT_MEMORY);
    /* libm by its file: "-lm" finds the libm.so linker script, which this
     * libtcc reads one byte per read() call, ~150 system calls a cell */
    const char *libm = libm_path();
    if (libm)
        tcc_add_file(t->s, libm);
    else
        tcc_add_library(t->s, "m");
    if (extra_opts)
        tcc_set_options(t->s, extra_opts);
    for (size_t i = 0; i < extra_files.n; i++)
        tcc_add_file(t->s, extra_files.v[i]);
    return t;
}

int rt_tcc_add_symbol(rt_tcc_t *t, const char *name, const void *addr)
{
    return tcc_add_symbol(t->s, name, addr) < 0 ? -1 : 0;
}

int rt_tcc_compile(rt_tcc_t *t, const char *src)
{
    return tcc_compile_string(t->s, src) < 0 ? -1 : 0;
}

/* All cells' code and data go into one reserved region, so that every
 * cell is within a 32-bit PC-relative reach of every earlier one: this
 * libtcc (0.9.27) addresses a variable of another cell directly when it is
 * an operand of floating-point arithmetic, and only hidden-visibility
 * symbols (see rt_plan.c) get such direct references resolved right. */
#define ARENA_BYTES (1ul << 30) /* address space only: pages come when used */
#define ARENA_ALIGN 64ul

static unsigned char *arena;
static size_t arena_used;

/* Released code (rt_tcc_release_code), by address, for later images. */
static struct hole {
    size_t at, size; /* offset in the arena; both multiples of ARENA_ALIGN */
} *holes;
static size_t nholes, capholes;

/* The smallest hole that fits size, carved from its end (the rest of the
 * hole then meets the code this image gives back, which comes first in
 * it: holes stay large); else the end of the arena. */
static void *arena_alloc(size_t size)
{
    if (!arena) {
        void *p = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        arena = p;
    }
    size = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    size_t best = nholes;
    for (size_t i = 0; i < nholes; i++)
        if (holes[i].size >= size && (best == nholes || holes[i].size < holes[best].size))
            best = i;
    if (best < nholes) {
        holes[best].size -= size;
        void *p = arena + holes[best].at + holes[best].size;
        if (!holes[best].size) {
            memmove(&holes[best], &holes[best + 1], (nholes - best - 1) * sizeof *holes);
            nholes--;
        }
        return p;
    }
    if (size > ARENA_BYTES - arena_used)
        return NULL;
    void *p = arena + arena_used;
    arena_used += size;
    return p;
}

/* Makes [p, p + size) of the arena free for later images (the whole
 * ARENA_ALIGN blocks inside it), merged with its neighbours. */
static void arena_release(const unsigned char *p, size_t size)
{
    size_t at = ((size_t)(p - arena) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    size_t end = ((size_t)(p - arena) + size) & ~(ARENA_ALIGN - 1);
    if (end <= at)
        return;
    size_t i = 0;
    while (i < nholes && holes[i].at < at)
        i++;
    if (i > 0 && holes[i - 1].at + holes[i - 1].size == at) { /* grows the one before */
        holes[i - 1].size += end - at;
        if (i < nholes && holes[i].at == end) {
            holes[i - 1].size += holes[i].size;
            memmove(&holes[i], &holes[i + 1], (nholes - i - 1) * sizeof *holes);
            nholes--;
        }
        return;
    }
    if (i < nholes && holes[i].at == end) { /* grows the one after */
        holes[i].at = at;
        holes[i].size += end - at;
        return;
    }
    CM_VEC_GROW(holes, nholes, capholes);
    memmove(&holes[i + 1], &holes[i], (nholes - i) * sizeof *holes);
    holes[i] = (struct hole){at, end - at};
    nholes++;
}

void rt_tcc_arena_stats(size_t *placed, size_t *free_bytes)
{
    *placed = arena_used;
    *free_bytes = 0;
    for (size_t i = 0; i < nholes; i++)
        *free_bytes += holes[i].size;
}

int rt_tcc_owns_code(const void *ip)
{
    const unsigned char *p = ip;
    return arena && p >= arena && p < arena + arena_used;
}

int rt_tcc_relocate(rt_tcc_t *t)
{
    if (libc_link.state == 1 && tcc_add_file(t->s, libc_link.nonshared) < 0)
        return -1;
    int size = tcc_relocate(t->s, NULL);
    if (size < 0)
        return -1;
    void *mem = arena_alloc((size_t)size);
    if (!mem) {
        on_message(t, "session: error: the session's code space (1 GiB) is full: use %reset "
                      "or restart the kernel");
        return -1;
    }
    if (tcc_relocate(t->s, mem) < 0)
        return -1;
    t->image = mem;
    t->image_size = ((size_t)size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    t->image_raw = (size_t)size;
    return 0;
}

/* This libtcc writes preprocessed text only to stdout (the state's output
 * file cannot be set through the API), so the stdout variable points at a
 * temporary file meanwhile (the executor's stdout is a stream with no fd
 * of its own: see rt_output). */
int rt_tcc_preprocess(const char *libdir, const char *src, cm_buf_t *out, cm_error_t *err)
{
    FILE *tmp = tmpfile();
    if (!tmp) {
        CM_ERROR(err, 1, "preprocessing: no temporary file");
        return -1;
    }
    FILE *saved = stdout; /* the state takes stdout when it is made */
    stdout = tmp;
    rt_tcc_t *t = rt_tcc_new(libdir, err);
    int rc = -1;
    if (t) {
        tcc_set_options(t->s, "-dD");
        tcc_set_output_type(t->s, TCC_OUTPUT_PREPROCESS);
        rc = tcc_compile_string(t->s, src) < 0 ? -1 : 0;
    }
    fflush(tmp);
    stdout = saved;
    if (!t) {
        fclose(tmp);
        return -1;
    }
    if (rc != 0) {
        CM_ERROR(err, 1, "preprocessing failed: %s", t->n ? t->diags[0].msg : "(no message)");
    } else {
        rewind(tmp);
        cm_buf_add_stream(out, tmp);
    }
    fclose(tmp);
    rt_tcc_free(t);
    return rc;
}

void *rt_tcc_symbol(rt_tcc_t *t, const char *name)
{
    return tcc_get_symbol(t->s, name);
}

/* The line tables of a -g compilation are libtcc's stabs, in the sections
 * ".stab" (12-byte entries) and ".stabstr" (their strings). Sections are
 * not part of libtcc's API: find_section is an exported function of the
 * libtcc.a gpuc links (0.9.27), and a section begins with its used size
 * and its data, as in every libtcc since 0.9.25; the fields up to sh_addr
 * (where it was relocated) are those of 0.9.27's Section, and are used
 * only where the address checks out (rt_tcc_code_of). */
typedef struct tcc_section_head {
    unsigned long data_offset;
    unsigned char *data;
    unsigned long data_allocated;
    void *s1;
    int sh_name, sh_num, sh_type, sh_flags, sh_info, sh_addralign, sh_entsize;
    unsigned long sh_size;
    uintptr_t sh_addr;
} tcc_section_head_t;
extern tcc_section_head_t *find_section(TCCState *s1, const char *name);

typedef struct stab_entry {
    uint32_t strx;
    uint8_t type, other;
    uint16_t desc;
    uint32_t value;
} stab_entry_t;

enum { N_FUN = 0x24, N_SLINE = 0x44, N_SO = 0x64, N_SOL = 0x84 };

/* The arena address whose low 32 bits are low (stabs keep only those). */
static const void *arena_address(uint32_t low)
{
    uintptr_t base = (uintptr_t)arena, end = base + arena_used;
    for (uintptr_t hi = base & ~(uintptr_t)0xFFFFFFFFu; hi <= end; hi += (uintptr_t)1 << 32) {
        uintptr_t a = hi | low;
        if (a >= base && a < end)
            return (const void *)a;
    }
    return NULL;
}

void rt_tcc_lines(rt_tcc_t *t, void *ctx,
                  void (*fn)(void *ctx, const void *addr, const char *file, int line))
{
    if (!t->s || !arena)
        return;
    tcc_section_head_t *st = find_section(t->s, ".stab");
    tcc_section_head_t *str = find_section(t->s, ".stabstr");
    if (!st || !str || !st->data || !str->data || st->data_offset % sizeof(stab_entry_t))
        return;
    const stab_entry_t *e = (const stab_entry_t *)st->data;
    size_t n = st->data_offset / sizeof *e;
    const char *file = "";
    const unsigned char *func = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *name = e[i].strx < str->data_offset ? (const char *)str->data + e[i].strx : "";
        if (e[i].type == N_SO || e[i].type == N_SOL)
            file = name;
        else if (e[i].type == N_FUN && name[0])
            func = arena_address(e[i].value);
        else if (e[i].type == N_SLINE && func)
            fn(ctx, func + e[i].value, file, e[i].desc);
    }
}

/* Non-zero when every function of the compilation's stabs is named with
 * prefix ("__gpuc_cell": a cell's generated parts and entry). */
static int only_functions_of(TCCState *s, const char *prefix)
{
    tcc_section_head_t *st = find_section(s, ".stab");
    tcc_section_head_t *str = find_section(s, ".stabstr");
    if (!st || !str || !st->data || !str->data || st->data_offset % sizeof(stab_entry_t))
        return 0;
    const stab_entry_t *e = (const stab_entry_t *)st->data;
    size_t n = st->data_offset / sizeof *e, len = strlen(prefix);
    for (size_t i = 0; i < n; i++) {
        if (e[i].type != N_FUN || e[i].strx >= str->data_offset)
            continue;
        const char *name = (const char *)str->data + e[i].strx;
        if (name[0] && strncmp(name, prefix, len) != 0)
            return 0;
    }
    return 1;
}

static uintptr_t section_end(const tcc_section_head_t *sec)
{
    return sec->sh_addr + sec->data_offset;
}

/* This libtcc lays an image out in groups, each starting on a 64-byte
 * boundary and holding its sections in the order they were made: the
 * executable ones (.text, .plt), then the writable ones (.data, .bss, the
 * ones a cell names itself, .got: made at relocation, so last); the size
 * it asks for is the end of the last section plus the largest alignment
 * less one (63 at least). Where the sections found are not where that
 * says, nothing is given. */
int rt_tcc_code_of(rt_tcc_t *t, const char *prefix, rt_tcc_code_t *code)
{
    memset(code, 0, sizeof *code);
    if (!t->s || !t->image || !only_functions_of(t->s, prefix))
        return -1;
    tcc_section_head_t *text = find_section(t->s, ".text"), *plt = find_section(t->s, ".plt");
    tcc_section_head_t *data = find_section(t->s, ".data"), *bss = find_section(t->s, ".bss");
    tcc_section_head_t *got = find_section(t->s, ".got");
    uintptr_t lo = (uintptr_t)t->image, hi = lo + t->image_size;
    if (!text || !plt || !data || !bss || !got || text->sh_addr != lo || section_end(text) > hi)
        return -1;
    uintptr_t exec_end = section_end(text);
    if (plt->data_offset) {
        if (plt->sh_addr < exec_end || plt->sh_addr - exec_end >= 16 || section_end(plt) > hi)
            return -1;
        exec_end = section_end(plt);
    }
    if (data->sh_addr < exec_end || data->sh_addr - exec_end >= 64 || got->sh_addr < data->sh_addr)
        return -1;
    int max_align = 63;
    tcc_section_head_t *all[] = {text, plt, data, bss, got};
    for (int i = 0; i < 5; i++)
        if (all[i]->sh_addralign - 1 > max_align)
            max_align = all[i]->sh_addralign - 1;
    /* the GOT is the last section: nothing of size lies after it */
    int got_last = lo + t->image_raw == section_end(got) + (uintptr_t)max_align;
    if (got_last && !data->data_offset && !bss->data_offset && got->sh_addr == data->sh_addr &&
        bss->sh_addr == data->sh_addr) { /* no data: all of it is code */
        code->at[code->n] = t->image;
        code->size[code->n++] = t->image_size;
        return 0;
    }
    code->at[code->n] = t->image;
    code->size[code->n++] = exec_end - lo;
    if (got->data_offset) {
        code->at[code->n] = (void *)got->sh_addr;
        code->size[code->n++] = (got_last ? hi : section_end(got)) - got->sh_addr;
    }
    return 0;
}

void rt_tcc_release_code(const rt_tcc_code_t *code)
{
    for (int i = 0; i < code->n; i++)
        arena_release(code->at[i], code->size[i]);
}

const rt_diag_t *rt_tcc_diags(const rt_tcc_t *t, size_t *n)
{
    *n = t->n;
    return t->diags;
}

static void free_diags(rt_tcc_t *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->diags[i].file);
        free(t->diags[i].msg);
    }
    free(t->diags);
}

void rt_tcc_keep(rt_tcc_t *t)
{
    if (!t)
        return;
    free_diags(t);
    t->diags = NULL;
    t->n = t->cap = 0;
}

void rt_tcc_list_symbols(rt_tcc_t *t, void *ctx,
                         void (*fn)(void *ctx, const char *name, const void *addr))
{
    if (t->s)
        tcc_list_symbols(t->s, ctx, fn);
}

void rt_tcc_free(rt_tcc_t *t)
{
    if (!t)
        return;
    if (t->s)
        tcc_delete(t->s);
    free_diags(t);
    free(t);
}
