/* Tests of backend/sim's scheduler and fibers: kernels written in C against
 * the hooks that compiled kernels call (no compiler needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cm_time.h"
#include "sim.h"
#include "sim_abi.h"
#include "sim_fiber.h"

static const sim_hooks_t *H;
#define TX (sim_self(H)->thread_idx.x)
#define BX (sim_self(H)->block->block_idx.x)
#define BDX (sim_self(H)->block->block_dim.x)

static int launch(sim_entry_fn fn, unsigned grid, unsigned block, void **args, cm_error_t *err)
{
    sim_kernel_t k = {"k", fn, NULL, 0, NULL, 0, 0};
    unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    return sim_launch(&k, g, b, 0, args, err);
}

/* out[i] = i over the grid, no barrier */
static void k_index(void **a)
{
    int *out = *(int **)a[0];
    unsigned i = BX * BDX + TX;
    out[i] = (int)i;
}

/* a block-wide tree reduction in "shared" memory with barriers */
static int shared_mem[1024];
static void k_reduce(void **a)
{
    int *out = *(int **)a[0];
    int barrier = *(int *)a[1];
    unsigned t = TX;
    shared_mem[t] = (int)t + 1;
    if (barrier)
        H->syncthreads();
    for (unsigned s = BDX / 2; s > 0; s /= 2) {
        if (t < s)
            shared_mem[t] += shared_mem[t + s];
        if (barrier)
            H->syncthreads();
    }
    if (t == 0)
        out[BX] = shared_mem[0];
}

/* warp sum with shfl_down, then lane 0 writes */
static void k_warp_sum(void **a)
{
    int *out = *(int **)a[0];
    unsigned t = TX;
    unsigned long long v = t;
    for (int d = 16; d > 0; d /= 2)
        v += H->shfl(SIM_SHFL_DOWN, 0xFFFFFFFFu, v, d, 32);
    if (t % 32 == 0)
        out[t / 32] = (int)v;
    unsigned ballot = H->vote(SIM_VOTE_BALLOT, 0xFFFFFFFFu, t % 2);
    if (t == 0)
        out[100] = (int)ballot;
}

/* __syncthreads_count / _and / _or, twice in a row */
static void k_sync_count(void **a)
{
    int *out = *(int **)a[0];
    unsigned t = TX;
    int c = H->syncthreads_pred(SIM_SYNC_COUNT, t % 3 == 0);
    int all = H->syncthreads_pred(SIM_SYNC_AND, t < 1000);
    int any = H->syncthreads_pred(SIM_SYNC_OR, t == 77);
    int none = H->syncthreads_pred(SIM_SYNC_OR, 0);
    if (t == 5)
        out[0] = c, out[1] = all, out[2] = any, out[3] = none;
}

static void k_deadlock(void **a)
{
    (void)a;
    if (TX == 0)
        H->syncthreads(); /* the others end without reaching it: that completes */
    if (TX < 2)
        H->syncwarp(0xFFFFFFFFu); /* thread 0 ... */
    else
        H->syncthreads();         /* ... and the rest wait at different barriers */
}

static void k_assert(void **a)
{
    (void)a;
    if (TX == 3)
        H->assert_fail("i != 3", "cell[1]", 7, "void k(int*)");
}

/* fails in every block from 37 on */
static void k_assert_late(void **a)
{
    (void)a;
    if (BX >= 37 && TX == 5)
        H->assert_fail("b < 37", "cell[1]", 9, "void k(int*)");
}

static int prints(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = H->vprintf(fmt, ap);
    va_end(ap);
    return n;
}

static void k_print(void **a)
{
    (void)a;
    prints("b%u t%u\n", BX, TX);
}

/* fibers alone: a ping-pong */
static sim_context_t main_ctx, fib_ctx;
static int pings;
static void ping(void *arg)
{
    (void)arg;
    for (;;) {
        pings++;
        sim_fiber_switch(&fib_ctx, &main_ctx);
    }
}

/* k_print's output, by block then thread, with the seed given (-1: none) */
static char *printed(long long seed, unsigned grid, unsigned block)
{
    cm_error_t err = {0};
    void *none[] = {NULL};
    fflush(stdout);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    FILE *saved = stdout;
    stdout = mem;
    sim_set_seed(seed);
    CHECK(launch(k_print, grid, block, none, &err) == 0);
    sim_set_seed(-1);
    stdout = saved;
    fclose(mem);
    return buf;
}

/* Blocks on several workers: the same results, output and failures as on one. */
static void several_workers(void)
{
    cm_error_t err = {0};
    int N = 1 << 20;
    int *out = calloc((size_t)N, sizeof *out);
    void *args[] = {&out};
    for (int threads = 1; threads <= 4; threads *= 2) {
        sim_set_threads(threads);
        memset(out, 0, (size_t)N * sizeof *out);
        double t0 = cm_seconds();
        CHECK(launch(k_index, (unsigned)N / 256, 256, args, &err) == 0);
        printf("1M threads, no barrier, %d worker%s: %.3f s\n", threads, threads > 1 ? "s" : "",
               cm_seconds() - t0);
        int good = 1;
        for (int i = 0; i < N; i++)
            good &= out[i] == i;
        CHECK(good);
        CHECK(!sim_take_error(NULL));

        /* the first failure in block order, whoever ran it */
        cm_error_t e = {0};
        CHECK(launch(k_assert_late, 200, 32, args, &err) == 0);
        CHECK(sim_take_error(&e) == 1);
        CHECK(e.code == SIM_E_CUDA + 710);
        CHECK(strstr(e.text, "block [37,0,0], thread [5,0,0]") != NULL);
        CHECK(!sim_take_error(NULL));

        char *plain = printed(-1, 50, 3), *seeded = printed(7, 50, 3);
        CHECK(plain && strncmp(plain, "b0 t0\nb0 t1\nb0 t2\nb1 t0\n", 24) == 0);
        CHECK_STR(seeded, plain);
        free(plain);
        free(seeded);
    }
    sim_set_threads(1);
    free(out);
}

