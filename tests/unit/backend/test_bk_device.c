/* test_bk_device: the backend floor on a machine without a GPU — device
 * handles, the device list and what each device says it can do, the pool,
 * copies between devices, a C kernel and BLAS through the floor (the one
 * compile cache is test_cpu_jit's), which launches count as a GPU's. The
 * CUDA table is covered by the GPU suite (and by test_launch_count where
 * a GPU is present). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"

static void test_handles(void)
{
    CHECK(bk_device(BK_CPU, 0) == -1 && bk_device(BK_CUDA, 3) == 3);
    CHECK(bk_device(BK_SIM, 0) == BK_SIM_FIRST);
    CHECK(bk_device(BK_CPU, 1) == BK_NO_DEVICE && bk_device(BK_CUDA, BK_MAX_ORDINALS) == BK_NO_DEVICE);
    for (int b = 0; b < BK_NBACKENDS; b++) {
        bk_device_t d = bk_device(b, 0);
        CHECK(bk_backend(d) == b && bk_ordinal(d) == 0);
    }
    CHECK(bk_backend(BK_NO_DEVICE) == -1 && bk_backend(500) == -1);
    char t[16];
    bk_device_text(bk_device(BK_CUDA, 1), t, sizeof t);
    CHECK_STR(t, "gpu1");
    bk_device_text(bk_device(BK_SIM, 0), t, sizeof t);
    CHECK_STR(t, "sim0");
    bk_device_text(BK_CPU_DEVICE, t, sizeof t);
    CHECK_STR(t, "cpu");
}

static void test_list(void)
{
    bk_device_t list[40];
    int n = bk_devices(list, 40);
    CHECK(n >= 2 && list[0] == BK_CPU_DEVICE && list[n - 1] == bk_device(BK_SIM, 0));
    bk_device_info_t cpu, sim;
    cm_error_t err = {0};
    CHECK(bk_device_info(BK_CPU_DEVICE, &cpu, &err) == 0);
    CHECK(cpu.host_memory && cpu.lang == BK_LANG_C && !cpu.runs_kernel_cells && !cpu.streams);
    CHECK(cpu.sm_count >= 1 && cpu.total_mem > 0 && bk_units(BK_CPU_DEVICE) == cpu.sm_count);
    CHECK(bk_device_info(bk_device(BK_SIM, 0), &sim, &err) == 0);
    CHECK(sim.host_memory && sim.runs_kernel_cells && sim.major == 8);
    CHECK_STR(sim.how, "simulated on the CPU");
    CHECK(strstr(sim.name, "simulator") != NULL);
    CHECK(bk_device_info(777, &sim, &err) == -1 && err.code == BK_E_DEVICE);
    /* kernels on the simulator use host memory; not a GPU's */
    CHECK(bk_can_access(bk_device(BK_SIM, 0), BK_CPU_DEVICE));
    CHECK(!bk_can_access(bk_device(BK_CUDA, 0), BK_CPU_DEVICE));
    CHECK(!bk_can_access(bk_device(BK_SIM, 0), bk_device(BK_CUDA, 0)));
    if (n == 2) { /* no GPU here: arrays go to the CPU, kernel cells to the simulator */
        CHECK(bk_default_device() == BK_CPU_DEVICE);
        CHECK(bk_kernel_device() == bk_device(BK_SIM, 0));
    } else { /* a GPU: it comes after the CPU, and gpuc uses it */
        CHECK(bk_backend(list[1]) == BK_CUDA && bk_default_device() == list[1]);
        CHECK(bk_kernel_device() == list[1]);
    }
}

static void test_pool(void)
{
    cm_error_t err = {0};
    bk_pool_stats_t st;
    bk_pool_stats(BK_CPU_DEVICE, &st);
    size_t hits = st.hits;
    bk_buffer_t *b = bk_buffer_new(BK_CPU_DEVICE, 1000, &err);
    CHECK(b && b->capacity == 1024 && (uintptr_t)b->ptr % 256 == 0);
    void *ptr = b->ptr;
    b->refs = 1;
    bk_buffer_release(b);
    b = bk_buffer_new(BK_CPU_DEVICE, 600, &err); /* the same size class: the cached block */
    CHECK(b && b->ptr == ptr);
    bk_pool_stats(BK_CPU_DEVICE, &st);
    CHECK(st.hits == hits + 1 && st.in_use >= 1024);
    /* a copy to the simulated device and back, through the floor */
    bk_buffer_t *s = bk_buffer_new(bk_device(BK_SIM, 0), 600, &err);
    CHECK(s != NULL);
    memset(b->ptr, 7, 600);
    CHECK(bk_mem_peer(bk_device(BK_SIM, 0), s->ptr, BK_CPU_DEVICE, b->ptr, 600, &err) == 0);
    char back[600];
    CHECK(bk_mem_to_host(bk_device(BK_SIM, 0), back, s->ptr, 600, &err) == 0);
    CHECK(back[0] == 7 && back[599] == 7);
    b->refs = s->refs = 1;
    bk_buffer_release(b);
    bk_buffer_release(s);
    CHECK(bk_pool_release(BK_CPU_DEVICE) >= 1024);
    bk_pool_stats(BK_CPU_DEVICE, &st);
    CHECK(st.cached == 0);
    CHECK(bk_buffer_new(321, 8, &err) == NULL && err.code == BK_E_DEVICE);
}

