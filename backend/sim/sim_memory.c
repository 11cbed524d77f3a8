/* sim_memory: the map of the memory a simulated kernel may touch (see
 * sim_check.h).
 *
 * Regions never overlap; they are kept sorted by address and found by
 * binary search behind a cache of the last few hits (a kernel touches a few
 * arrays over and over). An allocation released by cudaFree goes back to
 * the arena at once (sim_arena.c: its pages are inaccessible from then on)
 * but stays in the map, marked, up to QUARANTINE of them, oldest forgotten
 * first, so that a later access is named as a use after cudaFree (by
 * memcheck, or by the fault an unchecked one meets). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_arena.h"
#include "sim_check.h"

#define CACHED 4
#define QUARANTINE 1024 /* freed allocations kept in the map */

static struct {
    sim_region_t **v;          /* sorted by lo */
    size_t n, cap;
    sim_region_t *cache[CACHED];
    uintptr_t *held;           /* where freed regions in quarantine start, oldest first
                                  (an address: the region may be gone since) */
    size_t nheld, capheld;
} M;

static void forget_cache(void)
{
    memset(M.cache, 0, sizeof M.cache);
}

/* The index of the first region with lo > addr. */
static size_t upper(uintptr_t addr)
{
    size_t lo = 0, hi = M.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (M.v[mid]->lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void drop(size_t i)
{
    sim_region_t *r = M.v[i];
    memmove(M.v + i, M.v + i + 1, (M.n - i - 1) * sizeof *M.v);
    M.n--;
    forget_cache();
    free(r->shadow); /* racecheck's records: one block (sim_race.c) */
    free(r);
}

int sim_mem_add(void *ptr, size_t bytes, int kind, const char *name)
{
    uintptr_t lo = (uintptr_t)ptr;
    if (!ptr || !bytes)
        return 0;
    size_t at = upper(lo);
    /* memory malloc gave again: whatever the map still says of it is stale */
    while (at > 0 && M.v[at - 1]->hi > lo)
        drop(--at);
    while (at < M.n && M.v[at]->lo < lo + bytes)
        drop(at);
    if (M.n == M.cap) {
        size_t cap = M.cap ? M.cap * 2 : 64;
        sim_region_t **v = realloc(M.v, cap * sizeof *v);
        if (!v)
            return -1;
        M.v = v;
        M.cap = cap;
    }
    sim_region_t *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->lo = lo;
    r->hi = lo + bytes;
    r->kind = kind;
    snprintf(r->name, sizeof r->name, "%s", name ? name : "");
    memmove(M.v + at + 1, M.v + at, (M.n - at) * sizeof *M.v);
    M.v[at] = r;
    M.n++;
    forget_cache();
    return 0;
}

static long index_of(void *ptr)
{
    size_t at = upper((uintptr_t)ptr);
    return at > 0 && M.v[at - 1]->lo == (uintptr_t)ptr ? (long)at - 1 : -1;
}

void sim_mem_forget(void *ptr)
{
    long i = index_of(ptr);
    if (i >= 0)
        drop((size_t)i);
}

/* Forgets the oldest quarantined allocations until at most limit are kept. */
static void trim_quarantine(size_t limit)
{
    size_t k = 0;
    while (k < M.nheld && M.nheld - k > limit) {
        long i = index_of((void *)M.held[k++]);
        if (i >= 0 && M.v[i]->freed)
            drop((size_t)i);
    }
    if (k) /* (held may be NULL: memmove wants pointers even for 0 bytes) */
        memmove(M.held, M.held + k, (M.nheld - k) * sizeof *M.held);
    M.nheld -= k;
}

int sim_mem_release(void *ptr)
{
    long i = index_of(ptr);
    if (i < 0 || M.v[i]->freed || M.v[i]->kind > SIM_MEM_PINNED)
        return -1;
    sim_arena_free(ptr);
    if (M.nheld == M.capheld) {
        size_t cap = M.capheld ? M.capheld * 2 : 64;
        uintptr_t *held = realloc(M.held, cap * sizeof *held);
        if (held) {
            M.held = held;
            M.capheld = cap;
        }
    }
    if (M.nheld == M.capheld) {
        drop((size_t)i);
        return 0;
    }
    M.v[i]->freed = 1;
    M.held[M.nheld++] = M.v[i]->lo;
    trim_quarantine(QUARANTINE);
    return 0;
}

sim_region_t *sim_mem_find(uintptr_t addr)
{
    for (int k = 0; k < CACHED; k++) {
        sim_region_t *r = M.cache[k];
        if (r && addr >= r->lo && addr < r->hi)
            return r;
    }
    size_t at = upper(addr);
    if (at == 0 || addr >= M.v[at - 1]->hi)
        return NULL;
    sim_region_t *r = M.v[at - 1];
    memmove(M.cache + 1, M.cache, (CACHED - 1) * sizeof *M.cache);
    M.cache[0] = r;
    return r;
}

sim_region_t *sim_mem_near(uintptr_t addr)
{
    size_t at = upper(addr);
    sim_region_t *before = at > 0 ? M.v[at - 1] : NULL, *after = at < M.n ? M.v[at] : NULL;
    if (before && addr < before->hi)
        return before;
    if (!before)
        return after;
    if (!after)
        return before;
    return addr - before->hi <= after->lo - addr ? before : after;
}

void sim_mem_describe(const sim_region_t *r, char *buf, size_t len)
{
    static const char *const kinds[] = {"cudaMalloc allocation", "cudaMallocManaged allocation",
                                        "cudaMallocHost allocation", "device array",
                                        "__shared__ array", "__device__ variable"};
    size_t bytes = r->hi - r->lo;
    if (r->kind == SIM_MEM_SHARED && !r->name[0])
        snprintf(buf, len, "the %zu bytes of dynamic shared memory (extern __shared__)", bytes);
    else if (r->name[0])
        snprintf(buf, len, "the %zu-byte %s %s", bytes, kinds[r->kind], r->name);
    else
        snprintf(buf, len, "the %zu-byte %s at 0x%" PRIxPTR "%s", bytes, kinds[r->kind], r->lo,
                 r->freed ? ", released by cudaFree before this launch" : "");
}

void sim_mem_set_bytes(void *ptr, size_t bytes)
{
    long i = index_of(ptr);
    if (i >= 0 && M.v[i]->hi - M.v[i]->lo == bytes)
        return;
    sim_mem_forget(ptr);
    sim_mem_add(ptr, bytes, SIM_MEM_SHARED, NULL);
}
