/* test_rt_magic: magic lines in host cells, driven through
 * rt_execute: segments in order, %who/%whos output (fd 1 is
 * captured), %reset, %lib, %cflags, unknown and planned magics, help. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "session_check.h"
#include "cm_log.h"
#include "rt_magic.h"
#include "rt_session.h"


static json_t *run(const char *code)
{
    return run_next_capturing(code);
}

static void test_table(void)
{
    size_t n;
    const rt_magic_info_t *t = rt_magic_table(&n);
    const char *design[] = {"timeit", "%timeit", "%time", "%speedup", "%kernel", "%elementwise",
                            "%reduce", "%cc", "who", "whos", "reset", "lib", "cflags", "gpu",
                            "memory", "device", "ptx", "%writefile", "%sh", "lsmagic"};
    for (size_t k = 0; k < sizeof design / sizeof design[0]; k++) {
        int cell = design[k][0] == '%';
        const char *name = design[k] + cell;
        int found = 0;
        for (size_t i = 0; i < n; i++)
            found |= t[i].cell == cell && strcmp(t[i].name, name) == 0 && t[i].usage &&
                     t[i].help && t[i].help[0];
        if (!found)
            fprintf(stderr, "missing from the table: %s\n", design[k]);
        CHECK(found);
    }
}

/* rt_magic_find on code read once, as the runner reads a cell. */
static int find(const char *code, size_t from, rt_magic_line_t *m)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, code, 0, strlen(code), 1);
    int found = rt_magic_find(&t, from, m);
    rt_tokens_free(&t);
    return found;
}

static void test_find(void)
{
    rt_magic_line_t m;
    const char *code = "int a = 5 %\n 2;\n/* %who */\nchar *s = \"\\\n%who\";\n  %lib  z m \nx";
    CHECK(find(code, 0, &m) == 1);
    CHECK_STR(m.name, "lib");
    CHECK(m.line == 6);
    CHECK(m.args_len == 3 && strncmp(code + m.args, "z m", 3) == 0);
    CHECK(!m.cell && !m.help && !m.first);
    CHECK(find(code, m.next, &m) == 0);
    CHECK(find("#define P(a) \\\n%who\nint q;", 0, &m) == 0);
    CHECK(find("\n%%timeit -n 3\nx++;", 0, &m) == 1);
    CHECK(m.cell && m.first && m.line == 2);
    CHECK(find("%who? ", 0, &m) == 1 && m.help && m.args_len == 0);

    /* a magic line is not C: a comment it opens does not hide what follows */
    const char *spill = "%env A=/*\nint b;\n  %who\n";
    rt_tokens_t t;
    rt_tokens_lex(&t, spill, 0, strlen(spill), 1);
    rt_magic_walk_t w = rt_magic_walk(&t);
    CHECK(rt_magic_next(&w, &m) == 1);
    CHECK_STR(m.name, "env");
    CHECK(rt_magic_next(&w, &m) == 1);
    CHECK_STR(m.name, "who");
    CHECK(m.line == 3);
    const rt_tokens_t *after = rt_magic_walk_tokens(&w);
    size_t i = rt_tokens_at(after, strlen("%env A=/*\n"));
    CHECK(i < after->n && rt_tok_is(spill, &after->v[i], "int"));
    CHECK(rt_magic_next(&w, &m) == 0);
    rt_magic_walk_free(&w);
    rt_tokens_free(&t);
}

/* An empty namespace for a test that lists all of it (%who, %reset's count). */
static void fresh_namespace(void)
{
    json_decref(run("%reset -f"));
}

static void test_segments(void)
{
    fresh_namespace();
    /* code before, the magic, code after; the result is the last code's */
    EXPECT_OUT("int seg = 1;\nprintf(\"before\\n\");\n%who\nprintf(\"after\\n\");\nseg + 1", "2",
           "before\nseg\nafter\n");
    EXPECT_OUT("seg * 10\n%who", "10", "seg\n");
    /* errors keep the cell's own line numbers and stop the cell */
    json_t *r = run("int ok1 = 1;\n%who\nint bad = ok1 + nope;\nprintf(\"never\\n\");");
    CHECK_STR(ename(r), "CompileError");
    char want[64];
    snprintf(want, sizeof want, "cell %d, line 3:", cell_no);
    CHECK(strstr(evalue(r), want) != NULL);
    CHECK(strstr(out, "never") == NULL);
    json_decref(r);
    /* a '%' operator at a line start is no magic when no name follows */
    EXPECT_OUT("int md = 17\n% 5;\nmd", "2", "");
}

