/* sim_arena: the simulated device's memory, a mapping of its own apart from
 * the executor's heap (internal to backend/sim; docs/simulator.md says what
 * users see).
 *
 * One large reservation of address space (PROT_NONE, no memory behind it)
 * is made at the first allocation; each allocation is made readable and
 * writable inside it, and everything else stays inaccessible: a gap of
 * SIM_ARENA_GAP bytes at least lies before and after every allocation, and
 * memory given back is inaccessible again at once. So a kernel that writes
 * past its buffer, even unchecked, faults (the scheduler turns the fault
 * into CUDA's illegal-address error) instead of overwriting malloc's data.
 *
 * Allocations are 256-byte aligned, as cudaMalloc's, and placed at the end
 * of their pages, so that an access just past the (256-rounded) end is
 * already in the gap. Addresses are handed out going up through the
 * reservation and reused only once it has been gone through (a freed
 * buffer stays inaccessible for long: a use after cudaFree faults too).
 * From 2 MiB on an allocation's pages start at a 2 MiB boundary (huge
 * pages where the system gives them).
 *
 * Under an address-space limit (RLIMIT_AS) the reservation takes a quarter
 * of it at most. Where no reservation can be made (a limit under 4 GiB),
 * or the reservation is full, or the system's limit of mappings is
 * reached, allocations come from the heap as before (aligned_alloc): no
 * guard, no failure.
 *
 * Threads: the executor's thread only, as the rest of the simulator;
 * sim_arena_holds may be called anywhere (signal handlers too). */
#ifndef SIM_ARENA_H
#define SIM_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define SIM_ARENA_GAP ((size_t)16 << 20)  /* inaccessible bytes around each allocation */

/* bytes (0 allowed: one byte's worth) of zeroed memory, 256-byte aligned:
 * in the reservation when it can be, else from the heap. NULL when neither
 * has memory. */
void *sim_arena_alloc(size_t bytes);

/* Gives back what sim_arena_alloc returned (nothing for NULL). */
void sim_arena_free(void *ptr);

/* 1 when addr lies in the reservation (an allocation or a gap), else 0. */
int sim_arena_holds(uintptr_t addr);

/* What the arena holds: the numbers of live allocations in the
 * reservation and from the heap, the reservation's size (0: none could be
 * made). For the tests. */
typedef struct sim_arena_stats {
    size_t mapped, from_heap;  /* live allocations */
    size_t reserved;           /* bytes of address space */
} sim_arena_stats_t;
void sim_arena_stats(sim_arena_stats_t *st);

#endif
