/* sim_sched: running a grid - its blocks handed out in order to workers
 * (the pool's threads, sim_pool.c, or the executor's thread alone), each
 * running one block at a time with the block's threads as fibers (see
 * sim.h).
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
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "cm_buf.h"
#include "cm_time.h"
#include "sim_abi.h"
#include "sim_arena.h"
#include "sim_check.h"
#include "sim_fiber.h"
#include "sim_pool.h"
#include "sim_settings.h"

#define STACK_BYTES (256 * 1024)
#define MAX_THREADS SIM_MAX_THREADS
#define MAX_SHARED SIM_MAX_SHARED

enum { NEW, READY, RUNNING, WAIT_BLOCK, WAIT_WARP, DONE };

typedef struct thread {
    sim_thread_view_t view;    /* what the kernel reads (sim_self) */
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
    unsigned long long seq;    /* the block's place in the launch's order */
    char *text;
    size_t len;
} chunk_t;

/* The first failure of a launch on one worker: an error the kernel
 * reported (assert, trap, a deadlock, memcheck), or a fault (a signal on a
 * worker): a simulated thread's access to memory it may not touch becomes
 * the launch's CUDA error, any other fault is raised again on the
 * executor's thread at the launch's end. */
typedef struct failure {
    int have;
    unsigned long long seq;    /* the place of its block in the launch's order */
    cm_error_t err;            /* an error; else: */
    int signo;                 /* a fault, as it came */
    siginfo_t info;
    const void *ip;
    uintptr_t sp;              /* the stack pointer at the fault */
    int write;                 /* the access was a write (x86-64's page-fault code) */
    int in_thread;             /* a simulated thread was running (its code faulted) */
    char where[160];           /* "name, block [1,0,0], thread [3,0,0]" */
    char who[96];              /* "block [1,0,0], thread [3,0,0]" */
} failure_t;

/* What runs blocks: the executor's thread (worker 0) or a pool thread. One
 * block at a time, its threads as fibers. */
typedef struct worker {
    thread_t threads[MAX_THREADS];
    warp_t warps[MAX_THREADS / 32];
    int order[MAX_THREADS];    /* the order threads start and leave barriers in */
    int ready[MAX_THREADS];    /* ring of thread indices */
    int head, count;
    int live, arrived;
    int next_new;              /* order[next_new] is the next thread to start */
    unsigned block_gen;        /* block barriers completed */
    int bar_sum[2], bar_n[2];  /* __syncthreads_count's sum and arrivals, by gen & 1 */
    int ended_stack;           /* a runner that ended: its stack, else -1 */
    sim_context_t start;       /* a new runner's first context */
    sim_stack_t stacks[MAX_THREADS];
    int nstacks, free_stacks[MAX_THREADS], nfree;
    sim_context_t sched;
    thread_t *cur;
    sim_block_view_t block;
    int abort;                 /* the running block stops: assert, trap */
    int printed;               /* a thread of the block wrote output */
    unsigned long long seq;    /* the running block's place in the launch's order */
    char *shared;              /* this thread's copy of the kernel's __shared__ */
    char *dyn_shared;          /* MAX_SHARED bytes */
    failure_t failure;
    const void *stopped_at;    /* a stop left the running thread (W->cur) at this address */
    chunk_t *chunks;           /* the launch's output so far, by block */
    size_t nchunks, cap_chunks;
} worker_t;

static struct {
    int running;               /* inside sim_launch: a jump out of it leaves 1 */
    const sim_kernel_t *kernel;
    sim_kernel_t kernel_copy;
    void **args;
    int nthreads;
    unsigned grid[3];
    unsigned dyn_bytes;        /* of this launch */
    unsigned long long nblocks;
    unsigned long long *block_order; /* the launch's blocks in the order run; NULL: index order */
    unsigned long long warp_key; /* seeds each block's warp order (with a seed) */
    atomic_ullong next;        /* the place of the next block to hand out */
    atomic_ullong stop_at;     /* blocks placed after it do not run: a failure's place */
    atomic_int cut;            /* every block stops: the launch was cut off */
    int checking;              /* a checked launch (one worker) */
    int nworkers;              /* of this launch; worker i > 0 is pool thread i - 1 */
    worker_t *workers[SIM_POOL_MAX + 1];
    failure_t fault;           /* a pool worker's fault, being raised again */
    int fault_raised;
    cm_error_t pending;        /* the failure sim_take_error returns */
    int have_pending;
    int seeded;                /* this launch runs under a seed */
    double seconds;
    uint32_t stamps;           /* checked blocks run since the process started */
    size_t page;               /* the size of a stack's guard page */
} S;

