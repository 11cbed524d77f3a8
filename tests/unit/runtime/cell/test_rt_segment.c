/* test_rt_segment: pieces of a cell on the cell's own lines, and the
 * split of a .cu-style cell into its device and host parts (rt_device). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_device.h"
#include "rt_segment.h"

static void test_segments(void)
{
    const char *code = "int a = 1;\n%timeit a++\nint b = 2;\n";
    size_t from = strstr(code, "int b") - code;
    rt_segment_t seg = rt_segment_of(code, from, strlen(code), 3, 7);
    CHECK(seg.line == 3 && seg.cell == 7 && !rt_segment_is_blank(&seg));
    char *src = rt_segment_source(&seg);
    CHECK_STR(src, "\n\nint b = 2;\n"); /* line 3 of the cell is line 3 here */
    free(src);
    rt_segment_t blank = rt_segment_of(" \n\t\n", 0, 4, 1, 1);
    CHECK(rt_segment_is_blank(&blank));
    char *kept = rt_segment_blank_outside("ab\ncd\nef", 3, 5);
    CHECK_STR(kept, "  \ncd\n  ");
    free(kept);
}

/* rt_device_split of code read once, as the cell runner reads it. */
static int device_split(const char *code, char **device, char **host)
{
    rt_tokens_t t;
    rt_tokens_lex(&t, code, 0, strlen(code), 1);
    int rc = rt_device_split(&t, device, host);
    rt_tokens_free(&t);
    return rc;
}

static void test_device_split(void)
{
    const char *cell = "#include <stdio.h>\n"
                       "#include <cuda_fp16.h>\n"
                       "#define N 4\n"
                       "__global__ void k(float *x) { x[threadIdx.x] = N; }\n"
                       "int host_n = N;\n";
    char *device, *host;
    CHECK(device_split(cell, &device, &host) == 1);
    CHECK(strlen(device) == strlen(cell) && strlen(host) == strlen(cell));
    CHECK(strstr(device, "__global__ void k") && !strstr(host, "__global__"));
    CHECK(strstr(host, "int host_n = N;") && !strstr(device, "host_n"));
    CHECK(strstr(device, "cuda_fp16.h") && !strstr(host, "cuda_fp16.h"));
    CHECK(strstr(host, "<stdio.h>") && !strstr(device, "<stdio.h>"));
    CHECK(strstr(device, "#define N 4") && strstr(host, "#define N 4"));
    /* line numbers stay: the kernel is on line 4 of both texts */
    int nl = 0;
    for (const char *p = device; p < strstr(device, "__global__"); p++)
        nl += *p == '\n';
    CHECK(nl == 3);
    free(device);
    free(host);
    CHECK(device_split("int x = 1;\n", &device, &host) == 0 && !device && !host);
    /* __device__ only in a comment-free host cell text: no device item */
    CHECK(device_split("const char *s = \"__device__\";\n", &device, &host) == 0);

    /* a type the device code uses goes to both sides (and what it uses in
     * turn), named without `struct` on the host; a host-only type stays */
    const char *typed = "struct Inner { float a; };\n"
                        "struct P { struct Inner in; int n; };\n"
                        "struct Timer { long t0; };\n"
                        "typedef struct { int k; } Opt;\n"
                        "__global__ void k(P p, Opt o) { }\n"
                        "P v;\n";
    CHECK(device_split(typed, &device, &host) == 1);
    CHECK(strstr(device, "struct P { struct Inner in; int n; };"));
    CHECK(strstr(device, "struct Inner { float a; };"));
    CHECK(strstr(device, "typedef struct { int k; } Opt;"));
    CHECK(!strstr(device, "Timer"));
    CHECK(strstr(host, "struct P { struct Inner in; int n; }; typedef struct P P;\n"));
    CHECK(strstr(host, "struct Inner { float a; }; typedef struct Inner Inner;\n"));
    CHECK(strstr(host, "struct Timer { long t0; };\n") && !strstr(host, "struct Timer Timer"));
    nl = 0;
    for (const char *p = host; p < strstr(host, "P v;"); p++)
        nl += *p == '\n';
    CHECK(nl == 5);
    free(device);
    free(host);
}

int main(void)
{
    test_segments();
    test_device_split();
    return check_report("test_rt_segment");
}
