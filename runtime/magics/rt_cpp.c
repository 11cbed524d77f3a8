/* rt_cpp: C++ host cells, as nvcc hands host code to the system C++
 * compiler: %%cpp (alias %%c++) and cells that rt_cxx_detect finds to be
 * C++, compiled by g++ ($CXX) into a shared object loaded into the
 * session (rt_native).
 *
 * The source is the session's C declarations in extern "C" { }, C++
 * forms of the launch and result helpers, then the cell on its own line
 * numbers: its declarations at namespace scope, and its statements, in
 * order, in an entry function (its last expression shown by type). The
 * entry runs in a C++ wrapper that catches what the cell throws. Later C
 * cells see its extern "C" functions and its global variables of C types.
 * See docs/cells.md, "C++ host cells". */
#include "rt_magic.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "cm_run.h"
#include "cm_vec.h"
#include "rt_cxx.h"
#include "rt_gpu_host.h"
#include "rt_launch.h"
#include "rt_native.h"
#include "rt_prelude.h"
#include "rt_segment.h"

#define DEFAULT_FLAGS "-O2"
/* if constexpr and void_t in the helpers; `dim3 g(n / 256)` is rewritten
 * into C's `dim3 g = {(n / 256), 1, 1}` (rt_launch), which C++ would warn
 * about as narrowing an int */
#define STD_FLAG "-std=gnu++17 -Wno-narrowing"

/* What later C++ cells get of earlier ones (rt_cxx_carry), in order; one
 * session per process, so one list. */
typedef struct carried {
    char *name; /* what it declares; "" for a directive or using line */
    char *text;
    int is_var; /* an extern declaration of the cell's variable */
    size_t item; /* the item of its cell */
} carried_t;

typedef struct carry_list {
    carried_t *v;
    size_t n, cap;
} carry_list_t;

static carry_list_t kept;

static void carry_add(carry_list_t *l, const char *name, const char *text, int is_var,
                      size_t item)
{
    CM_VEC_GROW(l->v, l->n, l->cap);
    l->v[l->n++] = (carried_t){strdup(name), strdup(text), is_var, item};
    if (!l->v[l->n - 1].name || !l->v[l->n - 1].text)
        abort();
}

static void carry_free(carry_list_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].name);
        free(l->v[i].text);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Whether entry e of the kept list is replaced by the new cell's: the
 * same name declared again. (A directive or using line stays: what was
 * kept after it may need it.) */
static int replaced(const carried_t *e, const carry_list_t *fresh)
{
    for (size_t i = 0; i < fresh->n; i++)
        if (e->name[0] && strcmp(e->name, fresh->v[i].name) == 0)
            return 1;
    return 0;
}

/* Whether l has an entry of that text. */
static int has_text(const carry_list_t *l, const char *text)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].text, text) == 0)
            return 1;
    return 0;
}

/* What the cell's items give later C++ cells. */
static void carry_of(rt_session_t *s, const char *code, const rt_cell_t *items,
                     carry_list_t *out)
{
    for (size_t i = 0; i < items->n; i++)
        for (int which = 0;; which++) {
            cm_buf_t text = {0};
            char name[256];
            int is_var;
            int kept = rt_cxx_carry(code, &items->items[i], which, rt_session_is_type, s, &text,
                                    name, sizeof name, &is_var);
            if (kept)
                carry_add(out, name, cm_buf_str(&text), is_var, i);
            cm_buf_free(&text);
            if (!kept)
                break;
        }
}

static int exported_to_c(const rt_plan_t *plan, const carried_t *e)
{
    return cm_names_find(&plan->vars, e->name, (size_t)-1) >= 0;
}

/* C declarations of names the cell declares again in C++ (`int
 * square(int)` of a C cell, overloaded or redefined here) are left out of
 * what it sees: C++ would take them for a conflict. */