static __thread worker_t *W;   /* the calling thread's worker */
static __thread sim_thread_view_t *running_view; /* what sim_self reads */

double sim_kernel_seconds(void)
{
    return S.seconds;
}

/* ---- failures ---------------------------------------------------------- */

/* "block [1,0,0], thread [3,0,0]" of the running thread, after "name, "
 * when a name is given. */
static void where_in_grid(char *buf, size_t len, const char *name)
{
    const sim_uint3_t *b = &W->block.block_idx, *t = &W->cur->view.thread_idx;
    snprintf(buf, len, "%s%sblock [%u,%u,%u], thread [%u,%u,%u]", name ? name : "",
             name ? ", " : "", b->x, b->y, b->z, t->x, t->y, t->z);
}

/* Blocks placed after seq stop (seq failed; blocks before it go on, so
 * that the first failure in the launch's order is the one reported, with
 * any number of workers). */
static void stop_after(unsigned long long seq)
{
    unsigned long long at = atomic_load(&S.stop_at);
    while (seq < at && !atomic_compare_exchange_weak(&S.stop_at, &at, seq))
        ;
}

/* The running block stops here: its own failure, a failure in an earlier
 * block, or a cut-off. */
static int stopping(void)
{
    return W->abort || atomic_load_explicit(&S.cut, memory_order_relaxed) ||
           W->seq > atomic_load_explicit(&S.stop_at, memory_order_relaxed);
}

