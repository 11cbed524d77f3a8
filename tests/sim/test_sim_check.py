"""Memory checking (%sim --memcheck) and race checking (%sim --racecheck) on
the CUDA simulator, through the real kernel: each bug is reported with the
line of the cell, the thread and block, the allocation and the offset; the
session survives; correct code with barriers and atomics gives no report.
Each test's kernels have names of their own, since the module's tests share
one session."""
import re
import time

import numpy as np
import pytest

from gpuc_testing.kernel import execute, execute_ok, scaled
from gpuc_testing.sources import TILED_MATMUL


@pytest.fixture
def checks(kc):
    """Sets the checks for one test, from none (a GPU machine simulates
    too), then goes back to the defaults (memcheck on, racecheck off)."""
    def set_checks(options: str):
        execute_ok(kc, "%device cpu")
        return execute_ok(kc, f"%sim --no-memcheck --no-racecheck {options}").stream()
    yield set_checks
    execute_ok(kc, "%sim --memcheck --no-racecheck")


def error_of(kc, code: str) -> str:
    run = execute(kc, code)
    assert run.status == "error", run.stream()
    return run.content["evalue"]


def cell_no(kc, code: str) -> int:
    """Runs code (a kernel cell) and returns its execution count."""
    return execute_ok(kc, code).content["execution_count"]


def test_sim_shows_and_sets_the_checks(kc, checks):
    out = checks("--memcheck --no-racecheck")
    assert "memcheck: on" in out and "racecheck: off" in out
    out = execute_ok(kc, "%sim --racecheck --no-memcheck").stream()
    assert "memcheck: off" in out and "racecheck: on" in out
    run = execute(kc, "%sim --memchek")
    assert run.status == "error" and "unknown option '--memchek'" in run.content["evalue"]


@pytest.mark.parametrize("grid, block, who", [
    (2, 64, "block [1,0,0], thread [36,0,0]"),
    (1, 1000, "block [0,0,0], thread [100,0,0]"),  # issue 25's: 900 floats past 100
])
def test_out_of_bounds_names_line_thread_allocation_and_offset(kc, checks, grid, block, who):
    """With memcheck as it is by default (on: the fixture leaves the defaults)."""
    execute_ok(kc, "%device cpu")
    k = cell_no(kc, """%%kernel
__global__ void mc_oob(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = 2.0f * i;
}""")
    execute_ok(kc, "float *mc_a; cudaMalloc(&mc_a, 100 * sizeof(float)); int mc_kept = 41;")
    err = error_of(kc, f"mc_oob<<<{grid}, {block}>>>(mc_a, 100);")
    assert "CUDA_ERROR_ILLEGAL_ADDRESS (700)" in err
    assert f"out-of-bounds write of 4 bytes at cell {k}, line 4 by {who}" in err, err
    assert re.search(r"0 bytes after the end of the 400-byte cudaMalloc allocation at 0x", err), err
    assert "(in mc_oob, launched at cell" in err
    # the session is kept: variables, allocations and kernels
    run = execute_ok(kc, "mc_oob<<<1, 100>>>(mc_a, 100); cudaDeviceSynchronize();"
                         "printf(\"%d %g\\n\", mc_kept + 1, mc_a[99]);")
    assert run.stream() == "42 198\n"


def test_read_before_the_start(kc, checks):
    checks("--memcheck")
    k = cell_no(kc, """%%kernel
__global__ void mc_before(const int *x, int *y) {
    int t = threadIdx.x;
    y[t] = x[t - 2];
}""")
    err = error_of(kc, "{ int *x, *y; cudaMalloc(&x, 64); cudaMalloc(&y, 64);"
                       " mc_before<<<1, 16>>>(x, y); }")
    assert f"out-of-bounds read of 4 bytes at cell {k}, line 4 by block [0,0,0], thread [0,0,0]" in err
    assert "8 bytes before the start of the 64-byte cudaMalloc allocation" in err, err


def test_use_after_free(kc, checks):
    checks("--memcheck")
    k = cell_no(kc, """%%kernel
__global__ void mc_uaf(float *a) {
    a[threadIdx.x] += 1.0f;
}""")
    err = error_of(kc, "{ float *a; cudaMalloc(&a, 256); cudaFree(a); mc_uaf<<<1, 8>>>(a); }")
    assert f"use-after-free read of 4 bytes at cell {k}, line 3 by block [0,0,0], thread [0,0,0]" in err, err
    assert "byte 0 of the 256-byte cudaMalloc allocation" in err and "released by cudaFree" in err


