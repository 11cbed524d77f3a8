/* sim_race: racecheck's records and verdicts (see sim_check.h).
 *
 * Per 4 bytes of a region: the last write and one read, each with who made
 * it (the block's stamp, the thread), the block and warp barriers its block
 * and warp had passed then, and the code address. Two accesses race when
 * they come from different threads, touch a common byte, one writes, not
 * both are atomic, and no barrier orders them: threads of one block are
 * ordered by a __syncthreads() between the accesses, threads of one warp
 * also by a warp barrier (__syncwarp, a *_sync intrinsic); threads of
 * different blocks of a launch never are. Launches are ordered: a record of
 * an earlier launch is stale (stamp < first_stamp); shared memory is the
 * block's own, so a shared record of another block is stale too.
 *
 * Fences order accesses of different blocks, as a release and an acquire:
 * an access is ordered before a later one of another thread when its
 * thread ran a __threadfence() after it and the later thread ran an
 * atomic operation or a fence after that fence (itself, or another thread
 * of its block before a __syncthreads() they both passed). The time is a
 * clock of the launch that ticks at each fence and atomic (checked
 * launches run one block at a time), each thread's last fence is kept in a
 * table of the launch, each thread of the running block's last acquire in
 * an array. So the "last block" reduction (partial results, fence, atomic
 * ticket; the last block reads them all) and flags set after a fence and
 * read with an atomic are no races; a flag read without an atomic or a
 * fence is one.
 *
 * One read is kept, not all: a read replaces the record unless that one is
 * a read of another thread the new one does not follow, so a write after
 * reads of several threads is compared with the earliest unordered one. A
 * race can be missed (reads of threads in between), and one thread's
 * fences are kept as its last only, so an access ordered by an earlier
 * fence of a thread that fenced again later, read after the earlier and
 * before the later, is taken for a race. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_abi.h"
#include "sim_check.h"

typedef struct record {
    uint32_t stamp;            /* the block; 0: none */
    uint16_t thread;
    uint8_t flags;             /* SIM_ACCESS_* */
    uint8_t mask;              /* the bytes of the 4 it touched */
    uint32_t bgen, wgen;       /* barriers passed by the block and the warp */
    uint32_t pc;               /* code address - sim_now.image_base */
    uint32_t time;             /* the fence clock when it was made */
} record_t;

struct sim_shadow {
    record_t write, read;
};

#define MAX_RACES 16

typedef struct race {
    uint32_t pc[2];            /* [0] the later access, [1] the earlier */
    uint8_t flags[2];
    unsigned long size;
    char who[2][64];
    uintptr_t addr;
    char region[160];
    int shared;
} race_t;

static struct {
    race_t v[MAX_RACES];
    int n;
    unsigned long long total;  /* racing pairs of accesses, counted */
} R;

/* fences: a thread's last one, in a table of the launch */
typedef struct fence {
    uint32_t stamp;            /* its block; 0: a free slot */
    uint32_t thread;
    uint32_t time;
} fence_t;

static struct {
    uint32_t clock;            /* ticks at each fence and atomic of the launch */
    fence_t *table;            /* open addressing, a power of 2 slots */
    size_t cap, n;
    uint32_t stamp;            /* the block acquired[] is about */
    uint32_t acquired[1024];   /* by thread: the clock at its last fence or atomic */
    uint32_t block_max;        /* the latest of acquired[] */
    uint32_t at_barrier;       /* block_max at the block's last __syncthreads() */
} F;

void sim_race_reset(void)
{
    R.n = 0;
    R.total = 0;
    F.clock = 0;
    F.n = 0;
    if (F.table)
        memset(F.table, 0, F.cap * sizeof *F.table);
    F.stamp = 0;
}

static size_t slot_of(uint32_t stamp, uint32_t thread)
{
    uint64_t h = ((uint64_t)stamp << 16 | thread) * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 32) & (F.cap - 1);
}

