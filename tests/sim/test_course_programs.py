"""Whole .cu programs as CUDA courses write them (tests/course/NN_name.cu),
each pasted into one `%%cuda` cell of the real kernel, here on the CUDA
simulator: its stdout must be the program's recorded output
(NN_name.expect, what nvcc's build prints on a GPU: tests/course/run_gpu.sh
checks that there). The programs the simulator cannot run say so plainly
instead (SIMULATOR_GAPS). Then what a whole program keeps of a session:
the cache of a cell run again, quiet output, exit(), errors on the cell's
lines. The module's tests share one kernel."""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from gpuc_testing.kernel import collect, execute, execute_ok, scaled, value_of

COURSE = Path(__file__).resolve().parent.parent / "course"
PROGRAMS = sorted(p.stem for p in COURSE.glob("*.cu"))

# what the simulator says for the programs it cannot run like a GPU:
# (error name or None, text in the error or the cell's output)
SIMULATOR_GAPS = {
    "06_grid_sync": ("CudaError", "grid.sync() of a grid of several blocks"),
    "11_cub_reduce": ("CudaUnavailable", "CUB's device algorithms need a GPU"),
    "12_cublas_sgemm": (None, "cuBLAS needs a GPU"),
}


def cell_of(name: str, flags: str = "") -> str:
    return f"%%cuda{flags}\n" + (COURSE / f"{name}.cu").read_text()


def test_every_program_has_its_output():
    assert len(PROGRAMS) >= 15
    for name in PROGRAMS:
        assert (COURSE / f"{name}.expect").read_text().strip(), name


@pytest.mark.parametrize("name", [p for p in PROGRAMS if p not in SIMULATOR_GAPS])
def test_program_prints_what_nvcc_gives(kc, name):
    run = execute(kc, cell_of(name), timeout=scaled(180))
    assert run.status == "ok", run.describe()
    assert run.stream() == (COURSE / f"{name}.expect").read_text(), run.describe()
    assert "compiled" not in run.stream("stderr"), run.describe()  # quiet by default


@pytest.mark.parametrize("name", sorted(SIMULATOR_GAPS))
def test_simulator_says_what_it_cannot_run(kc, name):
    ename, text = SIMULATOR_GAPS[name]
    run = execute(kc, cell_of(name), timeout=scaled(180))
    said = run.stream() + run.stream("stderr")
    if run.status == "error":
        said += run.content["evalue"]
    assert run.ename == ename, run.describe()
    assert text in said, run.describe()


def test_a_program_run_again_compiles_nothing(kc):
    """The Thrust program takes seconds to compile; run again unchanged
    (a new cell number), it loads the object it built."""
    first = execute_ok(kc, cell_of("10_thrust", " --verbose"), timeout=scaled(180))
    t0 = time.perf_counter()
    again = execute_ok(kc, cell_of("10_thrust", " --verbose"))
    took = time.perf_counter() - t0
    assert "cache hit" in again.stream("stderr"), again.describe()
    assert "compiled the program" in first.stream("stderr") + again.stream("stderr") or \
        "cache hit" in first.stream("stderr")
    assert again.stream() == (COURSE / "10_thrust.expect").read_text()
    print(f"\n10_thrust run again: {took * 1e3:.0f} ms for the whole cell")
    assert took < scaled(1.0), f"{took:.3f} s"


def test_namespace_scope_names_are_one_units(kc):
    """What the split broke: a namespace-scope const in device code, a
    typedef after the kernels, a host template, double(rand())."""
    run = execute_ok(kc, """%%cuda
#include <cstdio>
#include <cstdlib>
const float sqrt_2PIf = 2.50662f;
__global__ void scale(float *v) { v[threadIdx.x] *= sqrt_2PIf; }
typedef double ft;
template <typename T> void alloc_bytes(T &ptr, size_t n) { cudaMallocManaged(&ptr, n); }
int main() {
    float *v;
    alloc_bytes(v, 4 * sizeof(float));
    srand(1);
    for (int i = 0; i < 4; i++) v[i] = 1.0f + float(ft(rand() % 2) * 0.0);
    scale<<<1, 4>>>(v);
    cudaDeviceSynchronize();
    printf("%.5f %zu\\n", v[3], sizeof(ft));
    return 0;
}""")
    assert run.stream() == "2.50662 8\n", run.describe()


def test_exit_in_a_program_keeps_the_session(kc):
    execute_ok(kc, "int kept_by_session = 41;")
    run = execute(kc, """%%cuda
#include <cstdio>
#include <cstdlib>
__global__ void nothing() {}
int main() {
    printf("before exit\\n");
    exit(3);
}""")
    assert run.ename == "SystemExit", run.describe()
    assert "before exit" in run.stream()
    assert execute_ok(kc, "kept_by_session + 1").result == "42"


def test_errors_name_the_cells_lines(kc):
    run = execute(kc, """%%cuda
#include <cstdio>
__global__ void k(int *p) {
    *p = undeclared_in_kernel;
}
int main() { return 0; }""")
    assert run.ename == "CompileError", run.describe()
    assert "line 4" in run.content["evalue"], run.describe()
    run = execute(kc, """%%cuda
#include <cstdio>
__global__ void k(int *p) { *p = 1; }
int main() {
    double d = double( rand() );
    int x = not_declared_on_host;
    return 0;
}""")
    assert run.ename == "CompileError", run.describe()
    assert "line 6" in run.content["evalue"], run.describe()


def test_main_return_value_and_verbose_notes(kc):
    run = execute_ok(kc, "%%cuda --verbose\n__global__ void k() {}\n"
                         "int main() { k<<<1, 1>>>(); cudaDeviceSynchronize(); return 7; }")
    assert run.stream() == ""  # the notes are not the program's
    assert "for the CUDA simulator" in run.stream("stderr") or \
        "cache hit" in run.stream("stderr"), run.describe()
    assert run.result == "7", run.describe()


