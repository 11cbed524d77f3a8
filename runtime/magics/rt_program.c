/* rt_program: a whole CUDA program (a `%%cuda` cell with main, or a cell
 * with kernels and main) as nvcc means it: ONE translation unit, so every
 * namespace-scope name (a `const int block_size`, a typedef after the
 * kernels, `using namespace`, templates) is seen by host and device code,
 * and host code is C++ (see docs/architecture.md, "Whole programs").
 *
 * On the simulator the cell is compiled by g++ as one unit: the toolkit's
 * cuda_runtime.h (its C++ overloads too), the simulator's prelude (device
 * code as the simulator's C++), then the cell, each `k<<<g, b>>>(args)`
 * rewritten on its own line into a launcher that converts the arguments to
 * the kernel's parameter types and launches k's entry on the simulator. It
 * is built and loaded into the session by rt_native (the stub library
 * serves the runtime API from the simulator, exit() and reads from the
 * session), and main runs as a C++ cell's main does (rt_cpp). A cell run
 * again unchanged reuses the object it built (no compile).
 *
 * Where neither applies (a GPU, or no toolkit headers) the caller falls
 * back to the split of rt_device.c. */
#include "rt_program.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "gpu.h"
#include "rt_cxx.h"
#include "rt_native.h"
#include "rt_segment.h"

#define FLAGS "-O2 -std=gnu++17 -Wno-narrowing"

/* Between the prelude and the cell: the launcher that `k<<<cfg>>>(args)`
 * becomes (`__gpuc_launcher<k>{__gpuc_cfg(cfg), "k", LINE}(args)`). */
static const char launcher[] =
    "#line 1 \"gpuc-program\"\n"
    "#include <tuple>\n"
    "extern \"C\" __attribute__((visibility(\"default\"))) void (*__gpuc_program_launch)(\n"
    "  const char *, void (*)(void **), char *, char *, const unsigned *, const unsigned *,\n"
    "  size_t, void *, void **, int) = 0;\n"
    "struct __gpuc_cfg {\n"
    "  dim3 g, b; size_t sh; cudaStream_t st;\n"
    "  __gpuc_cfg(dim3 g, dim3 b, size_t sh = 0, cudaStream_t st = 0)\n"
    "    : g(g), b(b), sh(sh), st(st) {}\n"
    "};\n"
    /* printf and assert are the device's in a kernel (a simulator worker,
     * or the executor's thread while it runs blocks), the host's elsewhere */
    "static __thread int __gpuc_in_kernel;\n"
    "static inline int __gpuc_any_printf(const char *f, ...) __attribute__((format(printf, 1, 2)));\n"
    "static inline int __gpuc_any_printf(const char *f, ...) {\n"
    "  va_list ap; va_start(ap, f);\n"
    "  int n = __gpuc_in_kernel ? __gpuc_h->vprintf(f, ap) : vprintf(f, ap);\n"
    "  va_end(ap); return n;\n"
    "}\n"
    "#undef printf\n#define printf __gpuc_any_printf\n"
    "#undef assert\n"
    "#define assert(e) ((e) ? (void)0 : __gpuc_in_kernel\\\n"
    "  ? __gpuc_h->assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__)\\\n"
    "  : __assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))\n"
    "template <auto F> void __gpuc_entry_of(void **a) { __gpuc_in_kernel = 1; __gpuc_call(F, a); }\n"
    "template <auto F, class T = decltype(F)> struct __gpuc_launcher;\n"
    "template <auto F, class... P> struct __gpuc_launcher<F, void (*)(P...)> {\n"
    "  __gpuc_cfg c; const char *name; int line;\n"
    "  template <class... A> void operator()(A &&...a) const {\n"
    "    static_assert(sizeof...(A) == sizeof...(P), \"a kernel launch needs as many arguments\"\n"
    "                  \" as the kernel has parameters\");\n"
    "    std::tuple<typename std::decay<P>::type...> t(std::forward<A>(a)...);\n"
    "    go(t, std::index_sequence_for<P...>{});\n"
    "  }\n"
    "  template <class Tu, size_t... I> void go(Tu &t, std::index_sequence<I...>) const {\n"
    "    void *args[sizeof...(P) + 1] = {(void *)&std::get<I>(t)..., 0};\n"
    "    char *lo = 0, *hi = 0;\n"
    "    __gpuc_shared(&lo, &hi);\n"
    "    unsigned g[3] = {c.g.x, c.g.y, c.g.z}, b[3] = {c.b.x, c.b.y, c.b.z};\n"
    "    __gpuc_program_launch(name, &__gpuc_entry_of<F>, lo, hi, g, b, c.sh, (void *)c.st,\n"
    "                          args, line);\n"
    "    __gpuc_in_kernel = 0;\n"
    "  }\n"
    "};\n";

