// Matrix transpose through a shared-memory tile, with namespace-scope
// constants used in device code (nvcc allows constant-initialised consts).
#include <cstdio>
#include <cuda_runtime.h>

const int block_size = 32;
const int N = 1024;
const float scale = 2.0f;

__global__ void transpose(float *out, const float *in)
{
    __shared__ float tile[block_size][block_size + 1];
    int x = blockIdx.x * block_size + threadIdx.x;
    int y = blockIdx.y * block_size + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * N + x] * scale;
    __syncthreads();
    x = blockIdx.y * block_size + threadIdx.x;
    y = blockIdx.x * block_size + threadIdx.y;
    out[y * N + x] = tile[threadIdx.x][threadIdx.y];
}

int main()
{
    float *in, *out;
    cudaMallocManaged(&in, N * N * sizeof(float));
    cudaMallocManaged(&out, N * N * sizeof(float));
    for (int i = 0; i < N * N; i++)
        in[i] = (float)(i % 997);
    dim3 grid(N / block_size, N / block_size), block(block_size, block_size);
    transpose<<<grid, block>>>(out, in);
    cudaDeviceSynchronize();
    long bad = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            bad += out[c * N + r] != in[r * N + c] * scale;
    printf("out[1] = %.1f, out[N] = %.1f\n", out[1], out[N]);
    printf("mismatches: %ld\n", bad);
    cudaFree(in);
    cudaFree(out);
    return 0;
}
