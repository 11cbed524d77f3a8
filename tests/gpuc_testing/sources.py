"""CUDA source text that tests and benchmarks both run: kernels, and the
host C of the benchmarks' timed cells."""

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


def per_call_ms(e0="e0", e1="e1"):
    """Host C for a benchmark's setup cell: two CUDA events, named e0 and e1
    (others where the cell's arrays take those names), and per_call_ms(f, n):
    f's GPU time per call in ms over n back-to-back calls after two warm-up
    calls, between the events on the default stream. The GPU benchmarks
    (bench/bench_math.py, bench_linalg.py, bench_arrays2.py) time gpuc so,
    and CuPy so with bench.cupy_per_call_ms."""
    return f"""cudaEvent_t {e0}, {e1};
cudaEventCreate(&{e0}); cudaEventCreate(&{e1});
double per_call_ms(void (*f)(void), int n)
{{
    f(); f();
    cudaDeviceSynchronize();
    cudaEventRecord({e0}, 0);
    for (int i = 0; i < n; i++) f();
    cudaEventRecord({e1}, 0);
    cudaEventSynchronize({e1});
    float ms = 0;
    cudaEventElapsedTime(&ms, {e0}, {e1});
    return ms / n;
}}"""


def timed_case(k, stmt, reps):
    """A cell that times stmt (a function body) over reps calls with
    per_call_ms and prints "T k MS" (bench.case_times reads them)."""
    return (f"void case{k}(void) {{ {stmt} }}\n"
            f'printf("T {k} %.6f\\n", per_call_ms(case{k}, {reps}));')
