/* rt_program: a whole CUDA program (a `%%cuda` cell with main, or a cell
 * with kernels and main) as nvcc means it: ONE translation unit, so every
 * namespace-scope name (a `const int block_size`, a typedef after the
 * kernels, `using namespace`, templates) is seen by host and device code,
 * and host code is C++ (see docs/architecture.md, "Whole programs").
 *
 * On a GPU nvcc compiles the cell as it is. On the simulator g++ compiles
 * it as one unit: the toolkit's cuda_runtime.h (its C++ overloads too),
 * the simulator's prelude (device code as the simulator's C++), a
 * launcher and stream capture, then the cell, each `k<<<g, b>>>(args)`
 * rewritten on its own line into a launcher that converts the arguments to
 * the kernel's parameter types and launches k's entry on the simulator (a
 * failure while it runs fails the cell at its end, also where main ignored
 * it: rt_gpu_after_cell).
 * Either object is built and loaded into the session by rt_native (its
 * stub library gives the session's exit() and reads, and on the simulator
 * its runtime API), and main runs as a C++ cell's main does (rt_cpp). A
 * cell run again unchanged loads the object it built (no compile).
 *
 * Where neither applies (no nvcc on a GPU; no toolkit headers or g++ for
 * the simulator) the caller falls back to the split of rt_device.c. */
#include "rt_program.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "gpu.h"
#include "rt_cuda_header.h"
#include "rt_cxx.h"
#include "rt_gpu_host.h"
#include "rt_native.h"
#include "rt_segment.h"

/* -g1: line tables, so that a fault in a kernel names its line */
#define FLAGS "-O2 -g1 -std=gnu++17 -Wno-narrowing"

/* Between the prelude and the cell: the launcher that `k<<<cfg>>>(args)`
 * becomes (`__gpuc_launcher<k>{__gpuc_cfg(cfg), "k", LINE}(args)`). */
