/* sim_sched: running a grid - blocks one after another, the threads of a
 * block as fibers (see sim.h).
 *
 * A thread runs until it ends or waits: at __syncthreads() for the rest of
 * its block, at __syncwarp() or a warp intrinsic for the rest of its warp.
 * Threads start on runners (runner_main): a kernel that never waits runs
 * a whole block on one stack, a plain call per thread, with no context
 * switch; only threads waiting at a barrier hold a stack. Threads start in
 * index order (warp by warp; the warps shuffled under a seed) and leave a
 * barrier in the same order, so a missing barrier gives the same wrong
 * answer every run. */
#include "sim.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_buf.h"
#include "cm_time.h"
#include "sim_abi.h"
#include "sim_check.h"
#include "sim_fiber.h"

#define STACK_BYTES (256 * 1024)
#define MAX_THREADS 1024
#define MAX_SHARED (48 * 1024)

enum { NEW, READY, RUNNING, WAIT_BLOCK, WAIT_WARP, DONE };

typedef struct thread {
    sim_thread_view_t view;    /* what the kernel reads; hooks.self points here */
    sim_context_t ctx;         /* where it waits */
    int state;
    unsigned lane, warp;
    int stack;                 /* the runner stack it runs on */
    cm_buf_t out;              /* device printf */
} thread_t;

typedef struct warp {
    unsigned live;             /* lanes that have not ended */
    unsigned waiting;          /* lanes at the warp barrier */
    unsigned want;             /* the mask the waiting lanes gave */
    unsigned gen;              /* exchanges completed */
    unsigned part[2];          /* lanes that took part, by gen & 1 */
    unsigned long long slot[2][32]; /* the values exchanged, by gen & 1 */
} warp_t;

typedef struct chunk {
    unsigned long long block;  /* linear block index */
    char *text;
    size_t len;
} chunk_t;

static struct {
    int running;               /* inside sim_launch: a jump out of it leaves 1 */
    thread_t threads[MAX_THREADS];
    warp_t warps[MAX_THREADS / 32];
    int order[MAX_THREADS];    /* the order threads start and leave barriers in */
    int ready[MAX_THREADS];    /* ring of thread indices */
    int head, count;
    int nthreads, live, arrived;
    int next_new;              /* order[next_new] is the next thread to start */
    unsigned block_gen;        /* block barriers completed */
    int bar_sum[2], bar_n[2];  /* __syncthreads_count's sum and arrivals, by gen & 1 */
    int ended_stack;           /* a runner that ended: its stack, else -1 */
    sim_context_t start;       /* a new runner's first context */
    sim_stack_t stacks[MAX_THREADS];
    int nstacks, free_stacks[MAX_THREADS], nfree;
    sim_context_t sched;
    thread_t *cur;
    sim_thread_view_t *self;
    sim_block_view_t block;
    const sim_kernel_t *kernel;
    sim_kernel_t kernel_copy;
    void **args;
    int abort;                 /* stop the launch: assert, trap */
    cm_error_t pending;        /* the failure sim_take_error returns */
    int have_pending;
    chunk_t *chunks;
    size_t nchunks, cap_chunks;
    long long seed;
    unsigned long long rng;
    double seconds;
    void *dyn_shared;
    unsigned dyn_bytes;        /* of this launch */
    int printed;               /* a thread of the block wrote output */
    const unsigned long long *block_order; /* the launch's blocks in the order run; NULL: index order */
    unsigned grid[3];
    uint32_t stamps;           /* blocks run since the process started */
    size_t page;               /* the size of a stack's guard page */
} S = {.seed = -1};

sim_now_t sim_now;

/* ---- the generator of shuffled orders (splitmix64) -------------------- */