/* The slot of (stamp, thread): its own, else the free one to take. */
static fence_t *fence_slot(uint32_t stamp, uint32_t thread)
{
    if (!F.cap)
        return NULL;
    size_t i = slot_of(stamp, thread);
    while (F.table[i].stamp && (F.table[i].stamp != stamp || F.table[i].thread != thread))
        i = (i + 1) & (F.cap - 1);
    return &F.table[i];
}

/* The time of the last fence of (stamp, thread) in this launch; 0: none. */
static uint32_t last_fence(uint32_t stamp, uint32_t thread)
{
    const fence_t *f = fence_slot(stamp, thread);
    return f && f->stamp ? f->time : 0;
}

static int grow_fences(void)
{
    size_t cap = F.cap ? F.cap * 2 : 1024;
    fence_t *old = F.table, *v = calloc(cap, sizeof *v);
    if (!v)
        return -1;
    size_t old_cap = F.cap;
    F.table = v;
    F.cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].stamp)
            *fence_slot(old[i].stamp, old[i].thread) = old[i];
    free(old);
    return 0;
}

/* What the running block's threads acquired: forgotten at a new block. */
static void this_block(void)
{
    if (F.stamp == sim_now.stamp)
        return;
    F.stamp = sim_now.stamp;
    memset(F.acquired, 0, sizeof F.acquired);
    F.block_max = F.at_barrier = 0;
}

/* The running thread acquires now (a fence or an atomic operation). */
static uint32_t acquire(void)
{
    this_block();
    uint32_t t = ++F.clock;
    F.acquired[sim_now.thread % 1024] = t;
    F.block_max = t;
    return t;
}

void sim_race_fence(void)
{
    uint32_t t = acquire();
    if (F.n * 2 >= F.cap && grow_fences())
        return;
    fence_t *f = fence_slot(sim_now.stamp, sim_now.thread);
    if (!f->stamp)
        F.n++;
    *f = (fence_t){sim_now.stamp, sim_now.thread, t};
}

void sim_race_barrier(void)
{
    this_block();
    F.at_barrier = F.block_max;
}

/* 1 when e's thread released it by a fence that the running thread has
 * acquired since. */
static int released(const record_t *e)
{
    uint32_t f = last_fence(e->stamp, e->thread);
    if (!f || f <= e->time)
        return 0;
    this_block();
    uint32_t mine = F.acquired[sim_now.thread % 1024];
    return (mine > F.at_barrier ? mine : F.at_barrier) > f;
}

static int is_stale(const record_t *e, int shared)
{
    return !e->stamp || e->stamp < sim_now.first_stamp || (shared && e->stamp != sim_now.stamp);
}

static int same_thread(const record_t *e)
{
    return e->stamp == sim_now.stamp && e->thread == sim_now.thread;
}

/* 1 when a barrier lies between e and the running thread's access. */
static int ordered(const record_t *e)
{
    if (e->stamp != sim_now.stamp)
        return 0;
    if (e->bgen != sim_now.bgen)
        return 1;
    return e->thread / 32 == sim_now.thread / 32 && e->wgen != *sim_now.wgen;
}

static int conflicts(const record_t *e, uint8_t mask, int flags, int shared)
{
    return !is_stale(e, shared) && (e->mask & mask) && !same_thread(e) &&
           !((e->flags & SIM_ACCESS_ATOMIC) && (flags & SIM_ACCESS_ATOMIC)) && !ordered(e) &&
           !released(e);
}

static void keep(const sim_region_t *r, const record_t *e, uintptr_t addr, unsigned long size,
                 int flags, uint32_t pc)
{
    R.total++;
    for (int i = 0; i < R.n; i++)
        if (R.v[i].pc[0] == pc && R.v[i].pc[1] == e->pc)
            return;
    if (R.n == MAX_RACES)
        return;
    race_t *x = &R.v[R.n++];
    x->pc[0] = pc;
    x->pc[1] = e->pc;
    x->flags[0] = (uint8_t)flags;
    x->flags[1] = e->flags;
    x->size = size;
    x->addr = addr;
    x->shared = r->kind == SIM_MEM_SHARED;
    sim_thread_who(sim_now.stamp, sim_now.thread, x->who[0], sizeof x->who[0]);
    sim_thread_who(e->stamp, e->thread, x->who[1], sizeof x->who[1]);
    char what[120];
    sim_mem_describe(r, what, sizeof what);
    snprintf(x->region, sizeof x->region, "byte %" PRIuPTR " of %s", addr - r->lo, what);
}

