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
              in the memory cache by the same session (right after its
              compile, and four more times).

Also printed, to tell gpuc's part from the machine's: the NVRTC files
each side loaded, and bare NVRTC with 50 ms idle before each compile (as
kernel cells come, not back to back).

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
SEQUENCE, RUNS = 8, 3


def notebook(cells):
    return {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}",
                       "metadata": {}, "outputs": [], "source": s} for i, s in enumerate(cells)],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def run_gpuc(gpuc, cells, env):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "nb.ipynb")
        with open(path, "w") as f:
            json.dump(notebook(cells), f)
        p = subprocess.run([gpuc, "run", "--inplace", path], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"gpuc run failed:\n{p.stderr}")
        out = json.load(open(path))
    return ["".join(o.get("text", "") for o in c["outputs"] if o["output_type"] == "stream")
            for c in out["cells"]]


def compiled_ms(text):
    m = re.search(r"compiled \S+ for \S+ in ([0-9.]+) ms", text) or \
        re.search(r"hit, ([0-9.]+) ms", text)
    return float(m.group(1))


BARE_SEQUENCE = r"""
import ctypes, json, sys, time
lib = ctypes.CDLL("libnvrtc.so.13")
def compile_ms(src, arch):
    time.sleep(pause)
    prog = ctypes.c_void_p()
    t0 = time.perf_counter()
    lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None)
    opts = (ctypes.c_char_p * 2)(("--gpu-architecture=" + arch).encode(), b"--std=c++17")
    rc = lib.nvrtcCompileProgram(prog, 2, opts)
    size = ctypes.c_size_t()
    lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetCUBIN(prog, buf)
    ms = (time.perf_counter() - t0) * 1000
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    assert rc == 0
    return ms
sources, arch, pause = json.loads(sys.argv[1]), sys.argv[2], float(sys.argv[3])
times = [compile_ms(src, arch) for src in sources]
libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libnvrtc" in l})
print(json.dumps({"times": times, "libs": libs}))
"""


def sequence():
    """The compiles both sides do in a fresh process: a warm-up kernel, then
    SEQUENCE distinct small kernels."""
    return [EMPTY] + [KERNEL.replace("axpb", f"axpb{i}") for i in range(SEQUENCE)]


def split_times(times):
    """(cold, warm): the first kernel after the warm-up (a cache miss, NVRTC
    already loaded), and the median of the last four (NVRTC settled)."""
    return times[1], statistics.median(times[-4:])


def bare_nvrtc(arch, pause=0.0):
    """(cold, warm, NVRTC's files): compiles back to back, or each after
    pause seconds idle (as kernel cells come: a diagnostic, not the goal's
    reference)."""
    runs = [json.loads(subprocess.run(["python3", "-c", BARE_SEQUENCE, json.dumps(sequence()), arch,
                                       str(pause)],
                                      capture_output=True, text=True, check=True).stdout)
            for _ in range(RUNS)]
    cold, warm = zip(*(split_times(r["times"]) for r in runs))
    return statistics.median(cold), statistics.median(warm), runs[0]["libs"]


# a host cell that names the NVRTC files the executor loaded
NVRTC_FILES = ('#include <stdio.h>\n#include <string.h>\nFILE *maps = fopen("/proc/self/maps", "r");\nchar mline[4096];\n'
               'while (fgets(mline, sizeof mline, maps))\n'
               '    if (strstr(mline, "libnvrtc")) printf("%s", strrchr(mline, \' \') + 1);\n'
               'fclose(maps);')


def cupy_figures():
    import cupy
    out = {}
    with tempfile.TemporaryDirectory() as d:
        os.environ["CUPY_CACHE_DIR"] = d
        os.environ["CUPY_CACHE_IN_MEMORY"] = "0"
        times = []
        for i, src in enumerate(sequence()):  # distinct sources: each one a miss
            name = "empty" if i == 0 else f"axpb{i - 1}"
            k = cupy.RawKernel('extern "C" ' + src, name)
            t0 = time.perf_counter()
            k.compile()
            times.append((time.perf_counter() - t0) * 1000)
        out["cupy_cold_compile_ms"], out["cupy_warm_compile_ms"] = split_times(times)
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


TIMEIT_KERNEL = ("__global__ void inc(int n, float *v) {\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i < n) v[i] += 1.0f;\n}\n")
TIMEIT_SETUP = ("int tn = 1 << 24;\nfloat *tv;\ncudaMalloc(&tv, tn * sizeof(float));\n"
                "cudaMemset(tv, 0, tn * sizeof(float));")
# the reference: a bare CUDA-event loop around the same launches, as a
# tutorial writes it, 7 runs of 100 launches
BARE_EVENTS = ("cudaEvent_t e0, e1;\ncudaEventCreate(&e0); cudaEventCreate(&e1);\n"
               "for (int w = 0; w < 10; w++) inc<<<(tn + 255) / 256, 256>>>(tn, tv);\n"
               "for (int r = 0; r < 7; r++) {\n"
               "    cudaEventRecord(e0, 0);\n"
               "    for (int i = 0; i < 100; i++) inc<<<(tn + 255) / 256, 256>>>(tn, tv);\n"
               "    cudaEventRecord(e1, 0);\n    cudaEventSynchronize(e1);\n"
               "    float ms;\n    cudaEventElapsedTime(&ms, e0, e1);\n"
               "    printf(\"%.6f\\n\", ms * 1000.0 / 100);\n}")