static unsigned long long next_random(void)
{
    unsigned long long z = (S.rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void shuffle(unsigned long long *v, unsigned long long n)
{
    for (unsigned long long i = n; i > 1; i--) {
        unsigned long long j = next_random() % i, t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

void sim_set_seed(long long seed)
{
    S.seed = seed < 0 ? -1 : seed;
    S.rng = (unsigned long long)seed;
}

long long sim_seed(void)
{
    return S.seed;
}

double sim_kernel_seconds(void)
{
    return S.seconds;
}

int sim_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* ---- failures ---------------------------------------------------------- */

/* "block [1,0,0], thread [3,0,0]" of the running thread, after "name, "
 * when a name is given. */
static void where_in_grid(char *buf, size_t len, const char *name)
{
    const sim_uint3_t *b = &S.block.block_idx, *t = &S.cur->view.thread_idx;
    snprintf(buf, len, "%s%sblock [%u,%u,%u], thread [%u,%u,%u]", name ? name : "",
             name ? ", " : "", b->x, b->y, b->z, t->x, t->y, t->z);
}


static void fail(int cuda_code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(int cuda_code, const char *fmt, ...)
{
    char text[CM_ERROR_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!S.have_pending)
        CM_ERROR(&S.pending, SIM_E_CUDA + cuda_code, "%s", text);
    S.have_pending = 1;
}

/* "cell 8, line 3": where ip lies in the cell's source, read from the
 * module's line table (-g1) by addr2line; "" when it is not known (no
 * addr2line, ip in the prelude or outside the kernel's module). */
static void source_line_of(const void *ip, char *buf, size_t len)
{
    Dl_info info;
    buf[0] = '\0';

    if (!ip || !dladdr(ip, &info) || !info.dli_fname || !info.dli_fbase ||
        strchr(info.dli_fname, '\'') || !S.kernel->cells)
        return;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%lx 2>/dev/null", info.dli_fname,
             (unsigned long)((const char *)ip - (const char *)info.dli_fbase));
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char out[512] = "";
    if (!fgets(out, sizeof out, p))
        out[0] = '\0';
    pclose(p);
    int k, line;
    const char *part = strstr(out, "cell["); /* after the compile's folder */
    if (part && sscanf(part, "cell[%d]:%d", &k, &line) == 2 && k >= 1 && k <= S.kernel->ncells && line > 0)
        snprintf(buf, len, "cell %d, line %d", S.kernel->cells[k - 1], line);
}

int sim_cut_off(const void *ip, char *where, size_t where_len, char *line, size_t line_len)
{
    line[0] = '\0';
    if (!S.running)
        return 0;
    S.running = 0;
    sim_now.active = 0;
    if (S.cur)
        where_in_grid(where, where_len, S.kernel->name);
    else
        snprintf(where, where_len, "%s", S.kernel->name);
    source_line_of(ip, line, line_len);
    return 1;
}

int sim_take_error(cm_error_t *err)
{
    if (!S.have_pending)
        return 0;
    if (err)
        CM_ERROR(err, S.pending.code, "%s", S.pending.text);
    cm_error_clear(&S.pending);
    S.have_pending = 0;
    return 1;
}

void sim_keep_error(const cm_error_t *err)
{
    if (S.have_pending)
        return;
    CM_ERROR(&S.pending, err->code, "%s", err->text);
    S.have_pending = 1;
}

/* ---- the ready queue and barriers -------------------------------------- */

static void push_ready(int i)
{
    S.threads[i].state = READY;
    S.ready[(S.head + S.count) % MAX_THREADS] = i;
    S.count++;
}

static void release_block(void)
{
    for (int k = 0; k < S.nthreads; k++)
        if (S.threads[S.order[k]].state == WAIT_BLOCK)
            push_ready(S.order[k]);
    S.bar_n[S.block_gen & 1] = S.arrived;
    S.block_gen++;
    sim_now.bgen = S.block_gen;
    S.bar_sum[S.block_gen & 1] = 0; /* the other gen's sum is read until the next barrier */
    S.arrived = 0;
}

/* Releases warp w's waiting lanes when every live lane it waits for is there. */
static void check_warp(unsigned w)
{
    warp_t *wp = &S.warps[w];
    unsigned need = wp->want & wp->live;
    if (!wp->waiting || (wp->waiting & need) != need)
        return;
    wp->part[wp->gen & 1] = wp->waiting;
    wp->gen++;
    for (unsigned lane = 0; lane < 32; lane++)
        if (wp->waiting >> lane & 1)
            push_ready((int)(w * 32 + lane));
    wp->waiting = 0;
}

/* t runs now: what the kernel and the checker read of it. */
static void enter(thread_t *t)
{
    t->state = RUNNING;
    S.cur = t;
    S.self = &t->view;
    sim_now.thread = (uint32_t)(t - S.threads);
    sim_now.wgen = &S.warps[t->warp].gen;
    sim_now.stack_lo = (uintptr_t)S.stacks[t->stack].base;
    sim_now.stack_hi = sim_now.stack_lo + S.stacks[t->stack].size + S.page; /* guard page below */
}

static void to_scheduler(thread_t *t)
{
    sim_fiber_switch(&t->ctx, &S.sched);
}

static void sync_block(void)
{
    thread_t *t = S.cur;
    t->state = WAIT_BLOCK;
    if (++S.arrived == S.live)
        release_block();
    to_scheduler(t);
}

static int sync_block_pred(int op, int predicate)
{
    unsigned gen = S.block_gen;
    S.bar_sum[gen & 1] += predicate != 0;
    sync_block();
    int sum = S.bar_sum[gen & 1], n = S.bar_n[gen & 1];
    return op == SIM_SYNC_COUNT ? sum : op == SIM_SYNC_AND ? sum == n : sum > 0;
}

/* Waits at the warp barrier with value; returns the exchange's gen. */
static unsigned warp_exchange(unsigned mask, unsigned long long value)
{
    thread_t *t = S.cur;
    warp_t *wp = &S.warps[t->warp];
    unsigned gen = wp->gen;
    wp->slot[gen & 1][t->lane] = value;
    wp->waiting |= 1u << t->lane;
    wp->want = mask;
    t->state = WAIT_WARP;
    check_warp(t->warp);
    to_scheduler(t);
    return gen;
}

static void sync_warp(unsigned mask)
{
    warp_exchange(mask, 0);
}

static unsigned long long shfl(int op, unsigned mask, unsigned long long value, int arg, int width)
{
    thread_t *t = S.cur;
    unsigned gen = warp_exchange(mask, value);
    warp_t *wp = &S.warps[t->warp];
    if (width <= 0 || width > 32 || (width & (width - 1)))
        width = 32;
    int lane = (int)t->lane, lo = lane & ~(width - 1), src = lane;
    switch (op) {
    case SIM_SHFL_IDX: src = lo + (arg & (width - 1)); break;
    case SIM_SHFL_UP: src = lane - arg >= lo ? lane - arg : lane; break;
    case SIM_SHFL_DOWN: src = lane + arg < lo + width ? lane + arg : lane; break;
    default: src = (lane ^ arg) < lo + width && (lane ^ arg) >= lo ? lane ^ arg : lane; break;
    }
    if (!(wp->part[gen & 1] >> src & 1))
        return value; /* a lane that is gone or did not take part: undefined on a GPU */
    return wp->slot[gen & 1][src];
}

static unsigned vote(int op, unsigned mask, int predicate)
{
    thread_t *t = S.cur;
    unsigned gen = warp_exchange(mask, predicate != 0);
    warp_t *wp = &S.warps[t->warp];
    unsigned ballot = 0, part = wp->part[gen & 1] & mask;
    for (unsigned lane = 0; lane < 32; lane++)
        if ((part >> lane & 1) && wp->slot[gen & 1][lane])
            ballot |= 1u << lane;
    if (op == SIM_VOTE_ANY)
        return ballot != 0;
    if (op == SIM_VOTE_ALL)
        return ballot == part;
    return ballot;
}

/* ---- device printf, assert, trap --------------------------------------- */

static int device_vprintf(const char *format, va_list ap)
{
    char small[512];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof small, format, copy);
    va_end(copy);
    if (n < 0)
        return n;
    S.printed = 1;
    if ((size_t)n < sizeof small) {
        cm_buf_add(&S.cur->out, small, (size_t)n);
        return n;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        return -1;
    vsnprintf(big, (size_t)n + 1, format, ap);
    cm_buf_add(&S.cur->out, big, (size_t)n);
    free(big);
    return n;
}


/* "cell[2]" -> "cell 7" when the kernel knows its cells. */
static void cell_of(const char *file, char *buf, size_t len)
{
    int k = 0;
    if (sscanf(file, "cell[%d]", &k) == 1 && S.kernel->cells && k >= 1 && k <= S.kernel->ncells)
        snprintf(buf, len, "cell %d", S.kernel->cells[k - 1]);
    else
        snprintf(buf, len, "%s", file);
}

static void stop_launch(void)
{
    S.abort = 1;
    to_scheduler(S.cur);
}

static void assert_fail(const char *expr, const char *file, unsigned line, const char *function)
{
    char at[96], cell[64];
    where_in_grid(at, sizeof at, NULL);
    cell_of(file, cell, sizeof cell);
    cm_buf_addf(&S.cur->out, "%s, line %u: %s: %s: Assertion `%s` failed.\n", cell, line,
                function, at, expr);
    S.printed = 1;
    fail(710, "CUDA_ERROR_ASSERT (710): device-side assert triggered: %s, line %u: %s: "
              "Assertion `%s` failed (%s)", cell, line, function, expr, at);
    stop_launch();
}

static void trap(void)
{
    char at[96];
    where_in_grid(at, sizeof at, NULL);
    fail(719, "CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch failure: __trap() in %s", at);
    stop_launch();
}

/* ---- what the checker asks (sim_check.h) -------------------------------- */

void sim_sched_stop(int cuda_code, const char *text)
{
    fail(cuda_code, "%s", text);
    stop_launch();
}

void sim_sched_who(uint32_t stamp, uint32_t thread, char *buf, size_t len)
{
    unsigned long long seq = stamp - sim_now.first_stamp;
    unsigned long long b = S.block_order ? S.block_order[seq] : seq;
    const sim_uint3_t *t = &S.threads[thread].view.thread_idx;
    snprintf(buf, len, "block [%u,%u,%u], thread [%u,%u,%u]", (unsigned)(b % S.grid[0]),
             (unsigned)(b / S.grid[0] % S.grid[1]),
             (unsigned)(b / ((unsigned long long)S.grid[0] * S.grid[1])), t->x, t->y, t->z);
}

void sim_sched_line(const void *pc, char *buf, size_t len)
{
    source_line_of(pc, buf, len);
}

void sim_set_checks(int memcheck, int racecheck)
{
    sim_memcheck_on = memcheck != 0;
    sim_racecheck_on = racecheck != 0;
}

void sim_checks(int *memcheck, int *racecheck)
{
    *memcheck = sim_memcheck_on;
    *racecheck = sim_racecheck_on;
}

static const sim_hooks_t hooks = {
    .self = &S.self,
    .syncthreads = sync_block,
    .syncthreads_pred = sync_block_pred,
    .syncwarp = sync_warp,
    .shfl = shfl,
    .vote = vote,
    .vprintf = device_vprintf,
    .assert_fail = assert_fail,
    .trap = trap,
    .access = sim_check_access,
};

const struct sim_hooks *sim_hooks(void)
{
    return &hooks;
}

/* ---- running a block ------------------------------------------------------ */

/* A runner: a fiber that starts the block's threads not started yet, one
 * after another on its stack, each run to its end. When a thread waits,
 * its runner waits inside it (the context is the thread's), and the
 * scheduler starts another runner on another stack for the rest; a
 * resumed thread that ends lets its runner go on starting threads. So a
 * kernel that never waits runs a whole block in one runner, a plain call
 * per thread. arg: the index of the runner's stack. */
static void runner_main(void *arg)
{
    while (S.next_new < S.nthreads && !S.abort) {
        thread_t *t = &S.threads[S.order[S.next_new++]];
        t->stack = (int)(intptr_t)arg;
        enter(t);
        S.kernel->entry(S.args);
        t = S.cur; /* the same thread, resumed perhaps after others ran */
        warp_t *wp = &S.warps[t->warp];
        t->state = DONE;
        S.live--;
        wp->live &= ~(1u << t->lane);
        if (S.arrived && S.arrived == S.live)
            release_block();
        check_warp(t->warp);
    }
    S.ended_stack = (int)(intptr_t)arg;
    sim_context_t gone;
    sim_fiber_switch(&gone, &S.sched);
    abort(); /* never resumed */
}

static int take_stack(void)
{
    if (S.nfree)
        return S.free_stacks[--S.nfree];
    if (S.nstacks == MAX_THREADS || sim_stack_new(&S.stacks[S.nstacks], STACK_BYTES))
        return -1;
    return S.nstacks++;
}

/* Appends the block's printf output, thread by thread in index order. */
static void keep_output(unsigned long long block)
{
    if (!S.printed)
        return;
    S.printed = 0;
    cm_buf_t all = {0};
    for (int i = 0; i < S.nthreads; i++) {
        cm_buf_t *o = &S.threads[i].out;
        if (o->len) {
            cm_buf_add(&all, o->s, o->len);
            o->len = 0;
            if (o->s)
                o->s[0] = '\0';
        }
    }
    if (!all.len) {
        cm_buf_free(&all);
        return;
    }
    if (S.nchunks == S.cap_chunks) {
        size_t cap = S.cap_chunks ? S.cap_chunks * 2 : 64;
        chunk_t *grown = realloc(S.chunks, cap * sizeof *grown);
        if (!grown) {
            cm_buf_free(&all);
            return;
        }
        S.chunks = grown;
        S.cap_chunks = cap;
    }
    S.chunks[S.nchunks++] = (chunk_t){block, all.s, all.len};
}

static int by_block(const void *a, const void *b)
{
    const chunk_t *x = a, *y = b;
    return x->block < y->block ? -1 : x->block > y->block;
}

static void flush_output(void)
{
    if (!S.nchunks)
        return;
    if (S.seed >= 0)
        qsort(S.chunks, S.nchunks, sizeof *S.chunks, by_block); /* stable: one chunk per block */
    for (size_t i = 0; i < S.nchunks; i++) {
        fwrite(S.chunks[i].text, 1, S.chunks[i].len, stdout);
        free(S.chunks[i].text);
    }
    fflush(stdout);
    S.nchunks = 0;
}

/* What every block of a launch shares: the threads' indices, lanes and
 * warps, and the index order. A block leaves its threads DONE (or the
 * launch stops), so the next block starts them again as they are. */
static void prepare_threads(const unsigned block[3])
{
    for (int i = 0; i < S.nthreads; i++) {
        thread_t *t = &S.threads[i];
        t->view.thread_idx.x = (unsigned)i % block[0];
        t->view.thread_idx.y = (unsigned)i / block[0] % block[1];
        t->view.thread_idx.z = (unsigned)i / (block[0] * block[1]);
        t->view.block = &S.block;
        t->state = NEW;
        t->lane = (unsigned)i % 32;
        t->warp = (unsigned)i / 32;
        S.order[i] = i;
    }
}

static void run_block(unsigned long long linear)
{
    int n = S.nthreads;
    int nwarps = (n + 31) / 32;
    for (int w = 0; w < nwarps; w++) {
        int lanes = n - w * 32 < 32 ? n - w * 32 : 32;
        memset(&S.warps[w], 0, sizeof S.warps[w]);
        S.warps[w].live = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
    }
    if (S.seed >= 0 && nwarps > 1) {
        unsigned long long wo[MAX_THREADS / 32];
        for (int w = 0; w < nwarps; w++)
            wo[w] = (unsigned long long)w;
        shuffle(wo, (unsigned long long)nwarps);
        int k = 0;
        for (int w = 0; w < nwarps; w++)
            for (int i = (int)wo[w] * 32; i < n && i < (int)wo[w] * 32 + 32; i++)
                S.order[k++] = i;
    }
    if (S.kernel->shared_bytes) /* uninitialised shared memory, the same every run */
        memset(S.kernel->shared, 0xff, S.kernel->shared_bytes);
    if (S.dyn_bytes)
        memset(S.dyn_shared, 0xff, S.dyn_bytes);
    S.head = S.count = 0;
    S.live = n;
    S.arrived = 0;
    S.next_new = 0;
    S.ended_stack = -1;
    S.block_gen = 0;
    sim_now.bgen = 0;
    sim_now.stamp = ++S.stamps;
    S.bar_sum[0] = S.bar_sum[1] = 0;
    if (S.nfree != S.nstacks) { /* nothing outlives a block: every stack is free */
        S.nfree = 0;
        for (int i = S.nstacks - 1; i >= 0; i--)
            S.free_stacks[S.nfree++] = i;
    }
    while (!S.abort) {
        if (S.count) { /* threads a barrier released, in order */
            thread_t *t = &S.threads[S.ready[S.head]];
            S.head = (S.head + 1) % MAX_THREADS;
            S.count--;
            enter(t);
            sim_fiber_switch(&S.sched, &t->ctx);
        } else if (S.next_new < n) { /* a runner for the threads not started */
            int stack = take_stack();
            if (stack < 0) {
                fail(2, "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory: no stack for a simulated "
                        "thread");
                S.abort = 1;
                break;
            }
            sim_fiber_make(&S.start, &S.stacks[stack], runner_main, (void *)(intptr_t)stack);
            sim_fiber_switch(&S.sched, &S.start);
        } else {
            break;
        }
        if (S.ended_stack >= 0) {
            S.free_stacks[S.nfree++] = S.ended_stack;
            S.ended_stack = -1;
        }
    }
    if (!S.abort && S.live) {
        int at_block = 0, at_warp = 0;
        for (int i = 0; i < n; i++) {
            at_block += S.threads[i].state == WAIT_BLOCK;
            at_warp += S.threads[i].state == WAIT_WARP;
        }
        fail(719, "CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch failure: in block "
                  "[%u,%u,%u], %d thread%s wait at __syncthreads() and %d at a warp barrier "
                  "(__syncwarp or a *_sync intrinsic) that the other threads never reach: a "
                  "barrier in code that not all threads run (a GPU hangs or gives undefined "
                  "results)",
             S.block.block_idx.x, S.block.block_idx.y, S.block.block_idx.z, at_block,
             at_block == 1 ? "" : "s", at_warp);
        S.abort = 1;
    }
    /* threads left waiting (abort, deadlock) are dropped: their stacks are
     * free again at the next block */
    keep_output(linear);
}

/* ---- launches ------------------------------------------------------------- */

static int check_config(const char *name, const unsigned g[3], const unsigned b[3],
                        unsigned shared, cm_error_t *err)
{
    static const char *head = "CUDA_ERROR_INVALID_VALUE (1): invalid argument";
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
    const char *why = NULL;
    char buf[200];
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2])
        why = "a grid or block dimension is 0";
    else if (threads > MAX_THREADS)
        why = buf, snprintf(buf, sizeof buf, "%llu threads per block, at most %d", threads,
                            MAX_THREADS);
    else if (b[0] > 1024 || b[1] > 1024 || b[2] > 64)
        why = buf, snprintf(buf, sizeof buf, "block (%u,%u,%u): at most (1024,1024,64)", b[0],
                            b[1], b[2]);
    else if (g[0] > 2147483647u || g[1] > 65535 || g[2] > 65535)
        why = buf, snprintf(buf, sizeof buf, "grid (%u,%u,%u): at most (2147483647,65535,65535)",
                            g[0], g[1], g[2]);
    else if (shared > MAX_SHARED)
        why = buf, snprintf(buf, sizeof buf, "%u bytes of dynamic shared memory, at most %d",
                            shared, MAX_SHARED);
    if (!why)
        return 0;
    CM_ERROR(err, SIM_E_CUDA + 1, "%s: %s (kernel %s)", head, why, name);
    return -1;
}

/* Forgets what an interrupted launch left: output not yet written, stacks
 * of threads that were waiting when the cell was stopped. */
static void reset_leftovers(void)
{
    for (size_t i = 0; i < S.nchunks; i++)
        free(S.chunks[i].text);
    S.nchunks = 0;
    for (int i = 0; i < MAX_THREADS; i++)
        S.threads[i].out.len = 0;
    S.printed = 0;
}

int sim_launch(const sim_kernel_t *kernel, const unsigned grid[3], const unsigned block[3],
               unsigned shared_bytes, void **args, cm_error_t *err)
{
    if (check_config(kernel->name, grid, block, shared_bytes, err))
        return -1;
    int checking = sim_memcheck_on || sim_racecheck_on;
    sim_kernel_t checked;
    uintptr_t base = 0;
    if (checking && sim_module_checked(kernel, &checked, &base, err))
        return -1; /* before the clock starts: g++'s time is no kernel time */
    double t0 = cm_seconds();
    S.page = (size_t)sysconf(_SC_PAGESIZE);
    if (!S.dyn_shared && !(S.dyn_shared = calloc(1, MAX_SHARED))) {
        CM_ERROR(err, SIM_E_CUDA + 2, "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
        return -1;
    }
    reset_leftovers();
    S.running = 1;
    S.kernel_copy = checking ? checked : *kernel; /* kept: a jump out of the launch leaves the caller's copy */
    S.kernel = &S.kernel_copy;
    S.args = args;
    S.abort = 0;
    S.nthreads = (int)(block[0] * block[1] * block[2]);
    S.block.block_dim = (sim_uint3_t){block[0], block[1], block[2]};
    S.block.grid_dim = (sim_uint3_t){grid[0], grid[1], grid[2]};
    S.block.dyn_shared = S.dyn_shared;
    S.dyn_bytes = shared_bytes;
    prepare_threads(block);
    unsigned long long nblocks = (unsigned long long)grid[0] * grid[1] * grid[2];
    unsigned long long *order = NULL;
    if (S.seed >= 0 && nblocks > 1 && (order = malloc(nblocks * sizeof *order))) {
        for (unsigned long long i = 0; i < nblocks; i++)
            order[i] = i;
        shuffle(order, nblocks);
    }
    S.block_order = order;
    memcpy(S.grid, grid, sizeof S.grid);
    sim_now.first_stamp = S.stamps + 1;
    if (checking) {
        sim_now.image_base = base;
        sim_check_launch(S.dyn_shared, shared_bytes);
        sim_now.active = 1;
    }
    for (unsigned long long i = 0; i < nblocks && !S.abort; i++) {
        unsigned long long b = order ? order[i] : i;
        S.block.block_idx.x = (unsigned)(b % grid[0]);
        S.block.block_idx.y = (unsigned)(b / grid[0] % grid[1]);
        S.block.block_idx.z = (unsigned)(b / ((unsigned long long)grid[0] * grid[1]));
        run_block(b);
    }
    sim_now.active = 0;
    char races[CM_ERROR_TEXT];
    if (checking && !S.abort && sim_check_races(races, sizeof races) && !S.have_pending) {
        CM_ERROR(&S.pending, SIM_E_RACE, "%s", races);
        S.have_pending = 1;
    }
    S.block_order = NULL;
    free(order);
    flush_output();
    S.running = 0;
    S.cur = NULL;
    S.self = NULL;
    S.seconds += cm_seconds() - t0;
    return 0;
}
