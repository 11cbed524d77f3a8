/* sim_settings: what later launches run under and the limits of a launch's
 * configuration (internal to backend/sim; sim.h has the setters: seed,
 * threads, checks).
 *
 * Threads: the executor's thread only. */
#ifndef SIM_SETTINGS_H
#define SIM_SETTINGS_H

#include "cm_error.h"

#define SIM_MAX_THREADS 1024           /* threads per block */
#define SIM_MAX_SHARED (48 * 1024)     /* dynamic shared memory per block, bytes */

/* Under a seed (sim_seed() >= 0), from the seed's generator: order (n
 * entries; may be NULL) a shuffle of the blocks 0 .. n - 1, *key what the
 * blocks' warp orders are drawn from. */
void sim_seeded_launch(unsigned long long *order, unsigned long long n, unsigned long long *key);

/* The order of the n warps of block (a linear index) under key: the same
 * for the same key and block, whichever worker runs it. */
void sim_warp_order(unsigned long long key, unsigned long long block, unsigned long long *order,
                    int n);

/* 0 when grid x block with shared bytes of dynamic shared memory is a
 * configuration a GPU launches; else -1 with err as a GPU refuses it
 * (SIM_E_CUDA + 1, "CUDA_ERROR_INVALID_VALUE (1): invalid argument: ..."). */
int sim_check_config(const char *name, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, cm_error_t *err);

#endif
