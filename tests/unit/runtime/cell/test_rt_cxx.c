/* test_rt_cxx: telling C++ host cells from C ones, splitting a C++ cell's
 * top level, and what it gives later C and C++ cells (rt_cxx). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_cxx.h"
#include "rt_lex.h"

/* Cells that are C and must stay C: C names that are C++ words, and C++
 * text in comments and strings. */
static const char *const c_cells[] = {
    "int new = 3;\nnew + 1",
    "int class = 2, delete = 1, template = 4, namespace = 5, this = 6;\nclass + delete",
    "struct node { int v; struct node *next; };\nstruct node *new = malloc(sizeof *new);\n",
    "int new[3] = {1, 2, 3};\nnew[1]",
    "int delete(void *p) { free(p); return 0; }\ndelete(malloc(4));\n",
    "int new(int x) { return x; }\nint y = new(3);\n",
    "typedef struct { int new; } s_t;\ns_t s; s.new = 2; s_t *p = &s; p->new = 3;\n",
    "// std::cout << \"x\";\n/* #include <iostream> */\nint x = 1;\n",
    "const char *s = \"std::vector<int> v; using namespace std;\";\n",
    "int cout = 1, cin = 2;\nint z = cout << 2;\n",
    "int std = 3;\nint bits = std ? 1 : 2;\n",
    "#include <stdio.h>\n#include \"vector\"\n#include <cuda_runtime.h>\nprintf(\"%d\\n\", 1);\n",
    "int a = 1, b = 2, c;\nc = a < b;\nc = a<b>0;\n",
    "struct flags { unsigned class : 3; unsigned new : 2; };\n",
    "int using = 1, namespace = 2;\nusing + namespace",
    "char *template = \"template <class T>\";\n",
    "int x = 5;\nx = x << 2 >> 1;\n",
    "float static_cast_count = 1;\n",
    NULL};

/* Cells that are C++. */
static const char *const cpp_cells[] = {
    "#include <iostream>\nint x = 1;\n",
    "#include <vector>\n",
    "#include <cstdio>\nprintf(\"hi\\n\");\n",
    "#include <bits/stdc++.h>\n",
    "std::printf(\"%d\\n\", 3);\n",
    "using namespace std;\n",
    "extern \"C\" int f(int x) { return x; }\n",
    "namespace util { int f() { return 1; } }\n",
    "class Counter { public: int n; };\n",
    "class Derived : public Base { };\n",
    "template <typename T> T biggest(T a, T b) { return a > b ? a : b; }\n",
    "float *h = new float[10];\n",
    "int *p = new int(3);\n",
    "delete[] h;\n",
    "delete p;\n",
    "int n = static_cast<int>(2.5);\n",
    NULL};

/* The tests as the cell runner makes them: on the cell read once. */
typedef int (*tokens_test_fn)(const rt_tokens_t *t);

static int on_tokens(const char *code, tokens_test_fn fn)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, code, 0, strlen(code), 1);
    int found = fn(&t);
    rt_tokens_free(&t);
    return found;
}

static int detect(const char *code)
{
    return on_tokens(code, rt_cxx_detect);
}

static int device_words(const char *code)
{
    return on_tokens(code, rt_cxx_has_device_words);
}

static int uses_any(const char *code, const char *const *names, size_t n)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, code, 0, strlen(code), 1);
    int found = rt_cxx_uses_any(&t, names, n);
    rt_tokens_free(&t);
    return found;
}

