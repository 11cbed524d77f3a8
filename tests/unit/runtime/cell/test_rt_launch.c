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
                 "(256); __typeof__(n) __gpuc_a0 = (n); __typeof__(2.0f) __gpuc_a1 = (2.0f); "
                 "__typeof__(x) __gpuc_a2 = (x); __typeof__(y) __gpuc_a3 = (y); "
                 "__gpuc_launch(\"saxpy\", &__gpuc_grid, __gpuc_is_dim3(__gpuc_grid), "
                 "sizeof __gpuc_grid, &__gpuc_block, __gpuc_is_dim3(__gpuc_block), "
                 "sizeof __gpuc_block, 0, 0, 4, "
                 "(void *[]){&__gpuc_a0, &__gpuc_a1, &__gpuc_a2, &__gpuc_a3}, "
                 "(const unsigned long long[]){sizeof __gpuc_a0, sizeof __gpuc_a1, "
                 "sizeof __gpuc_a2, sizeof __gpuc_a3}, (const char[]){"
                 "__gpuc_kind(__gpuc_a0), __gpuc_kind(__gpuc_a1), __gpuc_kind(__gpuc_a2), "
                 "__gpuc_kind(__gpuc_a3), 0}, (const char *[]){__gpuc_type(__gpuc_a0), "
                 "__gpuc_type(__gpuc_a1), __gpuc_type(__gpuc_a2), __gpuc_type(__gpuc_a3), 0}, "
                 "3, 1); });");
    free(s);

    s = rt_launch_rewrite("k<<<g, b, 1024, st>>>(f(a, b), arr[i]);", 1);
    CHECK(s && strstr(s, "__gpuc_grid = (g);"));
    CHECK(s && strstr(s, "sizeof __gpuc_block, 1024, st, 2,"));
    CHECK(s && strstr(s, "__typeof__(f(a, b)) __gpuc_a0 = (f(a, b));"));
    free(s);

    /* template instances: the name in one form, comparisons left alone */
    s = rt_launch_rewrite("tile< float, 16 ><<<1, 32>>>(p);\nscale<unsigned int><<<1, 1>>>(q);", 2);
    CHECK(s && strstr(s, "__gpuc_launch(\"tile<float,16>\", &__gpuc_grid"));
    CHECK(s && strstr(s, "__gpuc_launch(\"scale<unsigned int>\", &__gpuc_grid"));
    CHECK(s && lines(s) == 2);
    free(s);
    s = rt_launch_rewrite("if (a < b && c > d) k<<<1, 1>>>(a < b);", 1);
    CHECK(s && strstr(s, "if (a < b && c > d) ({") && strstr(s, "__gpuc_launch(\"k\""));
    free(s);
    CHECK(rt_launch_rewrite("int t = a < b > c;", 1) == NULL);

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
