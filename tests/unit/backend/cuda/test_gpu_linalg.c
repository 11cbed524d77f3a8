/* test_gpu_linalg: the cuFFT and cuSOLVER bindings where there is no GPU
 * (the development machine, CI): every function gpu_cufft and
 * gpu_cusolver bind resolves in the toolkit's libraries (an error then
 * names the missing driver, not a missing symbol), and a library that is
 * not there (GPUC_HIDE_LIBS) is named with where it was looked for. The
 * GPU itself is tests/gpu/linalg_gpu.py's. Exits 77 (a skip) where a
 * driver loads or the toolkit's libraries are missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "gpu.h"
#include "gpu_cublas.h"

/* The child: cuSOLVER hidden. 0 when the error names it and the places. */
static int hidden(void)
{
    double buf[1];
    int info[1];
    cm_lapack_t l = {.op = CM_LA_GETRF, .type = CM_LA_F64, .m = 1, .n = 1, .a = buf, .lda = 1,
                     .info = info, .batch = 1};
    cm_error_t err = {0};
    int ok = gpu_lapack_run(0, &l, &err) == -1 && err.code == GPU_E_NO_LIBRARY &&
             strstr(err.text, "cuSOLVER not found") && strstr(err.text, "libcusolver.so.12");
    if (!ok)
        fprintf(stderr, "hidden cuSOLVER: %s\n", err.text);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--hidden") == 0)
        return hidden();
    static gpu_info_t probe;
    if (gpu_probe(&probe) > 0) {
        printf("test_gpu_linalg: a GPU is here, skipped (tests/gpu/linalg_gpu.py runs it)\n");
        return 77;
    }
    cm_error_t err = {0};
    double buf[4] = {0};
    cm_fft_t f = {.kind = CM_FFT_C2C, .type = CM_LA_F64, .rank = 1, .n = {2}, .batch = 1,
                  .in = buf, .out = buf + 2};
    CHECK(gpu_fft_run(0, &f, &err) == -1);
    if (strstr(err.text, "cuFFT not found")) {
        printf("test_gpu_linalg: no cuFFT in the toolkit, skipped (%s)\n", err.text);
        return 77;
    }
    /* cuFFT loaded with all its symbols: what stops it is the missing driver */
    CHECK(err.code == GPU_E_NO_LIBRARY || err.code == GPU_E_NO_GPU);
    CHECK(strstr(err.text, "lacks") == NULL);
    CHECK(strstr(err.text, "driver") != NULL || strstr(err.text, "GPU") != NULL);

    /* cuSOLVER: loaded with all its symbols too */
    int info[1];
    cm_lapack_t l = {.op = CM_LA_GETRF, .type = CM_LA_F64, .m = 1, .n = 1, .a = buf, .lda = 1,
                     .info = info, .batch = 1};
    cm_error_t e2 = {0};
    CHECK(gpu_lapack_run(0, &l, &e2) == -1);
    CHECK(strstr(e2.text, "lacks") == NULL && strstr(e2.text, "not found: GPU linear") == NULL);
    /* cuBLAS with the batched LU that gpu_cusolver calls */
    cm_error_t e3 = {0};
    CHECK(gpu_cublas_get(&e3) != NULL);

    /* a cuSOLVER that is not there (GPUC_HIDE_LIBS, in a child: the library is
     * looked for once a process): named, with where it was looked for */
    pid_t pid = fork();
    if (pid == 0) {
        setenv("GPUC_HIDE_LIBS", "libcusolver", 1);
        execl("/proc/self/exe", "test_gpu_linalg", "--hidden", (char *)NULL);
        _exit(3);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
    return check_report("test_gpu_linalg");
}