/* ---- the launch rewrite --------------------------------------------- */

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Where the kernel expression before `<<<` at code[at] starts: a name,
 * qualified (a::k) and with template arguments (k<float, 4>). */
static size_t kernel_start(const char *code, size_t at)
{
    size_t p = at;
    for (;;) {
        while (p > 0 && (code[p - 1] == ' ' || code[p - 1] == '\t'))
            p--;
        if (p > 0 && code[p - 1] == '>') { /* template arguments */
            int depth = 0;
            while (p > 0) {
                char c = code[--p];
                depth += (c == '>') - (c == '<');
                if (depth == 0)
                    break;
            }
            while (p > 0 && (code[p - 1] == ' ' || code[p - 1] == '\t'))
                p--;
        }
        while (p > 0 && ident_char(code[p - 1]))
            p--;
        if (p >= 2 && code[p - 1] == ':' && code[p - 2] == ':') {
            p -= 2;
            continue;
        }
        return p;
    }
}

/* code with every `k<<<cfg>>>(` as the launcher's call, each on the line
 * where it was (strings, characters and comments left alone). */
static char *rewrite_launches(const char *code)
{
    cm_buf_t out = {0};
    size_t from = 0, n = strlen(code);
    int line = 1;
    for (size_t i = 0; i < n; i++) {
        char c = code[i];
        if (c == '\n') {
            line++;
        } else if (c == '"' || c == '\'') { /* a literal */
            for (i++; i < n && code[i] != c && code[i] != '\n'; i++)
                i += code[i] == '\\' && i + 1 < n;
        } else if (c == '/' && code[i + 1] == '/') {
            while (i + 1 < n && code[i + 1] != '\n')
                i++;
        } else if (c == '/' && code[i + 1] == '*') {
            for (i += 2; i + 1 < n && !(code[i] == '*' && code[i + 1] == '/'); i++)
                line += code[i] == '\n';
            i++;
        } else if (strncmp(code + i, "<<<", 3) == 0) {
            const char *close = strstr(code + i + 3, ">>>");
            size_t k = kernel_start(code, i);
            if (!close || k == i)
                continue;
            size_t kend = i;
            while (kend > k && (code[kend - 1] == ' ' || code[kend - 1] == '\t'))
                kend--;
            cm_buf_add(&out, code + from, k - from);
            cm_buf_adds(&out, "__gpuc_launcher<");
            cm_buf_add(&out, code + k, kend - k);
            cm_buf_adds(&out, ">{__gpuc_cfg(");
            cm_buf_add(&out, code + i + 3, (size_t)(close - (code + i + 3)));
            cm_buf_adds(&out, "), \"");
            for (size_t q = k; q < kend; q++)
                if (code[q] != '"' && code[q] != '\\')
                    cm_buf_addc(&out, code[q]);
            cm_buf_addf(&out, "\", %d}", line);
            for (const char *q = code + i; q < close; q++)
                line += *q == '\n';
            i = (size_t)(close - code) + 2;
            from = i + 1;
        }
    }
    cm_buf_adds(&out, code + from);
    return cm_buf_steal(&out);
}