static const char launcher[] =
    "#line 1 \"gpuc-program\"\n"
    "#undef __noinline__\n" /* libstdc++'s __attribute__((__noinline__)) in Thrust's headers */
    "#include <tuple>\n#include <vector>\n#include <functional>\n#include <memory>\n"
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
    /* what takes a kernel or a symbol: the session's (rt_gpu_func.c) for
     * the object's kernels (gpu_kernel_alias); symbols are host memory */
    "extern \"C\" int __gpuc_launch_kernel(const void *, const void *, int, unsigned,\n"
    "  const void *, int, unsigned, void **, unsigned long long, void *, int, int);\n"
    "extern \"C\" int __gpuc_func_get_attributes(void *, size_t, const void *);\n"
    "extern \"C\" int __gpuc_occupancy_blocks(int *, const void *, int, size_t);\n"
    "template <class F> static inline cudaError_t __gpuc_lk(F f, dim3 g, dim3 b, void **a,\n"
    "  size_t s = 0, cudaStream_t st = 0) { return (cudaError_t)__gpuc_launch_kernel(\n"
    "  (const void *)f, &g, 1, sizeof g, &b, 1, sizeof b, a, s, (void *)st, 0, 0); }\n"
    "template <class F> static inline cudaError_t __gpuc_lck(F f, dim3 g, dim3 b, void **a,\n"
    "  size_t s = 0, cudaStream_t st = 0) { return (cudaError_t)__gpuc_launch_kernel(\n"
    "  (const void *)f, &g, 1, sizeof g, &b, 1, sizeof b, a, s, (void *)st, 1, 0); }\n"
    "template <class F> static inline cudaError_t __gpuc_fga(cudaFuncAttributes *a, F f)\n"
    "{ return (cudaError_t)__gpuc_func_get_attributes(a, sizeof *a, (const void *)f); }\n"
    "template <class F> static inline cudaError_t __gpuc_omab(int *n, F f, int b, size_t s,\n"
    "  unsigned flags = 0) { (void)flags;\n"
    "  return (cudaError_t)__gpuc_occupancy_blocks(n, (const void *)f, b, s); }\n"
    "#define cudaLaunchKernel __gpuc_lk\n"
    "#define cudaLaunchCooperativeKernel __gpuc_lck\n"
    "#define cudaFuncGetAttributes __gpuc_fga\n"
    "#define cudaOccupancyMaxActiveBlocksPerMultiprocessor __gpuc_omab\n"
    "#define cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags __gpuc_omab\n"
    "template <class T> static inline cudaError_t __gpuc_tosym(T &sym, const void *src, size_t n,\n"
    "  size_t off = 0, cudaMemcpyKind k = cudaMemcpyHostToDevice, cudaStream_t st = 0)\n"
    "{ (void)k; (void)st; cudaDeviceSynchronize(); memcpy((char *)&sym + off, src, n);\n"
    "  return cudaSuccess; }\n"
    "template <class T> static inline cudaError_t __gpuc_fromsym(void *dst, const T &sym,\n"
    "  size_t n, size_t off = 0, cudaMemcpyKind k = cudaMemcpyDeviceToHost, cudaStream_t st = 0)\n"
    "{ (void)k; (void)st; cudaDeviceSynchronize(); memcpy(dst, (const char *)&sym + off, n);\n"
    "  return cudaSuccess; }\n"
    "template <class T> static inline cudaError_t __gpuc_symaddr(void **p, T &sym)\n"
    "{ *p = (void *)&sym; return cudaSuccess; }\n"
    "template <class P, class T> static inline cudaError_t __gpuc_symaddr(P **p, T &sym)\n"
    "{ *p = (P *)(void *)&sym; return cudaSuccess; }\n"
    "template <class T> static inline cudaError_t __gpuc_symsize(size_t *n, const T &sym)\n"
    "{ *n = sizeof sym; return cudaSuccess; }\n"
    "#define cudaMemcpyToSymbol __gpuc_tosym\n"
    "#define cudaMemcpyToSymbolAsync __gpuc_tosym\n"
    "#define cudaMemcpyFromSymbol __gpuc_fromsym\n"
    "#define cudaMemcpyFromSymbolAsync __gpuc_fromsym\n"
    "#define cudaGetSymbolAddress __gpuc_symaddr\n"
    "#define cudaGetSymbolSize __gpuc_symsize\n"
    "template <auto F, class T = decltype(F)> struct __gpuc_launcher;\n"
    /* CUDA graphs from stream capture: what a capturing stream is given
     * (launches, async copies and sets) is kept in order and replayed by
     * cudaGraphLaunch; the graph API's explicit nodes are not there */
    "typedef std::vector<std::function<void()>> __gpuc_graph;\n"
    "static cudaStream_t __gpuc_capture_stream;\n"
    "static __gpuc_graph *__gpuc_capture;\n"
    "static inline bool __gpuc_captured(cudaStream_t st, std::function<void()> op) {\n"
    "  if (!__gpuc_capture || !st || st != __gpuc_capture_stream) return false;\n"
    "  __gpuc_capture->push_back(op); return true; }\n"
    "static inline cudaError_t __gpuc_begin_capture(cudaStream_t st, cudaStreamCaptureMode) {\n"
    "  if (!st || __gpuc_capture) return cudaErrorIllegalState;\n"
    "  __gpuc_capture_stream = st; __gpuc_capture = new __gpuc_graph; return cudaSuccess; }\n"
    "static inline cudaError_t __gpuc_end_capture(cudaStream_t st, cudaGraph_t *g) {\n"
    "  if (!__gpuc_capture || st != __gpuc_capture_stream) return cudaErrorIllegalState;\n"
    "  *g = (cudaGraph_t)__gpuc_capture; __gpuc_capture = 0; return cudaSuccess; }\n"
    "static inline cudaError_t __gpuc_is_capturing(cudaStream_t st, cudaStreamCaptureStatus *c)\n"
    "{ *c = __gpuc_capture && st == __gpuc_capture_stream ? cudaStreamCaptureStatusActive\n"
    "  : cudaStreamCaptureStatusNone; return cudaSuccess; }\n"
    "template <class... R> static inline cudaError_t __gpuc_instantiate(cudaGraphExec_t *e,\n"
    "  cudaGraph_t g, R...) { *e = (cudaGraphExec_t)new __gpuc_graph(*(__gpuc_graph *)g);\n"
    "  return cudaSuccess; }\n"
    "static inline cudaError_t __gpuc_graph_launch(cudaGraphExec_t e, cudaStream_t) {\n"
    "  for (auto &op : *(__gpuc_graph *)e) op(); return cudaSuccess; }\n"
    "static inline cudaError_t __gpuc_graph_free(cudaGraph_t g)\n"
    "{ delete (__gpuc_graph *)g; return cudaSuccess; }\n"
    "static inline cudaError_t __gpuc_exec_free(cudaGraphExec_t e)\n"
    "{ delete (__gpuc_graph *)e; return cudaSuccess; }\n"
    "static inline cudaError_t __gpuc_memcpy_async(void *d, const void *s, size_t n,\n"
    "  cudaMemcpyKind k, cudaStream_t st = 0) {\n"
    "  if (__gpuc_captured(st, [=] { cudaMemcpyAsync(d, s, n, k, st); })) return cudaSuccess;\n"
    "  return cudaMemcpyAsync(d, s, n, k, st); }\n"
    "static inline cudaError_t __gpuc_memset_async(void *d, int v, size_t n, cudaStream_t st = 0) {\n"
    "  if (__gpuc_captured(st, [=] { cudaMemsetAsync(d, v, n, st); })) return cudaSuccess;\n"
    "  return cudaMemsetAsync(d, v, n, st); }\n"
    "#define cudaStreamBeginCapture __gpuc_begin_capture\n"
    "#define cudaStreamEndCapture __gpuc_end_capture\n"
    "#define cudaStreamIsCapturing __gpuc_is_capturing\n"
    "#define cudaGraphInstantiate __gpuc_instantiate\n"
    "#define cudaGraphInstantiateWithFlags __gpuc_instantiate\n"
    "#define cudaGraphLaunch __gpuc_graph_launch\n"
    "#define cudaGraphDestroy __gpuc_graph_free\n"
    "#define cudaGraphExecDestroy __gpuc_exec_free\n"
    "#define cudaMemcpyAsync __gpuc_memcpy_async\n"
    "#define cudaMemsetAsync __gpuc_memset_async\n"
    "template <auto F, class... P> struct __gpuc_launcher<F, void (*)(P...)> {\n"
    "  __gpuc_cfg c; const char *name; int line;\n"
    "  template <class... A> void operator()(A &&...a) const {\n"
    "    static_assert(sizeof...(A) == sizeof...(P), \"a kernel launch needs as many arguments\"\n"
    "                  \" as the kernel has parameters\");\n"
    "    typedef std::tuple<typename std::decay<P>::type...> Tu;\n"
    "    auto t = std::make_shared<Tu>(std::forward<A>(a)...);\n"
    "    __gpuc_launcher self = *this;\n"
    "    auto run = [self, t] { self.go(*t, std::index_sequence_for<P...>{}); };\n"
    "    if (!__gpuc_captured(c.st, run)) run();\n"
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

