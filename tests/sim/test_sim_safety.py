"""The simulator is safe for beginners by default, through the real kernel:
memcheck is on unless turned off, so the first out-of-bounds write is a
report with its line; with memcheck off, simulated device memory lives in a
mapping of its own with inaccessible gaps around each allocation, so even a
huge unchecked overrun is CUDA's illegal-address error for the launch, never
a corrupted heap or a lost session; the timing magics time the unchecked
build and say so. Each test's kernels have names of their own, since the
module's tests share one session."""
import re

import pytest

from gpuc_testing.kernel import execute, execute_ok, value_of


def error_of(kc, code: str) -> str:
    run = execute(kc, code)
    assert run.status == "error", run.stream()
    assert run.ename == "CudaError", (run.ename, run.content["evalue"])
    return run.content["evalue"]


def cell_no(kc, code: str) -> int:
    return execute_ok(kc, code).content["execution_count"]


@pytest.fixture
def unchecked(kc):
    """memcheck off for one test, then on again (the default)."""
    execute_ok(kc, "%sim --no-memcheck")
    yield
    execute_ok(kc, "%sim --memcheck --no-racecheck")


def test_memcheck_is_on_by_default(kc):
    """(The beginner's bug under it: test_sim_check.py, the out-of-bounds test.)"""
    execute_ok(kc, "%device cpu")  # a GPU machine simulates too
    out = execute_ok(kc, "%sim").stream()
    assert "memcheck: on, the default" in out, out
    assert "racecheck: off" in out
    run = execute(kc, """%%kernel
__global__ void sb_fill(float *a) { a[threadIdx.x] = 1.0f; }""")
    assert run.status == "ok"
    err = error_of(kc, "{ float *a; cudaMalloc(&a, 400); sb_fill<<<1, 1000>>>(a); }")
    assert "out-of-bounds write of 4 bytes" in err and "thread [100,0,0]" in err, err


HOST_STATE = r"""
int sh_kept = 1234;
double *sh_host = malloc(4096 * sizeof(double));
for (int i = 0; i < 4096; i++) sh_host[i] = i * 0.5;
float *sh_before, *sh_small, *sh_after;
cudaMalloc(&sh_before, 1000 * sizeof(float));
cudaMalloc(&sh_small, 100 * sizeof(float));
cudaMalloc(&sh_after, 1000 * sizeof(float));
for (int i = 0; i < 1000; i++) { sh_before[i] = i; sh_after[i] = -i; }
ga_t sh_arr = ga_arange(F32, 0, 5000, 1);
"""

HOST_INTACT = r"""
double sh_sum = 0;
for (int i = 0; i < 4096; i++) sh_sum += sh_host[i];
int sh_bad = 0;
for (int i = 0; i < 1000; i++) sh_bad += sh_before[i] != i || sh_after[i] != -i;
char *sh_junk[200];
for (int i = 0; i < 200; i++) sh_junk[i] = malloc(100 + 37 * i);  /* the heap still works */
for (int i = 0; i < 200; i++) free(sh_junk[i]);
printf("%d %.1f %d %.1f\n", sh_kept, sh_sum, sh_bad, ga_sum(sh_arr));
"""