/* Includes of headers the prelude provides in its own form (a second
 * __half would clash), as empty lines. */
static void blank_provided(char *code)
{
    static const char *const names[] = {"cuda_fp16.h", "cuda_bf16.h", "device_functions.h",
                                        "device_launch_parameters.h", "cooperative_groups.h",
                                        NULL};
    for (char *p = code; (p = strstr(p, "#include")) != NULL; p++) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        for (int i = 0; names[i]; i++)
            if (memmem(p, len, names[i], strlen(names[i])))
                memset(p, ' ', len);
    }
}

/* ---- the session's side --------------------------------------------- */

static int running_cell;

static void program_launch(const char *name, void (*entry)(void **), char *lo, char *hi,
                           const unsigned *grid, const unsigned *block, size_t shared,
                           void *stream, void **args, int line)
{
    cm_error_t e = {0};
    if (gpu_sim_program_kernel(running_cell, name, entry, lo, hi > lo ? (size_t)(hi - lo) : 0,
                               &e) != 0 ||
        gpu_launch_params(name, grid, block, (unsigned)shared, stream, args, 0, running_cell,
                          line, &e) != 0)
        fprintf(stderr, "%s\n", e.text); /* as a GPU's launch error: the program goes on */
}

int rt_program_is(const char *code)
{
    rt_cell_t items;
    rt_cxx_split(code, &items);
    int kind = rt_cxx_main_kind(code, &items);
    rt_cell_free(&items);
    return kind != 0;
}

int rt_program_run(rt_session_t *s, const char *body, int cell, rt_error_t *err)
{
    const char *inc = gpu_simulating() ? gpu_host_include_dir() : NULL;
    if (!inc)
        return 1; /* the split's */
    rt_native_t n = {.what = "CUDA program", .language = "C++", .ext = "cc",
                     .shared = rt_cpp_shared};
    if (rt_native_find_compiler(&n, "CXX", "g++") != 0)
        return 1;
    snprintf(n.flags, sizeof n.flags, "%s -idirafter '%s'", FLAGS, inc);
    char *code = rewrite_launches(body);
    blank_provided(code);
    rt_cell_t items;
    rt_cxx_split(code, &items);
    int main_kind = rt_cxx_main_kind(code, &items);
    rt_cell_free(&items);
    cm_buf_t src = {0};
    cm_buf_adds(&src, rt_cxx_prologue);
    cm_buf_adds(&src, "#include <cuda_runtime.h>\n");
    cm_buf_adds(&src, gpu_sim_prelude());
    cm_buf_adds(&src, launcher);
    cm_buf_addf(&src, "#line 1 \"cell[%d]\"\n", cell);
    cm_buf_adds(&src, code);
    rt_cpp_add_main(&src, code, cell, main_kind);
    free(code);

    rt_session_note_code(s, body);
    rt_cpp_load_runtime(&n);
    rt_plan_t plan = {0};
    plan.cell = cell;
    void *h = rt_native_build(s, &n, cm_buf_str(&src), body, cell, &plan, err);
    cm_buf_free(&src);
    if (!h)
        return -1;
    void (**launch)(const char *, void (*)(void **), char *, char *, const unsigned *,
                    const unsigned *, size_t, void *, void **, int) =
        dlsym(h, "__gpuc_program_launch");
    void (*bind)(const void *) = (void (*)(const void *))dlsym(h, "__gpuc_bind");
    if (!launch || !bind)
        return rt_error_set(err, "CompileError", 0, 0,
                            "cell %d: the program's entry points were not found", cell);
    *launch = program_launch;
    gpu_sim_program_bind(bind);
    running_cell = cell;
    rt_cpp_keep_includes(s, body);
    return rt_cpp_run_object(s, h, cell, err);
}