def test_host_pointer_in_a_kernel(kc, checks):
    checks("--memcheck")
    k = cell_no(kc, """%%kernel
__global__ void mc_host(float *a) {
    a[threadIdx.x] = 1.0f;
}""")
    err = error_of(kc, "{ float *h = malloc(64); mc_host<<<1, 4>>>(h); }")
    assert f"invalid write of 4 bytes at cell {k}, line 3 by block [0,0,0], thread [0,0,0]" in err
    assert "not memory of the simulated device (a host pointer?" in err


def test_misaligned_access(kc, checks):
    checks("--memcheck")
    k = cell_no(kc, """%%kernel
__global__ void mc_misaligned(char *bytes) {
    int *p = (int *)(bytes + 1);
    p[threadIdx.x] = 7;
}""")
    err = error_of(kc, "{ char *b; cudaMalloc(&b, 64); mc_misaligned<<<1, 4>>>(b); }")
    assert "CUDA_ERROR_MISALIGNED_ADDRESS (716)" in err
    assert f"misaligned write of 4 bytes at cell {k}, line 4 by block [0,0,0], thread [0,0,0]" in err
    assert "byte 1 of the 64-byte cudaMalloc allocation" in err


def test_shared_memory_out_of_bounds(kc, checks):
    checks("--memcheck")
    k = cell_no(kc, """%%kernel
__global__ void mc_dyn(float *out) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x];
}""")
    err = error_of(kc, "{ float *o; cudaMalloc(&o, 4096); mc_dyn<<<1, 80, 256>>>(o); }")
    assert (f"out-of-bounds write of 4 bytes at cell {k}, line 4 by block [0,0,0], "
            "thread [64,0,0]") in err, err
    assert "0 bytes after the end of the 256 bytes of dynamic shared memory" in err


def test_overflow_from_one_static_shared_array_into_the_next(kc, checks):
    checks("--memcheck")
    k = cell_no(kc, """%%kernel
__global__ void mc_two(float *out, int n) {
    __shared__ float first[32];
    __shared__ float second[32];
    second[threadIdx.x % 32] = 1;
    first[threadIdx.x % n] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = first[threadIdx.x % 32] + second[threadIdx.x % 32];
}""")
    execute_ok(kc, "{ float *o; cudaMalloc(&o, 4096); mc_two<<<2, 64>>>(o, 32); }")
    err = error_of(kc, "{ float *o; cudaMalloc(&o, 4096); mc_two<<<2, 64>>>(o, 40); }")
    assert (f"out-of-bounds write of 4 bytes at cell {k}, line 6 by block [0,0,0], "
            "thread [32,0,0]") in err, err
    assert "0 bytes after the end of the 128-byte __shared__ array first" in err, err


def test_memcheck_passes_correct_kernels_and_device_arrays(kc, checks):
    checks("--memcheck")
    execute_ok(kc, """%%kernel
__device__ float mc_scale = 3.0f;
__global__ void mc_ok(int n, float *v) {
    __shared__ float tile[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? v[i] : 0.0f;
    __syncthreads();
    if (i < n) v[i] = tile[threadIdx.x] * mc_scale;
}""")
    run = execute_ok(kc, """{
ga_t ax = ga_arange(F32, 0, 100, 1);
mc_ok<<<4, 32>>>((int)ga_size(ax), ax);
printf("%g %g\\n", ga_item(ax, 11), ga_item(ax, 99));
}""")
    assert run.stream() == "33 297\n"


def test_race_on_one_global_sum(kc, checks):
    checks("--racecheck")
    k = cell_no(kc, """%%kernel
__global__ void rc_sum(const float *x, float *sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) *sum += x[i];
}""")
    err = error_of(kc, """{
float *x, *s; cudaMalloc(&x, 1000 * 4); cudaMalloc(&s, 4);
for (int i = 0; i < 1000; i++) x[i] = 1;
*s = 0;
rc_sum<<<4, 256>>>(x, s, 1000);
}""")
    assert "data race (racecheck) in global memory" in err, err
    assert (f"a read of 4 bytes at cell {k}, line 4 by block [0,0,0], thread [1,0,0], and a write "
            f"at cell {k}, line 4 by block [0,0,0], thread [0,0,0] before it") in err, err
    assert "byte 0 of the 4-byte cudaMalloc allocation" in err


