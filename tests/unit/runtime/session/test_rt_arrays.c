/* test_rt_arrays: device arrays from cells, on the CPU backend — made,
 * held by variables across cells, viewed, copied, read and written; the
 * sweep at the end of each cell (temporaries, rebinding and re-running
 * never grow the pool); failures end the cell with their kind and leave
 * the session; use after free is an error, not a crash. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"
#include "session_check.h"
#include "ga_array.h"

static json_t *run(const char *code)
{
    return run_next_capturing(code);
}

static size_t live_arrays(void)
{
    size_t n = 0;
    for (ga_array_t *a = ga_array_first(); a; a = a->next)
        n++;
    return n;
}

static void test_make_and_read(void)
{
    EXPECT("ga_use_device(GA_CPU);", NULL);
    EXPECT("ga_t z = ga_zeros(F32, 3, 4);\nga_ndim(z) * 100 + ga_dim(z, 0) * 10 + ga_dim(z, 1)",
           "234");
    EXPECT("ga_size(z)", "12");
    EXPECT("ga_nbytes(z)", "48");
    EXPECT("ga_dtype(z) == GA_CODE_F32", "1");
    EXPECT("ga_t r = ga_arange(I32, 0, 10, 1);\nint host[10]; ga_read(r, host);\n"
           "host[0] + host[9] * 10", "90");
    EXPECT("ga_item(r, 7)", "7");
    EXPECT("ga_set(r, 42, 7);\nga_item(r, 7)", "42");
    EXPECT("ga_t l = ga_linspace(F64, 0, 1, 5);\nga_item(l, 1) + ga_item(l, 4)", "1.25");
    EXPECT("ga_t e = ga_eye(F64, 3);\nga_item(e, 1, 1) + ga_item(e, 1, 2) + ga_item(e, 2, 2)",
           "2");
    EXPECT("ga_t f = ga_full(I64, 7, 2, 2);\nga_item(f, 1, 0)", "7");
    EXPECT("ga_t o = ga_ones_like(z);\nga_item(o, 2, 3)", "1");
    EXPECT("double src[6] = {1, 2, 3, 4, 5, 6};\nga_t h = ga_from_host(F64, src, 2, 3);\n"
           "ga_item(h, 1, 2)", "6");
    EXPECT("ga_t half = ga_full(F16, 0.1, 1);\n(float)ga_item(half, 0)", "0.099975586");
}

static void test_views(void)
{
    EXPECT("ga_t m = ga_reshape(ga_arange(F64, 0, 12, 1), 3, 4);\nga_item(m, 2, 1)", "9");
    EXPECT("ga_t t = ga_transpose(m);\nga_dim(t, 0) * 10 + ga_dim(t, 1)", "43");
    EXPECT("ga_item(t, 1, 2)", "9");
    EXPECT("ga_t c = ga_col(m, 1);\nga_size(c) * 100 + ga_item(c, 2)", "309");
    /* m[:, 3::-1] and m[2, ::-2], as Python slices */
    EXPECT("ga_t s = ga_slice(m, 1, 3, GA_END, -1);\nga_dim(s, 1) * 100 + ga_item(s, 0, 0)",
           "403");
    EXPECT("ga_t mid = ga_slice(m, 1, -3, -1, 1);\nga_dim(mid, 1) * 100 + ga_item(mid, 1, 1)",
           "206");
    EXPECT("ga_t back = ga_slice(ga_row(m, 2), 0, GA_END, GA_END, -2);\n"
           "ga_size(back) * 100 + ga_item(back, 0)", "211");
    /* a view shares memory: writing through it changes m */
    EXPECT("ga_set(t, -1, 0, 0);\nga_item(m, 0, 0)", "-1");
    /* copy makes it contiguous; a transposed view cannot reshape without one */
    EXPECT_ERROR("ga_reshape(t, 12)", "ShapeError", "without a copy: ga_copy it first");
    EXPECT("ga_t flat = ga_reshape(ga_copy(t), 12);\nga_item(flat, 1)", "4");
    EXPECT("ga_t inferred = ga_reshape(m, 2, -1);\nga_dim(inferred, 1)", "6");
}

