/* test_cpu_linalg: the CPU backend's FFTW (cpu_fft) and LAPACKE
 * (cpu_lapack) bindings on answers worked by hand — a batch of two
 * 4-point transforms both ways, a real transform and its inverse, kept
 * plans run on other arrays, an LU solve, a singular matrix's info, a
 * Cholesky factor and an indefinite matrix's info, eigenvalues. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "cpu_fft.h"
#include "cpu_lapack.h"

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-9)

static void test_fft(void)
{
    cm_error_t err = {0};
    /* fft([1, 2, 3, 4]) = [10, -2+2i, -2, -2-2i]; fft([1, 0, 0, 0]) = 1 */
    double complex in[8] = {1, 2, 3, 4, 1, 0, 0, 0}, out[8], back[8];
    cm_fft_t f = {.kind = CM_FFT_C2C, .type = CM_LA_F64, .rank = 1, .n = {4}, .batch = 2,
                  .in = in, .out = out};
    CHECK(cpu_fft_run(&f, &err) == 0);
    CHECK(NEAR(creal(out[0]), 10) && NEAR(cimag(out[0]), 0));
    CHECK(NEAR(creal(out[1]), -2) && NEAR(cimag(out[1]), 2));
    CHECK(NEAR(creal(out[3]), -2) && NEAR(cimag(out[3]), -2));
    for (int i = 4; i < 8; i++)
        CHECK(NEAR(creal(out[i]), 1) && NEAR(cimag(out[i]), 0));
    /* the inverse, unnormalised: 4 times the input */
    cm_fft_t g = f;
    g.inverse = 1;
    g.in = out;
    g.out = back;
    CHECK(cpu_fft_run(&g, &err) == 0);
    for (int i = 0; i < 8; i++)
        CHECK(NEAR(creal(back[i]), 4 * creal(in[i])) && NEAR(cimag(back[i]), 0));
    /* the kept plan on other arrays (other alignment too) */
    double complex in2[9] = {0, 0, 1, 0, 0, 0, 0, 0, 0}, out2[9];
    f.in = in2 + 1;
    f.out = out2 + 1;
    CHECK(cpu_fft_run(&f, &err) == 0);
    CHECK(NEAR(creal(out2[2]), 0) && NEAR(cimag(out2[2]), -1)); /* delta at 1: e^{-2 pi i k / 4} at k = 1 */

    /* float32 real transform of 5 points and back (x 5) */
    float r[5] = {1, -1, 2, 0.5f, 3}, r2[5];
    float complex h[3];
    cm_fft_t rf = {.kind = CM_FFT_R2C, .type = CM_LA_F32, .rank = 1, .n = {5}, .batch = 1,
                   .in = r, .out = h};
    CHECK(cpu_fft_run(&rf, &err) == 0);
    CHECK(fabsf(crealf(h[0]) - 5.5f) < 1e-5f && fabsf(cimagf(h[0])) < 1e-5f);
    cm_fft_t cr = {.kind = CM_FFT_C2R, .type = CM_LA_F32, .rank = 1, .n = {5}, .batch = 1,
                   .in = h, .out = r2};
    CHECK(cpu_fft_run(&cr, &err) == 0);
    for (int i = 0; i < 5; i++)
        CHECK(fabsf(r2[i] - 5 * r[i]) < 1e-4f);
}

static void test_lapack(void)
{
    cm_error_t err = {0};
    /* column-major [[4, 2], [2, 3]]: solve for b = [2, 1] -> x = [0.5, 0] */
    double a[4] = {4, 2, 2, 3}, b[2] = {2, 1};
    int ipiv[2], info[1] = {-7};
    cm_lapack_t l = {.op = CM_LA_GETRF, .type = CM_LA_F64, .m = 2, .n = 2, .a = a, .lda = 2,
                     .ipiv = ipiv, .info = info, .batch = 1};
    CHECK(cpu_lapack_run(&l, &err) == 0 && info[0] == 0);
    l.op = CM_LA_GETRS;
    l.nrhs = 1;
    l.b = b;
    l.ldb = 2;
    CHECK(cpu_lapack_run(&l, &err) == 0 && info[0] == 0);
    CHECK(NEAR(b[0], 0.5) && NEAR(b[1], 0));

    /* a batch of two: the second singular (its info > 0) */
    float s[8] = {1, 0, 0, 1, 1, 2, 2, 4};
    int piv2[4], info2[2];
    cm_lapack_t lu = {.op = CM_LA_GETRF, .type = CM_LA_F32, .m = 2, .n = 2, .a = s, .lda = 2,
                      .stride_a = 4, .ipiv = piv2, .stride_ipiv = 2, .info = info2, .batch = 2};
    CHECK(cpu_lapack_run(&lu, &err) == 0 && info2[0] == 0 && info2[1] > 0);

    /* Cholesky of [[4, 2], [2, 3]]: L = [[2, 0], [1, sqrt 2]]; of -I: not positive definite */
    double c[4] = {4, 2, 2, 3}, m[4] = {-1, 0, 0, -1};
    cm_lapack_t ch = {.op = CM_LA_POTRF, .type = CM_LA_F64, .m = 2, .n = 2, .a = c, .lda = 2,
                      .info = info, .batch = 1};
    CHECK(cpu_lapack_run(&ch, &err) == 0 && info[0] == 0);
    CHECK(NEAR(c[0], 2) && NEAR(c[1], 1) && NEAR(c[3], sqrt(2)));
    ch.a = m;
    CHECK(cpu_lapack_run(&ch, &err) == 0 && info[0] > 0);

    /* eigenvalues of [[2, 1], [1, 2]]: 1 and 3, ascending */
    double e[4] = {2, 1, 1, 2}, w[2];
    cm_lapack_t ev = {.op = CM_LA_SYEVD, .type = CM_LA_F64, .m = 2, .n = 2, .job = 'V', .a = e,
                      .lda = 2, .w = w, .info = info, .batch = 1};
    CHECK(cpu_lapack_run(&ev, &err) == 0 && info[0] == 0);
    CHECK(NEAR(w[0], 1) && NEAR(w[1], 3));
    CHECK(NEAR(fabs(e[2]), sqrt(0.5)) && NEAR(fabs(e[3]), sqrt(0.5)));
}

int main(void)
{
    test_fft();
    test_lapack();
    return check_report("test_cpu_linalg");
}
