/* sim_compile: kernel cells compiled by g++ for the simulator (see sim.h).
 *
 * The source is the prelude, then the cell's device code as backend/cuda/ put it
 * together (parts marked `#line 1 "cell[k]"`) with two rewrites that keep
 * every line where it was - #include lines of CUDA's headers (and of
 * assert.h, which would undo the device assert) become empty lines, and an
 * `extern __shared__ T name[];` becomes a macro for the launch's dynamic
 * shared memory - then one C entry point per kernel. backend/cpu/cpu_jit compiles
 * and caches it. */
#include "sim.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "cpu_jit.h"
#include "sim_abi.h"
#include "sim_check.h"
#include "sim_prelude.h"

/* -g1: line tables, so that a fault or an interrupt can name the line */
#define FLAGS "-O2 -g1 -std=c++17 -w -fno-math-errno -fno-diagnostics-show-caret"

/* Headers whose contents the prelude provides. */
static int provided_header(const char *line)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '#')
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "include", 7) != 0)
        return 0;
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    static const char *const names[] = {"cuda.h", "cuda_runtime", "cuda_fp16", "device_launch_parameters",
                                        "device_functions", "assert.h", "cassert", "math_constants"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *hit = strstr(p, names[i]);
        if (hit && (size_t)(hit - p) < len)
            return 1;
    }
    return 0;
}

/* `extern __shared__ TYPE NAME[];` at line[from, to): a macro for NAME,
 * then #line so the rest of the line keeps its number. 0 when the text
 * is not that shape. */
static int rewrite_extern_shared(const char *decl, size_t len, const char *file, int line,
                                 cm_buf_t *out)
{
    const char *br = memchr(decl, '[', len);
    if (!br)
        return 0;
    const char *end = br;
    while (end > decl && isspace((unsigned char)end[-1]))
        end--;
    const char *name = end;
    while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
        name--;
    if (name == end)
        return 0;
    cm_buf_t type = {0};
    for (const char *p = decl; p < name;) { /* the type, without __align__(n) */
        if (strncmp(p, "__align__", 9) == 0) {
            const char *close = memchr(p, ')', (size_t)(name - p));
            p = close ? close + 1 : name;
            continue;
        }
        cm_buf_addc(&type, *p++);
    }
    cm_buf_addf(out, "\n#undef %.*s\n#define %.*s ((%s *)__gpuc_dyn_shared())\n",
                (int)(end - name), name, (int)(end - name), name, cm_buf_str(&type));
    cm_buf_addf(out, "#line %d \"%s\"\n", line, file);
    cm_buf_free(&type);
    return 1;
}

/* The rewrites described at the top, line by line. */
void sim_rewrite_source(const char *src, cm_buf_t *out)
{
    char file[64] = "gpuc";
    int line = 1;
    for (const char *p = src; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int n;
        char name[64];
        if (sscanf(p, "#line %d \"%63[^\"]\"", &n, name) == 2) {
            cm_buf_add(out, p, len);
            snprintf(file, sizeof file, "%s", name);
            line = n;
        } else if (provided_header(p)) {
            /* an empty line */
            line++;
        } else {
            const char *ext = NULL;
            for (const char *q = p; q + 6 < p + len && !ext; q++) {
                if (strncmp(q, "extern", 6) == 0 && (q == p || !isalnum((unsigned char)q[-1]))) {
                    const char *r = q + 6;
                    while (r < p + len && isspace((unsigned char)*r))
                        r++;
                    if (strncmp(r, "__shared__", 10) == 0)
                        ext = q;
                }
            }
            const char *semi = ext ? memchr(ext, ';', (size_t)(p + len - ext)) : NULL;
            const char *decl = ext ? strstr(ext, "__shared__") + 10 : NULL;
            if (semi && rewrite_extern_shared(decl, (size_t)(semi - decl), file, line, out)) {
                cm_buf_add(out, p, (size_t)(ext - p));
                cm_buf_add(out, semi + 1, (size_t)(p + len - semi - 1));
            } else {
                cm_buf_add(out, p, len);
            }
            line++;
        }
        cm_buf_addc(out, '\n');
        p = nl ? nl + 1 : p + len;
    }
}