/* The names of code's kernels that are no templates, in order (at most
 * max): those a program may pass to cudaLaunchKernel & co. */
static int kernel_names(const char *code, char names[][128], int max)
{
    int n = 0;
    for (const char *p = code; n < max && (p = strstr(p, "__global__")) != NULL; p += 10) {
        const char *start = p;
        while (start > code && start[-1] != ';' && start[-1] != '}')
            start--;
        const char *t = strstr(start, "template");
        if (t && t < p)
            continue;
        const char *q = p + 10, *name = NULL;
        size_t len = 0;
        while (*q && *q != '(' && *q != ';' && *q != '{') {
            if (ident_char(*q)) {
                const char *w = q;
                while (ident_char(*q))
                    q++;
                name = w;
                len = (size_t)(q - w);
                if (len == 17 && strncmp(w, "__launch_bounds__", 17) == 0 && *q == '(') {
                    int depth = 0; /* its arguments */
                    do
                        depth += (*q == '(') - (*q == ')');
                    while (*++q && depth);
                    name = NULL;
                }
                continue;
            }
            q++;
        }
        if (*q == '(' && name && len < 128) {
            memcpy(names[n], name, len);
            names[n++][len] = '\0';
        }
    }
    return n;
}

/* The object's table of its kernels: address, entry and name of each. */
static void add_kernel_table(cm_buf_t *src, const char *code)
{
    static char names[256][128];
    int n = kernel_names(code, names, 256);
    cm_buf_adds(src, "\n#line 1 \"gpuc-program\"\n"
                     "extern \"C\" __attribute__((visibility(\"default\"))) const void "
                     "*__gpuc_program_kernels[] = {");
    for (int i = 0; i < n; i++)
        cm_buf_addf(src, "(const void *)&%s, (const void *)&__gpuc_entry_of<%s>, \"%s\", ",
                    names[i], names[i], names[i]);
    cm_buf_adds(src, "0};\n");
}

