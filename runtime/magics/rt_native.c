/* rt_native: host code compiled by a system compiler into the session
 * (see rt_native.h). */
#include "rt_native.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "cm_run.h"
#include "cm_time.h"
#include "gpu.h"
#include "rt_api_table.h"
#include "rt_cuda_header.h"
#include "rt_cxx.h"
#include "rt_header.h"
#include "rt_libc.h"
#include "rt_prelude.h"
#include "rt_session_query.h"

/* The folder the sources and objects go to, made on first use; one
 * session per process (rt_session.h), so one folder. */
static char work_dir[PATH_MAX];
static pid_t work_owner;
static unsigned serial; /* makes every object's path new: dlopen of a known path reuses it */

static void remove_work_dir(void)
{
    if (work_dir[0] && getpid() == work_owner) /* not in a forked child */
        rmdir(work_dir);
}

static const char *get_work_dir(void)
{
    if (work_dir[0])
        return work_dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(work_dir, sizeof work_dir, "%s/gpuc-cc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work_dir)) {
        work_dir[0] = '\0';
        return NULL;
    }
    work_owner = getpid();
    atexit(remove_work_dir);
    return work_dir;
}

/* ---- the compiler --------------------------------------------------- */

int rt_native_find_compiler(rt_native_t *n, const char *env_name, const char *fallback)
{
    const char *env = getenv(env_name);
    char *cc = n->compiler;
    snprintf(cc, sizeof n->compiler, "%s", env && *env ? env : fallback);
    size_t len = strcspn(cc, " \t");
    char prog[PATH_MAX];
    snprintf(prog, sizeof prog, "%.*s", (int)len, cc);
    if (strchr(prog, '/'))
        return access(prog, X_OK);
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    if (!copy)
        abort();
    int found = -1;
    for (char *save, *d = strtok_r(copy, ":", &save); d && found; d = strtok_r(NULL, ":", &save)) {
        char full[PATH_MAX * 2];
        snprintf(full, sizeof full, "%s/%s", d, prog);
        found = access(full, X_OK);
    }
    free(copy);
    return found;
}

int rt_native_set_flags(rt_native_t *n, const char *code, const rt_magic_line_t *m,
                        const char *defaults, int cell, rt_error_t *err)
{
    if (m && m->args_len >= sizeof n->flags)
        return rt_error_set(err, "UsageError", 0, 0, "cell %d, line %d: %s: flags too long",
                            cell, m->line, n->what);
    if (m && m->args_len)
        snprintf(n->flags, sizeof n->flags, "%.*s", (int)m->args_len, code + m->args);
    else
        snprintf(n->flags, sizeof n->flags, "%s", defaults);
    return 0;
}

/* ---- the sources ---------------------------------------------------- */

/* gpuc.h, then the session's declarations the cell does not replace.
 * Variables' hidden visibility (for TCC's direct references) goes: in a
 * shared object it would make the compiler expect them inside it. */
void rt_native_add_session(const rt_session_t *s, const char *excluded, int cxx, cm_buf_t *src)
{
    if (cxx)
        cm_buf_adds(src, "extern \"C\" {\n");
    cm_buf_adds(src, rt_session_header(s));
    cm_buf_adds(src, "\n#line 1 \"session\"\n");
    const rt_prelude_t *prelude = rt_session_prelude(s);
    for (size_t i = 0; i < prelude->n; i++) {
        if (excluded[i])
            continue;
        const char *text = prelude->v[i].text;
        const char *attr = prelude->v[i].kind == RT_ENTRY_VAR
                               ? strstr(text, " __attribute((visibility(\"hidden\")))")
                               : NULL;
        int outside = cxx && prelude->v[i].kind == RT_ENTRY_DIRECTIVE &&
                      rt_cxx_library_include(text, strlen(text));
        if (outside)
            cm_buf_adds(src, "}\n");
        if (attr) {
            cm_buf_add(src, text, (size_t)(attr - text));
            cm_buf_adds(src, ";\n");
        } else {
            cm_buf_adds(src, text);
            cm_buf_addc(src, '\n');
        }
        if (outside)
            cm_buf_adds(src, "extern \"C\" {\n");
    }
    if (cxx)
        cm_buf_adds(src, "}\n");
}