/* Line number of part k of src ("cell[k]"), or NULL. Sets *len. */
static const char *source_line(const char *src, const char *part, int want, size_t *len)
{
    char mark[80];
    snprintf(mark, sizeof mark, "#line 1 \"%s\"\n", part);
    const char *p = strstr(src, mark);
    if (!p)
        return NULL;
    p += strlen(mark);
    for (int line = 1; *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (line == want) {
            *len = n;
            return p;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return NULL;
}

/* g++'s "cell[2]:3:5: error: msg" lines as NVRTC writes them: "cell[2](3):
 * error: msg", the source line and a caret under the column. */
static char *nvrtc_style(const char *log, const char *src, char *first, size_t first_len)
{
    cm_buf_t out = {0};
    first[0] = '\0';
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char part[64], sev[32];
        int line, col, used = 0;
        if (sscanf(p, "%63[^:]:%d:%d: %31[a-z ]:%n", part, &line, &col, sev, &used) == 4 && used &&
            (size_t)used <= len && strncmp(part, "cell[", 5) == 0 &&
            (strstr(sev, "error") || strstr(sev, "warning"))) {
            const char *msg = p + used;
            while (*msg == ' ')
                msg++;
            size_t mlen = (size_t)(p + len - msg);
            cm_buf_addf(&out, "%s(%d): %s: %.*s\n", part, line, sev, (int)mlen, msg);
            if (!first[0] && strstr(sev, "error"))
                snprintf(first, first_len, "%s(%d): %s: %.*s", part, line, sev, (int)mlen, msg);
            size_t slen = 0;
            const char *s = source_line(src, part, line, &slen);
            if (s) {
                cm_buf_addf(&out, "  %.*s\n  ", (int)slen, s);
                for (int i = 1; i < col; i++)
                    cm_buf_addc(&out, i - 1 < (int)slen && s[i - 1] == '\t' ? '\t' : ' ');
                cm_buf_adds(&out, "^\n");
            }
            cm_buf_addc(&out, '\n');
        } else if (len && strstr(p, "error") && (size_t)(strstr(p, "error") - p) < len &&
                   !strstr(p, "compilation terminated")) {
            cm_buf_add(&out, p, len);
            cm_buf_addc(&out, '\n');
            if (!first[0])
                snprintf(first, first_len, "%.*s", (int)len, p);
        }
        p = nl ? nl + 1 : p + len;
    }
    return cm_buf_steal(&out);
}

/* g++ flags from the kernel cell's options (NVRTC's): -D, -U, -I, --std,
 * --use_fast_math; the rest means nothing on the CPU. */
static void translate_options(const char *options, cm_buf_t *flags)
{
    cm_buf_adds(flags, FLAGS);
    if (!options)
        return;
    char *copy = strdup(options);
    if (!copy)
        return;
    char *save = NULL, *prev = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; prev = t, t = strtok_r(NULL, " \t", &save)) {
        int takes = prev && (!strcmp(prev, "-D") || !strcmp(prev, "-U") || !strcmp(prev, "-I"));
        if (takes || !strncmp(t, "-D", 2) || !strncmp(t, "-U", 2) || !strncmp(t, "-I", 2) ||
            !strcmp(t, "-D") || !strcmp(t, "-U") || !strcmp(t, "-I")) {
            cm_buf_adds(flags, " '");
            for (const char *c = t; *c; c++)
                if (*c == '\'')
                    cm_buf_adds(flags, "'\\''");
                else
                    cm_buf_addc(flags, *c);
            cm_buf_addc(flags, '\'');
        } else if (!strcmp(t, "--use_fast_math") || !strcmp(t, "-use_fast_math")) {
            cm_buf_adds(flags, " -ffast-math");
        } else if (!strncmp(t, "--std=", 6) || !strncmp(t, "-std=", 5)) {
            cm_buf_addf(flags, " -std=%s", strchr(t, '=') + 1);
        }
    }
    free(copy);
}

/* The checked variant (sim_check.h): g++'s ThreadSanitizer instrumentation,
 * a call before every load and store (with its size, reads and writes
 * apart), none at function entry; linked without the ThreadSanitizer
 * runtime (-nodefaultlibs and the libraries named): the prelude defines the
 * callbacks. No vectorising, so that each access is one a GPU would make. */
#define CHECK_FLAGS                                                                            \
    " -D__GPUC_CHECK__ -fsanitize=thread --param tsan-instrument-func-entry-exit=0"            \
    " -fno-tree-vectorize -fno-tree-slp-vectorize -nodefaultlibs -lstdc++ -lm -lc -lgcc_s"

/* The profiled variant (%%profile): the checked one with a call at each
 * basic block (trace-pc) for the operation counts (sim_profile.c), never
 * as a tail call, so that its return address is the block's. Apart from
 * the checked variant, which it would make three times slower. */
#define PROFILE_FLAGS " -fsanitize-coverage=trace-pc -fno-optimize-sibling-calls"

#define MAX_STATIC_SHARED (48 * 1024) /* what a kernel may declare, as on a GPU */

/* ---- a module file's data objects (sim_check.h) ----------------------- */