def test_checked_kernels_share_the_sessions_device_variables(kc, checks):
    """A checked kernel reads and writes the one storage of a __device__
    variable: its own cell's (read back with cudaMemcpyFromSymbol) and an
    earlier cell's, where a race on it is found, with memcheck on as well."""
    checks("--racecheck --memcheck")
    cell_no(kc, """%%kernel
__device__ int dv_count;
__global__ void dv_bump(void) { atomicAdd(&dv_count, 1); }""")
    run = execute_ok(kc, """dv_bump<<<2, 32>>>();
cudaDeviceSynchronize();
int dv_h = 0;
cudaMemcpyFromSymbol(&dv_h, dv_count, sizeof dv_h);
dv_h""")
    assert run.result == "64", run.stream()
    r = cell_no(kc, """%%kernel
__global__ void dv_racy(void) {
    dv_count += 1;
}""")
    err = error_of(kc, "dv_racy<<<1, 32>>>();\ncudaDeviceSynchronize();")
    assert "data race (racecheck) in global memory" in err, err
    assert f"at cell {r}, line 3" in err
    assert "__device__ variable dv_count" in err
    assert "host" not in err  # memcheck knows the variable's storage: no host-pointer report


def test_race_lines_in_a_cell_that_declares_a_device_variable(kc, checks):
    # the checked variant turns the cell's __device__ variables into
    # references with one #define each: the lines it reports stay the
    # cell's (they were one too high per variable)
    checks("--racecheck")
    k = cell_no(kc, """%%kernel
__device__ int dl_total;
__device__ float dl_other;
__global__ void dl_racy(const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dl_total += x[i];
}""")
    err = error_of(kc, """{
int *x; cudaMallocManaged(&x, 256 * sizeof(int));
for (int i = 0; i < 256; i++) x[i] = 1;
dl_racy<<<2, 128>>>(x, 256);
cudaDeviceSynchronize();
}""")
    assert (f"a read of 4 bytes at cell {k}, line 6 by block [0,0,0], thread [1,0,0], and a write "
            f"at cell {k}, line 6 by block [0,0,0], thread [0,0,0] before it") in err, err
    assert "__device__ variable dl_total" in err, err


def test_race_reading_a_shared_tile_before_the_barrier(kc, checks):
    checks("--racecheck")
    k = cell_no(kc, """%%kernel
__global__ void rc_tile(const float *x, float *y) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = x[t];
    y[t] = tile[63 - t];
}""")
    err = error_of(kc, "{ float *x, *y; cudaMalloc(&x, 256); cudaMalloc(&y, 256);"
                       " rc_tile<<<1, 64>>>(x, y); }")
    assert "data race (racecheck) in shared memory" in err, err
    assert (f"a write of 4 bytes at cell {k}, line 5 by block [0,0,0], thread [32,0,0], and a read "
            f"at cell {k}, line 6 by block [0,0,0], thread [31,0,0] before it") in err, err
    assert "the 256-byte __shared__ array tile" in err
    # with the barrier, no race; and --no-racecheck turns checking off
    execute_ok(kc, "%sim --no-racecheck")
    execute_ok(kc, "{ float *x, *y; cudaMalloc(&x, 256); cudaMalloc(&y, 256);"
                   " rc_tile<<<1, 64>>>(x, y); }")


def test_no_false_race_on_correct_code(kc, checks):
    checks("--racecheck --memcheck")
    # a shared-memory tree reduction with barriers, then an atomic per block
    execute_ok(kc, """%%kernel
__global__ void rc_reduce(const float *x, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}
__global__ void rc_histo(const int *x, int n, int *bins) {
    __shared__ int local[16];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t < 16) local[t] = 0;
    __syncthreads();
    if (i < n) atomicAdd(&local[x[i] % 16], 1);
    __syncthreads();
    if (t < 16) atomicAdd(&bins[t], local[t]);
}""")
    execute_ok(kc, "%%kernel" + TILED_MATMUL.replace("bench_matmul", "rc_matmul"))
    n = 64
    run = execute_ok(kc, f"""{{
int n = 100000;
float *x, *out; cudaMalloc(&x, n * 4); cudaMalloc(&out, 4);
for (int i = 0; i < n; i++) x[i] = 1.0f;
*out = 0;
rc_reduce<<<(n + 255) / 256, 256>>>(x, out, n);
cudaDeviceSynchronize();
printf("sum=%.1f\\n", *out);
int *xi, *bins; cudaMalloc(&xi, n * 4); cudaMalloc(&bins, 16 * 4);
for (int i = 0; i < n; i++) xi[i] = i * 7;
cudaMemset(bins, 0, 16 * 4);
rc_histo<<<(n + 255) / 256, 256>>>(xi, n, bins);
cudaDeviceSynchronize();
for (int b = 0; b < 16; b++) printf("%d ", bins[b]);
printf("\\n");
int m = {n};
float *A, *B, *C; cudaMalloc(&A, m * m * 4); cudaMalloc(&B, m * m * 4); cudaMalloc(&C, m * m * 4);
for (int i = 0; i < m * m; i++) {{ A[i] = (i % 7) * 0.5f; B[i] = (i % 5) - 2.0f; }}
dim3 block(16, 16); dim3 grid(m / 16, m / 16);
rc_matmul<<<grid, block>>>(A, B, C, m);
cudaDeviceSynchronize();
for (int i = 0; i < m * m; i++) printf("%g ", C[i]);
}}""")
    lines = run.stream().splitlines()
    assert lines[0] == "sum=100000.0"
    want = np.bincount((np.arange(100000) * 7) % 16, minlength=16)
    assert [int(v) for v in lines[1].split()] == want.tolist()
    got = np.array([float(v) for v in lines[2].split()]).reshape(n, n)
    i = np.arange(n * n)
    assert np.allclose(got, ((i % 7) * 0.5).reshape(n, n) @ ((i % 5) - 2.0).reshape(n, n))