static void exclude_redeclared(const rt_session_t *s, const carry_list_t *fresh,
                               char *excluded)
{
    char **names = malloc((fresh->n + 1) * sizeof *names);
    if (!names)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < fresh->n; i++)
        if (fresh->v[i].name[0])
            names[n++] = fresh->v[i].name;
    const rt_prelude_t *prelude = rt_session_prelude(s);
    char *more = calloc(prelude->n + 1, 1);
    if (!more)
        abort();
    rt_prelude_exclude(prelude, names, n, more); /* it clears what it is given */
    for (size_t i = 0; i < prelude->n; i++)
        excluded[i] |= more[i];
    free(more);
    free(names);
}

/* The kept entries the new cell does not replace, then the new cell's;
 * its variables become session symbols (their address in its object). */
static void carry_commit(rt_session_t *s, void *h, const rt_plan_t *plan, carry_list_t *fresh)
{
    int cell = plan->cell;
    carry_list_t next = {0};
    for (size_t i = 0; i < kept.n; i++)
        if (!replaced(&kept.v[i], fresh))
            carry_add(&next, kept.v[i].name, kept.v[i].text, kept.v[i].is_var, 0);
    for (size_t i = 0; i < fresh->n; i++) {
        void *addr = fresh->v[i].is_var ? dlsym(h, fresh->v[i].name) : NULL;
        if (fresh->v[i].is_var && (!addr || exported_to_c(plan, &fresh->v[i])))
            continue; /* not in the object, or C cells' declarations carry it */
        if (!fresh->v[i].name[0] && has_text(&next, fresh->v[i].text))
            continue; /* an #include kept already */
        if (addr)
            rt_session_define(s, fresh->v[i].name, addr, cell, 0);
        carry_add(&next, fresh->v[i].name, fresh->v[i].text, fresh->v[i].is_var, 0);
    }
    carry_free(&kept);
    kept = next;
}

/* Whether a C declaration of the session declares name. */
static int c_declares(const rt_session_t *s, const char *name)
{
    const rt_prelude_t *prelude = rt_session_prelude(s);
    for (size_t i = 0; i < prelude->n; i++)
        for (size_t k = 0; k < prelude->v[i].nkeys; k++)
            if (strcmp(prelude->v[i].keys[k], name) == 0)
                return 1;
    return 0;
}

int rt_cpp_is_cpp(const rt_session_t *s, const rt_tokens_t *code)
{
    if (rt_cxx_detect(code))
        return 1;
    const char **names = malloc((kept.n + 1) * sizeof *names);
    if (!names)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < kept.n; i++)
        if (kept.v[i].name[0] && !c_declares(s, kept.v[i].name))
            names[n++] = kept.v[i].name;
    int used = n && rt_cxx_uses_any(code, names, n);
    free(names);
    /* cout << x after `using namespace std;` in a C++ cell */
    static const char *const std_names[] = {"cout", "cin", "cerr", "endl"};
    return used || (has_text(&kept, "using namespace std;\n") &&
                    rt_cxx_uses_any(code, std_names, 4));
}

void rt_cpp_keep_includes(rt_session_t *s, const char *code)
{
    static const char *const device[] = {"cuda", "cooperative", "thrust/", "cub/", "curand",
                                         NULL};
    rt_cell_t items;
    rt_cxx_split(code, &items);
    carry_list_t fresh = {0};
    carry_of(s, code, &items, &fresh);
    for (size_t i = 0; i < fresh.n; i++) {
        const char *t = fresh.v[i].text;
        int keep = !fresh.v[i].name[0] && !has_text(&kept, t) &&
                   (strncmp(t, "#include", 8) == 0 || strcmp(t, "using namespace std;\n") == 0);
        for (int k = 0; keep && device[k]; k++)
            keep = !strstr(t, device[k]);
        if (keep)
            carry_add(&kept, "", t, 0, 0);
    }
    carry_free(&fresh);
    rt_cell_free(&items);
}

void rt_cpp_reset(void)
{
    carry_free(&kept);
}

/* The launches' argument arrays, C99 compound literals that C++ will not
 * point to (`(void *[]){&a, &b}`), as initializer lists, which live to
 * the end of the call: `std::initializer_list<void *>{&a, &b}.begin()`. */