void sim_compile_objects(const char *path, void *ctx,
                         void (*fn)(void *ctx, const char *name, uintptr_t value, size_t size,
                                    int shared))
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    cm_buf_t file = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        cm_buf_add(&file, chunk, got);
    fclose(f);
    const unsigned char *b = (const unsigned char *)file.s;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
    if (file.len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > file.len ||
        eh->e_shstrndx >= eh->e_shnum) {
        cm_buf_free(&file);
        return;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
    const char *shstr = (const char *)b + sh[eh->e_shstrndx].sh_offset;
    int shared_section = -1;
    for (int i = 0; i < eh->e_shnum; i++)
        if (!strcmp(shstr + sh[i].sh_name, "gpuc_shared"))
            shared_section = i;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_offset + sh[i].sh_size > file.len)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(b + sh[i].sh_offset);
        const char *str = (const char *)b + sh[sh[i].sh_link].sh_offset;
        for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
            const Elf64_Sym *s = &sym[k];
            int type = ELF64_ST_TYPE(s->st_info); /* __shared__: thread-local */
            if ((type != STT_OBJECT && type != STT_TLS) || !s->st_size ||
                s->st_shndx == SHN_UNDEF || s->st_shndx >= eh->e_shnum ||
                (sh[s->st_shndx].sh_flags & SHF_EXECINSTR) ||
                !(sh[s->st_shndx].sh_flags & SHF_ALLOC))
                continue;
            const char *name = str + s->st_name;
            if (strstr(name, "__gpuc") || !strncmp(name, "_ZGV", 4) || name[0] == '.')
                continue; /* the prelude's own, guard variables */
            /* thread-local is __shared__: the section gpuc_shared, or .tbss
             * for a template's array (a unique symbol, in a section of its own) */
            fn(ctx, name, (uintptr_t)s->st_value, s->st_size,
               s->st_shndx == shared_section || type == STT_TLS);
        }
    }
    cm_buf_free(&file);
}

/* ---- compiling -------------------------------------------------------- */

/* The static __shared__ bytes of each kernel: the objects of section
 * gpuc_shared that are local statics of the kernel's function, whose
 * mangled names begin _ZZ<length><kernel name>. */
typedef struct shared_sum {
    int n;
    const char *const *names;
    size_t *bytes;
} shared_sum_t;

static void add_shared(void *ctx, const char *name, uintptr_t value, size_t size, int shared)
{
    (void)value;
    shared_sum_t *t = ctx;
    if (!shared || strncmp(name, "_ZZ", 3) != 0)
        return;
    char *end;
    unsigned long len = strtoul(name + 3, &end, 10);
    for (int i = 0; i < t->n; i++)
        if (len == strlen(t->names[i]) && strncmp(end, t->names[i], len) == 0)
            t->bytes[i] += size;
}

/* A kernel whose static __shared__ arrays pass 48 KiB does not compile on
 * a GPU (ptxas: "uses too much shared data"): nor here. -1 with err and
 * *log in ptxas's words. */
static int check_static_shared(sim_entry_fn first, int nkernels, const char *const *names,
                               char **log, cm_error_t *err)
{
    Dl_info info;
    if (!nkernels || !dladdr((void *)first, &info) || !info.dli_fname)
        return 0;
    size_t *bytes = calloc((size_t)nkernels, sizeof *bytes);
    if (!bytes)
        return 0;
    shared_sum_t t = {nkernels, names, bytes};
    sim_compile_objects(info.dli_fname, &t, add_shared);
    int rc = 0;
    for (int i = 0; i < nkernels && !rc; i++) {
        if (bytes[i] <= MAX_STATIC_SHARED)
            continue;
        char text[400];
        snprintf(text, sizeof text,
                 "ptxas error   : Entry function '%s' uses too much shared data (0x%zx bytes, "
                 "0x%x max)", names[i], bytes[i], MAX_STATIC_SHARED);
        CM_ERROR(err, SIM_E_COMPILE, "%s", text);
        *log = strdup(text);
        rc = -1;
    }
    free(bytes);
    return rc;
}

/* The C name of kernel name's entry point (suffix "entry" or "sizes"):
 * `__gpuc_entry_saxpy`; a template instance's other characters as hex
 * (`scale<float>` is `__gpuc_entry_t_scale_3cfloat_3e`). */
static void entry_symbol(const char *suffix, const char *name, char *buf, size_t len)
{
    int plain = 1;
    for (const char *p = name; *p; p++)
        plain &= isalnum((unsigned char)*p) || *p == '_';
    size_t n = (size_t)snprintf(buf, len, "__gpuc_%s_%s", suffix, plain ? name : "t_");
    for (const char *p = name; !plain && *p && n + 4 < len; p++)
        n += (size_t)(isalnum((unsigned char)*p) || *p == '_'
                          ? snprintf(buf + n, len - n, "%c", *p)
                          : snprintf(buf + n, len - n, "_%02x", (unsigned char)*p));
}