/* Includes of headers that mean nothing to g++, as empty lines (the
 * prelude provides what they declare). */
static void blank_provided(char *code)
{
    static const char *const names[] = {"device_functions.h",
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

static int running_cell, built_in; /* the cell that runs, the one its object names */
static void (*known[64])(void **); /* entries registered for the running program */
static int nknown;

/* Registers entry under name once per program run (a template instance's
 * first launch; the others are in the kernel table). 0 / -1 with e. */
static int know(const char *name, void (*entry)(void **), char *lo, char *hi, cm_error_t *e)
{
    for (int i = 0; i < nknown; i++)
        if (known[i] == entry)
            return 0;
    if (gpu_sim_program_kernel(running_cell, built_in, name, entry, lo,
                               hi > lo ? (size_t)(hi - lo) : 0, e) != 0)
        return -1;
    if (nknown < 64)
        known[nknown++] = entry;
    return 0;
}

static void program_launch(const char *name, void (*entry)(void **), char *lo, char *hi,
                           const unsigned *grid, const unsigned *block, size_t shared,
                           void *stream, void **args, int line)
{
    cm_error_t e = {0};
    if (know(name, entry, lo, hi, &e) != 0 ||
        gpu_launch_params(name, grid, block, (unsigned)shared, stream, args, 0, running_cell,
                          line, &e) != 0) {
        fprintf(stderr, "%s\n", e.text); /* as a GPU's launch error: the program goes on */
        return;
    }
    rt_gpu_note_launch(); /* a failure while it ran fails the cell at its end (rt_gpu_after_cell) */
}

/* The object's kernels as the session's (launched by name, found by
 * their addresses), before main runs. */
static int register_kernels(void *h, int cell, int object_cell, rt_error_t *err)
{
    nknown = 0;
    running_cell = cell;
    built_in = object_cell;
    const void *const *table = dlsym(h, "__gpuc_program_kernels");
    void (*shared)(char **, char **) = (void (*)(char **, char **))dlsym(h, "__gpuc_shared");
    char *lo = NULL, *hi = NULL;
    if (shared)
        shared(&lo, &hi);
    for (size_t i = 0; table && table[i]; i += 3) {
        cm_error_t e = {0};
        const char *name = table[i + 2];
        if (know(name, (void (*)(void **))table[i + 1], lo, hi, &e) != 0)
            return rt_error_set(err, "CudaError", cell, 0, "cell %d: %s", cell, e.text);
        gpu_kernel_alias(table[i], name);
    }
    return 0;
}

int rt_program_is(const char *code)
{
    rt_cell_t items;
    rt_cxx_split(code, &items);
    int kind = rt_cxx_main_kind(code, &items);
    rt_cell_free(&items);
    return kind != 0;
}

/* The simulator's unit (see the top): 0 with n and src set, 1 when it
 * cannot be built here (no toolkit headers, no g++), -1 with err. */
static int simulator_source(const char *body, int cell, rt_native_t *n, cm_buf_t *src,
                            rt_error_t *err)
{
    const char *inc = rt_cuda_include_dir();
    if (!inc || rt_native_find_compiler(n, "CXX", "g++") != 0)
        return 1;
    if (strstr(body, "<cub/")) /* its device algorithms are PTX: no g++ form */
        return rt_error_set(err, "CudaUnavailable", cell, 0,
                            "cell %d: CUB's device algorithms need a GPU: the CUDA simulator "
                            "cannot run them (Thrust's algorithms run there; "
                            "docs/simulator.md)", cell);
    /* Thrust and libcu++ (the toolkit's cccl folder) on Thrust's C++ host
     * system: device_vector in host memory, its algorithms sequential;
     * their own __half off, the toolkit's being the one */
    snprintf(n->flags, sizeof n->flags,
             "%s -idirafter '%s' -idirafter '%s/cccl' -DCCCL_DISABLE_FP16_SUPPORT "
             "-DCCCL_DISABLE_BF16_SUPPORT -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP",
             FLAGS, inc, inc);
    char *code = rewrite_launches(body);
    blank_provided(code);
    rt_cell_t items;
    rt_cxx_split(code, &items);
    int main_kind = rt_cxx_main_kind(code, &items);
    rt_cell_free(&items);
    cm_buf_adds(src, rt_cxx_prologue);
    cm_buf_adds(src, "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n");
    cm_buf_adds(src, gpu_sim_prelude());
    cm_buf_adds(src, launcher);
    cm_buf_t cellsrc = {0};
    cm_buf_addf(&cellsrc, "#line 1 \"cell[%d]\"\n", cell);
    cm_buf_adds(&cellsrc, code);
    gpu_sim_rewrite(cm_buf_str(&cellsrc), src);
    cm_buf_free(&cellsrc);
    add_kernel_table(src, code);
    rt_cpp_add_main(src, code, cell, main_kind);
    free(code);
    return 0;
}

/* nvcc's unit: the cell as it is, compiled for the GPU present and linked
 * with the shared libcudart that the session's host cells use (one
 * runtime, one primary context). Its host compiler is C++ cells' ($CXX,
 * else g++: host gets it), so the program and later C++ cells share one
 * libstdc++, headers and library alike. 0 with n, host and src set; 1 when
 * there is no nvcc ($GPUC_NVCC, PATH, the toolkit's bin folder). */
static int nvcc_source(const char *body, int cell, rt_native_t *n, rt_native_t *host,
                       cm_buf_t *src)
{
    const char *inc = rt_cuda_include_dir();
    char near[4200] = "/usr/local/cuda/bin/nvcc";
    if (inc)
        snprintf(near, sizeof near, "%s/../bin/nvcc", inc);
    if (rt_native_find_compiler(n, "GPUC_NVCC", "nvcc") != 0 &&
        rt_native_find_compiler(n, "GPUC_NVCC", near) != 0 &&
        rt_native_find_compiler(n, "GPUC_NVCC", "/usr/local/cuda/bin/nvcc") != 0)
        return 1;
    n->nvcc = 1;
    n->ext = "cu";
    char lib[4200];
    snprintf(lib, sizeof lib, "%s", n->compiler);
    char *slash = strrchr(lib, '/');
    if (slash)
        snprintf(slash, sizeof lib - (size_t)(slash - lib), "/../lib64");
    int len = snprintf(n->flags, sizeof n->flags,
                       "-O2 -std=c++17 -arch=native -cudart shared%s%.1500s",
                       slash ? " -Xlinker -rpath=" : "", slash ? lib : "");
    if (rt_native_find_compiler(host, "CXX", "g++") == 0 && len > 0 &&
        (size_t)len < sizeof n->flags)
        snprintf(n->flags + len, sizeof n->flags - (size_t)len, " -ccbin '%.400s'",
                 host->compiler);
    rt_cell_t items;
    rt_cxx_split(body, &items);
    int main_kind = rt_cxx_main_kind(body, &items);
    rt_cell_free(&items);
    cm_buf_adds(src, rt_cxx_prologue);
    cm_buf_addf(src, "#line 1 \"cell[%d]\"\n", cell);
    cm_buf_adds(src, body);
    rt_cpp_add_main(src, body, cell, main_kind);
    return 0;
}

/* The simulator's side of a loaded object: its launcher, the simulator's
 * hooks, its kernels. 0 / -1 with err. */
static int bind_simulator(void *h, int cell, int built, rt_error_t *err)
{
    void (**launch)(const char *, void (*)(void **), char *, char *, const unsigned *,
                    const unsigned *, size_t, void *, void **, int) =
        dlsym(h, "__gpuc_program_launch");
    void (*bind)(const void *) = (void (*)(const void *))dlsym(h, "__gpuc_bind");
    if (!launch || !bind)
        return rt_error_set(err, "CompileError", 0, 0,
                            "cell %d: the program's entry points were not found", cell);
    *launch = program_launch;
    gpu_sim_program_bind(bind);
    return register_kernels(h, cell, built, err);
}

/* options appended to n's flags, each quoted: all for nvcc, g++'s
 * meaning ones for the simulator. */
static void add_options(rt_native_t *n, const char *options)
{
    static const char *const gxx[] = {"-D", "-U", "-I", "-O", "-std=", "--std=", NULL};
    char *copy = strdup(options ? options : "");
    size_t len = strlen(n->flags);
    int kept = 1; /* the token before: an option's argument goes with it */
    for (char *save, *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        int keep = n->nvcc || (t[0] != '-' && kept);
        for (int i = 0; !keep && t[0] == '-' && gxx[i]; i++)
            keep = strncmp(t, gxx[i], strlen(gxx[i])) == 0;
        kept = keep;
        if (!keep || strchr(t, '\'') || len + strlen(t) + 4 >= sizeof n->flags)
            continue;
        len += (size_t)snprintf(n->flags + len, sizeof n->flags - len, " '%s'",
                                strncmp(t, "--std=", 6) == 0 ? t + 1 : t);
    }
    free(copy);
}

int rt_program_run(rt_session_t *s, const char *body, const char *options, int cell,
                   rt_error_t *err)
{
    rt_native_t n = {.what = "CUDA program", .language = "C++", .ext = "cc",
                     .shared = rt_cpp_shared, .cache = 1};
    cm_buf_t src = {0};
    /* GPUC_PROGRAMS_WITH_NVCC=1: nvcc's route on the simulator too (tests: its
     * compile and its messages; the kernels cannot run there) */
    int sim = gpu_simulating() && !getenv("GPUC_PROGRAMS_WITH_NVCC");
    rt_native_t host = {0}; /* the C++ compiler whose libstdc++ the process runs */
    int rc = sim ? simulator_source(body, cell, &n, &src, err)
                 : nvcc_source(body, cell, &n, &host, &src);
    if (rc != 0) {
        cm_buf_free(&src);
        return rc; /* 1: the split's */
    }
    add_options(&n, options);
    rt_session_note_code(s, body);
    rt_gpu_prepare_host(body, cell); /* cuBLAS & co. loaded for the object to link with */
    rt_cpp_load_runtime(sim ? &n : &host);
    rt_plan_t plan = {0};
    plan.cell = cell;
    void *h = rt_native_build(s, &n, cm_buf_str(&src), body, cell, &plan, err);
    cm_buf_free(&src);
    if (!h)
        return -1;
    if (n.cache_hit)
        rt_magic_note("program of cell %d: cache hit (loaded in %.1f ms)\n", cell, n.build_ms);
    else
        rt_magic_note("compiled the program of cell %d %s (%s, one unit) in %.0f ms\n", cell,
                      sim ? "for the CUDA simulator" : "for the GPU", n.compiler, n.build_ms);
    if (sim && bind_simulator(h, cell, n.built_in, err) != 0)
        return -1;
    rt_cpp_keep_includes(s, body);
    return rt_cpp_run_object(s, h, cell, err);
}
