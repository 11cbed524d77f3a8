/* test_rt_kscan: the scanner of kernel cells' device source: kernels and
 * their parameters (comments, literals, extern "C" blocks, templates and
 * launch bounds told apart), the names a cell defines, one parameter's
 * type, and template kernels instantiated with arguments. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "rt_kscan.h"

static void test_scanner(void)
{
    gpu_kernel_info_t *k = NULL;
    const char *src =
        "// __global__ void not_me(int x) {}\n"
        "/* __global__ void nor_me(int x) {} */\n"
        "#define N 4\n"
        "struct pair { int a, b; };\n"
        "__constant__ float coeffs[N];\n"
        "template <typename T> __global__ void tmpl(T *x) {}\n"
        "extern \"C\" {\n"
        "__global__ void __launch_bounds__(256) ext(const float *__restrict__ x, unsigned int n,\n"
        "                                          size_t m, half h, pair p, int arr[], bool b)\n"
        "{ if (n) { x = 0; } }\n"
        "}\n"
        "extern \"C\" __global__ void ext2(void) {}\n"
        "void __global__ late(double d, long long q, unsigned char c) { const char *s = \"}\"; }\n"
        "__device__ int helper(int v) { return v; }\n";
    int n = rt_kscan_kernels(src, &k);
    CHECK(n == 3);
    if (n == 3) {
        CHECK_STR(k[0].name, "ext");
        CHECK(k[0].line == 8);
        CHECK(k[0].nparams == 7);
        const char kinds[] = "psssvps";
        const size_t sizes[] = {8, 4, 8, 2, 0, 8, 1};
        for (int i = 0; i < 7 && k[0].nparams == 7; i++) {
            CHECK(k[0].params[i].kind == kinds[i]);
            if (k[0].params[i].kind != kinds[i])
                printf("param %d: %s: %c\n", i, k[0].params[i].decl, k[0].params[i].kind);
            CHECK(k[0].params[i].size == sizes[i]);
        }
        if (k[0].nparams == 7) {
            CHECK_STR(k[0].params[0].decl, "const float *__restrict__ x");
            CHECK_STR(k[0].params[1].decl, "unsigned int n");
        }
        CHECK_STR(k[1].name, "ext2");
        CHECK(k[1].nparams == 0);
        CHECK_STR(k[2].name, "late");
        CHECK(k[2].nparams == 3 && k[2].params[0].size == 8 && k[2].params[1].size == 8 &&
              k[2].params[2].size == 1);
    }
    gpu_kernels_free(k, n);

    char **names = NULL;
    int nn = rt_kscan_names(src, &names);
    int want = 0;
    for (int i = 0; i < nn; i++) {
        const char *w[] = {"N", "pair", "coeffs", "ext", "ext2", "late", "helper", "tmpl"};
        for (size_t j = 0; j < sizeof w / sizeof w[0]; j++)
            if (strcmp(names[i], w[j]) == 0)
                want++;
    }
    CHECK(nn == 8 && want == 8);
    rt_kscan_names_free(names, nn);

    gpu_param_t p;
    rt_kscan_param("float* x", 8, &p);
    CHECK(p.kind == 'p');
    CHECK_STR(p.decl, "float *x");
}

static void test_template_scanner(void)
{
    const char *src = "struct P { int a; };\n"
                      "template <typename T, int N = 4>\n"
                      "__global__ void tile(T *x, T a, const T (&w)[N], int n) {}\n"
                      "template <class U> __device__ U twice(U u) { return u + u; }\n"
                      "__global__ void plain(int *p) {}\n"
                      "template <typename T> __global__ void one(T v) {}\n";
    gpu_kernel_info_t *k = NULL;
    char why[200] = "";
    const char *f[] = {"float"}, *d16[] = {"double", "16"}, *three[] = {"int", "2", "3"};
    CHECK(rt_kscan_template(src, "tile", f, 1, &k, why, sizeof why) == 1);
    CHECK(k && k->nparams == 4 && k->line == 3);
    if (k && k->nparams == 4) {
        CHECK_STR(k->params[0].decl, "float *x");
        CHECK(k->params[1].kind == GPU_PARAM_SCALAR && k->params[1].size == 4);
        CHECK(k->params[2].kind == GPU_PARAM_POINTER && strstr(k->params[2].decl, "float") &&
              strstr(k->params[2].decl, "[4]"));
        CHECK_STR(k->params[3].decl, "int n");
    }
    gpu_kernels_free(k, 1);
    CHECK(rt_kscan_template(src, "tile", d16, 2, &k, why, sizeof why) == 1);
    CHECK(k && k->nparams == 4 && k->params[1].size == 8);
    gpu_kernels_free(k, 1);
    CHECK(rt_kscan_template(src, "tile", three, 3, &k, why, sizeof why) == -1 && !k);
    CHECK_STR(why, "tile takes 2 template arguments, got 3");
    CHECK(rt_kscan_template(src, "one", NULL, 0, &k, why, sizeof why) == -1);
    CHECK_STR(why, "one takes 1 template argument, got 0 (T has no default)");
    CHECK(rt_kscan_template(src, "twice", f, 1, &k, why, sizeof why) == 0); /* not __global__ */
    CHECK(rt_kscan_template(src, "P", f, 1, &k, why, sizeof why) == 0);
    /* a kernel after a `template <class U>` function is found */
    int n = rt_kscan_kernels(src, &k);
    CHECK(n == 1 && strcmp(k[0].name, "plain") == 0);
    gpu_kernels_free(k, n);
}

int main(void)
{
    test_scanner();
    test_template_scanner();
    return check_report("test_rt_kscan");
}
