/* gpu_toolkit: host cells' CUDA declarations from the toolkit's own
 * cuda_runtime_api.h (see gpu_internal.h).
 *
 * NVIDIA's header is C when __cplusplus is not defined, and TCC parses it
 * once four macros its compiler check does not define for TCC are given.
 * What C lacks is made here from the header's text:
 * - default arguments (`__dv(v)` or `= v` in NVIDIA's declarations, 67 in
 *   CUDA 13.0): a macro per function picks, by the number of arguments
 *   given, a form that fills the rest in;
 * - `void **` parameters take `float **` as C++ code passes them: the same
 *   macros cast those arguments;
 * - cuda_runtime.h's C++ overloads with another number of arguments
 *   (`cudaGraphInstantiate(&exec, graph, NULL, NULL, 0)`,
 *   `cudaEventCreate(&e, flags)`, `cudaMallocHost(&p, n, flags)`,
 *   `cudaGraphExecUpdate(exec, graph, &node, &result)`): the same macros
 *   pick them by the count, in C and C++ host cells;
 * - C++ names structs and enums without the keyword (`cudaDeviceProp p;`):
 *   a typedef of the same name for each;
 * - cudaDeviceProp: libcudart fills the real struct on a GPU; on the
 *   simulator the fields gpuc knows (gpu_device_props_t) that this
 *   version's struct has are copied in, the others left 0. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "cm_file.h"
#include "gpu.h"
#include "gpu_cudart.h"
#include "gpu_internal.h"

#define MAX_PARAMS 24

/* The CUDART_VERSION the header at dir declares, 0 when none. */
static int header_version(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda_runtime_api.h", dir);
    char *text = cm_file_read(path);
    const char *v = text ? strstr(text, "#define CUDART_VERSION") : NULL;
    int version = v ? atoi(v + strlen("#define CUDART_VERSION")) : 0;
    free(text);
    return version;
}

/* The include folder that belongs to the libcudart at lib (a file path):
 * beside it (toolkit: lib64/../include, targets/<arch>/lib/../include; the
 * pip wheels: nvidia/cuda_runtime/lib/../include), else $CUDA_HOME,
 * $CUDA_PATH and /usr/local/cuda, with the runtime's version. */
static int find_include(const char *lib, int version, char *dir, size_t len)
{
    char base[600] = "";
    snprintf(base, sizeof base, "%s", lib);
    char *slash = strrchr(base, '/');
    if (slash)
        *slash = '\0';
    const char *home = getenv("CUDA_HOME"), *path = getenv("CUDA_PATH");
    const char *candidates[] = {slash ? base : NULL, home, path, "/usr/local/cuda"};
    const char *suffix[] = {"/../include", "/include", "/include", "/include"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (!candidates[i])
            continue;
        snprintf(dir, len, "%s%s", candidates[i], suffix[i]);
        if (header_version(dir) == version)
            return 0;
    }
    return -1;
}

/* Blanks comments, keeping everything else where it is. */
static void blank_comments(char *t)
{
    for (char *p = t; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *stop = e ? e + 2 : p + strlen(p);
            for (; p < stop; p++)
                if (*p != '\n')
                    *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            p--;
        }
    }
}

typedef struct api_fn {
    char name[96];
    int nparams;
    int first_default;             /* index of the first defaulted parameter; nparams if none */
    char defaults[MAX_PARAMS][96]; /* the default values, "" where none */
    int void_pp[MAX_PARAMS];       /* 1 where the parameter is `void **` */
} api_fn_t;

/* s[0, n) with spaces trimmed off both ends, into out. */
static void trimmed(const char *s, size_t n, char *out, size_t cap)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
}

