/* test_bk_multi: several devices through the floor, on N simulated devices
 * (GPUC_SIM_DEVICES=3 here): the count and bk_sim_set_device_count, what
 * a user's number names, each device's own pool, which device's kernels
 * reach which memory, copies between devices, the peer links, and that the
 * simulator has no collective library (bk_allreduce says 1: the array
 * library copies), and where kernel cells may launch. Where the host has GPUs the numbers name them: the
 * parts that assume no GPU are skipped there (the GPU suite,
 * tests/gpu/multi_gpu.py, covers them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"

static int gpus(void)
{
    bk_device_t list[40];
    int n = bk_devices(list, 40), count = 0;
    for (int i = 0; i < n && i < 40; i++)
        count += bk_backend(list[i]) == BK_CUDA;
    return count;
}

static void test_count(void)
{
    cm_error_t err = {0};
    CHECK(bk_sim_device_count() == 3); /* from GPUC_SIM_DEVICES */
    bk_device_t list[40];
    int n = bk_devices(list, 40);
    CHECK(list[n - 3] == bk_device(BK_SIM, 0) && list[n - 1] == bk_device(BK_SIM, 2));
    bk_device_info_t a, b;
    CHECK(bk_device_info(bk_device(BK_SIM, 2), &a, &err) == 0);
    CHECK_STR(a.label, "sim2");
    CHECK(bk_device_info(bk_device(BK_SIM, 0), &b, &err) == 0 && a.total_mem == b.total_mem);
    CHECK(bk_sim_set_device_count(0, &err) == -1 && err.code == BK_E_DEVICE);
    memset(&err, 0, sizeof err);
    CHECK(bk_sim_set_device_count(BK_MAX_ORDINALS + 1, &err) == -1);
    memset(&err, 0, sizeof err);
    /* a device that holds a buffer cannot go */
    bk_buffer_t *kept = bk_buffer_new(bk_device(BK_SIM, 2), 100, &err);
    CHECK(kept != NULL);
    kept->refs = 1;
    CHECK(bk_sim_set_device_count(2, &err) == -1 && strstr(err.text, "sim2 still holds"));
    bk_buffer_release(kept);
    memset(&err, 0, sizeof err);
    CHECK(bk_sim_set_device_count(2, &err) == 0 && bk_sim_device_count() == 2);
    CHECK(bk_devices(list, 40) == n - 1);
}

static void test_numbers(void)
{
    cm_error_t err = {0};
    CHECK(bk_device_of_number(-1, &err) == BK_CPU_DEVICE);
    CHECK(bk_device_of_number(bk_device(BK_SIM, 1), &err) == bk_device(BK_SIM, 1));
    memset(&err, 0, sizeof err);
    CHECK(bk_device_of_number(99, &err) == BK_NO_DEVICE && err.code == BK_E_DEVICE);
    CHECK(strstr(err.text, "99 is not a device") != NULL);
    if (gpus())
        return;
    /* no GPU: GPU numbers name the simulated devices */
    memset(&err, 0, sizeof err);
    CHECK(bk_device_of_number(0, &err) == bk_device(BK_SIM, 0));
    CHECK(bk_device_of_number(1, &err) == bk_device(BK_SIM, 1));
    CHECK(bk_device_of_number(7, &err) == BK_NO_DEVICE);
    CHECK(strstr(err.text, "no device sim7") && strstr(err.text, "2 simulated devices (sim0..sim1)"));
    memset(&err, 0, sizeof err);
    CHECK(bk_device_of_number(bk_device(BK_SIM, 2), &err) == BK_NO_DEVICE); /* taken away */
    /* selecting sim1: new arrays and kernel cells go there */
    memset(&err, 0, sizeof err);
    CHECK(bk_select(bk_device(BK_SIM, 1), &err) == 0);
    CHECK(bk_default_device() == bk_device(BK_SIM, 1));
    CHECK(bk_kernel_device() == bk_device(BK_SIM, 1));
    CHECK(bk_select(BK_CPU_DEVICE, &err) == 0);
    CHECK(bk_default_device() == BK_CPU_DEVICE && bk_kernel_device() == bk_device(BK_SIM, 0));
}

static void test_apart(void)
{
    bk_device_t s0 = bk_device(BK_SIM, 0), s1 = bk_device(BK_SIM, 1);
    /* a kernel on one simulated device does not take another's arrays; the
     * CPU's memory is every simulated device's */
    CHECK(bk_can_access(s0, s0) && !bk_can_access(s0, s1) && !bk_can_access(s1, s0));
    CHECK(bk_can_access(s1, BK_CPU_DEVICE));
    CHECK(bk_peer_link(s0, s1) == 1 && bk_peer_link(s0, s0) == 1);
    /* pools per device */
    cm_error_t err = {0};
    bk_pool_stats_t st0, st1, after0, after1;
    bk_pool_stats(s0, &st0);
    bk_pool_stats(s1, &st1);
    bk_buffer_t *a = bk_buffer_new(s0, 4000, &err), *b = bk_buffer_new(s1, 4000, &err);
    CHECK(a && b && a->device == s0 && b->device == s1);
    bk_pool_stats(s0, &after0);
    bk_pool_stats(s1, &after1);
    CHECK(after0.in_use == st0.in_use + 4096 && after1.in_use == st1.in_use + 4096);
    /* a copy between them */
    for (int i = 0; i < 1000; i++)
        ((int *)a->ptr)[i] = i * 3;
    memset(b->ptr, 0, 4000);
    CHECK(bk_mem_peer(s1, b->ptr, s0, a->ptr, 4000, &err) == 0);
    CHECK(((int *)b->ptr)[999] == 2997 && ((int *)b->ptr)[1] == 3);
    /* the simulator has no collective library: the array library reduces */
    bk_device_t devs[2] = {s0, s1};
    void *bufs[2] = {a->ptr, b->ptr};
    CHECK(bk_allreduce(2, devs, bufs, 1000, BK_ELEM_I32, BK_REDUCE_SUM, &err) == 1);
    a->refs = b->refs = 1;
    bk_buffer_release(a);
    bk_buffer_release(b);
    bk_pool_stats(s1, &after1);
    CHECK(after1.in_use == st1.in_use && after1.cached >= 4096);
    CHECK(bk_pool_release(s1) >= 4096);
    bk_pool_stats(s0, &after0);
    CHECK(after0.cached >= 4096); /* sim0's cache is its own */
}

static void test_cell_launch_device(void)
{
    /* kernel cells launch only where they run now: never on the CPU, nor
     * on a simulated device other than the selected one */
    bk_cell_launch_t l = {.name = "k", .grid = {1, 1, 1}, .block = {1, 1, 1}, .cell = 4, .line = 2};
    cm_error_t err = {0};
    CHECK(bk_cell_launch(BK_CPU_DEVICE, &l, &err) == -1 && err.code == BK_E_DEVICE);
    CHECK(strstr(err.text, "cell 4, line 2: k cannot launch on cpu") != NULL);
    if (gpus())
        return;
    memset(&err, 0, sizeof err);
    CHECK(bk_kernel_device() == bk_device(BK_SIM, 0));
    CHECK(bk_cell_launch(bk_device(BK_SIM, 1), &l, &err) == -1 && err.code == BK_E_DEVICE);
    CHECK(strstr(err.text, "kernel cells run on sim0 now") != NULL);
}

int main(void)
{
    setenv("GPUC_SIM_DEVICES", "3", 1);
    test_count();
    test_numbers();
    test_apart();
    test_cell_launch_device();
    return check_report("test_bk_multi");
}