static void test_sweep(void)
{
    run_next("ga_use_device(GA_CPU);");
    size_t before = live_arrays();
    bk_pool_stats_t p0, p1;
    /* temporaries and the last expression go at the end of their cell */
    EXPECT("ga_size(ga_zeros(F32, 1000));", NULL);
    CHECK(live_arrays() == before);
    /* rebinding and re-running the same cell do not grow the pool */
    EXPECT("ga_t big = ga_zeros(F32, 256, 1024);", NULL);
    bk_pool_stats(GA_CPU, &p0);
    for (int i = 0; i < 500; i++) /* 1000 runs in all */
        json_decref(run("ga_t big = ga_zeros(F32, 256, 1024);"));
    for (int i = 0; i < 500; i++)
        json_decref(run("big = ga_ones(F32, 256, 1024);"));
    bk_pool_stats(GA_CPU, &p1);
    CHECK(p1.in_use == p0.in_use);
    CHECK(p1.in_use + p1.cached <= p0.in_use + p0.cached + 2 * 256 * 1024 * 4);
    CHECK(live_arrays() == before + 1);
    /* an array of handles holds them too; a kept one survives */
    EXPECT("ga_t pair[2];\npair[0] = ga_zeros(I8, 3); pair[1] = ga_ones(I8, 3);", NULL);
    CHECK(live_arrays() == before + 3);
    /* a size the declaration spells with a macro: the compiler tells it */
    EXPECT("#define NSLOTS (1 + 2)\nga_t slots[NSLOTS];\nslots[2] = ga_zeros(I8, 3);", NULL);
    EXPECT("1", "1");
    CHECK(live_arrays() == before + 4);
    EXPECT("ga_free(slots[2]);", NULL);
    EXPECT("struct holder { ga_t a; } hold;\nhold.a = ga_keep(ga_zeros(U8, 5));", NULL);
    CHECK(live_arrays() == before + 4);
    EXPECT("ga_free(hold.a);", NULL);
    CHECK(live_arrays() == before + 3);
}

static void test_errors(void)
{
    EXPECT("ga_t alive = ga_zeros(F32, 3, 4);", NULL);
    EXPECT_ERROR("ga_zeros(F32, -3)", "ShapeError", "ga_zeros: dimension 0 is -3");
    /* an int is not a dtype: the compiler says so (it was a 1-d array) */
    EXPECT_ERROR("ga_zeros(99, 3)", "CompileError", "cannot convert 'int' to 'struct ga_dtype'");
    EXPECT_ERROR("ga_zeros(GA_DTYPE(99), 3)", "DTypeError", "99 is not a dtype");
    EXPECT_ERROR("ga_t q = ga_zeros(F32, 3);\nga_item(q, 5)", "ShapeError",
                 "index 5 is out of bounds for axis 0 of size 3");
    EXPECT_ERROR("ga_zeros(F32, 1LL << 40, 1LL << 40)", "ShapeError", "too large");
    EXPECT_ERROR("ga_t gone = ga_zeros(F32, 2);\nga_free(gone);\nga_size(gone)",
                 "FreedArrayError", "ga_size: the array was freed");
    EXPECT_ERROR("ga_item(gone, 0)", "FreedArrayError", "freed");
    /* an array made in a cell and only held by a local is gone afterwards */
    EXPECT("ga_t *stash = malloc(sizeof(ga_t));\n{ *stash = ga_zeros(F32, 4); }", NULL);
    EXPECT_ERROR("ga_size(*stash)", "FreedArrayError", "ga_keep");
    /* the session lives on */
    EXPECT("ga_size(alive)", "12");
}