static void test_detect(void)
{
    for (int i = 0; c_cells[i]; i++)
        if (detect(c_cells[i])) {
            fprintf(stderr, "taken for C++: %s\n", c_cells[i]);
            CHECK(0);
        }
    for (int i = 0; cpp_cells[i]; i++)
        if (!detect(cpp_cells[i])) {
            fprintf(stderr, "not taken for C++: %s\n", cpp_cells[i]);
            CHECK(0);
        }
    CHECK(rt_cxx_runtime_include("#include <cuda_runtime.h>", 25));
    CHECK(!rt_cxx_runtime_include("#include <cuda_fp16.h>", 22));
    /* the directive helpers of rt_lex, which these share with rt_shake and rt_headers */
    char name[64];
    CHECK(rt_directive_include("#  include \"my.h\" // x", 21, name, sizeof name) &&
          strcmp(name, "my.h") == 0);
    CHECK(!rt_directive_include("#include_next <x.h>", 19, name, sizeof name));
    CHECK(!rt_directive_include("#include MACRO", 14, name, sizeof name));
    CHECK(!rt_directive_include("#include <unclosed", 18, name, sizeof name));
    CHECK(rt_directive_is("#\tdefine N 3", 12, "define") && rt_directive_is("#pragma", 7, "pragma"));
    CHECK(!rt_directive_is("#defined", 8, "define") && !rt_directive_is("define N", 8, "define"));
    CHECK(!rt_directive_is("#def", 4, "define"));
    CHECK(rt_directive_defines("# undef N", 9) && rt_directive_defines("#define N 3", 11));
    CHECK(!rt_directive_defines("#defined", 8) && !rt_directive_defines("#include <x.h>", 14));
    char with_runtime[] = "#include <cuda_runtime.h>\n#include <vector>\n";
    rt_cxx_blank_runtime_includes(with_runtime);
    CHECK_STR(with_runtime, "                         \n#include <vector>\n");
    CHECK(device_words("__global__ void k() {}\n"));
    CHECK(!device_words("// __global__\nint x;\n"));
    const char *names[] = {"counter", "names"};
    CHECK(uses_any("counter.add(2);\n", names, 2));
    CHECK(!uses_any("s.counter = 2; // names\n", names, 2));
}

static void test_split(void)
{
    const char *cell = "#include <vector>\n"                                    /* 1 */
                       "using namespace std;\n"                                 /* 2 */
                       "class Counter { public: int n = 0; };\n"                /* 3 */
                       "template <class T> T big(T a, T b) { return a > b ? a : b; }\n"
                       "std::vector<int> v(10);\n"                              /* 5 */
                       "Counter c;\n"                                           /* 6 */
                       "v.push_back(3);\n"                                      /* 7 */
                       "std::cout << v.size();\n"                               /* 8 */
                       "for (int &x : v) x++;\n"                                /* 9 */
                       "if (v.empty()) { v.push_back(1); } else { v.clear(); }\n"
                       "int f(int x) { return x; } int g(int y) { return y; }\n"
                       "try { throw 1; } catch (int) {}\n"                      /* 12 */
                       "x = std::max(1, 2);\n"                                  /* 13 */
                       "v.size()";                                              /* 14 */
    rt_cell_t items;
    rt_cxx_split(cell, &items);
    static const rt_item_kind_t want[] = {
        RT_ITEM_DIRECTIVE, RT_ITEM_DECLARATION, RT_ITEM_DECLARATION, RT_ITEM_DECLARATION,
        RT_ITEM_DECLARATION, RT_ITEM_DECLARATION, RT_ITEM_STATEMENT, RT_ITEM_STATEMENT,
        RT_ITEM_STATEMENT, RT_ITEM_STATEMENT, RT_ITEM_DECLARATION, RT_ITEM_DECLARATION,
        RT_ITEM_STATEMENT, RT_ITEM_STATEMENT, RT_ITEM_EXPRESSION};
    static const int lines[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11, 12, 13, 14};
    CHECK(items.n == sizeof want / sizeof *want);
    for (size_t i = 0; i < items.n && i < sizeof want / sizeof *want; i++) {
        if (items.items[i].kind != want[i] || items.items[i].line != lines[i])
            fprintf(stderr, "item %zu: %s on line %d\n", i, rt_item_kind_name(items.items[i].kind),
                    items.items[i].line);
        CHECK(items.items[i].kind == want[i] && items.items[i].line == lines[i]);
    }
    rt_cell_free(&items);

    const char *with_main = "#include <iostream>\nint main() { std::cout << 1; return 0; }\n";
    rt_cxx_split(with_main, &items);
    CHECK(rt_cxx_main_kind(with_main, &items) == 1);
    rt_cell_free(&items);
    const char *args = "int main(int argc, char **argv) { return argc; }\n";
    rt_cxx_split(args, &items);
    CHECK(rt_cxx_main_kind(args, &items) == 2);
    rt_cell_free(&items);
}