static void test_kernel_and_blas(void)
{
    cm_error_t err = {0};
    int (*add)(int, int) = (int (*)(int, int))bk_kernel_get(
        BK_CPU_DEVICE, "int add(int a, int b) { return a + b; }\n", NULL, "add", &err);
    CHECK(add && add(40, 2) == 42);
    CHECK(bk_kernel_get(BK_CPU_DEVICE, "int f(void) { return nope; }\n", NULL, "f", &err) == NULL);
    CHECK(err.code == BK_E_KERNEL && strstr(err.text, "nope"));
    int line = 0;
    memset(&err, 0, sizeof err);
    CHECK(bk_kernel_check(BK_LANG_C, "int g(void)\n{\n  return nope;\n}\n", &line, &err) == -1);
    CHECK(line == 3 && err.code == BK_E_KERNEL);

    /* C (2 x 2) = A (2 x 3) B (3 x 2), column-major, in float64 */
    double a[6] = {1, 4, 2, 5, 3, 6}, b[6] = {7, 9, 11, 8, 10, 12}, c[4] = {0};
    bk_gemm_t g = {.type = BK_BLAS_F64, .m = 2, .n = 2, .k = 3, .a = a, .b = b, .c = c,
                   .lda = 2, .ldb = 3, .ldc = 2, .batch = 1};
    memset(&err, 0, sizeof err);
    if (bk_gemm(BK_CPU_DEVICE, &g, &err) != 0) {
        printf("skipped BLAS: %s\n", err.text); /* no OpenBLAS on this machine */
        return;
    }
    CHECK(c[0] == 58 && c[1] == 139 && c[2] == 64 && c[3] == 154);
    float x[3] = {1, 2, 3}, y[3] = {4, 5, 6}, r = 0;
    CHECK(bk_dot(bk_device(BK_SIM, 0), BK_BLAS_F32, 3, x, 1, y, 1, &r, &err) == 0 && r == 32);
    g.type = BK_BLAS_F16; /* the host's BLAS has none: the array library converts first */
    CHECK(bk_gemm(BK_CPU_DEVICE, &g, &err) == -1 && err.code == BK_E_DEVICE);
}

/* Only a GPU's launches count as GPU work for the timing magics: host
 * devices' kernels and BLAS run at the call. On a GPU an array kernel's
 * launch counts, and the kernel clock times it. */
static void test_launch_count(void)
{
    cm_error_t err = {0};
    unsigned long before = bk_launch_count();
    float x[3] = {1, 2, 3}, y[3] = {4, 5, 6}, r = 0;
    if (bk_dot(bk_device(BK_SIM, 0), BK_BLAS_F32, 3, x, 1, y, 1, &r, &err) == 0)
        CHECK(r == 32);
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    static char not_a_kernel;
    CHECK(bk_kernel_launch(BK_CPU_DEVICE, &not_a_kernel, grid, block, 0, NULL, "k", &err) == -1);
    CHECK(bk_launch_count() == before);
    bk_device_t gpu = bk_kernel_device();
    if (bk_backend(gpu) != BK_CUDA)
        return; /* no GPU here: the GPU suite runs the rest */
    memset(&err, 0, sizeof err);
    void *k = bk_kernel_get(gpu, "extern \"C\" __global__ void spin() {}\n", NULL, "spin", &err);
    CHECK(k != NULL);
    double secs = -1;
    CHECK(bk_kernel_clock_start(gpu) == 0);
    CHECK(k && bk_kernel_launch(gpu, k, grid, block, 0, NULL, "spin", &err) == 0);
    CHECK(bk_kernel_clock_stop(gpu, &secs) == 0 && secs > 0);
    CHECK(bk_launch_count() == before + 1);
}

int main(void)
{
    char dir[] = "/tmp/test_bk_device_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    test_handles();
    test_list();
    test_pool();
    test_kernel_and_blas();
    test_launch_count();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_report("test_bk_device");
}
