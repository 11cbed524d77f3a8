/* test_rt_device: the split of a .cu-style cell into its device and host
 * parts with one translation unit's meaning, and the declarations of host
 * code that later device code may use (rt_device). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_device.h"

/* rt_device_split and rt_device_declarations of a text read once here,
 * as the cell runner reads a cell. */
static int split(const char *code, char **device, char **host)
{
    rt_tokens_t read;
    rt_tokens_lex(&read, code, 0, strlen(code), 1);
    int rc = rt_device_split(&read, device, host);
    rt_tokens_free(&read);
    return rc;
}

static int declarations(const char *code, rt_device_decl_fn fn, void *ctx)
{
    rt_tokens_t read;
    rt_tokens_lex(&read, code, 0, strlen(code), 1);
    int count = rt_device_declarations(&read, fn, ctx);
    rt_tokens_free(&read);
    return count;
}

/* The 1-based line of text that needle starts on, 0 when it is absent. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    if (!at)
        return 0;
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

static void test_sides(void)
{
    const char *cell = "#include <stdio.h>\n"
                       "#include <cuda_fp16.h>\n"
                       "#define N 4\n"
                       "__global__ void k(float *x) { x[threadIdx.x] = N; }\n"
                       "int host_n = N;\n";
    char *device, *host;
    CHECK(split(cell, &device, &host) == 1);
    CHECK(strlen(device) == strlen(cell) && strlen(host) == strlen(cell));
    CHECK(strstr(device, "__global__ void k") && !strstr(host, "__global__"));
    CHECK(strstr(host, "int host_n = N;") && !strstr(device, "host_n"));
    CHECK(strstr(device, "cuda_fp16.h") && !strstr(host, "cuda_fp16.h"));
    CHECK(strstr(host, "<stdio.h>") && !strstr(device, "<stdio.h>"));
    CHECK(strstr(device, "#define N 4") && strstr(host, "#define N 4"));
    CHECK(line_of(device, "__global__") == 4); /* line numbers stay */
    free(device);
    free(host);
    CHECK(split("int x = 1;\n", &device, &host) == 0 && !device && !host);
    /* __device__ only in a string: no device item */
    CHECK(split("const char *s = \"__device__\";\n", &device, &host) == 0);
}

typedef struct seen {
    char texts[8][160];
    int n;
} seen_t;

static void keep(void *ctx, const char *text)
{
    seen_t *s = ctx;
    if (s->n < 8)
        snprintf(s->texts[s->n++], sizeof s->texts[0], "%s", text);
}

/* Whether one of the declarations seen is text on line `line`. */
static int seen_on(const seen_t *s, const char *text, int line)
{
    for (int i = 0; i < s->n; i++)
        if (line_of(s->texts[i], text) == line)
            return 1;
    return 0;
}

static void test_types(void)
{
    /* types stay the host's, the device gets them from
     * rt_device_declarations; a struct the device uses (and what it uses
     * in turn) is named without `struct` on the host, as in C++ */
    const char *typed = "struct Inner { float a; };\n"
                        "struct P { struct Inner in; int n; };\n"
                        "struct Timer { long t0; };\n"
                        "typedef struct { int k; } Opt;\n"
                        "__global__ void k(P p, Opt o) { }\n"
                        "P v;\n";
    char *device, *host;
    CHECK(split(typed, &device, &host) == 1);
    CHECK(!strstr(device, "struct") && strstr(device, "__global__ void k(P p, Opt o)"));
    CHECK(strstr(host, "struct P { struct Inner in; int n; }; typedef struct P P;\n"));
    CHECK(strstr(host, "struct Inner { float a; }; typedef struct Inner Inner;\n"));
    CHECK(strstr(host, "struct Timer { long t0; };\n") && !strstr(host, "struct Timer Timer"));
    CHECK(line_of(host, "P v;") == 6);
    seen_t s = {0};
    CHECK(declarations(host, keep, &s) == 4);
    CHECK(seen_on(&s, "struct Inner { float a; };", 1) && seen_on(&s, "struct P {", 2) &&
          seen_on(&s, "struct Timer", 3) && seen_on(&s, "typedef struct { int k; } Opt;", 4));
    free(device);
    free(host);

    /* typedefs and aliases without a body, also written after the kernels,
     * are the host's and given to the device */
    const char *aliases = "typedef float real;\n"
                          "using idx = int;\n"
                          "__global__ void k(real *x, idx n) { }\n"
                          "typedef double ft;\n"
                          "ft host_sum = 0;\n";
    CHECK(split(aliases, &device, &host) == 1);
    CHECK(line_of(host, "typedef float real;") == 1 && line_of(host, "using idx = int;") == 2);
    CHECK(line_of(host, "typedef double ft;") == 4 && !strstr(device, "typedef"));
    s.n = 0;
    CHECK(declarations(host, keep, &s) == 3);
    CHECK(seen_on(&s, "typedef float real;", 1) && seen_on(&s, "using idx = int;", 2) &&
          seen_on(&s, "typedef double ft;", 4));
    free(device);
    free(host);
}

