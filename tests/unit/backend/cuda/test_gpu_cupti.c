/* Tests of gpu_cupti.c against a stand-in libcupti (fake_cupti.c, loaded
 * through GPUC_CUPTI; CUPTI itself needs a GPU): a kernel cell's launch
 * leaves no API record (nothing but CUPTI's kernel tracing per launch); the
 * launches between a label's push and pop are the label's, by external
 * correlation, and by the window of their API record where CUPTI wrote no
 * external correlation record (the gemm that was `Kernel2` on an H200);
 * the start's empty kernel is dropped; CUPTI is told its buffers come
 * zeroed, and they do, the second profile's (recycled) too; copies and
 * memsets become records of their kind, name, bytes, times, stream and
 * correlation. Skipped (77) without the stand-in or a build without
 * CUPTI's headers. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_cupti.h"

int main(void)
{
    const char *fake = getenv("GPUC_CUPTI");
    cm_error_t err = {0};
    if (!fake || !fake[0]) {
        printf("test_gpu_cupti: skipped (no GPUC_CUPTI)\n");
        return 77;
    }
    if (gpu_cupti_start(&err)) {
        printf("test_gpu_cupti: skipped (%s)\n", err.text);
        return 77;
    }
    void *lib = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    if (!lib)
        return check_report("test_gpu_cupti");
    void (*launch)(const char *) = (void (*)(const char *))dlsym(lib, "fake_launch");
    int *no_external = dlsym(lib, "fake_no_external"), *dirty = dlsym(lib, "fake_dirty");
    int *api_records = dlsym(lib, "fake_api_records");
    uint8_t *zeroed = dlsym(lib, "fake_zeroed_attr");
    CHECK(strcmp(gpu_cupti_path(), fake) == 0);

    launch("_Z4tinyPi");                 /* a kernel cell's */
    CHECK(*api_records == 0);
    gpu_cupti_push(7);                   /* the floor's gemm */
    launch("Kernel2");
    launch("Kernel2b");
    gpu_cupti_pop();
    launch("_Z4tinyPi");
    *no_external = 1;                    /* CUPTI wrote no external correlation */
    gpu_cupti_push(9);
    launch("Kernel3");
    gpu_cupti_pop();
    *no_external = 0;
    launch("gpuc_profile_warmup");
    CHECK(*api_records == 3);            /* inside the labels only */

    gpu_cupti_record_t *v = NULL;
    int n = 0;
    CHECK(gpu_cupti_stop(&v, &n, &err) == 0);
    static const char *const names[] = {"_Z4tinyPi", "Kernel2", "Kernel2b", "_Z4tinyPi", "Kernel3"};
    static const unsigned long long labels[] = {0, 7, 7, 0, 9};
    CHECK(n == 5);
    for (int i = 0; i < n && i < 5; i++) {
        CHECK(v[i].kind == GPU_CUPTI_KERNEL && !strcmp(v[i].name, names[i]));
        CHECK(v[i].external == labels[i]);
        CHECK(v[i].end > v[i].start);
    }
    free(v);
    CHECK(*zeroed == 1 && *dirty == 0);

    /* a second profile: its buffer is the first one, zeroed again; copies
     * and memsets are named by their kind and keep their bytes, times,
     * stream and correlation */
    void (*copy)(int, uint64_t) = (void (*)(int, uint64_t))dlsym(lib, "fake_copy");
    void (*memset_)(uint64_t) = (void (*)(uint64_t))dlsym(lib, "fake_memset");
    CHECK(copy && memset_);
    CHECK(gpu_cupti_start(&err) == 0);
    launch("_Z4tinyPi");
    copy(1, 4096);    /* CUPTI_ACTIVITY_MEMCPY_KIND_HTOD */
    copy(8, 1 << 20); /* _DTOD */
    copy(200, 8); /* a kind CUPTI may add later */
    memset_(512);
    CHECK(gpu_cupti_stop(&v, &n, &err) == 0);
    CHECK(n == 5 && v[0].external == 0 && *dirty == 0);
    static const char *const moved[] = {"copy HtoD", "copy DtoD", "copy", "memset"};
    static const unsigned long long bytes[] = {4096, 1 << 20, 8, 512};
    static const int kinds[] = {GPU_CUPTI_MEMCPY, GPU_CUPTI_MEMCPY, GPU_CUPTI_MEMCPY,
                                GPU_CUPTI_MEMSET};
    static const int copy_kinds[] = {1, 8, 200, 0};
    for (int i = 1; i < n && i < 5; i++) {
        CHECK(v[i].kind == kinds[i - 1] && !strcmp(v[i].name, moved[i - 1]));
        CHECK(v[i].bytes == bytes[i - 1] && v[i].copy_kind == copy_kinds[i - 1]);
        CHECK(v[i].stream == 7 && v[i].device == 0 && v[i].end > v[i].start);
        CHECK(v[i].correlation == v[i - 1].correlation + 1);
    }
    free(v);
    return check_report("test_gpu_cupti");
}