static void make_arrays_cxx(const char *code, cm_buf_t *out)
{
    static const char *const from[] = {"(void *[]){", "(const unsigned long long[]){",
                                       "(const char[]){", "(const char *[]){", NULL};
    static const char *const type[] = {"void *", "unsigned long long", "char", "const char *"};
    const char *p = code;
    for (;;) {
        const char *best = NULL;
        int which = -1;
        for (int k = 0; from[k]; k++) {
            const char *q = strstr(p, from[k]);
            if (q && (!best || q < best)) {
                best = q;
                which = k;
            }
        }
        const char *close = best ? strchr(best, '}') : NULL;
        if (!close)
            break;
        cm_buf_add(out, p, (size_t)(best - p));
        const char *items = best + strlen(from[which]);
        cm_buf_addf(out, "std::initializer_list<%s>{", type[which]);
        for (const char *q = items; q < close; q++) /* `const int n`: &n is no void * */
            if (which == 0 && *q == '&')
                cm_buf_adds(out, "(void *)&");
            else
                cm_buf_addc(out, *q);
        cm_buf_adds(out, "}.begin()");
        p = close + 1;
    }
    cm_buf_adds(out, p);
}

/* code with its statements blanked (newlines kept), and the variables
 * whose initialisers run among them (rt_cxx_defer) declared without them:
 * inits[i] gets item i's initialisers (NULL: none). A variable that later
 * C++ cells will see is declared first with its assembler name, on its
 * own line. */
static void add_declarations(rt_session_t *s, cm_buf_t *b, const char *code,
                             const rt_cell_t *items, const carry_list_t *fresh,
                             const rt_plan_t *plan, char **inits)
{
    size_t at = 0;
    for (size_t i = 0, f = 0; i < items->n; i++) {
        const rt_item_t *it = &items->items[i];
        cm_buf_add(b, code + at, it->start - at);
        at = it->start;
        for (; f < fresh->n && fresh->v[f].item <= i; f++)
            if (fresh->v[f].item == i && fresh->v[f].is_var && !exported_to_c(plan, &fresh->v[f]))
                cm_buf_add(b, fresh->v[f].text, strlen(fresh->v[f].text) - 1); /* no newline */
        cm_buf_t global = {0}, init = {0};
        if (rt_cxx_defer(code, it, rt_session_is_type, s, &global, &init)) {
            cm_buf_add(b, global.s, global.len);
            inits[i] = cm_buf_steal(&init);
            at = it->end;
        }
        cm_buf_free(&global);
        cm_buf_free(&init);
        if (it->kind != RT_ITEM_STATEMENT && it->kind != RT_ITEM_EXPRESSION)
            continue;
        for (size_t k = it->start; k < it->end; k++)
            cm_buf_addc(b, code[k] == '\n' ? '\n' : ' ');
        at = it->end;
    }
    cm_buf_adds(b, code + at);
}

/* The cell's statements in order, each on its own line, the last
 * expression shown; then main (kind as rt_cxx_main_kind says) in a
 * wrapper that catches what they throw. items NULL: no statements. */
