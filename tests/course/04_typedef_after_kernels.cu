// A typedef and a constant written after the kernel that uses a template
// parameter, and used by host code: one translation unit.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

typedef double ft;
const ft alpha = 0.5;
const int n = 4096;

int main()
{
    ft *x, *y;
    cudaMallocManaged(&x, n * sizeof(ft));
    cudaMallocManaged(&y, n * sizeof(ft));
    for (int i = 0; i < n; i++) { x[i] = i; y[i] = 1.0; }
    axpy<ft><<<(n + 127) / 128, 128>>>(alpha, x, y, n);
    cudaDeviceSynchronize();
    ft sum = 0;
    for (int i = 0; i < n; i++) sum += y[i];
    printf("sizeof(ft) = %zu\n", sizeof(ft));
    printf("y[10] = %.2f, sum = %.1f\n", y[10], sum);
    cudaFree(x); cudaFree(y);
    return 0;
}