def test_fences_order_blocks_for_racecheck(kc, checks):
    """__threadfence() is a release and an atomic (or a fence) after it an
    acquire: the last-block reduction is no race; without the fence, or
    reading the partials before taking the ticket, it is one."""
    checks("--racecheck")
    k = cell_no(kc, """%%kernel
__global__ void rc_lastblock(const int *x, int *partial, int *total, int fence, int early,
                             unsigned *rc_done) {
    __shared__ bool last;
    int t = threadIdx.x;
    if (t == 0) {
        partial[blockIdx.x] = x[blockIdx.x] * 2;
        if (fence) __threadfence();
        int peek = early ? partial[(blockIdx.x + 1) % gridDim.x] : 0;
        last = atomicInc(rc_done, gridDim.x - 1) == gridDim.x - 1; /* wraps to 0 */
        if (peek < 0) *total = peek;
    }
    __syncthreads();
    if (last && t < gridDim.x) atomicAdd(total, partial[t]);
}""")
    host = """{{
int *x, *partial, *total; cudaMallocManaged(&x, 64); cudaMallocManaged(&partial, 64);
unsigned *done; cudaMallocManaged(&total, 4); cudaMallocManaged(&done, 4);
for (int i = 0; i < 16; i++) x[i] = i;
*total = 0; *done = 0;
rc_lastblock<<<16, 32>>>(x, partial, total, {fence}, {early}, done);
cudaDeviceSynchronize();
printf("total=%d\\n", *total);
}}"""
    assert "total=240" in execute_ok(kc, host.format(fence=1, early=0)).stream()
    err = error_of(kc, host.format(fence=0, early=0))
    assert "data race (racecheck) in global memory" in err, err
    assert (f"a read of 4 bytes at cell {k}, line 14 by block [15,0,0], thread [0,0,0], and a "
            f"write at cell {k}, line 7 by block [0,0,0], thread [0,0,0] before it") in err, err
    err = error_of(kc, host.format(fence=1, early=1))  # a read before the ticket: no acquire
    assert (f"a write of 4 bytes at cell {k}, line 7 by block [1,0,0], thread [0,0,0], and a "
            f"read at cell {k}, line 9 by block [0,0,0], thread [0,0,0] before it") in err, err


def test_interrupt_a_checked_endless_kernel(fresh_kernel):
    km, kc = fresh_kernel
    execute_ok(kc, "%device cpu")
    execute_ok(kc, "%sim --memcheck --racecheck")
    execute_ok(kc, """%%kernel
__global__ void rc_forever(volatile int *flag) {
    while (*flag == 0) { }
}""")
    execute_ok(kc, "int *flag; cudaMalloc(&flag, 4); cudaMemset(flag, 0, 4); int kept = 5;")
    t0 = time.monotonic()
    run = execute(kc, "rc_forever<<<1, 32>>>(flag);", actions=[(scaled(1.0), km.interrupt_kernel)],
                  timeout=scaled(30))
    assert run.status == "error"
    assert time.monotonic() - t0 < scaled(10)
    trace = "\n".join(run.content["traceback"])
    assert re.search(r"the simulated kernel rc_forever \(launched at cell \d+, line 1\) stopped",
                     trace), trace
    # the session is kept, and checking goes on for later launches
    execute_ok(kc, "%%kernel\n__global__ void rc_setone(volatile int *f) { *f = 1; }")
    run = execute_ok(kc, "rc_setone<<<1, 1>>>(flag); rc_forever<<<1, 32>>>(flag);"
                         "printf(\"done %d\\n\", kept);")
    assert "done 5" in run.stream()
    err = error_of(kc, "{ int *small; cudaMalloc(&small, 4); rc_setone<<<1, 1>>>(small + 1); }")
    assert "out-of-bounds write of 4 bytes" in err