static void add_entry(cm_buf_t *b, const char *code, const rt_cell_t *items, char **inits,
                      int cell, int main_kind)
{
    cm_buf_adds(b, "\n#line 1 \"gpuc-c++\"\n"
                   "char __gpuc_cpp_error[1024];\n"
                   "static void __gpuc_cpp_caught(const char *what) {\n"
                   "  std::type_info *t = abi::__cxa_current_exception_type();\n"
                   "  int st = 0;\n"
                   "  char *name = t ? abi::__cxa_demangle(t->name(), 0, 0, &st) : 0;\n"
                   "  snprintf(__gpuc_cpp_error, sizeof __gpuc_cpp_error, \"%s%s%s\",\n"
                   "           name ? name : t ? t->name() : \"an exception\", what ? \": \" : \"\",\n"
                   "           what ? what : \"\");\n"
                   "  free(name);\n"
                   "}\n"
                   "static void __gpuc_cpp_flush() {\n"
                   "#ifdef _GLIBCXX_IOSTREAM\n"
                   "  std::cout.flush(); std::cerr.flush();\n"
                   "#endif\n"
                   "  fflush(stdout);\n"
                   "}\n"
                   "static void __gpuc_cpp_body() {\n");
    for (size_t i = 0; items && i < items->n; i++) {
        const rt_item_t *it = &items->items[i];
        if (inits[i]) {
            cm_buf_addf(b, "#line %d \"cell[%d]\"\n%s\n", it->line, cell, inits[i]);
            continue;
        }
        if (it->kind != RT_ITEM_STATEMENT && it->kind != RT_ITEM_EXPRESSION)
            continue;
        cm_buf_addf(b, "#line %d \"cell[%d]\"\n", it->line, cell);
        if (it->kind == RT_ITEM_EXPRESSION)
            cm_buf_adds(b, "((");
        cm_buf_add(b, code + it->start, it->end - it->start);
        cm_buf_adds(b, it->kind == RT_ITEM_EXPRESSION ? "), __gpuc_shown{});\n" : "\n");
    }
    cm_buf_adds(b, "}\n#line 1 \"gpuc-c++\"\n"
                   "#define __GPUC_CATCH \\\n"
                   "  catch (const std::exception &e) { __gpuc_cpp_caught(e.what()); } \\\n"
                   "  catch (...) { __gpuc_cpp_caught(0); }\n"
                   "extern \"C\" void __gpuc_cpp_run(void) {\n"
                   "  try { __gpuc_cpp_body(); } __GPUC_CATCH\n"
                   "  __gpuc_cpp_flush();\n"
                   "}\n");
    if (main_kind)
        cm_buf_addf(b, "extern \"C\" int __gpuc_cpp_main(int argc, char **argv) {\n"
                       "  int rc = 0;\n"
                       "  (void)argc; (void)argv;\n"
                       "  if (!__gpuc_cpp_error[0])\n"
                       "    try { rc = main(%s); } __GPUC_CATCH\n"
                       "  __gpuc_cpp_flush();\n"
                       "  return rc;\n"
                       "}\n", main_kind == 1 ? "" : "argc, argv");
}

/* The whole source of the cell (code: the cell after launch rewriting;
 * fresh: what it gives later C++ cells, replacing what they kept). */
static void make_source(rt_session_t *s, const char *excluded, const char *code,
                        const rt_cell_t *items, const rt_plan_t *plan,
                        const carry_list_t *fresh, cm_buf_t *src)
{
    cm_buf_adds(src, rt_cxx_prologue);
    rt_native_add_session(s, excluded, 1, src);
    cm_buf_adds(src, "#line 1 \"gpuc-c++\"\n");
    cm_buf_adds(src, rt_cxx_helpers);
    cm_buf_adds(src, "#line 1 \"C++ cells\"\n");
    for (size_t i = 0; i < kept.n; i++)
        if (!replaced(&kept.v[i], fresh))
            cm_buf_adds(src, kept.v[i].text);
    cm_buf_addf(src, "#line 1 \"cell[%d]\"\n", plan->cell);
    char **inits = calloc(items->n + 1, sizeof *inits);
    if (!inits)
        abort();
    add_declarations(s, src, code, items, fresh, plan, inits);
    add_entry(src, code, items, inits, plan->cell, rt_cxx_main_kind(code, items));
    for (size_t i = 0; i < items->n; i++)
        free(inits[i]);
    free(inits);
}

void rt_cpp_add_main(cm_buf_t *b, const char *code, int cell, int main_kind)
{
    add_entry(b, code, NULL, NULL, cell, main_kind);
}

/* Runs the loaded cell: its statements, then main; a C++ exception that
 * left them is an error, the session kept. */