/* .npy: save, load back, and the errors of a file that is not one. */
static void test_npy(void)
{
    char dir[] = "/tmp/gpuc-npy-XXXXXX", code[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(code, sizeof code,
             "ga_t grid = ga_reshape(ga_arange(I16, 0, 6, 1), 2, 3);\n"
             "ga_save(ga_transpose(grid), \"%s/g.npy\");\n"
             "ga_t back = ga_load(\"%s/g.npy\");\n"
             "ga_dim(back, 0) * 1000 + ga_dim(back, 1) * 100 + ga_item(back, 2, 1) * 10 + "
             "(ga_dtype(back) == GA_CODE_I16)", dir, dir);
    EXPECT(code, "3251");
    snprintf(code, sizeof code, "ga_load(\"%s/missing.npy\")", dir);
    EXPECT_ERROR(code, "FileError", "ga_load: ");
    snprintf(code, sizeof code, "FILE *f = fopen(\"%s/bad.npy\", \"w\"); fputs(\"hello\", f);"
             " fclose(f);\nga_load(\"%s/bad.npy\")", dir, dir);
    EXPECT_ERROR(code, "FileError", "not a .npy file");
    snprintf(code, sizeof code, "rm -rf %s", dir);
    CHECK(system(code) == 0);
}

/* An array as a cell's result: NumPy's repr with dtype, shape and device,
 * and an HTML table; ga_print prints the same. */
static void test_show(void)
{
    EXPECT("ga_reshape(ga_arange(F32, 0, 6, 1), 2, 3)",
           "array([[0., 1., 2.],\n       [3., 4., 5.]], dtype=float32, shape=(2, 3), device=cpu)");
    json_t *r = run("ga_arange(I64, 0, 3000, 1)");
    CHECK_STR(result(r), "array([   0,    1,    2, ..., 2997, 2998, 2999],\n"
                         "      dtype=int64, shape=(3000,), device=cpu)");
    const char *html = json_string_value(json_object_get(
        json_object_get(json_object_get(r, "result"), "data"), "text/html"));
    CHECK(html && strstr(html, "<table") && strstr(html, "2999"));
    json_decref(r);
    EXPECT_OUT("ga_print(ga_full(BOOL, 1, 2));", NULL,
               "array([ True,  True], dtype=bool, shape=(2,), device=cpu)\n");
    EXPECT_ERROR("ga_t dead = ga_zeros(F32, 1);\nga_free(dead);\ndead", "FreedArrayError", "freed");
}

/* %memory, %device and %whos know the arrays. */
static void test_magics(void)
{
    EXPECT("%device cpu", NULL);
    CHECK(strstr(out, "New arrays go to cpu."));
    EXPECT("ga_t mem_a = ga_zeros(F64, 1024, 128);\nga_t mem_b[2];\n"
           "mem_b[1] = ga_ones(I8, 7);\nga_t unnamed = ga_keep(ga_zeros(U8, 3));", NULL);
    EXPECT("%memory", NULL);
    CHECK(strstr(out, "device           arrays     pool cache           free          total\n"));
    CHECK(strstr(out, "\ncpu "));
    CHECK(strstr(out, "  mem_a                float64 (1024, 128), 1.00 MiB, cpu (cell "));
    CHECK(strstr(out, "  mem_b[1]             int8 (7,), 7 bytes, cpu (cell "));
    EXPECT("ga_free(unnamed);\n%memory limit 64MiB", NULL);
    CHECK(strstr(out, "The cpu pool holds at most 64.00 MiB (arrays and cache)."));
    EXPECT_ERROR("ga_zeros(F64, 1024, 1024, 16)", "OutOfMemoryError",
                 "cpu out of memory (the pool's limit is 64.00 MiB): asked for 128.00 MiB");
    EXPECT("%memory limit none\n%memory free", NULL);
    CHECK(strstr(out, "The cpu pool has no limit.\nGave "));
    EXPECT_ERROR("%memory limit lots", "UsageError", "%memory limit SIZE");
    EXPECT_ERROR("%device tpu", "UsageError", "'tpu' is not a device");
    EXPECT("%whos ga_t", NULL);
    CHECK(strstr(out, "mem_a ") && strstr(out, "float64 (1024, 128), 1.00 MiB, cpu"));
    json_t *r = rt_inspect(S, "mem_a", 5, 0);
    const char *text = json_string_value(
        json_object_get(json_object_get(r, "data"), "text/plain"));
    CHECK(text && strstr(text, "array: float64 (1024, 128), 1.00 MiB, cpu"));
    json_decref(r);
}

SESSION_TEST_MAIN("test_rt_arrays", test_make_and_read, test_views, test_sweep, test_errors,
                  test_npy, test_show, test_magics)
