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


# Kernels whose counts are known from their source, for %%profile:
# tests/sim/test_profile_sim.py checks the simulator's bytes and FLOPs of
# them, tests/gpu/profile_gpu.py CUPTI's. saxpy: 8 bytes read, 4 written and
# 2 FP32 FLOPs (a multiply and an add; one FFMA on a GPU) per element;
# daxpy: 16, 8 and 2 FP64 FLOPs (one fma).
AXPY_KERNELS = r"""
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void daxpy(int n, double a, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fma(a, x[i], y[i]);
}
"""