static int run(rt_session_t *s, void *h, int cell, rt_error_t *err)
{
    void (*entry)(void) = (void (*)(void))dlsym(h, "__gpuc_cpp_run");
    int (*main_fn)(int, char **) = (int (*)(int, char **))dlsym(h, "__gpuc_cpp_main");
    char *thrown = dlsym(h, "__gpuc_cpp_error");
    if (!entry || !thrown)
        return rt_error_set(err, "CompileError", 0, 0, "cell %d: the C++ cell's entry was not "
                            "found after linking", cell);
    if (rt_session_run_entry(s, entry, main_fn, cell, err) != 0)
        return -1;
    if (!thrown[0])
        return 0;
    rt_value_t shown; /* what it showed before it threw is no result */
    if (rt_session_take_result(s, &shown))
        rt_value_free(&shown);
    return rt_error_set(err, "UncaughtException", 0, 0,
                        "cell %d: uncaught C++ exception %s; the session's variables are kept",
                        cell, thrown);
}

/* The C++ runtime's names (namespaces std, __gnu_cxx and __cxxabiv1, the
 * __cxa ABI), as a linker dynamic list: a cell's object binds what it
 * defines to itself, except these, which must be the process's one copy.
 * A facet id the object instantiates (`std::num_put<char>::id`) bound to
 * its own copy indexes the wrong facet of the locale, and `std::cout << 2`
 * crashes; a compiler that links its libstdc++.a into the object (a g++
 * whose own folder has no libstdc++.so) brings a whole second runtime. */
#define CXX_RUNTIME                                                                     \
    "{\n  _ZNS*; _ZNKS*; _ZS*; _ZGVNS*; _ZGVZNS*; _ZZNS*; _ZZNKS*;\n"                  \
    "  _ZTVS*; _ZTVNS*; _ZTIS*; _ZTINS*; _ZTSS*; _ZTSNS*;\n"                             \
    "  _ZN9__gnu_cxx*; _ZNK9__gnu_cxx*; _ZGVN9__gnu_cxx*; _ZZN9__gnu_cxx*;\n"            \
    "  _ZN10__cxxabiv1*; _ZNK10__cxxabiv1*; _ZTVN10__cxxabiv1*; _ZTIN10__cxxabiv1*;\n"   \
    "  __cxa_*; __gxx_personality_v0; _Unwind_*;\n};\n"

/* C++ cells run on the libstdc++ of the compiler that builds them: its
 * headers and its library go together. Loaded once, by its path, with its
 * names global, before the first C++ cell's object: every cell's std:: is
 * then that library's, also when the compiler links its libstdc++.a into
 * each object. One loaded before, privately (NVRTC loads the system's), is
 * made global too: its facet ids are the process's already. When that one
 * is not the compiler's, the cell says so once. */
static void load_cxx_runtime(const rt_native_t *n)
{
    static int done;
    if (done)
        return;
    done = 1;
    cm_buf_t cmd = {0};
    cm_buf_addf(&cmd, "LC_ALL=C %s -print-file-name=libstdc++.so.6 2>/dev/null", n->compiler);
    char *out = NULL, want[PATH_MAX], have[PATH_MAX];
    int rc = cm_run(cm_buf_str(&cmd), &out);
    cm_buf_free(&cmd);
    if (out)
        out[strcspn(out, "\n")] = '\0';
    int known = rc == 0 && out && out[0] == '/' && realpath(out, want);
    free(out);
    void *loaded = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    struct link_map *map;
    if (!loaded) {
        if (known) /* else the loader finds it for the first cell */
            dlopen(want, RTLD_NOW | RTLD_GLOBAL);
        return;
    }
    if (dlinfo(loaded, RTLD_DI_LINKMAP, &map) == 0 && realpath(map->l_name, have)) {
        dlopen(have, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD); /* made global; stays loaded */
        if (known && strcmp(have, want) != 0)
            fprintf(stderr,
                    "note: C++ cells run on %s, loaded earlier in this session, while %s "
                    "compiles against %s; if C++ output looks wrong, restart and run a C++ "
                    "cell first\n", have, n->compiler, want);
    }
    dlclose(loaded);
}