int main(void)
{
    H = sim_hooks();
    cm_error_t err = {0};
    sim_set_threads(1); /* the kernels below keep their "shared" memory in one static array */
    sim_set_checks(0, 0); /* C kernels: no source to check */

    /* fibers switch back and forth; measure the cost */
    sim_stack_t st;
    CHECK(sim_stack_new(&st, 64 * 1024) == 0);
    sim_fiber_make(&fib_ctx, &st, ping, NULL);
    int n = 1000000;
    double t0 = cm_seconds();
    for (int i = 0; i < n; i++)
        sim_fiber_switch(&main_ctx, &fib_ctx);
    double t1 = cm_seconds();
    CHECK(pings == n);
    printf("fiber switch (%s): %.1f ns\n", sim_fiber_native() ? "gpuc's own" : "ucontext",
           (t1 - t0) / (2.0 * n) * 1e9);
    sim_stack_free(&st);

    /* 1e6 threads without barriers */
    int N = 1 << 20;
    int *out = calloc((size_t)N, sizeof *out);
    void *args1[] = {&out};
    t0 = cm_seconds();
    CHECK(launch(k_index, (unsigned)N / 256, 256, args1, &err) == 0);
    printf("1M threads, no barrier: %.3f s\n", cm_seconds() - t0);
    int good = 1;
    for (int i = 0; i < N; i++)
        good &= out[i] == i;
    CHECK(good);
    CHECK(!sim_take_error(NULL));

    /* a reduction with barriers is right; without, wrong the same way each run */
    int barrier = 1;
    void *args2[] = {&out, &barrier};
    CHECK(launch(k_reduce, 4, 256, args2, &err) == 0);
    CHECK(out[0] == 256 * 257 / 2 && out[3] == 256 * 257 / 2);
    barrier = 0; /* shared memory keeps what it had: start from zeros */
    memset(shared_mem, 0, sizeof shared_mem);
    CHECK(launch(k_reduce, 1, 256, args2, &err) == 0);
    int wrong = out[0];
    CHECK(wrong != 256 * 257 / 2);
    memset(shared_mem, 0, sizeof shared_mem);
    CHECK(launch(k_reduce, 1, 256, args2, &err) == 0);
    CHECK(out[0] == wrong);

    /* warp shuffles and ballot */
    void *args3[] = {&out};
    memset(out, 0, 200 * sizeof *out);
    CHECK(launch(k_warp_sum, 1, 64, args3, &err) == 0);
    CHECK(out[0] == 31 * 32 / 2);
    CHECK(out[1] == (32 + 63) * 32 / 2);
    CHECK((unsigned)out[100] == 0xAAAAAAAAu);

    CHECK(launch(k_sync_count, 2, 100, args3, &err) == 0);
    CHECK(out[0] == 34 && out[1] == 1 && out[2] == 1 && out[3] == 0);

    /* threads at different barriers: an error, not a hang */
    CHECK(launch(k_deadlock, 1, 64, args3, &err) == 0);
    cm_error_t e2 = {0};
    CHECK(sim_take_error(&e2) == 1);
    CHECK(e2.code == SIM_E_CUDA + 719);
    CHECK(strstr(e2.text, "__syncthreads") != NULL);

    /* a device assert stops the launch with 710 */
    cm_error_t e3 = {0};
    CHECK(launch(k_assert, 2, 32, args3, &err) == 0);
    CHECK(sim_take_error(&e3) == 1);
    CHECK(e3.code == SIM_E_CUDA + 710);
    CHECK(strstr(e3.text, "Assertion `i != 3` failed") != NULL);
    CHECK(strstr(e3.text, "thread [3,0,0]") != NULL);

    /* configuration errors as a GPU gives them */
    cm_error_t e4 = {0};
    CHECK(launch(k_index, 1, 2048, args1, &e4) == -1);
    CHECK(e4.code == SIM_E_CUDA + 1);
    CHECK(strstr(e4.text, "CUDA_ERROR_INVALID_VALUE (1)") != NULL);
    CHECK(strstr(e4.text, "2048 threads per block") != NULL);
    cm_error_t e5 = {0};
    sim_kernel_t k = {"k", k_index, NULL, 0, NULL, 0, 0};
    unsigned g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
    CHECK(sim_launch(&k, g, b, 64 * 1024, args1, &e5) == -1);
    CHECK(strstr(e5.text, "shared memory") != NULL);

    /* printf: by block, then thread, also when shuffled */
    char *buf = printed(42, 3, 2);
    CHECK_STR(buf, "b0 t0\nb0 t1\nb1 t0\nb1 t1\nb2 t0\nb2 t1\n");
    free(buf);

    free(out);
    several_workers();
    return check_report("test_sim_sched");
}