def test_huge_unchecked_overrun_is_an_illegal_address(kc, unchecked):
    k = cell_no(kc, """%%kernel
__global__ void sh_spill(float *a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[100 + i] = 1.0f;
}
__global__ void sh_far(float *a) {
    if (threadIdx.x == 7) a[1000000] = 1.0f;
}""")
    execute_ok(kc, HOST_STATE)
    want = f"{1234} {sum(i * 0.5 for i in range(4096)):.1f} 0 {sum(range(5000)):.1f}\n"
    assert execute_ok(kc, HOST_INTACT).stream() == want

    # a million threads each write one float past the 100: 4 MB of overrun
    err = error_of(kc, "sh_spill<<<(1000000 + 255) / 256, 256>>>(sh_small);")
    assert "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered" in err
    # the first write that reaches the gap: past the allocation's 512 rounded bytes
    assert (f"out-of-bounds write at cell {k}, line 4 by block [0,0,0], thread [28,0,0]: "
            "address 0x") in err, err
    assert "112 bytes after the end of the 400-byte cudaMalloc allocation" in err, err
    assert "(memcheck was off: this was the first access to reach the memory" in err
    assert "%sim --memcheck stops at the first bad access" in err
    assert "(in sh_spill, launched at cell" in err
    assert execute_ok(kc, HOST_INTACT).stream() == want

    # one thread, 4 MB past the buffer: in the gap, not in the next allocation
    err = error_of(kc, "sh_far<<<2, 32>>>(sh_small);")
    assert (f"out-of-bounds write at cell {k}, line 7 by block [0,0,0], thread [7,0,0]") in err, err
    assert "3999600 bytes after the end of the 400-byte cudaMalloc allocation" in err, err

    # cudaDeviceSynchronize returns the error, as on a GPU; the cell then reports it
    run = execute(kc, "sh_far<<<1, 32>>>(sh_small);\ncudaError_t sh_e = cudaDeviceSynchronize();\n"
                      "printf(\"%s %d\\n\", cudaGetErrorName(sh_e), (int)sh_e);")
    assert run.stream() == "cudaErrorIllegalAddress 700\n"
    assert run.ename == "CudaError"

    # later cells run, earlier variables are intact
    assert execute_ok(kc, HOST_INTACT).stream() == want
    assert value_of(kc, "sh_kept * 2") == "2468"
    run = execute_ok(kc, "sh_small[100] = 0; sh_spill<<<1, 1>>>(sh_small); cudaDeviceSynchronize();"
                         "printf(\"%g\\n\", sh_small[100]);")
    assert run.stream() == "1\n"  # a[100] lies in the 256-byte rounding: no fault, no error


def test_an_ignored_fault_is_sticky_until_the_cells_end(kc, unchecked):
    """A C host cell that ignores cudaDeviceSynchronize's return: every later
    runtime call of the cell returns the illegal address, as on a GPU, the
    cell fails at its end with the kernel's line and the launch's, and the
    next cell starts clean with the session's variables and memory kept."""
    k = cell_no(kc, """%%kernel
__global__ void st_wild(float *a) {
    a[threadIdx.x + 10000000] = 1.0f;
}""")
    execute_ok(kc, "int st_kept = 41; float *st_buf; cudaMalloc(&st_buf, 64 * sizeof(float));")
    run = execute(kc, """float st_host[64] = {0};
st_wild<<<1, 32>>>(st_buf);
cudaDeviceSynchronize();
float *st_more;
int st_m = cudaMalloc(&st_more, 256);
int st_c = cudaMemcpy(st_host, st_buf, sizeof st_host, cudaMemcpyDeviceToHost);
int st_l = cudaGetLastError(), st_l2 = cudaGetLastError();
printf("%d %d %d %d %d\n", st_m, st_c, st_l, st_l2, (int)cudaDeviceSynchronize());""")
    assert run.stream() == "700 700 700 700 700\n", run.describe()
    assert run.status == "error" and run.ename == "CudaError", run.describe()
    err = run.content["evalue"]
    assert "CUDA_ERROR_ILLEGAL_ADDRESS (700)" in err, err
    assert f"out-of-bounds write at cell {k}, line 3 by block [0,0,0], thread [" in err, err
    assert f"(in st_wild, launched at cell {run.content['execution_count']}, line 2)" in err, err
    run = execute_ok(kc, """float *st_next;
int st_rc = cudaMalloc(&st_next, 256);
st_buf[3] = 2.5f;
float st_back[64];
int st_rc2 = cudaMemcpy(st_back, st_buf, sizeof st_back, cudaMemcpyDeviceToHost);
printf("%d %d %d %g\n", st_kept + 1, st_rc, st_rc2 + (int)cudaGetLastError(), st_back[3]);""")
    assert run.stream() == "42 0 0 2.5\n", run.describe()


def test_use_after_free_unchecked_is_named(kc, unchecked):
    k = cell_no(kc, """%%kernel
__global__ void sh_uaf(const int *a, int *b) { b[threadIdx.x] = a[threadIdx.x]; }""")
    err = error_of(kc, "{ int *p, *q; cudaMalloc(&p, 256); cudaMalloc(&q, 256); cudaFree(p);\n"
                       "  sh_uaf<<<1, 4>>>(p, q); }")
    assert f"use-after-free read at cell {k}, line 2 by block [0,0,0], thread [0,0,0]" in err, err
    assert "released by cudaFree" in err