static void test_exports_and_carry(void)
{
    const char *cell = "#include <string>\n"
                       "extern \"C\" int twice(int x) { return 2 * x; }\n"
                       "extern \"C\" { double half(double v) { return v / 2; } }\n"
                       "int total = 0;\n"
                       "float *buf = new float[4];\n"
                       "const int N = 8;\n"
                       "static int hidden = 1;\n"
                       "std::string name = \"abc\";\n"
                       "int over(int x) { return x; }\n"
                       "std::vector<int> v(10);\n";
    rt_cell_t items;
    rt_cxx_split(cell, &items);
    CHECK(rt_cxx_has_keyword("extern int new;") && rt_cxx_has_keyword("struct s { int class; };"));
    CHECK(!rt_cxx_has_keyword("extern int renew; // new"));
    /* C that a C cell compiled by the system compiler may declare, which C++ cannot read */
    CHECK(rt_cxx_c_only("extern double complex w;") && rt_cxx_c_only("_Complex float z;"));
    CHECK(rt_cxx_c_only("void fill(int rows, int cols, int t[rows][cols]);"));
    CHECK(rt_cxx_c_only("double trace(int n, double (*a)[n]);"));
    CHECK(!rt_cxx_c_only("void fill(int rows, int t[N]);") && !rt_cxx_c_only("int v[3];"));
    CHECK(!rt_cxx_c_only("#include <complex.h>") && !rt_cxx_c_only("double creal_of(double re);"));
    CHECK(rt_cxx_library_include("#include <cublas_v2.h>", 22));
    CHECK(!rt_cxx_library_include("#include \"mine.h\"", 17) && !rt_cxx_library_include("#define A <b>", 13));
    char *c = rt_cxx_c_exports(cell, &items, NULL, NULL);
    CHECK_STR(c, "int twice(int x) {}\ndouble half(double v) {}\nint total;\nfloat *buf;\n");
    free(c);
    /* what later C++ cells get, item by item */
    static const char *const want[] = {
        "#include <string>\n", NULL, NULL, "extern int total __asm__(\"total\");\n",
        "extern float *buf __asm__(\"buf\");\n", "const int N = 8;\n",
        "static int hidden = 1;\n", "extern std::string &name __asm__(\"name\");\n",
        "int over(int x) { return x; }\n", "extern std::vector<int> &v __asm__(\"v\");\n"};
    CHECK(items.n == sizeof want / sizeof *want);
    for (size_t i = 0; i < items.n && i < sizeof want / sizeof *want; i++) {
        cm_buf_t text = {0};
        char name[64];
        int is_var;
        int kept = rt_cxx_carry(cell, &items.items[i], 0, NULL, NULL, &text, name, sizeof name, &is_var);
        CHECK(kept == (want[i] != NULL));
        if (want[i])
            CHECK_STR(cm_buf_str(&text), want[i]);
        cm_buf_free(&text);
    }
    rt_cell_free(&items);

    /* a reference is no C variable: later C cells do not see it */
    const char *refs = "int count = 3;\nint &alias = count, *&pref = p, plain = 1;\n";
    rt_cxx_split(refs, &items);
    c = rt_cxx_c_exports(refs, &items, NULL, NULL);
    CHECK_STR(c, "int count;\nint plain;\n");
    free(c);
    rt_cell_free(&items);

    /* several declarators: each its own declaration */
    const char *several = "float *dx, *dy = 0, z[4];\nstd::vector<float> hx(8, 1.0f), hy(8);\n";
    rt_cxx_split(several, &items);
    c = rt_cxx_c_exports(several, &items, NULL, NULL);
    CHECK_STR(c, "float *dx;\nfloat *dy;\nfloat z[4];\n");
    free(c);
    static const char *const vars[] = {"extern std::vector<float> &hx __asm__(\"hx\");\n",
                                       "extern std::vector<float> &hy __asm__(\"hy\");\n", NULL};
    for (int k = 0; k < 3; k++) {
        cm_buf_t text = {0};
        char name[64];
        int is_var;
        int kept = rt_cxx_carry(several, &items.items[1], k, NULL, NULL, &text, name, sizeof name, &is_var);
        CHECK(kept == (vars[k] != NULL));
        if (vars[k])
            CHECK_STR(cm_buf_str(&text), vars[k]);
        cm_buf_free(&text);
    }
    /* initialisers in order among the statements */
    cm_buf_t global = {0}, init = {0};
    CHECK(rt_cxx_defer(several, &items.items[1], NULL, NULL, &global, &init));
    CHECK(strstr(cm_buf_str(&global), "std::vector<float> &hx = *reinterpret_cast<"));
    CHECK(!strchr(cm_buf_str(&global), '\n'));
    CHECK_STR(cm_buf_str(&init), "new (&hx) std::vector<float>(8, 1.0f); "
                                 "new (&hy) std::vector<float>(8); ");
    cm_buf_free(&global);
    cm_buf_free(&init);
    CHECK(rt_cxx_defer(several, &items.items[0], NULL, NULL, &global, &init));
    CHECK_STR(cm_buf_str(&global), "float *dx; float *dy; float z[4]; ");
    CHECK_STR(cm_buf_str(&init), "            dy = 0;"); /* at its column */
    cm_buf_free(&global);
    cm_buf_free(&init);
    rt_cell_free(&items);
    const char *ambiguous = "std::vector<float> hy(n, 1.0f);\nint f(int, char *);\nint g(Foo *p);\n";
    rt_cxx_split(ambiguous, &items);
    CHECK(rt_cxx_defer(ambiguous, &items.items[0], NULL, NULL, &global, &init));
    CHECK(!rt_cxx_defer(ambiguous, &items.items[1], NULL, NULL, &global, &init));
    CHECK(!rt_cxx_defer(ambiguous, &items.items[2], NULL, NULL, &global, &init));
    cm_buf_free(&global);
    cm_buf_free(&init);
    rt_cell_free(&items);
    const char *timed = "auto t0 = std::chrono::steady_clock::now();\n";
    rt_cxx_split(timed, &items);
    CHECK(rt_cxx_defer(timed, &items.items[0], NULL, NULL, &global, &init));
    CHECK(strstr(cm_buf_str(&global), "std::decay_t<decltype(std::chrono::steady_clock::now())> &t0"));
    CHECK_STR(cm_buf_str(&init), "new (&t0) std::decay_t<decltype(std::chrono::steady_clock::now())>"
                                 "(std::chrono::steady_clock::now()); ");
    cm_buf_free(&global);
    cm_buf_free(&init);
    rt_cell_free(&items);
    const char *consts = "const int N = 8;\nstatic double k = f();\nauto a = {1, 2};\nint arr[2] = {1, 2};\n";
    rt_cxx_split(consts, &items);
    for (size_t i = 0; i < items.n; i++)
        CHECK(!rt_cxx_defer(consts, &items.items[i], NULL, NULL, &global, &init));
    rt_cell_free(&items);
}

int main(void)
{
    test_detect();
    test_split();
    test_exports_and_carry();
    return check_report("test_rt_cxx");
}
