/* sim_settings: what later launches run under - the seed and its shuffled
 * orders, the number of workers, the checks - and the limits a launch's
 * configuration must keep (see sim.h, sim_settings.h). */
#include "sim_settings.h"

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "sim_check.h"
#include "sim_pool.h"

#define DEFAULT_THREADS_CAP 64     /* workers by default: the cores, up to this */

/* memcheck is on unless turned off: a beginner's first out-of-bounds write
 * is a report with its line (docs/simulator.md); the timing magics time
 * the unchecked build */
int sim_memcheck_on = 1, sim_racecheck_on;

static struct {
    long long seed;            /* < 0: none */
    unsigned long long rng;    /* the seed's generator (splitmix64) */
    int threads;               /* workers; 0: the default */
} G = {.seed = -1};

/* ---- the seed's shuffled orders (splitmix64) ------------------------------ */

static unsigned long long next_random(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void shuffle(unsigned long long *v, unsigned long long n, unsigned long long *state)
{
    for (unsigned long long i = n; i > 1; i--) {
        unsigned long long j = next_random(state) % i, t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

void sim_set_seed(long long seed)
{
    G.seed = seed < 0 ? -1 : seed;
    G.rng = (unsigned long long)seed;
}

long long sim_seed(void)
{
    return G.seed;
}

void sim_seeded_launch(unsigned long long *order, unsigned long long n, unsigned long long *key)
{
    if (order) {
        for (unsigned long long i = 0; i < n; i++)
            order[i] = i;
        shuffle(order, n, &G.rng);
    }
    *key = next_random(&G.rng);
}

void sim_warp_order(unsigned long long key, unsigned long long block, unsigned long long *order,
                    int n)
{
    unsigned long long state = key ^ (block * 0xD1B54A32D192ED03ULL); /* the block's own */
    for (int w = 0; w < n; w++)
        order[w] = (unsigned long long)w;
    shuffle(order, (unsigned long long)n, &state);
}

/* ---- workers, checks, limits ---------------------------------------------- */

int sim_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int sim_default_threads(void)
{
    int n = sim_cores();
    return n < DEFAULT_THREADS_CAP ? n : DEFAULT_THREADS_CAP;
}

void sim_set_threads(int n)
{
    G.threads = n < 0 ? 0 : n > SIM_POOL_MAX ? SIM_POOL_MAX : n;
}

int sim_threads(void)
{
    return G.threads ? G.threads : sim_default_threads();
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

int sim_check_config(const char *name, const unsigned g[3], const unsigned b[3],
                     unsigned shared, cm_error_t *err)
{
    static const char *head = "CUDA_ERROR_INVALID_VALUE (1): invalid argument";
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
    const char *why = NULL;
    char buf[200];
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2])
        why = "a grid or block dimension is 0";
    else if (threads > SIM_MAX_THREADS)
        why = buf, snprintf(buf, sizeof buf, "%llu threads per block, at most %d", threads,
                            SIM_MAX_THREADS);
    else if (b[0] > 1024 || b[1] > 1024 || b[2] > 64)
        why = buf, snprintf(buf, sizeof buf, "block (%u,%u,%u): at most (1024,1024,64)", b[0],
                            b[1], b[2]);
    else if (g[0] > 2147483647u || g[1] > 65535 || g[2] > 65535)
        why = buf, snprintf(buf, sizeof buf, "grid (%u,%u,%u): at most (2147483647,65535,65535)",
                            g[0], g[1], g[2]);
    else if (shared > SIM_MAX_SHARED)
        why = buf, snprintf(buf, sizeof buf, "%u bytes of dynamic shared memory, at most %d",
                            shared, SIM_MAX_SHARED);
    if (!why)
        return 0;
    CM_ERROR(err, SIM_E_CUDA + 1, "%s: %s (kernel %s)", head, why, name);
    return -1;
}
