/* sim_check: the verdict on each access of a checked module (see
 * sim_check.h), and memcheck's report when it is wrong. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim_abi.h"
#include "sim_arena.h"
#include "sim_check.h"

static void *dyn_shared;

void sim_check_launch(void *dyn, size_t dyn_bytes)
{
    if (dyn_shared && dyn_shared != dyn)
        sim_mem_forget(dyn_shared);
    dyn_shared = dyn;
    sim_mem_set_bytes(dyn, dyn_bytes);
    sim_race_reset();
}

int sim_check_races(char *text, size_t len)
{
    return sim_racecheck_on && sim_race_report(text, len);
}

/* Outside the arena (an allocation the heap served, a __shared__ array):
 * how far from a region an address is still said against it */
#define NEAR_AFTER 512 /* cudaMalloc's rounding to 256 and its 256-byte red zone */
#define NEAR_BEFORE 32 /* the heap's block header lies before an allocation */

const char *sim_check_place(uintptr_t addr, char *buf, size_t len)
{
    const sim_region_t *r = addr < 4096 ? NULL : sim_mem_near(addr);
    /* in the arena, everything is the simulated device's memory: an
     * address is said against the closest allocation however far */
    int ours = sim_arena_holds(addr) && r && sim_arena_holds(r->lo);
    char what[160];
    if (addr < 4096) {
        snprintf(buf, len, "address 0x%" PRIxPTR ", a null pointer", addr);
        return "invalid";
    }
    if (r)
        sim_mem_describe(r, what, sizeof what);
    if (r && addr >= r->lo && addr < r->hi) {
        snprintf(buf, len, "address 0x%" PRIxPTR ", byte %" PRIuPTR " of %s", addr, addr - r->lo,
                 what);
        return r->freed ? "use-after-free" : "out-of-bounds";
    }
    /* past the end within the allocation's slack (rounding and red zone), or
     * a few elements before its start: anything further may be another
     * block of the same heap, a host malloc for instance */
    if (r && addr >= r->hi && (ours || addr - r->hi < NEAR_AFTER)) {
        snprintf(buf, len, "address 0x%" PRIxPTR ", %" PRIuPTR " bytes after the end of %s", addr,
                 addr - r->hi, what);
        return "out-of-bounds";
    }
    if (r && addr < r->lo && (ours || r->lo - addr <= NEAR_BEFORE)) {
        snprintf(buf, len, "address 0x%" PRIxPTR ", %" PRIuPTR " bytes before the start of %s",
                 addr, r->lo - addr, what);
        return "out-of-bounds";
    }
    snprintf(buf, len, "address 0x%" PRIxPTR ", not memory of the simulated device (a host "
             "pointer? kernels may use cudaMalloc memory and device arrays)", addr);
    return "invalid";
}

/* Stops the launch: a misaligned access (misaligned) or one outside the
 * memory the kernel may use. */
static void memory_error(int misaligned, uintptr_t addr, unsigned long size, int flags,
                         const void *pc)
{
    char line[64], who[64], where[400], text[1000];
    sim_thread_line(pc, line, sizeof line);
    sim_thread_who(sim_now.stamp, sim_now.thread, who, sizeof who);
    const char *kind = sim_check_place(addr, where, sizeof where);
    snprintf(text, sizeof text, "%s: %s %s of %lu byte%s at %s by %s: %s",
             misaligned ? "CUDA_ERROR_MISALIGNED_ADDRESS (716): misaligned address"
                        : "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was "
                          "encountered",
             misaligned ? "misaligned" : kind,
             flags & SIM_ACCESS_ATOMIC ? "atomic" : flags & SIM_ACCESS_WRITE ? "write" : "read",
             size, size == 1 ? "" : "s", line[0] ? line : "an unknown line", who, where);
    sim_thread_stop(misaligned ? 716 : 700, text);
}

void sim_check_access(const void *addr, unsigned long size, int flags, const void *pc)
{
    if (!sim_now.active)
        return; /* the module's own start-up */
    if (flags & SIM_ACCESS_FENCE) {
        if (sim_racecheck_on)
            sim_race_fence();
        return;
    }
    uintptr_t a = (uintptr_t)addr;
    const sim_region_t *r = sim_mem_find(a);
    if (sim_profile_on)
        sim_profile_access(r && !r->freed ? r->kind : -1, a, size, flags);
    /* the address of the call's return: the access is the instruction before */
    const void *at = (const char *)pc - 1;
    sim_now.last_pc = at;
    if (r && !r->freed && a + size <= r->hi) {
        /* CUDA wants natural alignment; up to 4 bytes here, since g++ moves
         * a struct of floats 8 bytes at a time where a GPU's compiler would not */
        unsigned align = size < 4 ? (unsigned)size : 4;
        if (!sim_memcheck_on && !sim_racecheck_on)
            return; /* profiled only */
        if (sim_memcheck_on && (align & (align - 1)) == 0 && (a & (align - 1)))
            memory_error(1, a, size, flags, at);
        else if (sim_racecheck_on)
            sim_race_access((sim_region_t *)r, a, size, flags, at);
        return;
    }
    if (!r && ((a >= sim_now.stack_lo && a < sim_now.stack_hi) || sim_module_image(a)))
        return; /* the thread's local variables, the module's own data */
    if (!sim_memcheck_on)
        return;
    memory_error(0, a, size, flags, at);
}