char *rt_native_excluded(const rt_session_t *s, const rt_plan_t *plan)
{
    const rt_prelude_t *prelude = rt_session_prelude(s);
    char *excluded = calloc(prelude->n + 1, 1);
    if (!excluded)
        abort();
    rt_prelude_exclude(prelude, plan->keys.v, plan->keys.n, excluded);
    return excluded;
}

static void add_stub_symbol(cm_buf_t *b, const char *name, const void *addr, int is_func)
{
    cm_buf_addf(b, ".globl %s\n.type %s,@%s\n.set %s,0x%lx\n", name, name,
                is_func ? "function" : "object", name, (unsigned long)(uintptr_t)addr);
}

/* What TCC cells get ahead of libc and libcudart (rt_libc's waits and
 * reads of stdin, the simulator's runtime API): the loader would find
 * libc's and libcudart's first, so the object's references to them are
 * renamed __wrap_NAME when it is linked (-Wl,--wrap=NAME), and the stub
 * defines those. */
static void add_wrapped(cm_buf_t *b, cm_buf_t *link, const char *name, const void *addr)
{
    char wrapped[256];
    snprintf(wrapped, sizeof wrapped, "__wrap_%s", name);
    add_stub_symbol(b, wrapped, addr, 1);
    cm_buf_addf(link, " -Wl,--wrap=%s", name);
}

/* Assembly for the stub library: every session symbol the cell does not
 * define, and gpuc's own (display_html...), at its address; link gets the
 * options for the wrapped ones. */
static void make_stub(const rt_session_t *s, const rt_plan_t *plan, cm_buf_t *b, cm_buf_t *link)
{
    for (const rt_symbol_t *r = rt_libc_symbols; r->name; r++)
        add_wrapped(b, link, r->name, r->addr);
    for (const gpu_symbol_t *g = gpu_runtime_symbols(); g && g->name; g++)
        add_wrapped(b, link, g->name, g->addr);
    size_t nsyms;
    const rt_sym_t *syms = rt_session_symbols(s, &nsyms);
    for (size_t i = 0; i < nsyms; i++) {
        const rt_sym_t *y = &syms[i];
        if (cm_names_find(&plan->vars, y->name, (size_t)-1) >= 0 ||
            cm_names_find(&plan->funcs, y->name, (size_t)-1) >= 0)
            continue;
        add_stub_symbol(b, y->name, y->addr, y->is_func);
    }
    for (const rt_symbol_t *r = rt_api_symbols; r->name; r++)
        if (!rt_session_symbol(s, r->name))
            add_stub_symbol(b, r->name, r->addr, 1);
}

static int write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t w = fwrite(text, 1, len, f);
    return fclose(f) != 0 || w != len ? -1 : 0;
}

/* ---- diagnostics ---------------------------------------------------- */

/* One compiler message "FILE:LINE:COL: error: MSG" (or nvcc's "FILE(LINE):
 * error: MSG") into its parts (line and col 0 when absent). 0 when the line is no error or warning. */
static int parse_diag(char *l, char **file, int *line, int *col, int *warning, char **msg)
{
    static const char *const kinds[] = {": fatal error: ", ": error: ", ": warning: "};
    char *at = NULL;
    int k;
    for (k = 0; k < 3 && !at; k++)
        at = strstr(l, kinds[k]);
    if (!at)
        return 0;
    *warning = k == 3;
    *msg = at + strlen(kinds[k - 1]);
    *at = '\0';
    *line = *col = 0;
    *file = l;
    char *c = strrchr(l, ':');
    if (c && c[1] && strspn(c + 1, "0123456789") == strlen(c + 1)) {
        int n = atoi(c + 1);
        *c = '\0';
        char *c2 = strrchr(l, ':');
        if (c2 && c2[1] && strspn(c2 + 1, "0123456789") == strlen(c2 + 1)) {
            *line = atoi(c2 + 1);
            *col = n;
            *c2 = '\0';
        } else {
            *line = n;
        }
    }
    char *paren = strrchr(l, '(');
    size_t end = strlen(l);
    if (!*line && paren && end > 2 && l[end - 1] == ')' && paren[1] &&
        strspn(paren + 1, "0123456789") == (size_t)(l + end - 1 - paren - 1)) {
        *line = atoi(paren + 1); /* nvcc's front end: "cell[3](12): error: ..." */
        *paren = '\0';
    }
    return 1;
}

