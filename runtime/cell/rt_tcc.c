/* rt_tcc: libtcc wrapper with diagnostics capture (see rt_tcc.h). */
#include "rt_tcc.h"

#include <dlfcn.h>
#include <elf.h>
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
#include "cm_cache.h"
#include "cm_vec.h"

struct rt_tcc {
    TCCState *s;
    unsigned char *image; /* the relocated code and data in the arena, or NULL */
    size_t image_raw;     /* bytes libtcc asked for */
    /* where its groups are (find_layout), or got_end 0: not known */
    uintptr_t exec_end;   /* the end of .text and .plt */
    uintptr_t data, got;  /* the writable group's start and its .got */
    uintptr_t got_end;    /* the end of .got, the end of the image */
    /* .data and .bss: in the writable group, or moved (move_data) */
    uintptr_t kept, kept_end;
    int moved;
    /* the cell's own functions, moved by code_delta (rt_tcc_move_functions) */
    uintptr_t code_from, code_end;
    intptr_t code_delta;
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
    const char *cache = cm_cache_dir();
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

/* Sections are not part of libtcc's API: find_section is an exported
 * function of the libtcc.a gpuc links (0.9.27; it makes an empty section
 * of the name when there is none), and a section begins with its used
 * size and its data, as in every libtcc since 0.9.25; the fields up to
 * sh_addr (where it was relocated) are those of 0.9.27's Section, and are
 * used only where the addresses check out (find_layout). */
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

/* All cells' code and data go into one reserved region, so that every
 * cell is within a 32-bit PC-relative reach of every earlier one: this
 * libtcc (0.9.27) addresses a variable of another cell directly when it is
 * an operand of floating-point arithmetic, and only hidden-visibility
 * symbols (see rt_plan.c) get such direct references resolved right. */
#define ARENA_BYTES (1ul << 30) /* address space only: pages come when used */
#define ARENA_ALIGN 16ul /* what is placed and given back: libtcc's section alignment */
#define IMAGE_ALIGN 64ul /* where an image starts: libtcc's group alignment (rt_tcc_code_of) */

static unsigned char *arena;
static size_t arena_used; /* the end of the last image placed */
static size_t arena_high; /* the most arena_used has been (pages touched) */
static size_t data_low = ARENA_BYTES; /* the data moved out of images lies above (move_data) */

/* Space given back (rt_tcc_release_code, an image's padding), by address,
 * merged with its neighbours, for later images; none ends at arena_used.
 * There are about as many as kept images (one a cell, in a long session). */
static struct hole {
    uint32_t at, size; /* offset in the arena (< ARENA_BYTES); multiples of ARENA_ALIGN */
} *holes;
static size_t nholes, capholes;

static size_t round_up(size_t n, size_t align)
{
    return (n + align - 1) & ~(align - 1);
}

/* Makes [at, end) of the arena free (offsets, multiples of ARENA_ALIGN);
 * free space that reaches the end of the arena shortens it instead. */
static void arena_free(size_t at, size_t end)
{
    if (end <= at)
        return;
    size_t i = 0;
    while (i < nholes && holes[i].at < at)
        i++;
    if (i < nholes && holes[i].at == end) { /* joins the one after */
        end += holes[i].size;
        memmove(&holes[i], &holes[i + 1], (nholes - i - 1) * sizeof *holes);
        nholes--;
    }
    if (i > 0 && holes[i - 1].at + holes[i - 1].size == at) { /* joins the one before */
        at = holes[--i].at;
        memmove(&holes[i], &holes[i + 1], (nholes - i - 1) * sizeof *holes);
        nholes--;
    }
    if (end == arena_used) {
        arena_used = at;
        return;
    }
    CM_VEC_GROW(holes, nholes, capholes);
    memmove(&holes[i + 1], &holes[i], (nholes - i) * sizeof *holes);
    holes[i] = (struct hole){(uint32_t)at, (uint32_t)(end - at)};
    nholes++;
}

/* Room for an image of size bytes starting on an IMAGE_ALIGN boundary:
 * at the first one in the smallest hole that holds it (what stays of an
 * image, the code of a cell's own functions, is its start: it then meets
 * what stays before it, and the rest of the hole stays whole); else at
 * the end of the arena. */
int rt_tcc_reserve(void)
{
    if (!arena) {
        void *p = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return -1;
        arena = p;
    }
    return 0;
}

static void *arena_alloc(size_t size)
{
    if (rt_tcc_reserve() != 0)
        return NULL;
    size = round_up(size, ARENA_ALIGN);
    size_t best = nholes, best_at = 0;
    for (size_t i = 0; i < nholes; i++) {
        size_t end = (size_t)holes[i].at + holes[i].size;
        if (holes[i].size < size || (best < nholes && holes[i].size >= holes[best].size))
            continue;
        size_t at = round_up(holes[i].at, IMAGE_ALIGN);
        if (at + size <= end) {
            best = i;
            best_at = at;
        }
    }
    if (best < nholes) {
        size_t at = holes[best].at, end = at + (size_t)holes[best].size;
        memmove(&holes[best], &holes[best + 1], (nholes - best - 1) * sizeof *holes);
        nholes--;
        arena_free(at, best_at);
        arena_free(best_at + size, end);
        return arena + best_at;
    }
    size_t at = round_up(arena_used, IMAGE_ALIGN);
    if (at > data_low || size > data_low - at)
        return NULL;
    size_t before = arena_used;
    arena_used = at + size;
    if (arena_used > arena_high)
        arena_high = arena_used;
    arena_free(before, at);
    return arena + at;
}

/* Makes the whole ARENA_ALIGN blocks of [p, end) free for later images. */
static void arena_release(uintptr_t p, uintptr_t end)
{
    uintptr_t base = (uintptr_t)arena;
    if (end > p)
        arena_free(round_up(p - base, ARENA_ALIGN), (end - base) & ~(ARENA_ALIGN - 1));
}

void rt_tcc_arena_stats(size_t *placed, size_t *free_bytes)
{
    *placed = arena_high + (ARENA_BYTES - data_low);
    *free_bytes = arena_high - arena_used;
    for (size_t i = 0; i < nholes; i++)
        *free_bytes += holes[i].size;
}

int rt_tcc_owns_code(const void *ip)
{
    const unsigned char *p = ip;
    return arena && p >= arena && p < arena + ARENA_BYTES &&
           (p < arena + arena_used || p >= arena + data_low);
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
 * less one (63 at least). Records where the groups of t's image are, when
 * the sections found are where that says (else exec_end stays 0: nothing
 * is known), and where the image ends when the GOT is its last section
 * (else got_end stays 0). */
static void find_layout(rt_tcc_t *t)
{
    tcc_section_head_t *text = find_section(t->s, ".text"), *plt = find_section(t->s, ".plt");
    tcc_section_head_t *data = find_section(t->s, ".data"), *bss = find_section(t->s, ".bss");
    tcc_section_head_t *got = find_section(t->s, ".got");
    uintptr_t lo = (uintptr_t)t->image, hi = lo + t->image_raw;
    if (!text || !plt || !data || !bss || !got || text->sh_addr != lo || section_end(text) > hi)
        return;
    uintptr_t exec_end = section_end(text);
    if (plt->data_offset) {
        if (plt->sh_addr < exec_end || plt->sh_addr - exec_end >= 16 || section_end(plt) > hi)
            return;
        exec_end = section_end(plt);
    }
    if (data->sh_addr < exec_end || data->sh_addr - exec_end >= 64 ||
        got->sh_addr < data->sh_addr || section_end(got) > hi)
        return;
    t->exec_end = exec_end;
    t->data = t->kept = data->sh_addr;
    t->got = t->kept_end = got->sh_addr;
    int max_align = 63;
    tcc_section_head_t *all[] = {text, plt, data, bss, got};
    for (int i = 0; i < 5; i++)
        if (all[i]->sh_addralign - 1 > max_align)
            max_align = all[i]->sh_addralign - 1;
    /* the GOT is the last section: nothing of size lies after it */
    if (hi == section_end(got) + (uintptr_t)max_align)
        t->got_end = section_end(got);
}

/* The bytes an image needs from an IMAGE_ALIGN boundary: the end of its
 * .got when its sections laid out as find_layout says, from address 0,
 * end there and that end plus 63 is the size libtcc asked for (raw: the
 * room for any start); else raw. A section not named here that has any
 * size or a larger alignment would make the two differ. */
static size_t image_extent(TCCState *s, size_t raw)
{
    static const char *const order[] = {".text", ".plt", ".data", ".bss", ".got"};
    size_t end = 0;
    for (int i = 0; i < 5; i++) {
        tcc_section_head_t *sec = find_section(s, order[i]);
        size_t align = (size_t)sec->sh_addralign;
        if (!align || (align & (align - 1)) || align > IMAGE_ALIGN)
            return raw;
        if (i == 0 || i == 2) /* the first of its group */
            align = IMAGE_ALIGN;
        end = round_up(end, align) + sec->data_offset;
    }
    return end + IMAGE_ALIGN - 1 == raw ? end : raw;
}

/* A field that a relocation of type wrote, moved by delta (its target
 * moved, or itself away from its target): 0, or -1 where that is not a
 * type this knows or the result does not fit. Only checks when apply is
 * 0. */
static int move_field(unsigned char *at, int type, intptr_t delta, int apply)
{
    if (type == R_X86_64_64) {
        uint64_t v;
        memcpy(&v, at, 8);
        v += (uint64_t)delta;
        if (apply)
            memcpy(at, &v, 8);
        return 0;
    }
    if (type != R_X86_64_PC32 && type != R_X86_64_PLT32) /* PLT32: to a symbol of the image */
        return -1;
    int32_t v;
    memcpy(&v, at, 4);
    int64_t moved = (int64_t)v + delta;
    if (moved < INT32_MIN || moved > INT32_MAX)
        return -1;
    v = (int32_t)moved;
    if (apply)
        memcpy(at, &v, 4);
    return 0;
}

/* One relocation of .text or .data, as each_reloc gives it. */
typedef struct reloc {
    int in_data;          /* 0: a field in .text, 1: in .data */
    unsigned char *at;    /* the field, where it is now */
    int type;             /* R_X86_64_... */
    const Elf64_Sym *sym; /* its symbol (st_value: where it is now) */
    uintptr_t to;         /* the symbol plus the addend (plus 4 for a PC-relative field: the
                           * addend counts from the field's end) */
} reloc_t;

/* Calls fn for each relocation of t's .text and .data until it returns
 * non-zero: that value, 0, or -1 where the tables are not as expected. */
static int each_reloc(rt_tcc_t *t, void *ctx, int (*fn)(void *ctx, const reloc_t *r))
{
    tcc_section_head_t *symtab = find_section(t->s, ".symtab");
    if (!symtab->data || symtab->data_offset % sizeof(Elf64_Sym))
        return -1;
    const Elf64_Sym *sym = (const Elf64_Sym *)symtab->data;
    size_t nsyms = symtab->data_offset / sizeof *sym;
    static const char *const relas[] = {".rela.text", ".rela.data"}, *const secs[] = {".text", ".data"};
    for (int k = 0; k < 2; k++) {
        tcc_section_head_t *rela = find_section(t->s, relas[k]);
        uintptr_t base = find_section(t->s, secs[k])->sh_addr;
        const Elf64_Rela *r = (const Elf64_Rela *)rela->data;
        if (rela->data_offset && (!r || rela->data_offset % sizeof *r))
            return -1;
        for (size_t i = 0; r && i < rela->data_offset / sizeof *r; i++) {
            size_t si = ELF64_R_SYM(r[i].r_info);
            if (si >= nsyms)
                return -1;
            reloc_t x = {k, (unsigned char *)(base + r[i].r_offset), (int)ELF64_R_TYPE(r[i].r_info),
                         &sym[si], sym[si].st_value + (uintptr_t)r[i].r_addend};
            if (x.type == R_X86_64_PC32 || x.type == R_X86_64_PLT32)
                x.to += 4;
            int rc = fn(ctx, &x);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* A piece of an image on its way to the kept data: [from, end) to
 * from + delta. */
typedef struct move {
    uintptr_t from, end;
    intptr_t delta;
    int apply;          /* 0: only check that every relocation can follow */
    int shndx[2];       /* the sections it is of (.data and .bss, or .text twice) */
    int whole;          /* it is all of them (symbols at its end go with it) */
} move_t;

/* Where a move lands: ARENA_ALIGN blocks below the kept data, or NULL
 * where that would meet the images. */
static unsigned char *kept_room(size_t size)
{
    size = round_up(size, ARENA_ALIGN);
    return size > data_low - round_up(arena_used, IMAGE_ALIGN) ? NULL : arena + data_low - size;
}

/* The end of t's .data and .bss, as they lie now. */
static uintptr_t data_end(const rt_tcc_t *t)
{
    uintptr_t d = section_end(find_section(t->s, ".data"));
    uintptr_t b = section_end(find_section(t->s, ".bss"));
    return d > b ? d : b;
}

/* Whether the GOT comes right after the data ending at end (8-byte
 * alignment apart): nothing else lies before it. */
static int got_follows(const rt_tcc_t *t, uintptr_t end)
{
    return t->got >= end && t->got - end < 8;
}

/* Moves the piece, with the GOT's entries and the symbols that point
 * into it (its fields have been moved). */
static void move_piece(rt_tcc_t *t, const move_t *m)
{
    tcc_section_head_t *got = find_section(t->s, ".got"), *symtab = find_section(t->s, ".symtab");
    for (uintptr_t slot = t->got; slot + 8 <= section_end(got); slot += 8) {
        uint64_t v;
        memcpy(&v, (const void *)slot, 8);
        if (v >= m->from && v < m->end) {
            v += (uint64_t)m->delta;
            memcpy((void *)slot, &v, 8);
        }
    }
    Elf64_Sym *sym = (Elf64_Sym *)symtab->data;
    for (size_t i = 0; i < symtab->data_offset / sizeof *sym; i++)
        if ((sym[i].st_shndx == m->shndx[0] || sym[i].st_shndx == m->shndx[1]) &&
            ELF64_ST_TYPE(sym[i].st_info) != STT_SECTION && sym[i].st_value >= m->from &&
            (sym[i].st_value < m->end || (m->whole && sym[i].st_value == m->end)))
            sym[i].st_value += (uintptr_t)m->delta;
    memcpy((void *)(m->from + m->delta), (const void *)m->from, m->end - m->from);
    data_low = (size_t)(m->from + m->delta - (uintptr_t)arena);
}

/* move_data's check of a relocation: the fields that reach the data
 * (from .text, PC-relative or absolute; from .data, absolute) move with
 * it; a GOT entry is moved with the pointers. */
static int data_reloc(void *ctx, const reloc_t *r)
{
    const move_t *m = ctx;
    if (r->sym->st_shndx != m->shndx[0] && r->sym->st_shndx != m->shndx[1])
        /* a field in .data moves with it: only an absolute one can */
        return (r->to >= m->from && r->to < m->end) || (r->in_data && r->type != R_X86_64_64);
    if (!r->in_data && r->type == R_X86_64_GOTPCREL)
        return 0; /* to its GOT entry */
    return r->type == R_X86_64_PLT32 || move_field(r->at, r->type, m->delta, m->apply) != 0;
}

/* Moves t's .data and .bss (what stays of a cell whose code is given
 * back: its variables, string literals, static locals) out of the image
 * to the kept data at the top of the arena, packed in ARENA_ALIGN blocks:
 * the rest of the image is then one piece, given back whole, instead of
 * a hole on each side of a few bytes that stay. Before anything has run
 * or looked a symbol up, so the code's references to the data (PC-
 * relative or absolute), the pointers to it in .data, the GOT's entries
 * and the symbols' addresses are all there is to move with it: done only
 * where every relocation that concerns it is one of those (a PC-relative
 * field in .data: no), where nothing but .data and .bss lies before the
 * GOT and neither asks for more than ARENA_ALIGN alignment; else the data
 * stays where libtcc put it. */
static void move_data(rt_tcc_t *t)
{
    tcc_section_head_t *data = find_section(t->s, ".data"), *bss = find_section(t->s, ".bss");
    uintptr_t end = data_end(t);
    unsigned char *dest = kept_room(end - t->data);
    if (!t->exec_end || end <= t->data || !got_follows(t, end) || !dest ||
        data->sh_addralign > (int)ARENA_ALIGN || bss->sh_addralign > (int)ARENA_ALIGN)
        return;
    move_t m = {t->data, end, (intptr_t)((uintptr_t)dest - t->data), 0,
                {data->sh_num, bss->sh_num}, 1};
    if (each_reloc(t, &m, data_reloc) != 0)
        return;
    m.apply = 1;
    each_reloc(t, &m, data_reloc);
    move_piece(t, &m);
    data->sh_addr += (uintptr_t)m.delta;
    bss->sh_addr += (uintptr_t)m.delta;
    t->kept = (uintptr_t)dest;
    t->kept_end = (uintptr_t)dest + (end - m.from);
    t->moved = 1;
}

int rt_tcc_relocate(rt_tcc_t *t)
{
    if (libc_link.state == 1 && tcc_add_file(t->s, libc_link.nonshared) < 0)
        return -1;
    int size = tcc_relocate(t->s, NULL);
    if (size < 0)
        return -1;
    size_t need = image_extent(t->s, (size_t)size);
    void *mem = arena_alloc(need);
    if (!mem) {
        on_message(t, "session: error: the session's code space (1 GiB) is full: use %reset "
                      "or restart the kernel");
        return -1;
    }
    uintptr_t lo = (uintptr_t)mem;
    if (tcc_relocate(t->s, mem) < 0) {
        arena_release(lo, lo + need); /* nothing can run it */
        return -1;
    }
    t->image = mem;
    t->image_raw = (size_t)size;
    find_layout(t);
    move_data(t);
    if (t->got_end) /* the room for any start that libtcc asks for, left empty here */
        arena_release(t->got_end, lo + round_up(need, ARENA_ALIGN));
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
 * ".stab" (12-byte entries) and ".stabstr" (their strings). */
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

/* Where the code at p of t's image is now (rt_tcc_move_functions). */
static const unsigned char *moved_code(const rt_tcc_t *t, const unsigned char *p)
{
    uintptr_t a = (uintptr_t)p;
    return p && a >= t->code_from && a < t->code_end ? p + t->code_delta : p;
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
            func = moved_code(t, arena_address(e[i].value));
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

/* own_functions_end's check of a relocation: from the functions that
 * stay (.text before end) or from .data, only to them or to the data. */
static int stays_reloc(void *ctx, const reloc_t *r)
{
    const uintptr_t *keep = ctx; /* image start, end of own functions, data, its end */
    if (!r->in_data && (uintptr_t)r->at >= keep[1])
        return 0; /* in code given back */
    if (r->sym->st_shndx == SHN_UNDEF || r->sym->st_shndx >= SHN_LORESERVE ||
        (r->type != R_X86_64_PC32 && r->type != R_X86_64_PLT32 && r->type != R_X86_64_64))
        return 1;
    return !((r->to >= keep[0] && r->to < keep[1]) || (r->to >= keep[2] && r->to < keep[3]));
}

/* Where the code of a compilation's other functions (those not named with
 * prefix: a cell's own) ends, when they all come before the functions
 * named with prefix and all that stays refers only to what stays: every
 * relocation in .text before that end or in .data is to a symbol defined
 * in the image, at an address before that end or in its data (.data and
 * .bss, moved or not): a call through the PLT, a GOT entry, a library or
 * an earlier cell, no. 0 when that is not so: everything stays. */
static uintptr_t own_functions_end(rt_tcc_t *t, const char *prefix)
{
    tcc_section_head_t *symtab = find_section(t->s, ".symtab");
    tcc_section_head_t *strtab = find_section(t->s, ".strtab");
    tcc_section_head_t *text = find_section(t->s, ".text");
    if (!symtab->data || !strtab->data || symtab->data_offset % sizeof(Elf64_Sym))
        return 0;
    const Elf64_Sym *sym = (const Elf64_Sym *)symtab->data;
    size_t nsyms = symtab->data_offset / sizeof *sym, len = strlen(prefix);
    uintptr_t own_last = 0, first_generated = UINTPTR_MAX;
    for (size_t i = 0; i < nsyms; i++) {
        if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || sym[i].st_shndx != text->sh_num ||
            sym[i].st_name >= strtab->data_offset)
            continue;
        const char *name = (const char *)strtab->data + sym[i].st_name;
        if (strncmp(name, prefix, len) == 0) {
            if (sym[i].st_value < first_generated)
                first_generated = sym[i].st_value;
        } else if (sym[i].st_value > own_last) {
            own_last = sym[i].st_value;
        }
    }
    uintptr_t keep[] = {(uintptr_t)t->image, first_generated, t->kept, t->kept_end};
    if (!own_last || keep[1] == UINTPTR_MAX || own_last >= keep[1] || keep[1] >= t->exec_end)
        return 0;
    if (!t->moved && !got_follows(t, data_end(t)))
        return 0; /* something else lies before the GOT */
    return each_reloc(t, keep, stays_reloc) == 0 ? keep[1] : 0;
}

/* move_functions' check of a relocation: the fields that reach the
 * functions from outside move with them, absolute ones inside them too,
 * and PC-relative ones inside them to elsewhere (the data) away. */
static int code_reloc(void *ctx, const reloc_t *r)
{
    const move_t *m = ctx;
    int at = !r->in_data && (uintptr_t)r->at >= m->from && (uintptr_t)r->at < m->end;
    int to = r->to >= m->from && r->to < m->end;
    if (r->type == R_X86_64_GOTPCREL && !at)
        return 0; /* to a GOT entry, moved with the pointers */
    if (to && (!at || r->type == R_X86_64_64))
        return move_field(r->at, r->type, m->delta, m->apply) != 0;
    if (at && !to && r->type != R_X86_64_64)
        return move_field(r->at, r->type, -m->delta, m->apply) != 0;
    return 0;
}

int rt_tcc_move_functions(rt_tcc_t *t, const char *prefix)
{
    if (!t->s || !t->image || !t->exec_end || only_functions_of(t->s, prefix))
        return -1;
    uintptr_t end = own_functions_end(t, prefix);
    unsigned char *dest = end ? kept_room(end - (uintptr_t)t->image) : NULL;
    if (!dest || (!t->moved && t->kept_end > t->kept))
        return -1; /* its data would stay in the image */
    int text = find_section(t->s, ".text")->sh_num;
    move_t m = {(uintptr_t)t->image, end, (intptr_t)((uintptr_t)dest - (uintptr_t)t->image), 0,
                {text, text}, 0};
    if (each_reloc(t, &m, code_reloc) != 0)
        return -1;
    m.apply = 1;
    each_reloc(t, &m, code_reloc);
    move_piece(t, &m);
    t->code_from = m.from;
    t->code_end = m.end;
    t->code_delta = m.delta;
    return 0;
}

/* The code is the executable group with the padding after it, and the
 * GOT; what lies between (.data, .bss, sections of its own) stays. When
 * the compilation has functions of its own (not named with prefix) that
 * were not moved, their code stays too, and the rest is given back only
 * as own_functions_end allows. */
int rt_tcc_code_of(rt_tcc_t *t, const char *prefix, rt_tcc_code_t *code)
{
    memset(code, 0, sizeof *code);
    if (!t->s || !t->image || !t->exec_end)
        return -1;
    uintptr_t from = (uintptr_t)t->image;
    if (!t->code_end && !only_functions_of(t->s, prefix) && !(from = own_functions_end(t, prefix)))
        return -1;
    /* the image ends at got_end: its last block is the GOT's */
    uintptr_t got_end = t->got_end ? round_up(t->got_end, ARENA_ALIGN)
                                   : section_end(find_section(t->s, ".got"));
    code->at[code->n] = (void *)from;
    code->size[code->n++] = (t->moved ? (got_end > t->got ? got_end : t->got) : t->data) - from;
    if (!t->moved && got_end > t->got) {
        code->at[code->n] = (void *)t->got;
        code->size[code->n++] = got_end - t->got;
    }
    return 0;
}

void rt_tcc_release_code(const rt_tcc_code_t *code)
{
    for (int i = 0; i < code->n; i++)
        arena_release((uintptr_t)code->at[i], (uintptr_t)code->at[i] + code->size[i]);
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