static void test_who(void)
{
    EXPECT_OUT("%reset -f", NULL, NULL);
    EXPECT_OUT("%who", NULL, "Interactive namespace is empty.\n");
    EXPECT_OUT("%whos", NULL, "Interactive namespace is empty.\n");
    EXPECT_OUT("int count = 42;\ndouble ratio = 0.5;\nconst char *name = \"gpuc\";\n"
           "int arr[3] = {1, 2, 3};\nint helper(void) { return 0; }\n"
           "struct point { int x, y; } pt;\ndouble *vp = 0;\nchar letter = 'A';\n"
           "bool flag = true;\nsize_t big = 5;\nint (*fp)(void) = helper;",
           NULL, "");
    EXPECT_OUT("%who", NULL, "arr\tbig\tcount\tflag\tfp\tletter\tname\tpt\tratio\nvp\n");
    EXPECT_OUT("%who double int", NULL, "count\tratio\n");
    EXPECT_OUT("%who float", NULL, "No variables match your requested type.\n");
    json_t *r = run("%whos");
    CHECK_STR(field(r, "status"), "ok");
    json_decref(r);
    const char *want =
        "Variable   Type             Data/Info\n"
        "-------------------------------------\n"
        "arr        int[3]           3 elements, 12 bytes\n"
        "big        size_t           5\n"
        "count      int              42\n"
        "flag       bool             true\n";
    CHECK(strncmp(out, want, strlen(want)) == 0);
    CHECK(strstr(out, "\nfp         int (*)(void)    0x") != NULL);
    CHECK(strstr(out, "\nletter     char             'A' (65)\n") != NULL);
    CHECK(strstr(out, "\nname       const char *     \"gpuc\"\n") != NULL);
    CHECK(strstr(out, "\npt         struct point     (struct, 8 bytes)\n") != NULL);
    CHECK(strstr(out, "\nratio      double           0.5\n") != NULL);
    CHECK(strstr(out, "\nvp         double *         NULL\n") != NULL);
    if (check_failures)
        fprintf(stderr, "%s", out);
    /* a string that points nowhere is caught, not a crash */
    EXPECT_OUT("char *wild = (char *)16;\n%whos char *", NULL,
           "Variable   Type      Data/Info\n"
           "------------------------------\n"
           "wild       char *    <unreadable>\n");
}

static void test_reset(void)
{
    EXPECT_OUT("int rx = 42;\nint rf(void) { return 1; }\n#define RM 3\nstruct rs { int a; };", NULL,
           NULL);
    json_t *r = run("%reset");
    CHECK_STR(field(r, "status"), "ok");
    CHECK(strncmp(out, "Session reset: ", 15) == 0 && strstr(out, " names dropped.\n"));
    json_decref(r);
    EXPECT_ERROR("rx", "CompileError", "'rx' undeclared");
    EXPECT_OUT("#ifdef RM\nprintf(\"still\\n\");\n#else\nprintf(\"gone\\n\");\n#endif", NULL,
           "gone\n");
    EXPECT_OUT("struct rs { double d; };\ndouble rx = 1.5;\nrx", "1.5", "");
    EXPECT_OUT("%reset", NULL, "Session reset: 2 names dropped.\n");
    EXPECT_OUT("%who", NULL, "Interactive namespace is empty.\n");
    EXPECT_ERROR("%reset now", "UsageError", "now");
}