/* The CompileError of a failed compile from the compiler's output;
 * warnings about the cell go to warnings. 0 when the output holds no error
 * and the compile did not fail, else -1 with err set. */
static int report(const rt_native_t *n, const char *body, int cell, char *output, int failed,
                  cm_buf_t *warnings, rt_error_t *err)
{
    char want[32];
    snprintf(want, sizeof want, "cell[%d]", cell);
    rt_error_t e = {0};
    char *copy = strdup(output); /* strtok_r cuts output */
    for (char *save, *l = strtok_r(output, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *file, *msg, head[CM_ERROR_TEXT];
        int line, col, warning;
        if (!parse_diag(l, &file, &line, &col, &warning, &msg))
            continue;
        int ours = strcmp(file, want) == 0 && line > 0;
        if (warning) {
            if (ours)
                cm_buf_addf(warnings, "cell %d, line %d: warning: %s\n", cell, line, msg);
            continue;
        }
        if (ours) {
            size_t len;
            const char *src = rt_source_line(body, line, &len);
            if (col < 1 || n->fallback)
                col = rt_source_column(msg, src, len);
            rt_error_set(&e, "CompileError", cell, line, "cell %d, line %d: %s", cell, line, msg);
            rt_error_add_line(&e, "cell %d, line %d, column %d: error: %s", cell, line, col, msg);
            rt_error_add_source(&e, src, len, col);
            continue;
        }
        if (line > 0 && strcmp(file, "cc1") != 0)
            snprintf(head, sizeof head, "cell %d: error in %s, line %d: %s", cell, file, line, msg);
        else
            snprintf(head, sizeof head, "cell %d: error: %s", cell, msg);
        rt_error_set(&e, "CompileError", cell, 0, "%s", head);
        rt_error_add_line(&e, "%s", head);
    }
    if (!failed && !rt_error_is_set(&e)) {
        free(copy);
        return 0;
    }
    const char *fatal = strstr(copy ? copy : "", "fatal");
    if (!rt_error_is_set(&e) && fatal) { /* "nvcc fatal   : ..." */
        rt_error_set(&e, "CompileError", cell, 0, "cell %d: %.*s", cell,
                     (int)strcspn(fatal, "\n"), fatal);
        rt_error_add_line(&e, "cell %d: %.*s", cell, (int)strcspn(fatal, "\n"), fatal);
    }
    free(copy);
    rt_error_set(&e, "CompileError", 0, 0, "cell %d: the %s compiler failed", cell, n->language);
    if (!rt_error_is_set(err))
        rt_error_move(err, &e);
    rt_error_free(&e);
    return -1;
}

/* ---- the cache of built objects ------------------------------------ */

/* An object kept for rt_native_t.cache, with the stub it was linked
 * against (its DT_NEEDED path), both kept in the work folder for the
 * process; the copies loaded again stay there too (`live`): a fault's
 * line is read from the loaded file's line table (addr2line). */
typedef struct kept_object {
    unsigned char key[32];
    int cell;
    char so[PATH_MAX + 80];
    char stub[PATH_MAX + 64];
} kept_object_t;

static kept_object_t *objects;
static size_t nobjects;
static cm_names_t live;

static void remove_objects(void)
{
    if (getpid() != work_owner)
        return;
    for (size_t i = 0; i < nobjects; i++) {
        unlink(objects[i].so);
        unlink(objects[i].stub);
    }
    for (size_t i = 0; i < live.n; i++)
        unlink(live.v[i]);
}

/* The key of a build: everything that goes into the object, but the
 * cell's number (its file name "cell[N]" as "cell[]"): a cell run again
 * has a new number. */
static void object_key(const rt_native_t *n, const char *source, int cell, const cm_buf_t *stub,
                       const cm_buf_t *link, unsigned char key[32])
{
    char mark[32];
    snprintf(mark, sizeof mark, "\"cell[%d]\"", cell);
    cm_buf_t text = {0};
    for (const char *p = source, *q; *p; p = q + strlen(mark)) {
        if (!(q = strstr(p, mark))) {
            cm_buf_adds(&text, p);
            break;
        }
        cm_buf_add(&text, p, (size_t)(q - p));
        cm_buf_adds(&text, "\"cell[]\"");
    }
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    const char *parts[] = {n->compiler, n->flags, n->shared ? n->shared : "",
                           cm_buf_str(&text), cm_buf_str(stub), cm_buf_str(link)};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        crypto_hash_sha256_update(&st, (const unsigned char *)parts[i], strlen(parts[i]) + 1);
    crypto_hash_sha256_final(&st, key);
    cm_buf_free(&text);
}

static const kept_object_t *find_object(const unsigned char key[32])
{
    for (size_t i = 0; i < nobjects; i++)
        if (memcmp(objects[i].key, key, 32) == 0)
            return &objects[i];
    return NULL;
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[1 << 16];
    size_t got;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (got = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, got, out) == got ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

/* Keeps the object at so (linked against stub) under key. */
static void keep_object(const unsigned char key[32], int cell, const char *so, const char *stub)
{
    kept_object_t *grown = realloc(objects, (nobjects + 1) * sizeof *grown);
    if (!grown)
        return;
    objects = grown;
    kept_object_t *k = &objects[nobjects];
    memcpy(k->key, key, 32);
    k->cell = cell;
    snprintf(k->so, sizeof k->so, "%s", so);
    snprintf(k->stub, sizeof k->stub, "%s", stub); /* the path the object names */
    if (!nobjects)
        atexit(remove_objects);
    nobjects++;
}

/* ---- building and loading ------------------------------------------- */

/* The compiler options %cflags gave that mean the same to cc, and the
 * CUDA toolkit's include folder once the session uses CUDA. */
static void add_session_flags(rt_session_t *s, cm_buf_t *cmd)
{
    const rt_options_t *options = rt_session_options(s);
    for (size_t i = 0; i < options->cflags.n; i++) {
        const char *o = options->cflags.v[i];
        if (strncmp(o, "-I", 2) == 0 || strncmp(o, "-D", 2) == 0 || strncmp(o, "-U", 2) == 0 ||
            strncmp(o, "-isystem", 8) == 0)
            cm_buf_addf(cmd, " '%s'", o);
    }
    /* the toolkit's headers (cublas_v2.h...) after the system's, as TCC cells get them */
    const char *cuda = rt_session_uses_cuda_toolkit(s) ? rt_cuda_include_dir() : NULL;
    if (cuda)
        cm_buf_addf(cmd, " -idirafter '%s'", cuda);
}

void *rt_native_build(rt_session_t *s, rt_native_t *n, const char *source,
                      const char *body, int cell, const rt_plan_t *plan, rt_error_t *err)
{
    const char *dir = get_work_dir();
    if (!dir) {
        rt_error_set(err, "CompileError", 0, 0, "%s: cannot make a folder in %s", n->what,
                     getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        return NULL;
    }
    unsigned k = ++serial;
    char c_path[PATH_MAX + 64], s_path[PATH_MAX + 64], stub_path[PATH_MAX + 64],
        so_path[PATH_MAX + 64], list_path[PATH_MAX + 64];
    snprintf(c_path, sizeof c_path, "%s/cell%d_%u.%s", dir, cell, k, n->ext);
    snprintf(s_path, sizeof s_path, "%s/stub%d_%u.s", dir, cell, k);
    snprintf(stub_path, sizeof stub_path, "%s/stub%d_%u.so", dir, cell, k);
    snprintf(so_path, sizeof so_path, "%s/cell%d_%u.so", dir, cell, k);
    snprintf(list_path, sizeof list_path, "%s/shared%d_%u.txt", dir, cell, k);

    cm_buf_t stub = {0}, cmd = {0};
    cm_buf_t link = {0};
    make_stub(s, plan, &stub, &link);
    double t0 = cm_seconds();
    n->built_in = cell;
    unsigned char key[32];
    const kept_object_t *hit = NULL;
    n->cache_hit = 0;
    if (n->cache) {
        object_key(n, source, cell, &stub, &link, key);
        hit = find_object(key);
    }
    if (hit) { /* a fresh copy of the object: its globals as a new process has them */
        cm_buf_free(&stub);
        cm_buf_free(&link);
        void *h = NULL;
        if (copy_file(hit->so, so_path) == 0)
            h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
        if (h)
            cm_names_add(&live, so_path, (size_t)-1);
        else
            unlink(so_path);
        if (h) {
            n->cache_hit = 1;
            n->built_in = hit->cell;
            n->build_ms = (cm_seconds() - t0) * 1e3;
            return h;
        }
        stub = (cm_buf_t){0};
        link = (cm_buf_t){0};
        make_stub(s, plan, &stub, &link);
    }
    if (getenv("GPUC_DUMP_SOURCE"))
        fprintf(stderr, "---- cell %d %s source ----\n%s\n----\n", cell, n->what, source);
    int wrote = write_file(c_path, source, strlen(source)) == 0 &&
                write_file(s_path, cm_buf_str(&stub), stub.len) == 0 &&
                (!n->shared || write_file(list_path, n->shared, strlen(n->shared)) == 0);
    cm_buf_free(&stub);
    void *h = NULL;
    if (!wrote) {
        rt_error_set(err, "CompileError", 0, 0, "%s: cannot write to %s", n->what, dir);
        goto done;
    }
    cm_buf_addf(&cmd, "LC_ALL=C %s -shared -nostdlib -o '%s' '%s' 2>&1 && LC_ALL=C %s",
                n->nvcc ? "cc" : n->compiler, stub_path, s_path, n->compiler);
    if (!n->nvcc) /* nvcc has the toolkit's folder; it does not take -idirafter */
        add_session_flags(s, &cmd);
    if (n->nvcc) { /* its linker options through -Xlinker */
        cm_buf_t x = {0};
        const char *p = cm_buf_str(&link);
        for (const char *w; (w = strstr(p, " -Wl,")) != NULL; p = w + 5) {
            cm_buf_add(&x, p, (size_t)(w - p));
            cm_buf_adds(&x, " -Xlinker ");
        }
        cm_buf_adds(&x, p);
        cm_buf_free(&link);
        link = x;
    }
    if (n->nvcc)
        cm_buf_addf(&cmd, " %s -Xcompiler -fPIC,-fno-diagnostics-color -shared -o '%s' '%s'"
                          " '%s' %s -lm",
                    n->flags, so_path, stub_path, c_path, cm_buf_str(&link));
    else
        cm_buf_addf(&cmd, " %s -fno-diagnostics-color -shared -fPIC -o '%s' '%s' '%s' %s -lm",
                    n->flags, so_path, c_path, stub_path, cm_buf_str(&link));
    /* the cell's uses of what it defines stay in it (a later cell's function
     * of the same name does not replace it), but for n->shared's symbols */
    const char *linker = n->nvcc ? "-Xlinker " : "-Wl,";
    if (n->shared)
        cm_buf_addf(&cmd, " %s--dynamic-list='%s' 2>&1", linker, list_path);
    else
        cm_buf_addf(&cmd, " %s-Bsymbolic 2>&1", linker);
    char *out;
    cm_buf_t warnings = {0};
    int rc = cm_run(cm_buf_str(&cmd), &out);
    int failed = report(n, body, cell, out, rc != 0, &warnings, err);
    free(out);
    if (!failed) {
        h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            rt_error_set(err, "CompileError", 0, 0, "cell %d: error: %s", cell, dlerror());
        else if (n->cache)
            keep_object(key, cell, so_path, stub_path);
        n->build_ms = (cm_seconds() - t0) * 1e3;
    }
    if (h || !n->fallback)
        fputs(cm_buf_str(&warnings), stderr);
    cm_buf_free(&warnings);
done:
    /* what is loaded stays mapped */
    unlink(c_path);
    unlink(s_path);
    if (!(h && n->cache)) { /* a kept object and its stub stay */
        unlink(stub_path);
        unlink(so_path);
    }
    unlink(list_path);
    cm_buf_free(&cmd);
    cm_buf_free(&link);
    return h;
}

/* A declaration of a variable or function the object does not export is
 * left out of the prelude. */
static int exported(void *h, const rt_plan_entry_t *e)
{
    return !((e->kind == RT_ENTRY_VAR || e->kind == RT_ENTRY_FUNC) && e->keys.n &&
             !dlsym(h, e->keys.v[0]));
}

void rt_native_commit(rt_session_t *s, void *h, const rt_plan_t *plan, cm_buf_t *names)
{
    rt_session_commit_declarations(s, plan, exported, h);
    for (int f = 1; f >= 0; f--) {
        const cm_names_t *list = f ? &plan->funcs : &plan->vars;
        for (size_t i = 0; i < list->n; i++) {
            void *a = dlsym(h, list->v[i]);
            if (!a)
                continue;
            rt_session_define(s, list->v[i], a, plan->cell, f);
            cm_buf_addf(names, "%s%s", names->len ? ", " : "", list->v[i]);
        }
    }
}