static int run_cpp(rt_session_t *s, const char *body, const rt_magic_line_t *m, int cell,
                   rt_error_t *err)
{
    rt_session_note_code(s, body);
    rt_native_t n = {.what = "C++ cell", .language = "C++", .ext = "cc", .shared = rt_cpp_shared};
    if (rt_native_find_compiler(&n, "CXX", "g++") != 0)
        return rt_error_set(err, "NoCompiler", 0, 0,
                            "cell %d is C++: it needs a system C++ compiler; install g++ or "
                            "set CXX (not found: %s)", cell, n.compiler);
    if (rt_native_set_flags(&n, body, m, DEFAULT_FLAGS, cell, err) != 0)
        return -1;
    char shown_flags[sizeof n.flags];
    snprintf(shown_flags, sizeof shown_flags, "%s", n.flags);
    snprintf(n.flags, sizeof n.flags, "%s %.2000s", STD_FLAG, shown_flags);

    char *rewritten = rt_launch_rewrite(body, cell);
    cm_buf_t code = {0};
    make_arrays_cxx(rewritten ? rewritten : body, &code);
    free(rewritten);
    rt_cxx_blank_runtime_includes(code.s); /* the session declares the runtime API */
    rt_cell_t items;
    rt_cxx_split(cm_buf_str(&code), &items);
    char *exports = rt_cxx_c_exports(cm_buf_str(&code), &items, rt_session_is_type, s);
    rt_plan_t plan = {0};
    cm_buf_t scratch = {0};
    rt_plan_make(&plan, exports ? exports : "", cell, RT_RESULT_NONE, rt_session_is_type, s,
                 &scratch);
    cm_buf_free(&scratch);
    char *excluded = rt_native_excluded(s, &plan);
    const rt_prelude_t *prelude = rt_session_prelude(s);
    for (size_t i = 0; i < prelude->n; i++) { /* C that C++ cannot read: `int new;` */
        const char *text = prelude->v[i].text;
        excluded[i] |= rt_cxx_has_keyword(text) || rt_cxx_c_only(text) ||
                       rt_cxx_runtime_include(text, strlen(text));
    }
    carry_list_t fresh = {0};
    carry_of(s, cm_buf_str(&code), &items, &fresh);
    exclude_redeclared(s, &fresh, excluded);
    cm_buf_t src = {0};
    make_source(s, excluded, cm_buf_str(&code), &items, &plan, &fresh, &src);
    rt_gpu_prepare_host(cm_buf_str(&code), cell);
    load_cxx_runtime(&n);
    void *h = rt_native_build(s, &n, cm_buf_str(&src), body, cell, &plan, err);
    int rc = -1;
    if (h) {
        rt_magic_note("compiled as C++ (%s %s)\n", n.compiler, shown_flags);
        cm_buf_t names = {0};
        rt_native_commit(s, h, &plan, &names);
        cm_buf_free(&names);
        carry_commit(s, h, &plan, &fresh);
        rc = run(s, h, cell, err); /* the handle stays open, as %%cc's */
    }
    cm_buf_free(&src);
    carry_free(&fresh);
    free(excluded);
    rt_plan_free(&plan);
    free(exports);
    rt_cell_free(&items);
    cm_buf_free(&code);
    return rc;
}

int rt_magic_cpp(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell,
                 rt_error_t *err)
{
    char *body = rt_segment_blank_outside(code, m->next, strlen(code));
    int rc = run_cpp(s, body, m, cell, err);
    free(body);
    return rc;
}

int rt_magic_cpp_part(rt_session_t *s, const char *host, int cell, rt_error_t *err)
{
    return run_cpp(s, host, NULL, cell, err);
}

const char rt_cpp_shared[] = CXX_RUNTIME;

void rt_cpp_load_runtime(const rt_native_t *n)
{
    load_cxx_runtime(n);
}

int rt_cpp_run_object(rt_session_t *s, void *h, int cell, rt_error_t *err)
{
    return run(s, h, cell, err);
}
