/* test_ga_multi: the all-reduce of the array library on three simulated
 * devices, without a session — sum, max and min in place in every array
 * (through peer copies and the array math: the simulator has no
 * collective library), a copy between devices, and each refusal (an
 * unknown op, dtypes, shapes, a device twice, a view, complex max). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"
#include "ga_array.h"
#include "ga_copy.h"
#include "ga_multi.h"

#define N 1000

static ga_array_t *filled(int device, ga_dtype_t dtype, const void *values)
{
    cm_error_t err = {0};
    ga_array_t *a = ga_array_new(device, dtype, 1, (int64_t[]){N}, &err);
    CHECK(a != NULL && ga_copy_from_host(a, values, &err) == 0);
    return a;
}

static void test_reductions(void)
{
    static const char *const ops[] = {"sum", "max", "min"};
    for (int k = 0; k < 3; k++) {
        int h[3][N], want[N];
        for (int i = 0; i < N; i++) {
            for (int d = 0; d < 3; d++)
                h[d][i] = (i * 7 + d * 13) % 101 - 50;
            int s = h[0][i], mx = h[0][i], mn = h[0][i];
            for (int d = 1; d < 3; d++) {
                s += h[d][i];
                mx = h[d][i] > mx ? h[d][i] : mx;
                mn = h[d][i] < mn ? h[d][i] : mn;
            }
            want[i] = k == 0 ? s : k == 1 ? mx : mn;
        }
        ga_array_t *a[3];
        for (int d = 0; d < 3; d++)
            a[d] = filled(bk_device(BK_SIM, d), GA_I32, h[d]);
        cm_error_t err = {0};
        CHECK(ga_multi_allreduce(a, 3, ops[k], &err) == 0);
        for (int d = 0; d < 3; d++) {
            int got[N];
            CHECK(ga_copy_to_host(a[d], got, &err) == 0);
            CHECK(memcmp(got, want, sizeof got) == 0);
            CHECK(a[d]->device == bk_device(BK_SIM, d)); /* each stays where it was */
            ga_array_free(a[d]);
        }
    }
    /* float64 across two devices */
    double x[N], y[N], got[N];
    for (int i = 0; i < N; i++)
        x[i] = i * 0.5, y[i] = -i * 0.25;
    ga_array_t *b[2] = {filled(bk_device(BK_SIM, 0), GA_F64, x),
                        filled(bk_device(BK_SIM, 2), GA_F64, y)};
    cm_error_t err = {0};
    CHECK(ga_multi_allreduce(b, 2, "sum", &err) == 0);
    CHECK(ga_copy_to_host(b[1], got, &err) == 0 && got[N - 1] == (N - 1) * 0.25);
    ga_array_free(b[0]);
    ga_array_free(b[1]);
}

static void test_refusals(void)
{
    float f[N] = {0};
    double g[N] = {0};
    ga_array_t *a0 = filled(bk_device(BK_SIM, 0), GA_F32, f);
    ga_array_t *a1 = filled(bk_device(BK_SIM, 1), GA_F32, f);
    ga_array_t *d1 = filled(bk_device(BK_SIM, 1), GA_F64, g);
    cm_error_t err = {0};
    CHECK(ga_multi_allreduce((ga_array_t *[]){a0, a1}, 2, "prod", &err) == -1 &&
          err.code == GA_E_VALUE && strstr(err.text, "\"prod\""));
    memset(&err, 0, sizeof err);
    CHECK(ga_multi_allreduce((ga_array_t *[]){a0, d1}, 2, "sum", &err) == -1 &&
          err.code == GA_E_DTYPE && strstr(err.text, "float64"));
    memset(&err, 0, sizeof err);
    CHECK(ga_multi_allreduce((ga_array_t *[]){a0, a0}, 2, "sum", &err) == -1 &&
          err.code == GA_E_DEVICE && strstr(err.text, "both on sim0"));
    memset(&err, 0, sizeof err);
    ga_array_t *view = ga_array_slice(a1, 0, 0, N, 2, &err);
    CHECK(view != NULL);
    ga_array_t *half = filled(bk_device(BK_SIM, 0), GA_F32, f);
    memset(&err, 0, sizeof err);
    CHECK(ga_multi_allreduce((ga_array_t *[]){half, view}, 2, "sum", &err) == -1 &&
          (err.code == GA_E_SHAPE));
    memset(&err, 0, sizeof err);
    CHECK(ga_multi_allreduce((ga_array_t *[]){a0}, 0, "sum", &err) == -1 &&
          err.code == GA_E_VALUE);
    ga_array_free(view);
    ga_array_free(half);
    ga_array_free(a0);
    ga_array_free(a1);
    ga_array_free(d1);
}

static void test_copy_between(void)
{
    int h[N], got[N];
    for (int i = 0; i < N; i++)
        h[i] = i * 3;
    ga_array_t *a = filled(bk_device(BK_SIM, 0), GA_I32, h);
    cm_error_t err = {0};
    ga_array_t *b = ga_copy_array(a, bk_device(BK_SIM, 2), &err);
    CHECK(b && b->device == bk_device(BK_SIM, 2) && b->buf != a->buf);
    CHECK(b && ga_copy_to_host(b, got, &err) == 0 && memcmp(got, h, sizeof h) == 0);
    ga_array_free(a);
    ga_array_free(b);
}

int main(void)
{
    char dir[] = "/tmp/test_ga_multi_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    setenv("GPUC_SIM_DEVICES", "3", 1);
    test_reductions();
    test_refusals();
    test_copy_between();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_report("test_ga_multi");
}