static void test_constants(void)
{
    /* namespace-scope constants of scalar type with constant initialisers
     * are given to device code, as nvcc lets device code use them; others
     * are not */
    const char *cell = "const int block_size = 32;\n"
                       "const float sqrt_2PIf = 2.50662f;\n"
                       "const size_t N = 8ULL * 1024ULL * 1024ULL;\n"
                       "constexpr double half = 0.5, quarter = half / 2;\n"
                       "static const unsigned mask = (unsigned)sizeof(float) - 1;\n"
                       "const int n_runtime = atoi(\"3\");\n"
                       "const char *name = \"x\";\n"
                       "const float table[2] = {1, 2};\n"
                       "const long double big = 1;\n"
                       "int plain = 4;\n"
                       "__global__ void k(float *out) {\n"
                       "    __shared__ float s[block_size][block_size];\n"
                       "}\n";
    char *device, *host;
    CHECK(split(cell, &device, &host) == 1);
    CHECK(!strstr(device, "const") && line_of(device, "__global__") == 11);
    const char *kept[] = {"block_size = 32", "sqrt_2PIf", "8ULL", "quarter", "mask", "atoi",
                          "table[2]", "plain"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        CHECK(strstr(host, kept[i]));
    seen_t s = {0};
    CHECK(declarations(host, keep, &s) == 5);
    CHECK(seen_on(&s, "const int block_size = 32;", 1));
    CHECK(seen_on(&s, "const float sqrt_2PIf = 2.50662f;", 2));
    CHECK(seen_on(&s, "const size_t N = 8ULL * 1024ULL * 1024ULL;", 3));
    CHECK(seen_on(&s, "constexpr double half = 0.5, quarter = half / 2;", 4));
    CHECK(seen_on(&s, "static const unsigned mask", 5));
    free(device);
    free(host);
}

static void test_templates_and_functions(void)
{
    /* a function template without device words is host code; a kernel
     * template is device code; a class template goes where types go; a
     * __host__ __device__ function to both, the host's copy without the
     * CUDA words */
    const char *cell = "template <typename T> void alloc_bytes(T &ptr, size_t n) { cudaMallocManaged(&ptr, n); }\n"
                       "template <typename T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }\n"
                       "template <typename T> struct Pair { T a, b; };\n"
                       "__host__ __device__ float sq(float x) { return x * x; }\n"
                       "__global__ void k(Pair<float> p, float *out) { out[0] = sq(p.a); }\n"
                       "float h = sq(3.0f);\n";
    char *device, *host;
    CHECK(split(cell, &device, &host) == 1);
    CHECK(line_of(host, "template <typename T> void alloc_bytes") == 1 && !strstr(device, "alloc_bytes"));
    CHECK(line_of(device, "template <typename T> __global__ void fill") == 2 && !strstr(host, "fill"));
    CHECK(line_of(host, "template <typename T> struct Pair") == 3 && !strstr(device, "struct"));
    seen_t s = {0};
    CHECK(declarations(host, keep, &s) == 1 &&
          seen_on(&s, "template <typename T> struct Pair { T a, b; };", 3));
    CHECK(line_of(device, "__host__ __device__ float sq") == 4);
    CHECK(line_of(host, "float sq(float x) { return x * x; }") == 4 && !strstr(host, "__host__") &&
          !strstr(host, "__device__"));
    CHECK(line_of(host, "float h = sq(3.0f);") == 6);
    free(device);
    free(host);
}

static void test_namespaces(void)
{
    /* a using directive reaches both sides, each told the namespace exists */
    const char *cell = "#include <cooperative_groups.h>\n"
                       "using namespace cooperative_groups;\n"
                       "namespace cg = cooperative_groups;\n"
                       "__global__ void k(float *x) { thread_group g = this_thread_block(); }\n"
                       "int n = 1;\n";
    char *device, *host;
    CHECK(split(cell, &device, &host) == 1);
    const char *both[] = {device, host};
    for (int i = 0; i < 2; i++) {
        CHECK(line_of(both[i], "namespace cooperative_groups {} using namespace cooperative_groups;") == 2);
        CHECK(line_of(both[i], "namespace cooperative_groups {} namespace cg = cooperative_groups;") == 3);
        CHECK(line_of(both[i], "int n") == (i ? 5 : 0));
    }
    CHECK(!strstr(host, "#include <cooperative_groups.h>"));
    free(device);
    free(host);
}

static void test_declarations(void)
{
    /* what of a host cell later device code may use, each on its line */
    const char *cell = "#include <stdio.h>\n"
                       "#define BLOCK 256\n"
                       "const int N = 1024; int count = 0;\n"
                       "typedef double ft;\n"
                       "struct P { float x; };\n"
                       "double f(double v) { return v; }\n"
                       "const int m = f(2);\n"
                       "printf(\"%d\\n\", N);\n";
    seen_t s = {0};
    CHECK(declarations(cell, keep, &s) == 4);
    CHECK(declarations("enum { TILE = 8 };\nenum mode { ADD, MUL };\n", keep, &s) == 2);
    CHECK_STR(s.texts[0], "\n#define BLOCK 256\n");
    CHECK_STR(s.texts[1], "\n\nconst int N = 1024;\n");
    CHECK_STR(s.texts[2], "\n\n\ntypedef double ft;\n");
    CHECK_STR(s.texts[3], "\n\n\n\nstruct P { float x; };\n");
    s.n = 0;
    CHECK(declarations("int x = 1;\nprintf(\"%d\", x);\n", keep, &s) == 0);
}

/* A `%%cuda` cell's body, split as the runner splits it: a view of the
 * cell's tokens over the cell with its magic line blanked. The parts are
 * those of the body's own text, the magic line on neither. */
static void test_view(void)
{
    const char *cell = "%%cuda -arch=sm_80\n"
                       "struct pair { int a, b; };\n"
                       "__global__ void k(struct pair *p) { p->a = 1; }\n"
                       "int main(void) { return 0; }\n";
    size_t next = strchr(cell, '\n') + 1 - cell, n = strlen(cell);
    char *body = strdup(cell);
    memset(body, ' ', next - 1);
    rt_tokens_t read;
    rt_tokens_lex(&read, cell, 0, n, 1);
    rt_tokens_t view = rt_tokens_view(&read, next, n, body);
    char *device, *host, *text_device, *text_host;
    CHECK(rt_device_split(&view, &device, &host) == 1);
    CHECK(split(body, &text_device, &text_host) == 1);
    CHECK(strcmp(device, text_device) == 0 && strcmp(host, text_host) == 0);
    CHECK(!strstr(device, "%%cuda") && !strstr(host, "%%cuda") && !strstr(host, "sm_80"));
    CHECK(line_of(device, "__global__") == 3 && line_of(host, "int main") == 4);
    CHECK(strstr(host, "typedef struct pair pair;")); /* the device uses it */
    seen_t s = {0};
    CHECK(rt_device_declarations(&view, keep, &s) == 1 &&
          strcmp(s.texts[0], "\nstruct pair { int a, b; };\n") == 0);
    free(device);
    free(host);
    free(text_device);
    free(text_host);
    rt_tokens_free(&read);
    free(body);
}

int main(void)
{
    test_sides();
    test_types();
    test_constants();
    test_templates_and_functions();
    test_namespaces();
    test_declarations();
    test_view();
    return check_report("test_rt_device");
}
