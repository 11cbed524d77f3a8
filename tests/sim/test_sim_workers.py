"""The simulator's worker threads (%sim --threads N) through the real kernel:
a launch's blocks run on several CPU cores at once, with the same results,
printf output and errors as on one (docs/simulator.md). Each test's kernels
have names of their own, since the module's tests share one session."""
import re

import numpy as np
import pytest

from gpuc_testing.kernel import execute, execute_ok, value_of
from gpuc_testing.sources import TILED_MATMUL

# on a machine with a GPU too, the module's kernel cells run simulated, and
# unchecked: this module is about several workers, and a checked launch runs
# on one
pytestmark = pytest.mark.usefixtures("unchecked")


@pytest.fixture(scope="module")
def unchecked(simulated):
    execute_ok(simulated, "%sim --no-memcheck")
    return simulated

WORKERS = (1, 2, 4)


def with_threads(kc, n: int, code: str) -> str:
    """The output of code run with n worker threads."""
    execute_ok(kc, f"%sim --threads {n}")
    try:
        return execute_ok(kc, code).stream()
    finally:
        execute_ok(kc, "%sim --threads auto")


def test_sim_threads_says_how_many_workers(kc):
    out = execute_ok(kc, "%sim --threads 3").stream()
    assert "workers: 3 threads (blocks run on 3 CPU cores at once)" in out
    out = execute_ok(kc, "%sim --threads auto").stream()
    assert re.search(r"workers: (1 \(|\d+ threads).*, the default", out), out


def test_reduction_with_atomics_is_the_same_on_any_number_of_workers(kc):
    execute_ok(kc, """%%kernel
__global__ void w_reduce(const float *x, int n, float *sum, int *count, double *dsum,
                         unsigned *maxi, int *cas) {
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) {
        atomicAdd(sum, s[0]);
        atomicAdd(dsum, (double)s[0]);
        atomicAdd(count, 1);
        atomicMax(maxi, (unsigned)blockIdx.x);
        int old;
        do { old = *(volatile int *)cas; } while (atomicCAS(cas, old, old + 2) != old);
    }
}""")
    host = """{
int n = 300000, nb = (n + 127) / 128;
float *x, *sum; int *count, *cas; double *dsum; unsigned *maxi;
cudaMallocManaged(&x, n * 4); cudaMallocManaged(&sum, 4); cudaMallocManaged(&count, 4);
cudaMallocManaged(&dsum, 8); cudaMallocManaged(&maxi, 4); cudaMallocManaged(&cas, 4);
for (int i = 0; i < n; i++) x[i] = (i % 100) * 0.01f;
*sum = 0; *count = 0; *dsum = 0; *maxi = 0; *cas = 0;
w_reduce<<<nb, 128>>>(x, n, sum, count, dsum, maxi, cas);
cudaDeviceSynchronize();
printf("%.3f %d %.6f %u %d\\n", *sum, *count, *dsum, *maxi, *cas);
}"""
    runs = [with_threads(kc, w, host).split() for w in WORKERS]
    want_sum = sum((i % 100) * 0.01 for i in range(300000))
    for r in runs:
        assert r[1] == "2344" and r[3] == "2343" and r[4] == str(2 * 2344), r  # ints exact
        assert abs(float(r[0]) - want_sum) < 1e-4 * want_sum, r  # float sums: any order
        assert abs(float(r[2]) - want_sum) < 1e-6 * want_sum, r