int sim_compile_variant(const char *source, const char *options, int checked, int nkernels,
                        const char *const *names, sim_entry_fn *entries, sim_sizes_fn *sizes,
                        int nvars, const char *const *vars, void **var_addrs, size_t *var_sizes,
                        char **shared, size_t *shared_bytes, char **log, double *ms,
                        const char **cache, const struct sim_hooks *hooks, cm_error_t *err)
{
    cm_buf_t src = {0}, flags = {0};
    *log = NULL;
    *ms = 0;
    *cache = "miss";
    cm_buf_adds(&src, sim_prelude);
    sim_rewrite_source(source, &src);
    cm_buf_adds(&src, "#line 1 \"gpuc-entries\"\n");
    for (int i = 0; i < nkernels; i++) {
        char entry[300], sizes_fn[300];
        entry_symbol("entry", names[i], entry, sizeof entry);
        entry_symbol("sizes", names[i], sizes_fn, sizeof sizes_fn);
        /* (name) in parentheses: a template instance's commas stay inside */
        cm_buf_addf(&src, "extern \"C\" __attribute__((visibility(\"default\"), no_sanitize_thread)) "
                          "void %s(void **a) { __gpuc_call((%s), a); }\n"
                          "extern \"C\" __attribute__((visibility(\"default\"), no_sanitize_thread)) "
                          "int %s(unsigned long *s, int max) "
                          "{ return __gpuc_param_sizes((%s), s, max); }\n",
                    entry, names[i], sizes_fn, names[i]);
    }
    for (int i = 0; i < nvars; i++) /* where each variable is, and its size */
        cm_buf_addf(&src, "extern \"C\" __attribute__((visibility(\"default\"))) void *"
                          "__gpuc_var_%s(unsigned long *n) { *n = sizeof %s; return (void *)&%s; }\n",
                    vars[i], vars[i], vars[i]);
    translate_options(options, &flags);
    if (checked)
        cm_buf_adds(&flags, CHECK_FLAGS);
    if (checked == 2)
        cm_buf_adds(&flags, PROFILE_FLAGS);
    cpu_jit_result_t r;
    cm_error_t e = {0};
    int rc = cpu_jit_load(CPU_JIT_CXX, cm_buf_str(&src), cm_buf_str(&flags), &r, &e);
    cm_buf_free(&src);
    cm_buf_free(&flags);
    *ms = r.compile_ms;
    *cache = r.cache;
    if (rc != 0) {
        if (e.code == CPU_E_JIT_COMPILE && r.log) {
            char first[CM_ERROR_TEXT];
            *log = nvrtc_style(r.log, source, first, sizeof first);
            CM_ERROR(err, SIM_E_COMPILE, "%s", first[0] ? first : e.text);
        } else {
            CM_ERROR(err, e.code, "%s", e.text);
        }
        free(r.log);
        return -1;
    }
    free(r.log);
    void (*bind)(const sim_hooks_t *) = (void (*)(const sim_hooks_t *))cpu_jit_symbol(r.handle, "__gpuc_bind", err);
    if (!bind)
        return -1;
    bind(hooks);
    void (*range)(char **, char **) = (void (*)(char **, char **))cpu_jit_symbol(r.handle, "__gpuc_shared", err);
    if (!range)
        return -1;
    char *lo = NULL, *hi = NULL;
    range(&lo, &hi);
    *shared = lo && hi > lo ? lo : NULL;
    *shared_bytes = lo && hi > lo ? (size_t)(hi - lo) : 0;
    for (int i = 0; i < nkernels; i++) {
        char sym[300];
        entry_symbol("entry", names[i], sym, sizeof sym);
        entries[i] = (sim_entry_fn)cpu_jit_symbol(r.handle, sym, err);
        if (!entries[i])
            return -1;
        entry_symbol("sizes", names[i], sym, sizeof sym);
        if (sizes && !(sizes[i] = (sim_sizes_fn)cpu_jit_symbol(r.handle, sym, err)))
            return -1;
    }
    if (!checked && check_static_shared(entries[0], nkernels, names, log, err))
        return -1;
    for (int i = 0; i < nvars; i++) {
        char sym[200];
        snprintf(sym, sizeof sym, "__gpuc_var_%s", vars[i]);
        void *(*where)(unsigned long *) = (void *(*)(unsigned long *))cpu_jit_symbol(r.handle, sym, err);
        if (!where)
            return -1;
        unsigned long n = 0;
        var_addrs[i] = where(&n);
        var_sizes[i] = n;
    }
    return 0;
}