static void test_lib(void)
{
    fresh_namespace();
    EXPECT_OUT("%lib", NULL, "No libraries linked by %lib (libc and libm always are).\n");
    EXPECT_ERROR("%lib no_such_library_gpuc", "LibraryNotFound", "no_such_library_gpuc");
    EXPECT_ERROR("crc32(0L, (const unsigned char *)\"abc\", 3)", "CompileError", "crc32");
    /* %lib then code that uses it, in one cell; the shaken path resolves it too */
    EXPECT_OUT("%lib z\nunsigned long crc32(unsigned long, const unsigned char *, unsigned);\n"
           "crc32(0L, (const unsigned char *)\"abc\", 3)",
           "891568578", "");
    EXPECT_OUT("#include <zlib.h>", NULL, "");
    rt_compile_stats_t before, after;
    rt_session_stats(S, &before);
    EXPECT_OUT("crc32(0L, (const unsigned char *)\"abcd\", 4)", "3984772369", "");
    rt_session_stats(S, &after);
    CHECK(after.shaken == before.shaken + 1);
    json_t *r = run("%lib");
    CHECK(strncmp(out, "z  /", 4) == 0 && strstr(out, "libz.so"));
    json_decref(r);
    /* a linker script (libm.so) is passed by for libm.so.6 */
    EXPECT_OUT("%lib m pthread", NULL, "");
    EXPECT_OUT("%reset -f\n%lib", NULL, "Session reset: 1 name dropped.\n"
                                    "No libraries linked by %lib (libc and libm always are).\n");
}

static void test_cflags(void)
{
    EXPECT_OUT("%cflags", NULL,
           "No TCC options set by %cflags (always on: -Wall -Wno-unused-function).\n");
    EXPECT_OUT("%cflags -DX=3 -D Y=4\nX * 10 + Y", "34", "");
    EXPECT_OUT("%cflags -DX=5\n%cflags", NULL, "-DY=4 -DX=5\n");
    EXPECT_OUT("X", "5", "");
    /* the options do not push cells off the shaken headers */
    rt_compile_stats_t before, after;
    rt_session_stats(S, &before);
    EXPECT_OUT("X + 1", "6", "");
    rt_session_stats(S, &after);
    CHECK(after.shaken == before.shaken + 1 && after.fallbacks == before.fallbacks);
    EXPECT_ERROR("%cflags -b", "NotSupported", "bounds checking");
    EXPECT_ERROR("%cflags -o out", "UsageError", "-o");
    EXPECT_ERROR("%cflags -I", "UsageError", "needs a value");
    EXPECT_OUT("%cflags --reset\n%cflags", NULL,
           "No TCC options set by %cflags (always on: -Wall -Wno-unused-function).\n");
    EXPECT_ERROR("X", "CompileError", "'X' undeclared");
}

static void test_unknown_and_help(void)
{
    EXPECT_ERROR("%nosuch 1", "UnknownMagic", "%nosuch");
    EXPECT_ERROR("%nosuch 1", "UnknownMagic", "%lsmagic");
    EXPECT_ERROR("%%nosuch\nint q;", "UnknownMagic", "%%nosuch");
    EXPECT_ERROR("%%who", "UnknownMagic", "%who is");
    EXPECT_ERROR("%ptx k", "NotImplemented", "%ptx is not available yet in gpuc 0.1; it is planned");
    EXPECT_ERROR("%%writefile\nx", "UsageError", "needs a file name");
    EXPECT_ERROR("%%elementwise f(float x)\nx", "UsageError", "-> T c");
    EXPECT_ERROR("int q1;\n%%time", "UsageError", "first line");
    json_t *r = run("%who?");
    CHECK_STR(field(r, "status"), "ok");
    CHECK(strncmp(out, "Usage: %who [TYPE ...]\n\n", 24) == 0);
    json_decref(r);
    r = run("%%elementwise?");
    CHECK(strncmp(out, "Usage: %%elementwise NAME(T a, T b, ...) -> T c", 47) == 0 &&
          !strstr(out, "planned"));
    json_decref(r);
    r = run("%lsmagic");
    CHECK(strstr(out, "Available line magics:\n%lsmagic  %who  %whos  %reset  %lib  %cflags  "
                      "%timeit  %gpu  %memory  %device  %sim  %recover  %sh  %load  %cd  %pwd  "
                      "%env  %limits  %profile\n"));
    CHECK(strstr(out, "Available cell magics:\n%%timeit  %%time  %%speedup  %%kernel  %%cuda"));
    CHECK(strstr(out, "%%cc  %%cpp  %%c++  %%sh  %%bash  %%writefile  %%profile\n"));
    CHECK(strstr(out, "\nplanned line magics: %ptx\n"));
    CHECK(!strstr(out, "planned cell magics"));
    CHECK(strstr(out, "%%speedup"));
    json_decref(r);
}

SESSION_TEST_MAIN("test_rt_magic", test_table, test_find, test_segments, test_who, test_reset,
                  test_lib, test_cflags, test_unknown_and_help)
