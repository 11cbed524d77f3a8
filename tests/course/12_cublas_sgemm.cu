// cuBLAS: SGEMM on column-major matrices, and SAXPY, checked on the CPU.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cublas_v2.h>

int main()
{
    const int m = 64, n = 48, k = 32;
    float *A = (float *)malloc(m * k * sizeof(float)), *B = (float *)malloc(k * n * sizeof(float));
    float *C = (float *)malloc(m * n * sizeof(float));
    for (int i = 0; i < m * k; i++) A[i] = (float)(i % 7) - 3;
    for (int i = 0; i < k * n; i++) B[i] = (float)(i % 5) - 2;
    float *dA, *dB, *dC;
    cudaMalloc(&dA, m * k * sizeof(float));
    cudaMalloc(&dB, k * n * sizeof(float));
    cudaMalloc(&dC, m * n * sizeof(float));
    cublasHandle_t h;
    cublasStatus_t st = cublasCreate(&h);
    printf("cublasCreate: %d\n", (int)st);
    cublasSetMatrix(m, k, sizeof(float), A, m, dA, m);
    cublasSetMatrix(k, n, sizeof(float), B, k, dB, k);
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA, m, dB, k, &zero, dC, m);
    cublasGetMatrix(m, n, sizeof(float), dC, m, C, m);
    double maxdiff = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float ref = 0;
            for (int p = 0; p < k; p++) ref += A[p * m + i] * B[j * k + p];
            double d = C[j * m + i] - ref;
            if (d < 0) d = -d;
            if (d > maxdiff) maxdiff = d;
        }
    const float two = 2.0f;
    cublasSaxpy(h, m * n, &two, dC, 1, dC, 1);    // C = 3 C
    float c0;
    cudaMemcpy(&c0, dC, sizeof c0, cudaMemcpyDeviceToHost);
    printf("C[0][0] = %.0f, 3 * C[0][0] = %.0f, max difference %.1f\n", C[0], c0, maxdiff);
    cublasDestroy(h);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C);
    return 0;
}
