#!/usr/bin/env python3
"""GPU benchmarks of issue "GPU kernels", each against its reference measured
in the same run, on the GPU machine (needs CuPy there; no Jupyter):

  launch      host time per launch of an empty cached kernel from a host cell
              (a loop of name<<<1, 1>>>() in a cell, through gpuc's launch
              path) against bare cuLaunchKernel (tests/gpu/gpu_smoke) and
              CuPy's RawKernel call;
  compile     NVRTC cold compile of a small kernel cell (the "compiled in"
              figure gpuc prints, cache empty) against bare NVRTC (ctypes,
              same source and architecture) and CuPy's RawKernel cold compile;
  cache       a kernel cell found in the disk cache by a fresh executor, and
              in the memory cache by the same session.

    python3 bench/bench_gpu.py --gpuc PATH/gpuc --smoke PATH/gpu_smoke [--json OUT]
"""
import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import tempfile
import time

KERNEL = ("__global__ void axpb(int n, float a, float *x, float *y) {\n"
          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "    if (i < n) y[i] = a * x[i] + y[i];\n}\n")
EMPTY = "__global__ void empty(void) {}\n"
REPS, LAUNCHES = 20, 1000


def notebook(cells):
    return {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}",
                       "metadata": {}, "outputs": [], "source": s} for i, s in enumerate(cells)],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def run_gpuc(gpuc, cells, env):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "nb.ipynb")
        with open(path, "w") as f:
            json.dump(notebook(cells), f)
        p = subprocess.run([gpuc, "run", path], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"gpuc run failed:\n{p.stderr}")
        out = json.load(open(path))
    return ["".join(o.get("text", "") for o in c["outputs"] if o["output_type"] == "stream")
            for c in out["cells"]]


def compiled_ms(text):
    m = re.search(r"in ([0-9.]+) ms", text) or re.search(r"hit, ([0-9.]+) ms", text)
    return float(m.group(1))


def bare_nvrtc_ms(arch):
    lib = ctypes.CDLL("libnvrtc.so.13")
    times = []
    for _ in range(5):
        prog = ctypes.c_void_p()
        t0 = time.perf_counter()
        lib.nvrtcCreateProgram(ctypes.byref(prog), KERNEL.encode(), b"k.cu", 0, None, None)
        opts = (ctypes.c_char_p * 2)(f"--gpu-architecture={arch}".encode(), b"--std=c++17")
        rc = lib.nvrtcCompileProgram(prog, 2, opts)
        size = ctypes.c_size_t()
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetCUBIN(prog, buf)
        times.append((time.perf_counter() - t0) * 1000)
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
        assert rc == 0
    return statistics.median(times)


def cupy_figures():
    import cupy
    out = {}
    with tempfile.TemporaryDirectory() as d:
        os.environ["CUPY_CACHE_DIR"] = d
        os.environ["CUPY_CACHE_IN_MEMORY"] = "0"
        cold = []
        for i in range(5):  # a distinct source each time: really cold
            src = 'extern "C" ' + KERNEL.replace("axpb", f"axpb{i}")
            k = cupy.RawKernel(src, f"axpb{i}")
            t0 = time.perf_counter()
            k.compile()
            cold.append((time.perf_counter() - t0) * 1000)
        out["cupy_cold_compile_ms"] = statistics.median(cold)
    k = cupy.RawKernel('extern "C" ' + EMPTY, "empty")
    k((1,), (1,), ())
    cupy.cuda.Device().synchronize()
    per = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(LAUNCHES):
            k((1,), (1,), ())
        per.append((time.perf_counter() - t0) / LAUNCHES * 1e6)
        cupy.cuda.Device().synchronize()
    out["cupy_launch_us"] = statistics.median(per)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuc", required=True)
    ap.add_argument("--smoke", required=True)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    res = {}
    smoke = subprocess.run([a.smoke], capture_output=True, text=True).stdout
    m = re.search(r"bare cuLaunchKernel ([0-9.]+) us, gpu_launch ([0-9.]+) us", smoke)
    res["bare_launch_us"], res["gpu_launch_api_us"] = float(m.group(1)), float(m.group(2))
    arch = re.search(r"(sm_\d+)", smoke).group(1)

    cache = tempfile.mkdtemp(prefix="gpuc-cache-")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    launch_cell = ("#include <time.h>\nstruct timespec t0, t1;\ndouble per[%d];\n"
                   "for (int i = 0; i < 100; i++) empty<<<1, 1>>>();\ncudaDeviceSynchronize();\n"
                   "for (int r = 0; r < %d; r++) {\n"
                   "    clock_gettime(CLOCK_MONOTONIC, &t0);\n"
                   "    for (int i = 0; i < %d; i++) empty<<<1, 1>>>();\n"
                   "    clock_gettime(CLOCK_MONOTONIC, &t1);\n    cudaDeviceSynchronize();\n"
                   "    per[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / %d;\n}\n"
                   "for (int r = 0; r < %d; r++) printf(\"%%.4f\\n\", per[r]);"
                   % (REPS, REPS, LAUNCHES, LAUNCHES, REPS))
    outs = run_gpuc(a.gpuc, ["%%kernel\n" + KERNEL, "%%kernel\n" + KERNEL,
                             "%%kernel\n" + EMPTY, launch_cell], env)
    res["gpuc_cold_compile_ms"] = compiled_ms(outs[0])
    res["gpuc_memory_hit_ms"] = compiled_ms(outs[1])
    res["gpuc_launch_us"] = statistics.median(float(x) for x in outs[3].split())
    outs = run_gpuc(a.gpuc, ["%%kernel\n" + KERNEL], env)  # a fresh executor: the disk
    res["gpuc_disk_hit_ms"] = compiled_ms(outs[0])
    res["bare_nvrtc_ms"] = bare_nvrtc_ms(arch)
    try:
        res.update(cupy_figures())
    except Exception as e:  # CuPy missing: say so, keep the rest
        res["cupy_error"] = repr(e)

    def row(what, ours, ref, goal):
        ratio = ours / ref
        print(f"{what:52} {ours:9.3f} {ref:9.3f} {ratio:7.3f}  {goal}")
    print(f"{'':52} {'gpuc':>9} {'ref':>9} {'ratio':>7}  goal")
    row("launch from a host cell vs bare cuLaunchKernel, us", res["gpuc_launch_us"],
        res["bare_launch_us"], "<= 1.15")
    if "cupy_launch_us" in res:
        row("launch from a host cell vs CuPy RawKernel call, us", res["gpuc_launch_us"],
            res["cupy_launch_us"], "< 1")
    row("cold compile vs bare NVRTC, ms", res["gpuc_cold_compile_ms"], res["bare_nvrtc_ms"],
        "<= 1.2")
    if "cupy_cold_compile_ms" in res:
        row("cold compile vs CuPy RawKernel cold compile, ms", res["gpuc_cold_compile_ms"],
            res["cupy_cold_compile_ms"], "<= 0.5")
    print(f"{'cache hit from disk, ms (goal <= 1)':52} {res['gpuc_disk_hit_ms']:9.3f}")
    print(f"{'cache hit from memory, ms (goal <= 0.05)':52} {res['gpuc_memory_hit_ms']:9.3f}")
    print(json.dumps(res))
    if a.json:
        open(a.json, "w").write(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
