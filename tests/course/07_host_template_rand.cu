// Host code of a .cu file is C++: a host function template, functional
// casts (double(rand())) and srand for reproducible data.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <typename T>
void alloc_bytes(T &ptr, size_t n) { cudaMallocManaged(&ptr, n); }

template <typename T>
T host_sum(const T *v, int n) { T s = T(0); for (int i = 0; i < n; i++) s += v[i]; return s; }

__global__ void square(double *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

int main()
{
    const int n = 1000;
    double *v;
    alloc_bytes(v, n * sizeof(double));
    srand(2024);
    for (int i = 0; i < n; i++)
        v[i] = double(rand() % 1000) / 100.0;
    double before = host_sum(v, n);
    square<<<(n + 255) / 256, 256>>>(v, n);
    cudaDeviceSynchronize();
    double after = host_sum(v, n);
    printf("sum before %.2f, sum of squares %.4f\n", before, after);
    cudaFree(v);
    return 0;
}
