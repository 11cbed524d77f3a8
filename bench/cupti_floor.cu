// cupti_floor: what CUPTI's kernel tracing costs by itself, with no gpuc in
// the way: the reference of bench/bench_profile.py (built there by nvcc).
//
// One process launches a tiny kernel 1000 times in a loop (host clock,
// launches and a final synchronisation) --rounds times, each round plain
// and then with CUPTI recording CONCURRENT_KERNEL activity (as %%profile's
// times-only mode and nsys do), alternated, and prints the best of each:
//
//     cupti_floor [launches] [rounds]
//     plain 3.659e-03
//     traced 3.833e-03
//
// A kernel's records are read (and dropped) after each traced round, so
// the buffers CUPTI fills are handed back as they are in gpuc.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#define BUFFER_BYTES (4u << 20)

__global__ void tiny(int *p)
{
    if (threadIdx.x == 0 && p)
        p[0] = 1;
}

static double now(void)
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static long records;

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = (uint8_t *)aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_Activity *a = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS)
        records++;
    free(buffer);
}

static void check(CUptiResult r, const char *what)
{
    if (r != CUPTI_SUCCESS) {
        const char *s = "";
        cuptiGetResultString(r, &s);
        fprintf(stderr, "%s: %s\n", what, s);
        exit(1);
    }
}

static double round_of(int launches)
{
    double t0 = now();
    for (int i = 0; i < launches; i++)
        tiny<<<1, 32>>>(NULL);
    cudaDeviceSynchronize();
    return now() - t0;
}

int main(int argc, char **argv)
{
    int launches = argc > 1 ? atoi(argv[1]) : 1000, rounds = argc > 2 ? atoi(argv[2]) : 7;
    for (int i = 0; i < 100; i++) /* the context, the module, the first launches */
        tiny<<<1, 32>>>(NULL);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "no GPU\n");
        return 1;
    }
    check(cuptiActivityRegisterCallbacks(requested, completed), "cuptiActivityRegisterCallbacks");
    /* CUPTI's set-up at the first traced launch: before the timed rounds, as gpuc's start does */
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
    round_of(10);
    check(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityDisable");
    cuptiActivityFlushAll(1);
    double plain = 1e9, traced = 1e9;
    for (int r = 0; r < rounds; r++) {
        double t = round_of(launches);
        plain = t < plain ? t : plain;
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
        t = round_of(launches);
        traced = t < traced ? t : traced;
        check(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityDisable");
        cuptiActivityFlushAll(1);
    }
    printf("plain %.6e\ntraced %.6e\nrecords %ld\n", plain, traced, records);
    return 0;
}