def test_device_arrays_are_guarded_too(kc, unchecked):
    execute_ok(kc, """%%kernel
__global__ void sh_arr_over(float *v) { v[blockIdx.x * blockDim.x + threadIdx.x] = 3.0f; }""")
    err = error_of(kc, "ga_t sh_v = ga_zeros(F32, 64);\nsh_arr_over<<<8, 256>>>(sh_v);")
    assert "out-of-bounds write at cell" in err
    # (the pool rounds the array's buffer up to its size class)
    assert re.search(r"0 bytes after the end of the \d+-byte device array at 0x", err), err
    run = execute_ok(kc, "printf(\"%g\\n\", ga_sum(sh_v));")
    assert run.stream() == "192\n"


def test_timing_magics_time_the_unchecked_build(kc):
    """A write just past a 100-float buffer (inside its 256-byte rounding):
    memcheck reports it, the unchecked build does not see it. The timing
    magics time the unchecked build, say so, and leave memcheck on."""
    execute_ok(kc, """%%kernel
__global__ void st_edge(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) a[i] = 1.0f;
}""")
    execute_ok(kc, "float *st_a; cudaMalloc(&st_a, 100 * sizeof(float));")
    err = error_of(kc, "st_edge<<<1, 128>>>(st_a, 100);")
    assert "out-of-bounds write of 4 bytes" in err and "thread [100,0,0]" in err

    out = execute_ok(kc, "%timeit -n 3 -r 2 st_edge<<<1, 128>>>(st_a, 100);").stream()
    assert "per loop" in out
    assert "GPU (simulated on the CPU, unchecked): " in out, out

    out = execute_ok(kc, "%%timeit -n 2 -r 2\nst_edge<<<1, 128>>>(st_a, 100);").stream()
    assert "GPU (simulated on the CPU, unchecked): " in out, out

    out = execute_ok(kc, "%%time\nst_edge<<<1, 128>>>(st_a, 100);\ncudaDeviceSynchronize();").stream()
    assert "Wall time:" in out
    assert "GPU time (simulated on the CPU, unchecked): " in out, out

    run = execute_ok(kc, """%%speedup -n 2 -r 2
//%% cpu
for (int i = 0; i <= 100; i++) st_a[i] = 1.0f;
//%% gpu
st_edge<<<1, 128>>>(st_a, 100);""")
    table = "".join(m["content"]["data"].get("text/plain", "")
                    for m in run.of_type("display_data", "execute_result"))
    assert "GPU kernels (simulated)" in table, run.describe()
    assert "the kernels ran on the CUDA simulator, timed unchecked" in table, table

    # memcheck is on again after them
    assert "memcheck: on" in execute_ok(kc, "%sim").stream()
    err = error_of(kc, "st_edge<<<1, 128>>>(st_a, 100);")
    assert "out-of-bounds write of 4 bytes" in err


def test_a_kernel_that_cannot_be_checked_runs_unchecked_with_a_note(kc):
    """A cell whose checked build fails (as one with GCC's __atomic builtins
    does where there is no NVRTC; here the checked build alone is refused,
    by the macro it is compiled with) runs unchecked, still guarded, with a
    note once, instead of failing; the failed build is not tried again."""
    execute_ok(kc, """%%kernel
#ifdef __GPUC_CHECK__
#error no checked build of this cell
#endif
__global__ void sc_unchecked(int *x) { atomicAdd(x, 1); }""")
    run = execute_ok(kc, "int *sc_x; cudaMallocManaged(&sc_x, sizeof(int), 1); *sc_x = 0;\n"
                         "sc_unchecked<<<2, 64>>>(sc_x); cudaDeviceSynchronize();\n"
                         "printf(\"%d\\n\", *sc_x);")
    assert run.stream() == "128\n"
    note = run.stream("stderr")
    assert "note: sc_unchecked runs without memcheck: " in note, note
    assert "no checked build of this cell" in note, note
    run = execute_ok(kc, "sc_unchecked<<<1, 8>>>(sc_x); cudaDeviceSynchronize();\n"
                         "printf(\"%d\\n\", *sc_x);")
    assert run.stream() == "136\n" and "without memcheck" not in run.stream("stderr")
