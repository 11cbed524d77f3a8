/* test_rt_hostlibs: CUDA's libraries in host cells (backend/cuda/gpu_hostlibs.c
 * through the session). Each of cublas_v2.h, curand.h, cufft.h and
 * cusparse.h compiles in a cell that also declares with its types; the
 * calls link and, without a GPU, return the library's own status; a later
 * cell that calls the library compiles with the shaken headers and no new
 * preprocessing (tests/sim/test_cuda_libraries.py: a missing library, the
 * course's cells). Skipped (77) where no CUDA toolkit header is found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "session_check.h"
#include "gpu.h"
#include "rt_cuda_header.h"
#include "rt_libnames.h"

static json_t *run(const char *code)
{
    return run_next(code);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The status a create call returns: 0 on a GPU, else the library's own
 * answer to "no GPU" (what a program built with nvcc gets there). */
static const char *status_text(int no_gpu)
{
    static char buf[16];
    snprintf(buf, sizeof buf, "%d", gpu_simulating() ? no_gpu : 0);
    return buf;
}

static void test_headers_compile_and_calls_link(void)
{
    EXPECT("#include <curand.h>\ncurandGenerator_t g;\nint rs = curandCreateGenerator(&g, "
           "CURAND_RNG_PSEUDO_DEFAULT);\nrs",
           status_text(203)); /* CURAND_STATUS_INITIALIZATION_FAILED */
    EXPECT("#include <cufft.h>\ncufftHandle plan;\nint fs = cufftPlan1d(&plan, 8, CUFFT_C2C, 1);\nfs",
           status_text(5)); /* CUFFT_INTERNAL_ERROR */
    EXPECT("#include <cusparse.h>\ncusparseHandle_t sp;\nint ss = cusparseCreate(&sp);\nss",
           status_text(1)); /* CUSPARSE_STATUS_NOT_INITIALIZED */
    /* cuRAND's host generator needs no GPU */
    EXPECT("curandGenerator_t host;\ncurandCreateGeneratorHost(&host, CURAND_RNG_PSEUDO_DEFAULT);\n"
           "curandSetPseudoRandomGeneratorSeed(host, 7ULL);\nfloat u[4096];\n"
           "curandGenerateUniform(host, u, 4096);\ndouble m = 0;\n"
           "for (int i = 0; i < 4096; i++) m += u[i];\nm / 4096 > 0.48 && m / 4096 < 0.52",
           "1");
}

/* The first cell with cublas_v2.h pays for the header once; later ones
 * take the few declarations they use. */
static void test_later_cells_are_shaken(void)
{
    rt_compile_stats_t a, b;
    double t0 = now_ms();
    EXPECT("#include <cublas_v2.h>\ncublasHandle_t h;\nint bs = cublasCreate(&h);\n"
           "bs == (gpu_simulating_now ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_SUCCESS)",
           "1");
    double first = now_ms() - t0;
    rt_session_stats(S, &a);
    t0 = now_ms();
    EXPECT("strcmp(cublasGetStatusName(bs), gpu_simulating_now ? \"CUBLAS_STATUS_NOT_INITIALIZED\"\n"
           "       : \"CUBLAS_STATUS_SUCCESS\") == 0", "1");
    double later = now_ms() - t0;
    rt_session_stats(S, &b);
    CHECK(b.shaken == a.shaken + 1);
    CHECK(b.fallbacks == a.fallbacks);
    CHECK(b.preprocess == a.preprocess); /* the shaker made for the first cell is reused */
    t0 = now_ms();
    EXPECT("int plain = 41;\nplain + 1", "42");
    double plain = now_ms() - t0;
    printf("cells: first with cublas_v2.h %.1f ms, a later cublas call %.1f ms, a plain cell "
           "%.1f ms\n", first, later, plain);
}

int main(void)
{
    if (!rt_cuda_include_dir()) {
        printf("test_rt_hostlibs: no CUDA toolkit header, skipped\n");
        return 77;
    }
    cm_log_init("test");
    emitted = json_array();
    cm_error_t err = {0};
    S = rt_session_new(NULL, emit, NULL, &err);
    CHECK(S != NULL);
    if (!S)
        return check_report("test_rt_hostlibs");
    EXPECT("int gpu_simulating(void);\nint gpu_simulating_now = gpu_simulating();", NULL);
    test_headers_compile_and_calls_link();
    test_later_cells_are_shaken();
    CHECK(rt_libraries_named("int x = 1;") == 0);
    CHECK(rt_libraries_named("#include <curand_kernel.h>\ncurandState s; curand_init(1, 0, 0, &s);") == 0);
    CHECK(rt_libraries_named("int my_cublas_calls = 0;") == 0);
    CHECK(rt_libraries_named("#include <curand.h>") == 2u);
    CHECK(rt_libraries_named("cublasSgemm(h); cufftExecC2C(p); cusparseSpMV(s);") == 13u);
    rt_session_free(S);
    json_decref(emitted);
    return check_report("test_rt_hostlibs");
}
