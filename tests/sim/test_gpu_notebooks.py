"""The GPU suite's notebooks (tests/gpu/) on the CUDA simulator, where there
is no GPU: the course-style tutorial gives the same answers (its own PASS
lines), the error notebook the same errors but one, an endless kernel is
stopped with the session kept, %timeit of a launch shows the simulator's
time (timing.ipynb with its parameter n at 65536 instead of 16M threads, as
`gpuc run -p` sets it), every %%speedup of speedup.ipynb agrees with its
CPU code (about a minute on two cores), and the C++ host code of
cpp_host.ipynb gives its PASS lines."""
import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from gpuc_testing.kernel import scaled

GPU_NOTEBOOKS = Path(__file__).resolve().parent.parent / "gpu"

pytestmark = pytest.mark.skipif(Path("/dev/nvidia0").exists(),
                                reason="a GPU is here: tests/gpu/run.sh runs these on it")


def run(gpuc_bin, name, tmp_path, *options, timeout=300):
    out = tmp_path / f"{name}.out.ipynb"
    proc = subprocess.run([str(gpuc_bin), "run", *options, str(GPU_NOTEBOOKS / f"{name}.ipynb"),
                           "-o", str(out)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=scaled(timeout))
    return proc, json.loads(out.read_text())


def streams(cell, name="stdout"):
    return "".join(o.get("text", "") for o in cell["outputs"]
                   if o["output_type"] == "stream" and o["name"] == name)


def passes(nb):
    """The PASS lines of a notebook's stdout, in order."""
    return [line for c in nb["cells"] for line in streams(c).splitlines()
            if line.startswith("PASS ")]


def test_tutorial(gpuc_bin, tmp_path):
    proc, nb = run(gpuc_bin, "tutorial", tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = "".join(streams(c) for c in nb["cells"])
    assert passes(nb) == ["PASS vector add", "PASS arrays persist", "PASS saxpy",
                      "PASS grid-stride loop", "PASS 1000 launches in a loop",
                      "PASS 2-D kernel with dim3", "PASS shared-memory reduction",
                      "PASS __device__ function of an earlier cell", "PASS cleanup"]
    assert "vector add: max error 0" in text
    assert "no GPU found: kernels run on the CUDA simulator" in "".join(
        streams(c, "stderr") for c in nb["cells"])


def test_errors(gpuc_bin, tmp_path):
    _, nb = run(gpuc_bin, "errors", tmp_path, "--allow-errors")
    # as on a GPU (tests/gpu/run.sh): cell 8's out-of-bounds write is CUDA's
    # illegal address (memcheck is on by default: it names the thread and
    # the line), but no context is lost here, and the session goes on
    want = [None, None, "LaunchError", "LaunchError", "CudaCompileError", None, "42", None,
            "CudaError", "42"]
    got = []
    for c in nb["cells"]:
        errs = [o for o in c["outputs"] if o["output_type"] == "error"]
        res = [o["data"]["text/plain"] for o in c["outputs"] if o["output_type"] == "execute_result"]
        got.append(errs[0]["ename"] if errs else (res[0] if res else None))
    assert got == want
    assert "out of memory" in streams(nb["cells"][5], "stderr")
    oob = [o for o in nb["cells"][8]["outputs"] if o["output_type"] == "error"][0]["evalue"]
    assert "CUDA_ERROR_ILLEGAL_ADDRESS (700)" in oob and "(in oob, launched at cell 9, line 1)" in oob
    assert re.search(r"write of 4 bytes at cell 8, line 2 by block \[0,0,0\], thread \[0,0,0\]",
                     oob), oob


def test_endless_kernel_is_stopped(gpuc_bin, tmp_path):
    t0 = time.monotonic()
    _, nb = run(gpuc_bin, "endless", tmp_path, "--timeout", "3", timeout=60)
    assert time.monotonic() - t0 < scaled(30)
    errs = [o for o in nb["cells"][1]["outputs"] if o["output_type"] == "error"]
    assert errs and "the session's variables are kept" in errs[0]["evalue"]


def displays(cell):
    return "".join(o["data"].get("text/plain", "") for o in cell["outputs"]
                   if o["output_type"] == "display_data")


def test_timing_with_a_smaller_parameter(gpuc_bin, tmp_path):
    proc, nb = run(gpuc_bin, "timing", tmp_path, "-p", "n", "65536")
    assert proc.returncode == 0, proc.stderr
    assert "n = 65536;" in "".join(c["source"] for c in nb["cells"])  # the injected cell
    text = streams(nb["cells"][-1])
    assert "per loop (mean ± std. dev. of 5 runs, 100 loops each)" in text, text
    assert "GPU (simulated on the CPU, unchecked):" in text, text


def test_speedup_notebook_agrees_with_its_cpu_code(gpuc_bin, tmp_path):
    proc, nb = run(gpuc_bin, "speedup", tmp_path, timeout=400)
    assert proc.returncode == 0, proc.stderr
    timed = [c for c in nb["cells"] if c["source"].startswith("%%speedup")]
    assert len(timed) == 4
    for c in timed:
        text = displays(c)
        assert "Results agree:" in text and "max abs diff 0" in text, text
        assert not [o for o in c["outputs"] if o["output_type"] == "error"]
    # the sweep's chart and its verdict on the simulator: the CPU wins
    sweep = displays(timed[-1])
    assert "GPU (with transfers) not faster" in sweep, sweep


def test_curand_kernel_header(gpuc_bin, tmp_path):
    """<curand_kernel.h> in a kernel cell on the simulator: cuRAND's own
    device code (XORWOW) runs, and a Monte Carlo estimate of pi is close; the
    GPU suite checks that a GPU counts the same hits (tests/gpu/run.sh)."""
    proc, nb = run(gpuc_bin, "curand", tmp_path)
    assert proc.returncode == 0, proc.stderr
    hits = [line for c in nb["cells"] for line in streams(c).splitlines()
            if line.startswith("hits ")]
    assert len(hits) == 2 and hits[0] == hits[1], hits
    assert abs(float(hits[0].split()[-1]) - 3.1416) < 0.01, hits
    assert passes(nb) == ["PASS equal hits on the GPU and the simulator"]


def test_symbols(gpuc_bin, tmp_path):
    """Device variables from host cells on the simulator: the same notebook
    and PASS lines as on the GPU."""
    proc, nb = run(gpuc_bin, "symbols", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert passes(nb) == ["PASS constant memory set from the host",
                          "PASS one __device__ storage across kernel cells, symbol address and size",
                          "PASS async symbol copies with an offset",
                          "PASS a host variable is not a symbol"]


def test_rerun(gpuc_bin, tmp_path):
    """Kernel cells run again (memory hits): the same notebook and PASS
    lines as on the GPU, where the loaded module is kept."""
    proc, nb = run(gpuc_bin, "rerun", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert passes(nb) == ["PASS a kernel cell run again launches",
                          "PASS an edited kernel and its edit undone each run their own code",
                          "PASS a device variable starts again when its cell runs again"]


def test_params(gpuc_bin, tmp_path):
    # structs, vector types and __half as on a GPU (run.sh), the wrong
    # struct a LaunchError with both sizes (g++'s layout here)
    _, nb = run(gpuc_bin, "params", tmp_path, "--allow-errors")
    assert passes(nb) == ["PASS struct by value", "PASS vector types", "PASS __half"]
    errors = [o for c in nb["cells"] for o in c["outputs"] if o["output_type"] == "error"]
    assert len(errors) == 1 and errors[0]["ename"] == "LaunchError"
    assert "argument 1 of apply is Params q (80 bytes), got a 48-byte value" in errors[0]["evalue"]


def test_cpp_host(gpuc_bin, tmp_path):
    # C++ host code as courses write it, compiled by g++: the same PASS lines
    # as on a GPU (run.sh), the simulator running the launches
    proc, nb = run(gpuc_bin, "cpp_host", tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = "".join(streams(c) for c in nb["cells"])
    assert passes(nb) == ["PASS add program", "PASS saxpy from C++, max 199",
                      "PASS sorted 100000 results",
                      "PASS 2-D launch from a C++ class, corners 999398",
                      "PASS C function from C++: 41", "PASS C++ function from C",
                      "PASS managed memory program"]
    # quiet by default: the program's stdout is its own
    assert "compiled as C++" not in text and "Max error: 0\n" in text


def test_runtime(gpuc_bin, tmp_path):
    # NVIDIA's runtime API as courses call it, on the simulator's runtime:
    # managed and pinned memory (cudaHostAlloc), streams with their defaults,
    # pitched memory and 2-D copies, the device's attributes agreeing with
    # its cudaDeviceProp, and the tutorials' error-check macro whose exit()
    # ends the cell, not the session: the same PASS lines as on a GPU
    _, nb = run(gpuc_bin, "runtime", tmp_path, "--allow-errors")
    assert passes(nb) == ["PASS managed memory, events, streams with defaults",
                      "PASS pitched memory and cudaMemcpy2DAsync without a stream",
                      "PASS the real cudaDeviceProp",
                      "PASS an error-check macro that calls exit keeps the session",
                      "PASS cleanup"]
    errors = [o for c in nb["cells"] for o in c["outputs"] if o["output_type"] == "error"]
    assert [e["ename"] for e in errors] == ["SystemExit"]
    assert "exit(1) called in the top-level code of cell 6, line 5" in errors[0]["evalue"]


def test_program(gpuc_bin, tmp_path):
    # NVIDIA's add program in a %%cuda cell, as nvcc4jupyter runs it
    proc, nb = run(gpuc_bin, "program", tmp_path)
    assert proc.returncode == 0, proc.stderr
    # only the program's output: no compile notes on stdout (nor stderr)
    out = "".join(streams(c) for c in nb["cells"])
    assert "Max error: 0.000000" in out and "compiled" not in out
    assert "compiled" not in "".join(streams(c, "stderr") for c in nb["cells"])
    assert passes(nb) == ["PASS add program"]