def test_nvccs_messages_on_the_cells_lines(gpuc_bin, tmp_path):
    """The GPU's route (nvcc compiles the cell as it is), forced here where
    it can compile but not run kernels: its front end's messages name the
    cell's lines."""
    nvcc = "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        pytest.skip("no nvcc")
    src = ("%%cuda\n#include <cstdio>\n__global__ void k(int *p) {\n"
           "    *p = not_a_name;\n}\nint main() { return 0; }")
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": src, "outputs": [],
                     "execution_count": None}],
          "metadata": {"kernelspec": {"name": "gpuc", "language": "c", "display_name": "gpuc"}},
          "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nvcc.ipynb"
    path.write_text(json.dumps(nb))
    env = dict(os.environ, GPUC_PROGRAMS_WITH_NVCC="1", GPUC_NVCC=nvcc)
    subprocess.run([str(gpuc_bin), "run", "--allow-errors", str(path), "-o", str(path)],
                   capture_output=True, text=True, env=env, timeout=scaled(300))
    error = [o for o in json.loads(path.read_text())["cells"][0]["outputs"]
             if o["output_type"] == "error"][0]
    assert error["ename"] == "CompileError"
    assert 'line 4: identifier "not_a_name" is undefined' in error["evalue"], error


def test_a_program_runs_under_memcheck(kc):
    """A whole program's kernels have no kernel cell's source to check:
    with %sim --memcheck on (which may become the default) they still run,
    unchecked."""
    execute_ok(kc, "%sim --memcheck")
    try:
        run = execute(kc, cell_of("02_transpose_shared"), timeout=scaled(180))
        assert run.status == "ok", run.describe()
        assert run.stream() == (COURSE / "02_transpose_shared.expect").read_text()
    finally:
        execute_ok(kc, "%sim --no-memcheck")


def test_a_program_streams_and_is_interrupted(kc):
    """A program's output reaches the front end while it runs, and an
    interrupt stops its main without losing the session."""
    execute_ok(kc, "int still_here = 7;")
    sent = time.monotonic()
    msg_id = kc.execute("""%%cuda
#include <cstdio>
__global__ void spin_k(int *p) { *p = 1; }
int main() {
    printf("started\\n");
    fflush(stdout);
    for (volatile long i = 0;; i++) {}
}""")

    def interrupt():
        kc.control_channel.send(kc.session.msg("interrupt_request", {}))
        kc.control_channel.get_msg(timeout=scaled(2))

    run = collect(kc, msg_id, sent=sent, actions=[(scaled(8.0), interrupt)])
    assert run.ename == "Interrupted", run.describe()
    started = [m for m in run.iopub if m["msg_type"] == "stream" and
               "started" in m["content"]["text"]]
    assert started and started[0]["_t"] < run.action_times[0], run.describe()
    assert value_of(kc, "still_here") == "7"


def test_the_cuda_lines_options(kc):
    """-D reaches the program's compiler; an option that means nothing on
    the simulator (-arch) is left out there."""
    run = execute_ok(kc, "%%cuda -arch sm_90 -DWIDTH=3 -O3\n#include <cstdio>\n"
                         "__global__ void k() {}\n"
                         "int main() { printf(\"%d\\n\", WIDTH * 2); return 0; }")
    assert run.stream() == "6\n", run.describe()


def test_a_kernel_fault_names_its_line(kc):
    """A program's kernel that writes far out of bounds: a fault of the
    cell, naming the kernel's line and the launch's, the session kept."""
    execute_ok(kc, "int after_fault = 3;")
    run = execute(kc, """%%cuda
#include <cstdio>
__global__ void far_oob(float *p) {
    p[threadIdx.x + 100000000] = 1.0f;
}
int main() {
    float *p;
    cudaMalloc(&p, 100 * sizeof(float));
    far_oob<<<1, 32>>>(p);
    cudaDeviceSynchronize();
    return 0;
}""")
    assert run.status == "error", run.describe()
    text = "\n".join(run.content["traceback"])
    assert "far_oob" in text and "line 4" in text and "line 9" in text, run.describe()
    assert value_of(kc, "after_fault") == "3"


def test_a_program_that_exits_on_a_fault_keeps_its_report(kc):
    """The course's CUDA_CHECK macro: exit(1) on the error it prints; the
    cell's traceback still names the kernel's line and the launch's."""
    run = execute(kc, """%%cuda
#include <cstdio>
#include <cstdlib>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \\
    printf("CUDA error: %s\\n", cudaGetErrorString(e)); exit(1); } } while (0)
__global__ void exit_oob(float *p) {
    p[threadIdx.x + 100000000] = 1.0f;
}
int main() {
    float *p;
    CHECK(cudaMalloc(&p, 100 * sizeof(float)));
    exit_oob<<<1, 32>>>(p);
    CHECK(cudaDeviceSynchronize());
    return 0;
}""")
    assert run.status == "error" and run.ename == "SystemExit", run.describe()
    assert run.stream() == "CUDA error: an illegal memory access was encountered\n", run.describe()
    text = "\n".join(run.content["traceback"])
    assert "CUDA_ERROR_ILLEGAL_ADDRESS (700)" in text and "line 7 by block" in text, text
    assert "(in exit_oob, launched at cell" in text and "line 12)" in text, text
    run = execute_ok(kc, 'float *exit_q; printf("%d\\n", (int)cudaMalloc(&exit_q, 4));')
    assert run.stream() == "0\n"  # the next cell starts clean
