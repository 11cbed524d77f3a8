// Unified memory with prefetching to the device and back (CUDA 13's
// cudaMemLocation form of cudaMemPrefetchAsync).
#include <cstdio>
#include <cuda_runtime.h>

const size_t N = 8ULL * 1024ULL * 1024ULL / 8;

__global__ void init(float *a, size_t n)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = 1.0f + (float)(i % 3);
}

int main()
{
    int device = 0;
    cudaGetDevice(&device);
    float *a;
    cudaMallocManaged(&a, N * sizeof(float));
    cudaMemLocation loc = {};
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
    cudaMemPrefetchAsync(a, N * sizeof(float), loc, 0, 0);
    init<<<64, 256>>>(a, N);
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
    cudaMemPrefetchAsync(a, N * sizeof(float), loc, 0, 0);
    cudaDeviceSynchronize();
    double sum = 0;
    for (size_t i = 0; i < N; i++) sum += a[i];
    printf("N = %zu, sum = %.0f\n", N, sum);
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(a);
    return 0;
}