def test_histogram_int_and_float_bins(kc):
    execute_ok(kc, """%%kernel
__global__ void w_histo(const int *x, int n, int *bins, float *weights) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&bins[x[i] % 16], 1);
        atomicAdd(&weights[x[i] % 16], 0.5f);
    }
}""")
    host = """{
int n = 200003;
int *x, *bins; float *w;
cudaMallocManaged(&x, n * 4); cudaMallocManaged(&bins, 64); cudaMallocManaged(&w, 64);
for (int i = 0; i < n; i++) x[i] = i * 7 + i / 3;
cudaMemset(bins, 0, 64); cudaMemset(w, 0, 64);
w_histo<<<(n + 255) / 256, 256>>>(x, n, bins, w);
cudaDeviceSynchronize();
for (int b = 0; b < 16; b++) printf("%d ", bins[b]);
printf("| ");
for (int b = 0; b < 16; b++) printf("%.1f ", w[b]);
}"""
    i = np.arange(200003)
    want = np.bincount((i * 7 + i // 3) % 16, minlength=16)
    for w in WORKERS:
        ints, floats = with_threads(kc, w, host).split("|")
        assert [int(v) for v in ints.split()] == want.tolist()
        assert np.allclose([float(v) for v in floats.split()], want * 0.5, rtol=1e-5)


def test_tiled_matmul_identical(kc):
    execute_ok(kc, "%%kernel" + TILED_MATMUL.replace("bench_matmul", "w_matmul"))
    host = """{
int m = 128;
float *A, *B, *C;
cudaMallocManaged(&A, m * m * 4); cudaMallocManaged(&B, m * m * 4); cudaMallocManaged(&C, m * m * 4);
for (int i = 0; i < m * m; i++) { A[i] = (i % 13) * 0.25f; B[i] = (i % 7) - 3; }
w_matmul<<<dim3(m / 16, m / 16), dim3(16, 16)>>>(A, B, C, m);
cudaDeviceSynchronize();
double s = 0; for (int i = 0; i < m * m; i++) s += C[i] * (i % 5 + 1);
printf("%.1f %.3f %.3f\\n", s, C[0], C[m * m - 1]);
}"""
    runs = {with_threads(kc, w, host) for w in WORKERS}
    assert len(runs) == 1, runs  # each element is one thread's sum: the same bits
    i = np.arange(128 * 128)
    a = ((i % 13) * 0.25).reshape(128, 128)
    b = ((i % 7) - 3).astype(float).reshape(128, 128)
    c = (a @ b).ravel()
    assert float(runs.pop().split()[0]) == float(f"{(c * (i % 5 + 1)).sum():.1f}")


def test_last_block_pattern_with_threadfence(kc):
    """The classic reduction in one pass: each block writes its partial sum,
    __threadfence(), and the last block to finish (a ticket from atomicInc)
    sums the partials."""
    execute_ok(kc, """%%kernel
__device__ unsigned int w_done = 0;
__global__ void w_onepass(const int *x, int n, volatile int *partial, int *total) {
    __shared__ bool last;
    __shared__ int s[64];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0;
    __syncthreads();
    if (t == 0) {
        int acc = 0;
        for (int k = 0; k < blockDim.x; k++) acc += s[k];
        partial[blockIdx.x] = acc;
        __threadfence();
        unsigned ticket = atomicInc(&w_done, gridDim.x);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last && t == 0) {
        int acc = 0;
        for (int b = 0; b < gridDim.x; b++) acc += partial[b];
        *total = acc;
        w_done = 0;
    }
}""")
    host = """{
int n = 64 * 500, *x, *partial, *total;
cudaMallocManaged(&x, n * 4); cudaMallocManaged(&partial, 500 * 4); cudaMallocManaged(&total, 4);
for (int i = 0; i < n; i++) x[i] = i % 9;
*total = -1;
for (int r = 0; r < 5; r++) { w_onepass<<<500, 64>>>(x, n, partial, total); cudaDeviceSynchronize();
    printf("%d ", *total); }
}"""
    want = sum(i % 9 for i in range(64 * 500))
    for w in WORKERS:
        assert with_threads(kc, w, host).split() == [str(want)] * 5


def test_printf_order_is_the_same_with_any_workers_and_seed(kc):
    execute_ok(kc, """%%kernel
__global__ void w_hello(int rounds) {
    for (int r = 0; r < rounds; r++) {
        printf("b%d t%d r%d\\n", blockIdx.x, threadIdx.x, r);
        __syncthreads();
    }
}""")
    code = "w_hello<<<40, 8>>>(2); cudaDeviceSynchronize();"
    want = "".join(f"b{b} t{t} r{r}\n" for b in range(40) for t in range(8) for r in range(2))
    for w in WORKERS:
        assert with_threads(kc, w, code) == want
    execute_ok(kc, "%sim --seed 11")
    try:
        assert with_threads(kc, 4, code) == want  # a seed runs one worker; output by block
    finally:
        execute_ok(kc, "%sim --seed off")


def test_fault_in_one_block_of_many_is_reported_once(kc):
    execute_ok(kc, """%%kernel
__global__ void w_wild(float *v) {
    if (blockIdx.x == 37 && threadIdx.x == 5) v[(size_t)1 << 36] = 1.0f;
    v[threadIdx.x] = 2.0f;
}""")
    execute_ok(kc, "float *wv; cudaMalloc(&wv, 64 * sizeof(float));")
    for w in (4, 1):
        execute_ok(kc, f"%sim --threads {w}")
        run = execute(kc, "int w_after = 0;\nw_wild<<<200, 32>>>(wv);\nw_after = 1;")
        assert run.ename == "CudaError", run.describe()
        err = run.content["evalue"]
        assert err.count("CUDA_ERROR_ILLEGAL_ADDRESS (700)") == 1, err
        assert re.search(r"out-of-bounds write at cell \d+, line 3 by block \[37,0,0\], "
                         r"thread \[5,0,0\]: address 0x[0-9a-f]+, 274877906688 bytes after the "
                         r"end of the 256-byte cudaMalloc allocation", err), err
        assert err.count("(in w_wild, launched at cell") == 1, err
        # the error is the launch's, reported at the end of the cell: the
        # statements after the launch ran, as on a GPU
        assert value_of(kc, "w_after") == "1"
        assert value_of(kc, "6 * 7") == "42"  # the session is kept
        out = execute_ok(kc, "w_wild<<<8, 32>>>(wv); cudaDeviceSynchronize(); printf(\"ok\\n\");")
        assert "ok" in out.stream()  # and the next launch runs
    execute_ok(kc, "%sim --threads auto")


def test_device_assert_first_in_block_order(kc):
    execute_ok(kc, """%%kernel
__global__ void w_assert(int from) {
    assert(blockIdx.x < from || threadIdx.x != 3);
}""")
    for w in (4, 1):
        execute_ok(kc, f"%sim --threads {w}")
        run = execute(kc, "w_assert<<<300, 16>>>(123); cudaDeviceSynchronize();")
        assert run.status == "error"
        text = run.stream() + "\n".join(run.content.get("traceback", []))
        assert "block [123,0,0], thread [3,0,0]" in text, text
        assert "block [124,0,0]" not in text, text
    execute_ok(kc, "%sim --threads auto")


def test_threads_usage_errors(kc):
    for bad in ("--threads", "--threads 0", "--threads x", "--threads 257", "--threads -2"):
        run = execute(kc, f"%sim {bad}")
        assert run.ename == "UsageError", (bad, run.describe())
        assert "--threads: give a number from 1 to 256, or auto" in run.content["evalue"]