static void fail(int cuda_code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(int cuda_code, const char *fmt, ...)
{
    failure_t *f = &W->failure;
    if (f->have)
        return;
    sim_pool_hold();
    char text[CM_ERROR_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cm_error_clear(&f->err);
    CM_ERROR(&f->err, SIM_E_CUDA + cuda_code, "%s", text);
    f->signo = 0;
    f->seq = W->seq;
    f->have = 1;
    stop_after(W->seq);
    sim_pool_release();
}

/* A fault on a pool worker, or a stop (sig 0), in its signal handler. A
 * fault is kept, to be raised again on the executor's thread if it is the
 * launch's first failure; a stop notes where the running thread was. */
static void signal_on_worker(int sig, const siginfo_t *si, const void *ucontext)
{
    const void *ip = NULL;
    uintptr_t sp = 0;
    int write = 0;
#if defined(__x86_64__) && defined(REG_RIP)
    const greg_t *regs = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;
    ip = (const void *)regs[REG_RIP];
    sp = (uintptr_t)regs[REG_RSP];
    write = (regs[REG_ERR] & 2) != 0; /* the page fault's error code: bit 1, a write */
#else
    (void)ucontext;
#endif
    if (!sig) {
        W->stopped_at = ip;
        return;
    }
    failure_t *f = &W->failure;
    if (f->have)
        return;
    f->signo = sig;
    f->info = *si;
    f->ip = ip;
    f->sp = sp;
    f->write = write;
    f->in_thread = W->cur != NULL;
    f->who[0] = '\0';
    if (W->cur) {
        where_in_grid(f->where, sizeof f->where, S.kernel->name);
        where_in_grid(f->who, sizeof f->who, NULL);
    } else {
        snprintf(f->where, sizeof f->where, "%s", S.kernel->name);
    }
    f->seq = W->seq;
    f->have = 1;
    stop_after(W->seq);
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

/* Stops the workers of a launch that was left (a jump out of it). */
static void stop_workers(void)
{
    atomic_store(&S.cut, 1);
    sim_pool_stop();
}

int sim_cut_off(const void *ip, char *where, size_t where_len, char *line, size_t line_len)
{
    line[0] = '\0';
    if (!S.running)
        return 0;
    S.running = 0;
    sim_now.active = 0;
    sim_pool_disarm(); /* the jump left the executor's own share of the blocks */
    stop_workers();
    W = S.workers[0];
    for (int w = 1; w < S.nworkers; w++) { /* stopped in a block: the first in order */
        worker_t *k = S.workers[w];
        if (k->cur && k->stopped_at && (W == S.workers[0] || k->seq < W->seq))
            W = k;
    }
    if (W != S.workers[0])
        ip = W->stopped_at;
    if (S.fault_raised) {
        S.fault_raised = 0;
        ip = S.fault.ip;
        snprintf(where, where_len, "%s", S.fault.where);
    } else if (W && W->cur) {
        where_in_grid(where, where_len, S.kernel->name);
    } else {
        snprintf(where, where_len, "%s", S.kernel->name);
    }
    source_line_of(ip, line, line_len);
    if (!line[0] && S.checking && W->cur) /* stopped in the checker: its last access's line */
        source_line_of(sim_now.last_pc, line, line_len);
    W = S.workers[0];
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
    W->threads[i].state = READY;
    W->ready[(W->head + W->count) % MAX_THREADS] = i;
    W->count++;
}

static void release_block(void)
{
    for (int k = 0; k < S.nthreads; k++)
        if (W->threads[W->order[k]].state == WAIT_BLOCK)
            push_ready(W->order[k]);
    W->bar_n[W->block_gen & 1] = W->arrived;
    W->block_gen++;
    if (S.checking) {
        sim_now.bgen = W->block_gen;
        if (sim_racecheck_on)
            sim_race_barrier();
    }
    W->bar_sum[W->block_gen & 1] = 0; /* the other gen's sum is read until the next barrier */
    W->arrived = 0;
}

/* Releases warp w's waiting lanes when every live lane it waits for is there. */
static void check_warp(unsigned w)
{
    warp_t *wp = &W->warps[w];
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
    W->cur = t;
    running_view = &t->view;
    if (!S.checking)
        return;
    sim_now.thread = (uint32_t)(t - W->threads);
    sim_now.wgen = &W->warps[t->warp].gen;
    sim_now.stack_lo = (uintptr_t)W->stacks[t->stack].base;
    sim_now.stack_hi = sim_now.stack_lo + W->stacks[t->stack].size + S.page; /* guard page below */
}

static void to_scheduler(thread_t *t)
{
    sim_fiber_switch(&t->ctx, &W->sched);
}

static void sync_block(void)
{
    thread_t *t = W->cur;
    t->state = WAIT_BLOCK;
    if (++W->arrived == W->live)
        release_block();
    to_scheduler(t);
}

static int sync_block_pred(int op, int predicate)
{
    unsigned gen = W->block_gen;
    W->bar_sum[gen & 1] += predicate != 0;
    sync_block();
    int sum = W->bar_sum[gen & 1], n = W->bar_n[gen & 1];
    return op == SIM_SYNC_COUNT ? sum : op == SIM_SYNC_AND ? sum == n : sum > 0;
}

/* Waits at the warp barrier with value; returns the exchange's gen. */
static unsigned warp_exchange(unsigned mask, unsigned long long value)
{
    thread_t *t = W->cur;
    warp_t *wp = &W->warps[t->warp];
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
    thread_t *t = W->cur;
    unsigned gen = warp_exchange(mask, value);
    warp_t *wp = &W->warps[t->warp];
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
    thread_t *t = W->cur;
    unsigned gen = warp_exchange(mask, predicate != 0);
    warp_t *wp = &W->warps[t->warp];
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
    W->printed = 1;
    sim_pool_hold(); /* malloc: a stop waits */
    if ((size_t)n < sizeof small) {
        cm_buf_add(&W->cur->out, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big)
            vsnprintf(big, (size_t)n + 1, format, ap);
        cm_buf_add(&W->cur->out, big ? big : "", big ? (size_t)n : 0);
        free(big);
        n = big ? n : -1;
    }
    sim_pool_release();
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
    W->abort = 1;
    to_scheduler(W->cur);
}

static void assert_fail(const char *expr, const char *file, unsigned line, const char *function)
{
    char at[96], cell[64];
    where_in_grid(at, sizeof at, NULL);
    cell_of(file, cell, sizeof cell);
    sim_pool_hold();
    cm_buf_addf(&W->cur->out, "%s, line %u: %s: %s: Assertion `%s` failed.\n", cell, line,
                function, at, expr);
    sim_pool_release();
    W->printed = 1;
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

/* ---- what the checks ask (sim_thread.h) -------------------------------- */

static void checked_stop(int cuda_code, const char *text)
{
    fail(cuda_code, "%s", text);
    stop_launch();
}

static void checked_who(uint32_t stamp, uint32_t thread, char *buf, size_t len)
{
    unsigned long long seq = stamp - sim_now.first_stamp;
    unsigned long long b = S.block_order ? S.block_order[seq] : seq;
    const sim_uint3_t *t = &S.workers[0]->threads[thread].view.thread_idx; /* checked: one worker */
    snprintf(buf, len, "block [%u,%u,%u], thread [%u,%u,%u]", (unsigned)(b % S.grid[0]),
             (unsigned)(b / S.grid[0] % S.grid[1]),
             (unsigned)(b / ((unsigned long long)S.grid[0] * S.grid[1])), t->x, t->y, t->z);
}

static const sim_thread_answers_t answers = {checked_stop, checked_who, source_line_of};

static sim_hooks_t hooks = {
    .syncthreads = sync_block,
    .syncthreads_pred = sync_block_pred,
    .syncwarp = sync_warp,
    .shfl = shfl,
    .vote = vote,
    .vprintf = device_vprintf,
    .assert_fail = assert_fail,
    .trap = trap,
    .access = sim_check_access,
    .profiling = &sim_profile_on,
    .block = sim_profile_block,
};

const struct sim_hooks *sim_hooks(void)
{
    /* running_view is in the program's static TLS: at the same distance
     * from the thread pointer in every thread */
    hooks.self_offset = (long)((char *)&running_view - (char *)__builtin_thread_pointer());
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
    while (W->next_new < S.nthreads && !stopping()) {
        thread_t *t = &W->threads[W->order[W->next_new++]];
        t->stack = (int)(intptr_t)arg;
        enter(t);
        S.kernel->entry(S.args);
        t = W->cur; /* the same thread, resumed perhaps after others ran */
        warp_t *wp = &W->warps[t->warp];
        t->state = DONE;
        W->live--;
        wp->live &= ~(1u << t->lane);
        if (W->arrived && W->arrived == W->live)
            release_block();
        check_warp(t->warp);
    }
    W->ended_stack = (int)(intptr_t)arg;
    sim_context_t gone;
    sim_fiber_switch(&gone, &W->sched);
    abort(); /* never resumed */
}

static int take_stack(void)
{
    if (W->nfree)
        return W->free_stacks[--W->nfree];
    if (W->nstacks == MAX_THREADS || sim_stack_new(&W->stacks[W->nstacks], STACK_BYTES))
        return -1;
    return W->nstacks++;
}

/* Keeps the block's printf output, thread by thread in index order. */
static void keep_output(unsigned long long block)
{
    if (!W->printed)
        return;
    W->printed = 0;
    sim_pool_hold();
    cm_buf_t all = {0};
    for (int i = 0; i < S.nthreads; i++) {
        cm_buf_t *o = &W->threads[i].out;
        if (o->len) {
            cm_buf_add(&all, o->s, o->len);
            o->len = 0;
            if (o->s)
                o->s[0] = '\0';
        }
    }
    if (all.len && W->nchunks == W->cap_chunks) {
        size_t cap = W->cap_chunks ? W->cap_chunks * 2 : 64;
        chunk_t *grown = realloc(W->chunks, cap * sizeof *grown);
        if (grown) {
            W->chunks = grown;
            W->cap_chunks = cap;
        }
    }
    if (all.len && W->nchunks < W->cap_chunks)
        W->chunks[W->nchunks++] = (chunk_t){block, W->seq, all.s, all.len};
    else
        cm_buf_free(&all);
    sim_pool_release();
}

static int by_block(const void *a, const void *b)
{
    const chunk_t *x = a, *y = b;
    return x->block < y->block ? -1 : x->block > y->block;
}

/* Writes the launch's output, block by block in index order whatever
 * ran them (blocks placed after upto, which a failure stopped on one
 * worker, are left out on all). */
static void flush_output(unsigned long long upto)
{
    size_t n = 0;
    for (int w = 0; w <= SIM_POOL_MAX && S.workers[w]; w++)
        n += S.workers[w]->nchunks;
    if (!n)
        return;
    chunk_t *all = malloc(n * sizeof *all);
    n = 0;
    for (int w = 0; w <= SIM_POOL_MAX && S.workers[w]; w++) {
        worker_t *k = S.workers[w];
        for (size_t i = 0; i < k->nchunks; i++) {
            if (all && k->chunks[i].seq <= upto)
                all[n++] = k->chunks[i];
            else
                free(k->chunks[i].text);
        }
        k->nchunks = 0;
    }
    if (!all)
        return;
    qsort(all, n, sizeof *all, by_block); /* one chunk per block */
    for (size_t i = 0; i < n; i++) {
        fwrite(all[i].text, 1, all[i].len, stdout);
        free(all[i].text);
    }
    fflush(stdout);
    free(all);
}

/* What every block of a launch on this worker shares: the threads'
 * indices, lanes and warps, and the index order. A block leaves its
 * threads DONE (or the launch stops), so the next block starts them again
 * as they are. */
static void prepare_threads(void)
{
    for (int i = 0; i < S.nthreads; i++) {
        thread_t *t = &W->threads[i];
        const sim_uint3_t *b = &W->block.block_dim;
        t->view.thread_idx.x = (unsigned)i % b->x;
        t->view.thread_idx.y = (unsigned)i / b->x % b->y;
        t->view.thread_idx.z = (unsigned)i / (b->x * b->y);
        t->view.block = &W->block;
        t->state = NEW;
        t->lane = (unsigned)i % 32;
        t->warp = (unsigned)i / 32;
        W->order[i] = i;
    }
}

static void run_block(unsigned long long linear)
{
    int n = S.nthreads;
    int nwarps = (n + 31) / 32;
    for (int w = 0; w < nwarps; w++) {
        int lanes = n - w * 32 < 32 ? n - w * 32 : 32;
        memset(&W->warps[w], 0, sizeof W->warps[w]);
        W->warps[w].live = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
    }
    if (S.seeded && nwarps > 1) {
        unsigned long long wo[MAX_THREADS / 32];
        sim_warp_order(S.warp_key, linear, wo, nwarps);
        int k = 0;
        for (int w = 0; w < nwarps; w++)
            for (int i = (int)wo[w] * 32; i < n && i < (int)wo[w] * 32 + 32; i++)
                W->order[k++] = i;
    }
    if (S.kernel->shared_bytes) /* uninitialised shared memory, the same every run */
        memset(W->shared, 0xff, S.kernel->shared_bytes);
    if (S.dyn_bytes)
        memset(W->dyn_shared, 0xff, S.dyn_bytes);
    W->head = W->count = 0;
    W->live = n;
    W->arrived = 0;
    W->next_new = 0;
    W->ended_stack = -1;
    W->block_gen = 0;
    W->bar_sum[0] = W->bar_sum[1] = 0;
    if (S.checking) {
        sim_now.bgen = 0;
        sim_now.stamp = ++S.stamps;
    }
    if (W->nfree != W->nstacks) { /* nothing outlives a block: every stack is free */
        W->nfree = 0;
        for (int i = W->nstacks - 1; i >= 0; i--)
            W->free_stacks[W->nfree++] = i;
    }
    while (!stopping()) {
        if (W->count) { /* threads a barrier released, in order */
            thread_t *t = &W->threads[W->ready[W->head]];
            W->head = (W->head + 1) % MAX_THREADS;
            W->count--;
            enter(t);
            sim_fiber_switch(&W->sched, &t->ctx);
        } else if (W->next_new < n) { /* a runner for the threads not started */
            int stack = take_stack();
            if (stack < 0) {
                fail(2, "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory: no stack for a simulated "
                        "thread");
                W->abort = 1;
                break;
            }
            sim_fiber_make(&W->start, &W->stacks[stack], runner_main, (void *)(intptr_t)stack);
            sim_fiber_switch(&W->sched, &W->start);
        } else {
            break;
        }
        if (W->ended_stack >= 0) {
            W->free_stacks[W->nfree++] = W->ended_stack;
            W->ended_stack = -1;
        }
    }
    if (!stopping() && W->live) {
        int at_block = 0, at_warp = 0;
        for (int i = 0; i < n; i++) {
            at_block += W->threads[i].state == WAIT_BLOCK;
            at_warp += W->threads[i].state == WAIT_WARP;
        }
        fail(719, "CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch failure: in block "
                  "[%u,%u,%u], %d thread%s wait at __syncthreads() and %d at a warp barrier "
                  "(__syncwarp or a *_sync intrinsic) that the other threads never reach: a "
                  "barrier in code that not all threads run (a GPU hangs or gives undefined "
                  "results)",
             W->block.block_idx.x, W->block.block_idx.y, W->block.block_idx.z, at_block,
             at_block == 1 ? "" : "s", at_warp);
        W->abort = 1;
    }
    /* threads left waiting (abort, deadlock) are dropped: their stacks are
     * free again at the next block */
    W->cur = NULL;
    keep_output(linear);
}

/* ---- launches ------------------------------------------------------------- */

/* Forgets what an interrupted launch left: output not yet written, the
 * block order. Stacks of threads that were waiting when the launch was
 * stopped are free again at the next block. */
static void reset_leftovers(void)
{
    for (int w = 0; w <= SIM_POOL_MAX && S.workers[w]; w++) {
        worker_t *k = S.workers[w];
        for (size_t i = 0; i < k->nchunks; i++)
            free(k->chunks[i].text);
        k->nchunks = 0;
        for (int i = 0; i < MAX_THREADS; i++)
            k->threads[i].out.len = 0;
        k->printed = 0;
        k->cur = NULL;
    }
    free(S.block_order);
    S.block_order = NULL;
    S.fault_raised = 0;
}

/* Workers 0 .. n - 1 (allocated at their first use): how many there are. */
static int have_workers(int n)
{
    int have = 0;
    while (have < n && (S.workers[have] ||
                        (S.workers[have] = calloc(1, sizeof *S.workers[have])))) {
        worker_t *k = S.workers[have];
        /* in the arena: an unchecked overrun of it faults, as one of device memory */
        if (!k->dyn_shared && !(k->dyn_shared = sim_arena_alloc(MAX_SHARED))) {
            free(k);
            S.workers[have] = NULL;
            break;
        }
        have++;
    }
    return have;
}

/* The calling thread's share of the launch: blocks, in the launch's
 * order, until none is left or the launch stops. */
static void run_share(worker_t *me)
{
    W = me;
    W->failure.have = 0;
    W->stopped_at = NULL;
    W->abort = 0;
    W->cur = NULL;
    W->seq = 0;
    W->block.dyn_shared = W->dyn_shared;
    char *mine = S.kernel->shared ? sim_module_tls(S.kernel->shared) : NULL;
    W->shared = mine ? mine : S.kernel->shared; /* not thread-local: the tests' kernels in C */
    prepare_threads();
    for (;;) {
        unsigned long long seq = atomic_fetch_add(&S.next, 1);
        if (seq >= S.nblocks || seq > atomic_load(&S.stop_at) || atomic_load(&S.cut))
            break;
        unsigned long long b = S.block_order ? S.block_order[seq] : seq;
        W->seq = seq;
        W->block.block_idx.x = (unsigned)(b % S.grid[0]);
        W->block.block_idx.y = (unsigned)(b / S.grid[0] % S.grid[1]);
        W->block.block_idx.z = (unsigned)(b / ((unsigned long long)S.grid[0] * S.grid[1]));
        run_block(b);
        if (W->abort)
            break;
    }
    W->cur = NULL;
}

static void pool_share(int i)
{
    run_share(S.workers[i + 1]);
}

static void own_share(int i)
{
    run_share(S.workers[i]);
}

/* The launch's first failure in its order, over the workers it used. */
static failure_t *first_failure(void)
{
    failure_t *first = NULL;
    for (int w = 0; w < S.nworkers; w++) {
        failure_t *f = &S.workers[w]->failure;
        if (f->have && (!first || f->seq < first->seq))
            first = f;
    }
    return first;
}

/* A simulated thread's access to memory it may not touch: a SIGSEGV or
 * SIGBUS in a thread's code. Such faults end the launch with CUDA's error;
 * others (SIGFPE, SIGABRT ..., a fault in the scheduler) are raised again. */
static int memory_fault(const failure_t *f)
{
    return f->in_thread && (f->signo == SIGSEGV || f->signo == SIGBUS);
}

#define STACK_NEAR (64 * 1024) /* a fault this close to the stack pointer: an overflow */

/* The launch's error for memory fault f, as a GPU reports it, with the
 * kernel's line, the thread and what the address lies in (the memory map:
 * an allocation's inaccessible surroundings, a freed one, host memory). */
static void fault_error(const failure_t *f, cm_error_t *err)
{
    uintptr_t addr = (uintptr_t)f->info.si_addr;
    char line[64], place[400];
    source_line_of(f->ip, line, sizeof line);
    if (!line[0] && S.checking) /* in code the checker does not see (memcpy): its last access */
        source_line_of(sim_now.last_pc, line, sizeof line);
    const char *at = line[0] ? line : "an unknown line";
    if (f->sp && addr + STACK_NEAR >= f->sp && addr <= f->sp + STACK_NEAR) {
        CM_ERROR(err, SIM_E_CUDA + 719, "CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch "
                 "failure: the stack of %s overflowed at %s (a simulated thread has %d KiB of "
                 "stack: deep recursion, or large local arrays?)",
                 f->who, at, STACK_BYTES / 1024);
        return;
    }
    const char *kind = "invalid", *access = "access";
    if (f->info.si_code == SI_KERNEL) /* a general protection fault: no address, no kind */
        snprintf(place, sizeof place, "an address outside the address space (a wild index or "
                 "pointer)");
    else
        kind = sim_check_place(addr, place, sizeof place), access = f->write ? "write" : "read";
    CM_ERROR(err, SIM_E_CUDA + 700, "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access "
             "was encountered: %s %s at %s by %s: %s (memcheck was off%s; %%sim --memcheck "
             "stops at the first bad access)", kind, access, at, f->who, place,
             sim_arena_holds(addr) ? ": this was the first access to reach the memory the "
             "simulated device keeps inaccessible, around its allocations and where freed ones "
             "were" : "");
}

/* A fault on a pool worker, raised again on this thread with what it
 * came with, for the boundary that would have caught it here
 * (rt_protect); sim_cut_off then names the worker's thread and line. */
static void raise_again(const failure_t *f)
{
    S.fault = *f;
    S.fault_raised = 1;
    sim_pool_raise(f->signo, &f->info);
    S.fault_raised = 0; /* nobody took it (no boundary): a launch failure then */
}

/* A kernel that cannot be checked (its checked build failed, or the
 * simulator has not its source) runs unchecked: said once per reason on
 * stderr. The inaccessible memory around allocations still guards it. */
static void unchecked_note(const char *name, const cm_error_t *why)
{
    static char said[CM_ERROR_TEXT];
    if (strcmp(said, why->text) == 0)
        return;
    snprintf(said, sizeof said, "%s", why->text);
    fprintf(stderr, "note: %s runs without memcheck: %s\n", name, why->text);
    fflush(stderr);
}

/* Workers for a launch of nblocks blocks: the setting; one for a checked
 * launch (the checkers' records are not shared between threads) and under
 * a seed (the shuffled order is then the order blocks run in, also as
 * seen through atomics and global memory); no more than there are blocks.
 * 1: the calling thread runs every block. */
static int workers_for(unsigned long long nblocks)
{
    long long n = sim_threads();
    if (S.checking || S.seeded || n < 1)
        n = 1;
    if ((unsigned long long)n > nblocks)
        n = (long long)nblocks;
    return (int)n;
}

int sim_launch(const sim_kernel_t *kernel, const unsigned grid[3], const unsigned block[3],
               unsigned shared_bytes, void **args, cm_error_t *err)
{
    if (sim_check_config(kernel->name, grid, block, shared_bytes, err))
        return -1;
    /* %%profile counts through the checked variant's instrumentation */
    int checking = (sim_memcheck_on || sim_racecheck_on || sim_profile_on) && !kernel->unchecked;
    sim_kernel_t checked;
    uintptr_t base = 0;
    /* before the clock starts: g++'s time is no kernel time */
    if (checking && sim_module_checked(kernel, sim_hooks(), sim_profile_on, &checked, &base, err)) {
        if (sim_racecheck_on)
            return -1;
        unchecked_note(kernel->name, err);
        checking = 0;
    }
    if (S.running) { /* the last launch was left by a jump nobody reported */
        sim_pool_disarm();
        stop_workers();
    }
    double t0 = cm_seconds();
    S.page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned long long nblocks = (unsigned long long)grid[0] * grid[1] * grid[2];
    S.checking = checking;
    int n = workers_for(nblocks);
    int have = have_workers(n > 1 ? n + 1 : 1);
    if (!have) {
        CM_ERROR(err, SIM_E_CUDA + 2, "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
        return -1;
    }
    n = n > 1 && have > 2 ? have - 1 : 1;
    reset_leftovers();
    S.running = 1;
    S.kernel_copy = checking ? checked : *kernel; /* kept: a jump out of the launch leaves the caller's copy */
    S.kernel = &S.kernel_copy;
    S.args = args;
    S.nthreads = (int)(block[0] * block[1] * block[2]);
    for (int w = 0; w < have; w++) {
        S.workers[w]->block.block_dim = (sim_uint3_t){block[0], block[1], block[2]};
        S.workers[w]->block.grid_dim = (sim_uint3_t){grid[0], grid[1], grid[2]};
    }
    S.dyn_bytes = shared_bytes;
    S.nblocks = nblocks;
    S.seeded = sim_seed() >= 0;
    if (S.seeded && nblocks > 1)
        S.block_order = malloc(nblocks * sizeof *S.block_order);
    if (S.seeded)
        sim_seeded_launch(S.block_order, nblocks, &S.warp_key);
    memcpy(S.grid, grid, sizeof S.grid);
    atomic_store(&S.next, 0);
    atomic_store(&S.stop_at, ~0ULL);
    atomic_store(&S.cut, 0);
    if (checking) {
        sim_now.first_stamp = S.stamps + 1;
        sim_now.last_pc = NULL;
        sim_now.image_base = base;
        sim_thread_answer(&answers);
        sim_check_launch(S.workers[0]->dyn_shared, shared_bytes);
        sim_now.active = 1;
    }
    S.workers[0]->failure.have = 0;
    S.nworkers = n > 1 ? n + 1 : 1; /* for sim_cut_off, should the wait be left */
    if (sim_profile_on)
        sim_profile_launch_begin(kernel, grid, block, shared_bytes, checking);
    int used = n > 1 ? sim_pool_run(n, pool_share, signal_on_worker, NULL) : 0;
    S.nworkers = used > 0 ? used + 1 : 1;
    if (used <= 0)
        sim_pool_call(own_share, 0, signal_on_worker);
    sim_now.active = 0;
    W = S.workers[0];
    failure_t *first = first_failure();
    if (first && first->signo && !memory_fault(first))
        raise_again(first); /* jumps out where a boundary takes it */
    if (first && !S.have_pending) {
        if (memory_fault(first))
            fault_error(first, &S.pending);
        else if (first->signo)
            CM_ERROR(&S.pending, SIM_E_CUDA + 719, "CUDA_ERROR_LAUNCH_FAILED (719): unspecified "
                     "launch failure: signal %d in %s", first->signo, first->where);
        else
            CM_ERROR(&S.pending, first->err.code, "%s", first->err.text);
        S.have_pending = 1;
    }
    char races[CM_ERROR_TEXT];
    if (checking && !first && sim_check_races(races, sizeof races) && !S.have_pending) {
        CM_ERROR(&S.pending, SIM_E_RACE, "%s", races);
        S.have_pending = 1;
    }
    if (sim_profile_on)
        sim_profile_launch_end(t0, cm_seconds() - t0);
    flush_output(first ? first->seq : ~0ULL);
    free(S.block_order);
    S.block_order = NULL;
    S.running = 0;
    S.seconds += cm_seconds() - t0;
    return 0;
}
