/* The launch-syntax rewriter: the text it makes, and that TCC accepts it. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_launch.h"

static int lines(const char *s)
{
    int n = 1;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

int main(void)
{
    CHECK(rt_launch_rewrite("int x = a << 2 >> 1;", 1) == NULL);
    CHECK(rt_launch_rewrite("printf(\"k<<<1,1>>>(x)\");", 1) == NULL); /* in a string */

    char *s = rt_launch_rewrite("saxpy<<<blocks, 256>>>(n, 2.0f, x, y);", 3);
    CHECK_STR(s, "({ __typeof__(blocks) __gpuc_grid = (blocks); __typeof__(256) __gpuc_block = "
                 "(256); __gpuc_launch(\"saxpy\", &__gpuc_grid, __gpuc_is_dim3(__gpuc_grid), "
                 "sizeof __gpuc_grid, &__gpuc_block, __gpuc_is_dim3(__gpuc_block), "
                 "sizeof __gpuc_block, 0, 0, 4, "
                 "(void *[]){&(__typeof__(n)){n}, &(__typeof__(2.0f)){2.0f}, "
                 "&(__typeof__(x)){x}, &(__typeof__(y)){y}}, (const unsigned long long[])"
                 "{sizeof(n), sizeof(2.0f), sizeof(x), sizeof(y)}, (const char[]){"
                 "__gpuc_kind(n), __gpuc_kind(2.0f), __gpuc_kind(x), __gpuc_kind(y), 0}, 3, 1); });");
    free(s);

    s = rt_launch_rewrite("k<<<g, b, 1024, st>>>(f(a, b), arr[i]);", 1);
    CHECK(s && strstr(s, "__gpuc_grid = (g);"));
    CHECK(s && strstr(s, "sizeof __gpuc_block, 1024, st, 2,"));
    CHECK(s && strstr(s, "sizeof(f(a, b))"));
    free(s);

    s = rt_launch_rewrite("empty<<<1, 1>>>();", 1);
    CHECK(s && strstr(s, ", 0, (void *[]){0}"));
    free(s);

    /* launches over several lines keep the line count */
    const char *multi = "int a;\nk<<<1,\n 32>>>(a,\n a);\nint b = 1;";
    s = rt_launch_rewrite(multi, 1);
    CHECK(s && lines(s) == lines(multi));
    CHECK(s && strstr(s, "int b = 1;"));
    free(s);

    s = rt_launch_rewrite("dim3 block(16, 16);\ndim3 grid(n / 16);\nk<<<dim3(4, 4), block>>>(p);", 2);
    CHECK(s && strstr(s, "dim3 block = {(16), (16), 1};"));
    CHECK(s && strstr(s, "dim3 grid = {(n / 16), 1, 1};"));
    CHECK(s && strstr(s, "__gpuc_grid = (((dim3){(4), (4), 1}));"));
    CHECK(s && strstr(s, ", 2, 3); })"));
    free(s);

    /* a member named dim3 or a shift is left alone */
    CHECK(rt_launch_rewrite("s.dim3(1);", 1) == NULL);
    return check_report("test_rt_launch");
}
