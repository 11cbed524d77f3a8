"""CUDA source text that tests and benchmarks both run."""

# A shared-memory tiled float matmul (16x16 tiles, two __syncthreads() per
# tile), C = A B for n x n matrices, n a multiple of 16, launched with
# 16x16 blocks on an (n/16, n/16) grid: bench/bench_sim.py times it against
# Numba's simulator; tests/sim check its results (rename the kernel with
# .replace("bench_matmul", ...) to launch it under another name).
TILED_MATMUL = r"""
#define TILE 16
__global__ void bench_matmul(const float *A, const float *B, float *C, int n) {
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}"""