static sim_shadow_t *shadow_of(sim_region_t *r)
{
    if (!r->shadow) {
        size_t cells = ((r->hi - (r->lo & ~(uintptr_t)3)) + 3) / 4;
        r->shadow = calloc(cells, sizeof *r->shadow);
    }
    return r->shadow;
}

void sim_race_access(sim_region_t *r, uintptr_t addr, unsigned long size, int flags,
                     const void *pc)
{
    sim_shadow_t *sh = shadow_of(r);
    if (!sh)
        return;
    int shared = r->kind == SIM_MEM_SHARED;
    uintptr_t base = r->lo & ~(uintptr_t)3, end = addr + size;
    if (flags & SIM_ACCESS_ATOMIC)
        acquire();
    record_t me = {sim_now.stamp, (uint16_t)sim_now.thread, (uint8_t)flags, 0, sim_now.bgen,
                   *sim_now.wgen, (uint32_t)((uintptr_t)pc - sim_now.image_base), F.clock};
    for (uintptr_t g = addr & ~(uintptr_t)3; g < end; g += 4) {
        uintptr_t from = g > addr ? g : addr, to = g + 4 < end ? g + 4 : end;
        me.mask = (uint8_t)(((1u << (to - from)) - 1) << (from - g));
        sim_shadow_t *c = &sh[(g - base) / 4];
        if (flags & SIM_ACCESS_WRITE) {
            if (conflicts(&c->write, me.mask, flags, shared))
                keep(r, &c->write, addr, size, flags, me.pc);
            else if (conflicts(&c->read, me.mask, flags, shared))
                keep(r, &c->read, addr, size, flags, me.pc);
            c->write = me;
        } else {
            if (conflicts(&c->write, me.mask, flags, shared))
                keep(r, &c->write, addr, size, flags, me.pc);
            const record_t *old = &c->read;
            if (is_stale(old, shared) || same_thread(old) || ordered(old))
                c->read = me;
        }
    }
}

static const char *access_name(int flags)
{
    return flags & SIM_ACCESS_ATOMIC ? "an atomic" : flags & SIM_ACCESS_WRITE ? "a write" : "a read";
}

/* "cell 8, line 4" for a recorded code address. */
static void line_of(uint32_t pc, char *buf, size_t len)
{
    sim_thread_line((const void *)(sim_now.image_base + pc), buf, len);
    if (!buf[0])
        snprintf(buf, len, "an unknown line");
}

int sim_race_report(char *text, size_t len)
{
    if (!R.n)
        return 0;
    char lines[MAX_RACES][2][64];
    for (int i = 0; i < R.n; i++)
        for (int k = 0; k < 2; k++)
            line_of(R.v[i].pc[k], lines[i][k], sizeof lines[i][k]);
    const race_t *x = &R.v[0];
    size_t n = (size_t)snprintf(
        text, len,
        "data race (racecheck) in %s memory: %s of %lu bytes at %s by %s, and %s at %s by %s "
        "before it, with no barrier or atomic between them: address 0x%" PRIxPTR ", %s",
        x->shared ? "shared" : "global", access_name(x->flags[0]), x->size, lines[0][0], x->who[0],
        access_name(x->flags[1]), lines[0][1], x->who[1], x->addr, x->region);
    for (int i = 1; i < R.n && n < len; i++) {
        int seen = 0; /* the same two lines, other instructions */
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(lines[i][0], lines[j][0]) && !strcmp(lines[i][1], lines[j][1]);
        if (!seen)
            n += (size_t)snprintf(text + n, len - n, "; also %s with %s (%s memory)", lines[i][0],
                                  lines[i][1], R.v[i].shared ? "shared" : "global");
    }
    return 1;
}
