// Tiled matrix multiplication with a constexpr tile and a struct of sizes.
#include <cstdio>
#include <vector>
#include <cmath>

constexpr int TILE = 16;
const size_t M = 128, K = 96, Ncols = 64;

__global__ void matmul(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < m && ac < k ? A[row * k + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = br < k && col < n ? B[br * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++)
            acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n)
        C[row * n + col] = acc;
}

int main()
{
    std::vector<float> a(M * K), b(K * Ncols), c(M * Ncols), ref(M * Ncols, 0.0f);
    for (size_t i = 0; i < a.size(); i++) a[i] = (float)((i * 7) % 11) - 5.0f;
    for (size_t i = 0; i < b.size(); i++) b[i] = (float)((i * 3) % 13) - 6.0f;
    for (size_t r = 0; r < M; r++)
        for (size_t j = 0; j < Ncols; j++)
            for (size_t i = 0; i < K; i++)
                ref[r * Ncols + j] += a[r * K + i] * b[i * Ncols + j];
    float *dA, *dB, *dC;
    cudaMalloc(&dA, a.size() * sizeof(float));
    cudaMalloc(&dB, b.size() * sizeof(float));
    cudaMalloc(&dC, c.size() * sizeof(float));
    cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE), grid((Ncols + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul<<<grid, block>>>(dA, dB, dC, M, K, Ncols);
    cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
    double maxdiff = 0;
    for (size_t i = 0; i < c.size(); i++)
        maxdiff = std::fmax(maxdiff, std::fabs(c[i] - ref[i]));
    printf("C[0][0] = %.0f, C[127][63] = %.0f\n", c[0], c[M * Ncols - 1]);
    printf("max difference from the CPU: %.1f\n", maxdiff);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
