// __constant__ and __device__ variables set and read through the symbol
// functions, a polynomial evaluated with coefficients in constant memory.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ float coef[4];
__device__ int calls;

__global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]));
        atomicAdd(&calls, 1);
    }
}

int main()
{
    const int n = 1000;
    float hc[4] = {1.0f, -2.0f, 0.5f, 0.25f};
    cudaMemcpyToSymbol(coef, hc, sizeof hc);
    int zero = 0;
    cudaMemcpyToSymbol(calls, &zero, sizeof zero);
    float *x, *y;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    for (int i = 0; i < n; i++) x[i] = i / 100.0f;
    poly<<<(n + 127) / 128, 128>>>(x, y, n);
    cudaDeviceSynchronize();
    int ncalls = 0;
    cudaMemcpyFromSymbol(&ncalls, calls, sizeof ncalls);
    printf("y[0] = %.3f, y[100] = %.3f, y[999] = %.3f, threads that ran: %d\n", y[0], y[100],
           y[999], ncalls);
    cudaFree(x); cudaFree(y);
    return 0;
}