def timeit_vs_events(gpuc, env):
    """%timeit's GPU line against the bare event loop, in one session."""
    outs = run_gpuc(gpuc, ["%%kernel\n" + TIMEIT_KERNEL, TIMEIT_SETUP,
                           "%timeit -n 100 -r 7 inc<<<(tn + 255) / 256, 256>>>(tn, tv);",
                           BARE_EVENTS], env)
    m = re.search(r"GPU: ([0-9.]+) (ns|μs|µs|ms|s) ±", outs[2])
    scale = {"ns": 1e-3, "μs": 1.0, "µs": 1.0, "ms": 1e3, "s": 1e6}[m.group(2)]
    gpuc_us = float(m.group(1)) * scale
    bare_us = statistics.median(float(x) for x in outs[3].split())
    return gpuc_us, bare_us, outs[2].strip()


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
    env = dict(os.environ, XDG_CACHE_HOME=cache, GPUC_VERBOSE="1")  # the compile notes
    launch_cell = ("#include <time.h>\nstruct timespec t0, t1;\ndouble per[%d];\n"
                   "for (int i = 0; i < 100; i++) empty<<<1, 1>>>();\ncudaDeviceSynchronize();\n"
                   "for (int r = 0; r < %d; r++) {\n"
                   "    clock_gettime(CLOCK_MONOTONIC, &t0);\n"
                   "    for (int i = 0; i < %d; i++) empty<<<1, 1>>>();\n"
                   "    clock_gettime(CLOCK_MONOTONIC, &t1);\n    cudaDeviceSynchronize();\n"
                   "    per[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / %d;\n}\n"
                   "for (int r = 0; r < %d; r++) printf(\"%%.4f\\n\", per[r]);"
                   % (REPS, REPS, LAUNCHES, LAUNCHES, REPS))
    # the first kernel cell also loads NVRTC and starts the driver (reported
    # apart as set-up); then the same compiles as the bare reference does
    colds, warms, setups = [], [], []
    for r in range(RUNS):
        fresh = dict(env, XDG_CACHE_HOME=tempfile.mkdtemp(prefix="gpuc-cache-"))
        outs = run_gpuc(a.gpuc, ["%%kernel\n" + k for k in sequence()] + [NVRTC_FILES], fresh)
        res["gpuc_nvrtc_files"] = sorted(set(outs.pop().split()))
        m = re.search(r"set-up on first use: ([0-9.]+) ms", outs[0])
        setups.append(float(m.group(1)) if m else 0.0)
        cold, warm = split_times([compiled_ms(o) for o in outs])
        colds.append(cold)
        warms.append(warm)
    res["gpuc_first_use_setup_ms"] = statistics.median(setups)
    res["gpuc_cold_compile_ms"] = statistics.median(colds)
    res["gpuc_warm_compile_ms"] = statistics.median(warms)
    outs = run_gpuc(a.gpuc, ["%%kernel\n" + KERNEL] * 6 + ["%%kernel\n" + EMPTY, launch_cell], env)
    res["gpuc_memory_hit_ms"] = compiled_ms(outs[1])  # the first hit, right after the compile
    res["gpuc_memory_hit_later_ms"] = statistics.median(compiled_ms(o) for o in outs[2:6])
    res["gpuc_launch_us"] = statistics.median(float(x) for x in outs[7].split())
    res["timeit_gpu_us"], res["bare_events_us"], res["timeit_text"] = timeit_vs_events(a.gpuc, env)
    outs = run_gpuc(a.gpuc, ["%%kernel\n" + KERNEL], env)  # a fresh executor: the disk
    res["gpuc_disk_hit_ms"] = compiled_ms(outs[0])
    res["bare_nvrtc_cold_ms"], res["bare_nvrtc_warm_ms"], res["bare_nvrtc_files"] = bare_nvrtc(arch)
    res["bare_nvrtc_paused_cold_ms"], res["bare_nvrtc_paused_warm_ms"], _ = bare_nvrtc(arch, 0.05)
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
    row("cold compile vs bare NVRTC (2nd kernel in a process), ms",
        res["gpuc_cold_compile_ms"], res["bare_nvrtc_cold_ms"], "<= 1.2")
    row("warm compile vs bare NVRTC (NVRTC settled), ms", res["gpuc_warm_compile_ms"],
        res["bare_nvrtc_warm_ms"], "<= 1.2")
    if "cupy_cold_compile_ms" in res:
        row("cold compile vs CuPy RawKernel (2nd kernel), ms", res["gpuc_cold_compile_ms"],
            res["cupy_cold_compile_ms"], "<= 0.5")
        row("warm compile vs CuPy RawKernel (settled), ms", res["gpuc_warm_compile_ms"],
            res["cupy_warm_compile_ms"], "<= 0.5")
    row("(diagnostic) warm compile vs bare NVRTC, 50 ms idle before each", res["gpuc_warm_compile_ms"],
        res["bare_nvrtc_paused_warm_ms"], "")
    row("%timeit GPU time vs bare CUDA-event loop, us", res["timeit_gpu_us"],
        res["bare_events_us"], "within 5%")
    print(f"{'cache hit from disk, ms (goal <= 1)':52} {res['gpuc_disk_hit_ms']:9.3f}")
    print(f"{'cache hit from memory, first after a compile, ms':52} {res['gpuc_memory_hit_ms']:9.3f}")
    print(f"{'cache hit from memory, the next four (median), ms':52} "
          f"{res['gpuc_memory_hit_later_ms']:9.3f}")
    print(f"NVRTC: gpuc loaded {res['gpuc_nvrtc_files']}, the bare reference {res['bare_nvrtc_files']}")
    print(f"{'first GPU use in a process (NVRTC load, driver start), ms':52} "
          f"{res['gpuc_first_use_setup_ms']:9.1f}")
    print(json.dumps(res))
    if a.json:
        open(a.json, "w").write(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
