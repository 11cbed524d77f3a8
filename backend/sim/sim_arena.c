/* sim_arena: the simulated device's memory in a reservation of its own,
 * with inaccessible gaps around each allocation (see sim_arena.h).
 *
 * The live allocations are kept sorted by address (their pages, [lo, hi));
 * a new one goes at the first place from the roving pointer `next` on
 * whose pages keep SIM_ARENA_GAP bytes from every live allocation, and
 * `next` moves past it, wrapping around at the end of the reservation.
 * Pages are made accessible by mapping fresh anonymous memory over them
 * (zeroed) and inaccessible again by mapping PROT_NONE with MAP_NORESERVE
 * over them (the memory goes back to the system at once): one system call
 * each. */
#include "sim_arena.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define RESERVE_MAX ((size_t)1 << 40)   /* 1 TiB of address space, if the system lets us */
#define RESERVE_MIN ((size_t)1 << 30)   /* below this, the heap serves */
#define ALIGN 256                       /* cudaMalloc's */
#define HUGE_FROM ((size_t)2 << 20)     /* allocations from here start at a huge page */

typedef struct block {
    uintptr_t lo, hi;          /* its pages */
    uintptr_t ptr;             /* what the caller got: lo <= ptr < hi */
} block_t;

static struct {
    int tried;                 /* the reservation was attempted */
    uintptr_t base, end;       /* [base, end): the reservation; 0, 0 when none */
    uintptr_t next;            /* where the next allocation is looked for */
    block_t *v;                /* live allocations, sorted by lo */
    size_t n, cap;
    size_t from_heap;          /* live allocations the heap served */
    size_t page;
} A;

static uintptr_t align_up(uintptr_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* Under an address-space limit (RLIMIT_AS, which counts the reservation
 * though no memory is behind it) a quarter of the limit at most, so that
 * the rest of the executor keeps room. */
static size_t reserve_max(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur / 4 >= RESERVE_MAX)
        return RESERVE_MAX;
    size_t quarter = rl.rlim_cur / 4, size = RESERVE_MIN;
    if (quarter < RESERVE_MIN)
        return 0; /* the heap serves */
    while (size * 2 <= quarter)
        size *= 2;
    return size;
}

static void reserve(void)
{
    A.tried = 1;
    A.page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t size = reserve_max(); size >= RESERVE_MIN; size /= 2) {
        void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                       0);
        if (p == MAP_FAILED)
            continue;
        A.base = (uintptr_t)p;
        A.end = A.base + size;
        A.next = A.base + SIM_ARENA_GAP;
        return;
    }
}

int sim_arena_holds(uintptr_t addr)
{
    return addr >= A.base && addr < A.end;
}

/* The index of the first live block with hi > addr (blocks do not overlap,
 * so hi grows with lo). */
static size_t first_ending_after(uintptr_t addr)
{
    size_t lo = 0, hi = A.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (A.v[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where len bytes of pages aligned to align go, keeping SIM_ARENA_GAP from
 * every live block and from the ends of the reservation; 0 when nowhere. */
static uintptr_t place(size_t len, size_t align)
{
    uintptr_t first = A.base + SIM_ARENA_GAP, last = A.end - SIM_ARENA_GAP;
    uintptr_t pos = A.next;
    int wrapped = 0;
    for (size_t tries = 0; tries <= A.n + 2; tries++) {
        uintptr_t s = align_up(pos, align);
        if (s < pos || s > last || last - s < len) {
            if (wrapped)
                return 0;
            wrapped = 1;
            pos = first;
            continue;
        }
        size_t i = first_ending_after(s - SIM_ARENA_GAP);
        if (i == A.n || A.v[i].lo >= s + len + SIM_ARENA_GAP)
            return s;
        pos = A.v[i].hi + SIM_ARENA_GAP;
    }
    return 0;
}

static int remember(uintptr_t lo, uintptr_t hi, uintptr_t ptr)
{
    if (A.n == A.cap) {
        size_t cap = A.cap ? A.cap * 2 : 64;
        block_t *v = realloc(A.v, cap * sizeof *v);
        if (!v)
            return -1;
        A.v = v;
        A.cap = cap;
    }
    size_t at = first_ending_after(lo);
    memmove(A.v + at + 1, A.v + at, (A.n - at) * sizeof *A.v);
    A.v[at] = (block_t){lo, hi, ptr};
    A.n++;
    return 0;
}

/* The heap's allocation, with ALIGN bytes after it that belong to none (so
 * that memcheck sees an access just past its end as out of bounds, not in
 * the next allocation). */
static void *from_heap(size_t rounded)
{
    void *p = aligned_alloc(ALIGN, rounded + ALIGN);
    if (p) {
        memset(p, 0, rounded);
        A.from_heap++;
    }
    return p;
}

void *sim_arena_alloc(size_t bytes)
{
    if (!A.tried)
        reserve();
    size_t span = align_up(bytes ? bytes : 1, ALIGN);
    if (span < bytes)
        return NULL; /* bytes near SIZE_MAX */
    if (!A.base)
        return from_heap(span);
    size_t align = span >= HUGE_FROM ? HUGE_FROM : A.page;
    size_t len = align_up(span, align);
    uintptr_t s = len >= span ? place(len, align) : 0;
    if (!s)
        return from_heap(span);
    void *p = mmap((void *)s, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                   -1, 0);
    if (p == MAP_FAILED) /* the system's commit or mapping limit: the heap may still serve */
        return from_heap(span);
    uintptr_t ptr = s + len - span; /* at the end of its pages: an overrun faults at once */
    if (remember(s, s + len, ptr) != 0) {
        mmap((void *)s, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
             -1, 0);
        return from_heap(span);
    }
    A.next = s + len + SIM_ARENA_GAP;
    return (void *)ptr;
}

void sim_arena_free(void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    if (!ptr)
        return;
    if (!sim_arena_holds(p)) {
        free(ptr);
        A.from_heap--;
        return;
    }
    size_t i = first_ending_after(p);
    if (i == A.n || A.v[i].ptr != p)
        return; /* not an allocation: nothing to give back */
    block_t b = A.v[i];
    memmove(A.v + i, A.v + i + 1, (A.n - i - 1) * sizeof *A.v);
    A.n--;
    mmap((void *)b.lo, b.hi - b.lo, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

void sim_arena_stats(sim_arena_stats_t *st)
{
    st->mapped = A.n;
    st->from_heap = A.from_heap;
    st->reserved = A.end - A.base;
}