/* One parameter: its default ("__dv(v)" or "= v") and whether it is void **. */
static void read_param(const char *p, size_t n, api_fn_t *f, int i)
{
    char text[300];
    trimmed(p, n, text, sizeof text);
    char *dv = strstr(text, "__dv(");
    char *eq = strchr(text, '=');
    f->defaults[i][0] = '\0';
    if (dv) {
        char *open = dv + 4, *q = open;
        int depth = 0;
        for (; *q; q++) {
            depth += (*q == '(') - (*q == ')');
            if (depth == 0)
                break;
        }
        trimmed(open + 1, (size_t)(q - open - 1), f->defaults[i], sizeof f->defaults[i]);
        *dv = '\0';
    } else if (eq) {
        trimmed(eq + 1, strlen(eq + 1), f->defaults[i], sizeof f->defaults[i]);
        *eq = '\0';
    }
    char *t = text;
    while (isspace((unsigned char)*t))
        t++;
    f->void_pp[i] = strncmp(t, "void", 4) == 0 && !isalnum((unsigned char)t[4]) &&
                    t[4] != '_' && strstr(t, "**") && !strstr(t, "const");
}

/* The function declared by decl ("extern ... name(params)"): 0 and *f, -1
 * when it is not one gpuc can describe. */
static int read_function(const char *decl, size_t n, api_fn_t *f)
{
    const char *open = memchr(decl, '(', n);
    if (!open)
        return -1;
    const char *e = open;
    while (e > decl && isspace((unsigned char)e[-1]))
        e--;
    const char *b = e;
    while (b > decl && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
        b--;
    if (e - b < 5 || strncmp(b, "cuda", 4) != 0 || (size_t)(e - b) >= sizeof f->name)
        return -1;
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%.*s", (int)(e - b), b);
    const char *end = decl + n, *start = open + 1;
    int depth = 1;
    for (const char *q = open + 1; q < end && depth > 0; q++) {
        depth += (*q == '(') - (*q == ')');
        if ((depth == 1 && *q == ',') || depth == 0) {
            char piece[300];
            trimmed(start, (size_t)(q - start), piece, sizeof piece);
            if (f->nparams == MAX_PARAMS)
                return -1;
            if (piece[0] && strcmp(piece, "void") != 0)
                read_param(start, (size_t)(q - start), f, f->nparams++);
            start = q + 1;
        }
    }
    f->first_default = f->nparams;
    while (f->first_default > 0 && f->defaults[f->first_default - 1][0])
        f->first_default--;
    return 0;
}

/* What gpuc defines itself (gpu_header.c's macros, add_properties). */
static const char *const gpuc_names[] = {
    "cudaMalloc", "cudaFree", "cudaDeviceSynchronize", "cudaStreamSynchronize",
    "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync",
    "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress",
    "cudaGetSymbolSize", "cudaGetDeviceProperties", NULL};

static int gpuc_owns(const char *name)
{
    for (int i = 0; gpuc_names[i]; i++)
        if (strcmp(gpuc_names[i], name) == 0)
            return 1;
    return 0;
}

/* cuda_runtime.h's C++ overloads that take another number of arguments
 * than the C function of nparams parameters, which nvcc's host code
 * calls: the form for nargs arguments (a0, a1, ...), as NVIDIA's inline
 * C++ functions define them. */
typedef struct overload {
    const char *name;
    int nparams, nargs;
    const char *form;
} overload_t;

static const overload_t overloads[] = {
    {"cudaEventCreate", 1, 2, "cudaEventCreateWithFlags((a0), (a1))"},
    {"cudaMallocHost", 2, 3, "cudaHostAlloc((a0), (a1), (a2))"},
    /* the error node and log of CUDA 11's form: NVIDIA's overload ignores them */
    {"cudaGraphInstantiate", 3, 5,
     "((void)(a2), (void)(a3), (void)(a4), __gpuc_fn_cudaGraphInstantiate((a0), (a1), 0))"},
    {"cudaGraphExecUpdate", 3, 4, "__gpuc_graph_exec_update((a0), (a1), (a2), (a3))"},
    {NULL, 0, 0, NULL}};

static const overload_t *overload_of(const api_fn_t *f)
{
    for (int i = 0; overloads[i].name; i++)
        if (strcmp(overloads[i].name, f->name) == 0 && overloads[i].nparams == f->nparams)
            return &overloads[i];
    return NULL;
}

/* The macros for f: NAME(...) picks __gpuc_NAME_<k> by the argument count
 * k; each form casts void ** arguments and fills the defaults in, or is a
 * C++ overload's. The forms call the function through a pointer taken
 * before NAME becomes a macro: where NVIDIA's header renames NAME
 * (`#define cudaX cudaX_v2`), that is the function the header means. */
static void add_macros(cm_buf_t *out, const api_fn_t *f)
{
    int any_pp = 0;
    for (int i = 0; i < f->nparams; i++)
        any_pp |= f->void_pp[i];
    const overload_t *ov = overload_of(f);
    if (f->first_default == f->nparams && !any_pp && !ov)
        return;
    cm_buf_addf(out, "static __typeof__(%s) *const __gpuc_fn_%s = %s;\n#undef %s\n", f->name,
                f->name, f->name, f->name);
    if (ov) {
        cm_buf_addf(out, "#define __gpuc_%s_%d(", f->name, ov->nargs);
        for (int i = 0; i < ov->nargs; i++)
            cm_buf_addf(out, "%sa%d", i ? ", " : "", i);
        cm_buf_addf(out, ") %s\n", ov->form);
    }
    if (ov && strcmp(f->name, "cudaGraphExecUpdate") == 0)
        cm_buf_adds(out, "static inline cudaError_t __gpuc_graph_exec_update(cudaGraphExec_t e, "
                         "cudaGraph_t g, cudaGraphNode_t *node, enum cudaGraphExecUpdateResult *r)\n"
                         "{ cudaGraphExecUpdateResultInfo info; "
                         "cudaError_t st = __gpuc_fn_cudaGraphExecUpdate(e, g, &info);\n"
                         "  if (node) *node = info.errorNode; if (r) *r = info.result; "
                         "return st; }\n");
    for (int k = f->first_default; k <= f->nparams; k++) {
        cm_buf_addf(out, "#define __gpuc_%s_%d(", f->name, k);
        for (int i = 0; i < k; i++)
            cm_buf_addf(out, "%sa%d", i ? ", " : "", i);
        cm_buf_addf(out, ") __gpuc_fn_%s(", f->name);
        for (int i = 0; i < f->nparams; i++) {
            const char *sep = i ? ", " : "";
            if (i >= k)
                cm_buf_addf(out, "%s%s", sep, f->defaults[i]);
            else if (f->void_pp[i])
                cm_buf_addf(out, "%s(void **)(a%d)", sep, i);
            else
                cm_buf_addf(out, "%s(a%d)", sep, i);
        }
        cm_buf_adds(out, ")\n");
    }
    if (f->first_default == f->nparams && !ov) { /* no defaults: one form */
        cm_buf_addf(out, "#define %s(...) __gpuc_%s_%d(__VA_ARGS__)\n", f->name, f->name,
                    f->nparams);
        return;
    }
    /* __gpuc_pick(args..., forms from MAX_PARAMS down to 1, _) names the
     * form for the count given; a count with no form calls the function
     * as written, so that TCC says what is wrong */
    cm_buf_addf(out, "#define %s(...) __gpuc_pick(__VA_ARGS__", f->name);
    for (int k = MAX_PARAMS; k >= 1; k--) {
        if ((k >= f->first_default && k <= f->nparams) || (ov && k == ov->nargs))
            cm_buf_addf(out, ", __gpuc_%s_%d", f->name, k);
        else
            cm_buf_addf(out, ", __gpuc_fn_%s", f->name);
    }
    cm_buf_adds(out, ", _)(__VA_ARGS__)\n");
}

/* The _ptsz/_ptds forms (CUDA 12's header declares them only where
 * CUDA_API_PER_THREAD_DEFAULT_STREAM is defined, inside an #if this text
 * scan does not follow): no macros, or a cell would refer to them. */
static int per_thread_form(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && (!strcmp(name + n - 5, "_ptsz") || !strcmp(name + n - 5, "_ptds"));
}

/* The default-argument and void ** macros of every function the API
 * text declares. A function declared twice (C++ and C forms) keeps the
 * form with the most defaults; one declared with different parameter
 * counts gets none. */
static void add_api_macros(cm_buf_t *out, char *api)
{
    blank_comments(api);
    api_fn_t *fns = NULL;
    int n = 0, cap = 0;
    for (char *p = api; (p = strstr(p, "extern")) != NULL;) {
        char *semi = strchr(p, ';');
        if (!semi)
            break;
        api_fn_t f;
        if (read_function(p, (size_t)(semi - p), &f) == 0 && !gpuc_owns(f.name) &&
            !per_thread_form(f.name)) {
            int j = 0;
            while (j < n && strcmp(fns[j].name, f.name) != 0)
                j++;
            if (j == n) {
                if (n == cap) {
                    cap = cap ? cap * 2 : 256;
                    fns = realloc(fns, (size_t)cap * sizeof *fns);
                    if (!fns)
                        abort();
                }
                fns[n++] = f;
            } else if (fns[j].nparams != f.nparams) {
                fns[j].nparams = -1; /* overloaded: leave it as declared */
            } else if (f.first_default < fns[j].first_default) {
                fns[j] = f;
            }
        }
        p = semi + 1;
    }
    cm_buf_adds(out, "#define __gpuc_pick(");
    for (int k = 1; k <= MAX_PARAMS; k++)
        cm_buf_addf(out, "_%d, ", k);
    cm_buf_adds(out, "name, ...) name\n");
    for (int i = 0; i < n; i++)
        if (fns[i].nparams >= 0)
            add_macros(out, &fns[i]);
    free(fns);
}

/* `typedef struct T T;` for every struct, union and enum the runtime's
 * headers at dir define (NVIDIA's C header has typedefs for few of them),
 * so that C cells name them as C++ code does: `cudaDeviceProp prop;`. */
static void add_type_names(cm_buf_t *out, const char *dir)
{
    static const char *const files[] = {"driver_types.h", "surface_types.h", "texture_types.h",
                                        "device_types.h", "cuda_runtime_api.h", NULL};
    cm_buf_t seen = {0};
    for (int i = 0; files[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        char *text = cm_file_read(path);
        for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
            const char *kind = !strncmp(p, "struct ", 7) ? "struct"
                               : !strncmp(p, "union ", 6) ? "union"
                               : !strncmp(p, "enum ", 5)  ? "enum"
                                                          : NULL;
            if (!kind)
                continue;
            char *q = p + strlen(kind) + 1;
            if (!strncmp(q, "__device_builtin__ ", 19))
                q += 19;
            size_t n = 0;
            while (isalnum((unsigned char)q[n]) || q[n] == '_')
                n++;
            char name[128];
            if (!n || n >= sizeof name - 2 || strncmp(q, "cuda", 4) != 0)
                continue;
            snprintf(name, sizeof name, " %.*s ", (int)n, q);
            if (strstr(cm_buf_str(&seen), name))
                continue;
            cm_buf_adds(&seen, name);
            cm_buf_addf(out, "typedef %s %.*s %.*s;\n", kind, (int)n, q, (int)n, q);
        }
        free(text);
    }
    cm_buf_free(&seen);
}

#define PROP_NAME(type, name, dims) #name,

/* cudaGetDeviceProperties: libcudart's on a GPU; on the simulator the
 * fields of gpu_device_props_t that this version's cudaDeviceProp has
 * (read from driver_types.h at dir). */
static void add_properties(cm_buf_t *out, const char *dir)
{
    static const char *const names[] = {GPU_DEVICE_PROPS(PROP_NAME) NULL};
    char path[1024];
    snprintf(path, sizeof path, "%s/driver_types.h", dir);
    char *text = cm_file_read(path);
    char *start = text ? strstr(text, "cudaDeviceProp\n{") : NULL;
    if (!start && text)
        start = strstr(text, "cudaDeviceProp {");
    char *end = start ? strstr(start, "\n}") : NULL;
    if (end)
        *end = '\0';
    if (start)
        blank_comments(start);
    cm_buf_adds(out, "static inline cudaError_t __gpuc_device_properties(struct cudaDeviceProp *p, "
                     "int d)\n{\n"
                     "    if (!__gpuc_simulating()) return (cudaGetDeviceProperties)(p, d);\n"
                     "    struct gpu_device_props g;\n"
                     "    int rc = __gpuc_device_props(&g, d);\n"
                     "    memset(p, 0, sizeof *p);\n");
    for (int i = 0; start && names[i]; i++) {
        size_t len = strlen(names[i]);
        for (const char *q = strstr(start, names[i]); q; q = strstr(q + 1, names[i])) {
            char before = q[-1], after = q[len];
            if ((isspace((unsigned char)before) || before == '*') && (after == ';' ||
                after == '[' || isspace((unsigned char)after))) {
                cm_buf_addf(out, "    memcpy(&p->%s, &g.%s, sizeof g.%s);\n", names[i],
                            names[i], names[i]);
                break;
            }
        }
    }
    cm_buf_adds(out, "    return (cudaError_t)rc;\n}\n"
                     "#undef cudaGetDeviceProperties\n"
                     "#define cudaGetDeviceProperties(prop, device) "
                     "__gpuc_device_properties((prop), (device))\n");
    free(text);
}

static char include_dir[700]; /* the folder of the header used, "" for the subset */

const char *gpu_host_include_dir(void)
{
    gpu_host_header(1);
    return include_dir[0] ? include_dir : NULL;
}

char *gpu_toolkit_header(char *source, size_t source_len)
{
    const gpu_cudart_t *rt = gpu_cudart_get(NULL);
    const char *forced = getenv("GPUC_CUDA_INCLUDE");
    if (forced && strcmp(forced, "none") == 0) {
        snprintf(source, source_len, "gpuc's own declarations (GPUC_CUDA_INCLUDE=none)");
        return NULL;
    }
    if (!rt) {
        snprintf(source, source_len, "gpuc's own declarations (no CUDA runtime found)");
        return NULL;
    }
    char dir[700];
    Dl_info info;
    const char *lib = dladdr((void *)rt->cudaRuntimeGetVersion, &info) && info.dli_fname
                          ? info.dli_fname
                          : rt->path;
    if (forced && forced[0]) {
        snprintf(dir, sizeof dir, "%s", forced);
        if (header_version(dir) != rt->version)
            forced = NULL;
    }
    if (!(forced && forced[0]) && find_include(lib, rt->version, dir, sizeof dir) != 0) {
        snprintf(source, source_len,
                 "gpuc's own declarations (no cuda_runtime_api.h of CUDA %d.%d beside %s)",
                 rt->version / 1000, rt->version % 1000 / 10, lib);
        return NULL;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda_runtime_api.h", dir);
    char *api = cm_file_read(path);
    if (!api)
        return NULL;
    cm_buf_t out = {0};
    /* what NVIDIA's compiler check leaves undefined for TCC; the vector
     * types are gpuc's (gpu_header.c), aligned as nvcc aligns them, which
     * TCC does not do for an aligned attribute on a struct */
    cm_buf_adds(&out, "#ifndef __GNUC__\n" /* %%cc cells' gcc has NVIDIA's own */
                      "#define __location__(a)\n"
                      "#define __align__(n) __attribute__((aligned(n)))\n"
                      "#define CUDARTAPI\n#define CUDARTAPI_CDECL\n"
                      "#endif\n"
                      "#define __NV_NO_VECTOR_DEPRECATION_DIAG 1\n"
                      "#define __VECTOR_TYPES_H__\n"
                      /* make_float4 & co, __half and __nv_bfloat16 are gpuc's
                       * too: cuda_runtime.h (curand.h) and cublas_api.h
                       * include NVIDIA's, which are C++ or need nvcc */
                      "#define __VECTOR_FUNCTIONS_H__\n#define __CUDA_FP16_H__\n"
                      "#define __CUDA_BF16_H__\n");
    cm_buf_addf(&out, "#include \"%s\"\n#include <string.h>\n", path);
    for (int i = 0; gpuc_names[i]; i++) /* gpuc's macros (gpu_header.c) replace them */
        if (strcmp(gpuc_names[i], "cudaGetDeviceProperties") != 0)
            cm_buf_addf(&out, "#undef %s\n", gpuc_names[i]);
    add_type_names(&out, dir);
    add_api_macros(&out, api);
    add_properties(&out, dir);
    free(api);
    snprintf(include_dir, sizeof include_dir, "%s", dir);
    snprintf(source, source_len, "CUDA %d.%d's cuda_runtime_api.h (%s)", rt->version / 1000,
             rt->version % 1000 / 10, dir);
    return cm_buf_steal(&out);
}
