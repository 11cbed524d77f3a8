"""Device arrays against CuPy, on the GPU machine, in one run: the pool's
allocate + free of 1 MiB, zeros of 1e6 float32, printing 1e6 and 1e8
elements, host<->device copies of 1 GiB from ordinary (malloc) memory.

    PYTHONPATH=tests python3 bench/bench_arrays.py BIN_DIR OUT_DIR

gpuc's times come from %timeit in a notebook run by `gpuc run`; CuPy's
from timeit in this process (host time, what a user waits for; copies are
synchronous in both). Prints one line per case with both and the ratio
(gpuc / CuPy: below 1 is faster)."""
import re
import sys
import timeit
from pathlib import Path

import numpy as np

from gpuc_testing.notebook import run_notebook

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
OUT.mkdir(parents=True, exist_ok=True)
UNITS = {"ns": 1e-9, "μs": 1e-6, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}

CASES = [  # name, setup cell, %timeit statement
    ("alloc+free 1 MiB (warm pool)", "ga_free(ga_empty(U8, 1 << 20));",
     "%timeit -n 20000 -r 7 ga_free(ga_empty(U8, 1 << 20));"),
    ("the driver's pool: cudaMallocAsync + cudaFreeAsync 1 MiB",
     "void *drv_p;\n"  # declared by NVIDIA's runtime header, which host cells see
     "cudaMallocAsync(&drv_p, 1 << 20, 0); cudaFreeAsync(drv_p, 0);",
     "%timeit -n 20000 -r 7 cudaMallocAsync(&drv_p, 1 << 20, 0); cudaFreeAsync(drv_p, 0);"),
    ("zeros 1e6 float32", "ga_free(ga_zeros(F32, 1000000));",
     "%timeit -n 2000 -r 7 ga_free(ga_zeros(F32, 1000000));"),
    ("print 1e6 float32", "ga_t p6 = ga_arange(F32, 0, 1000000, 1);",
     "%timeit -n 20 -r 5 ga_print(p6);"),
    ("print 1e8 float32", "ga_t p8 = ga_zeros(F32, 100000000);",
     "%timeit -n 20 -r 5 ga_print(p8);"),
    ("host->device 1 GiB (malloc)",
     "float *h = malloc(1 << 30); memset(h, 1, 1 << 30); ga_t dd = ga_empty(F32, 1 << 28);",
     "%timeit -n 3 -r 5 ga_write(dd, h);"),
    ("device->host 1 GiB (malloc)", "", "%timeit -n 3 -r 5 ga_read(dd, h);"),
]


def gpuc_times():
    cells = ["%device gpu\n#include <string.h>"]
    for _, setup, stmt in CASES:
        cells += [setup, stmt]
    out = run_notebook(BIN / "gpuc", OUT, cells, name="bench_arrays", timeout=500,
                       allow_errors=False)
    times = []
    for k in range(len(CASES)):
        text = "".join(o.get("text", "") for o in out[2 + 2 * k]["outputs"])
        m = re.findall(r"([\d.]+) (ns|μs|µs|us|ms|s) ± [\d.]+ \S+ per loop", text)
        times.append(float(m[-1][0]) * UNITS[m[-1][1]] if m else float("nan"))
    return times


def cupy_times():
    import cupy as cp
    cp.zeros(1).sum()  # context, pool
    pool = cp.get_default_memory_pool()
    t = []

    def best(f, n, r):
        return min(timeit.repeat(f, number=n, repeat=r)) / n

    def mean(f, n, r):
        return sum(timeit.repeat(f, number=n, repeat=r)) / (n * r)

    t.append(mean(lambda: pool.malloc(1 << 20), 20000, 7))
    t.append(t[-1])  # the driver's pool is compared with CuPy's pool too
    t.append(mean(lambda: cp.zeros(1_000_000, dtype=cp.float32), 2000, 7))
    p6 = cp.arange(1_000_000, dtype=cp.float32)
    t.append(mean(lambda: repr(p6), 20, 5))
    p8 = cp.zeros(100_000_000, dtype=cp.float32)
    t.append(mean(lambda: repr(p8), 5, 3))
    h = np.ones(1 << 28, dtype=np.float32)
    d = cp.empty(1 << 28, dtype=cp.float32)
    t.append(mean(lambda: (d.set(h), cp.cuda.Device().synchronize()), 3, 5))
    t.append(mean(lambda: d.get(), 3, 5))
    # the reference of the copy goal: pinned host memory, same sizes
    import cupyx
    hp = cupyx.empty_pinned((1 << 28,), dtype=np.float32)
    hp[:] = 1
    t.append(mean(lambda: (d.set(hp), cp.cuda.Device().synchronize()), 3, 5))
    t.append(mean(lambda: d.get(out=hp), 3, 5))
    return t


g, c = gpuc_times(), cupy_times()
print(f"{'case':34} {'gpuc':>12} {'CuPy':>12} {'gpuc/CuPy':>10}")
for (name, _, _), a, b in zip(CASES, g, c):
    extra = ""
    if "GiB" in name:
        extra = f"   ({(1 << 30) / a / 1e9:.1f} vs {(1 << 30) / b / 1e9:.1f} GB/s)"
    print(f"{name:34} {a * 1e6:10.2f}us {b * 1e6:10.2f}us {a / b:10.3f}{extra}")
for k, name in ((5, "host->device"), (6, "device->host")):
    pinned = (1 << 30) / c[len(CASES) + k - 5] / 1e9
    got = (1 << 30) / g[k] / 1e9
    print(f"{name} from malloc memory: {got:.1f} GB/s = {100 * got / pinned:.0f}% of pinned "
          f"({pinned:.1f} GB/s, CuPy from pinned memory, same run; goal >= 70%)")


# ---- random numbers and matrix products (runtime/array/ga_random, ga_blas) ----
# GPU time by CUDA events on the default stream, the same way on both sides:
# gpuc in a notebook cell (the runtime API's events), CuPy in this process.
# Each statement makes a new array (allocation from the pools included on
# both sides). Ratio = CuPy time / gpuc time: above 1 gpuc is faster.
MATH_SIZES = (4096, 10000)
MATH_KINDS = (("f32", "F32", 0), ("tf32", "F32", 1), ("f64", "F64", 0), ("f16", "F16", 0))
MATH_CASES = [  # name, gpuc setup, gpuc statement, repetitions, goal (CuPy / gpuc)
    ("uniform 1e8 float32", "", "ga_free(ga_random(F32, 100000000));", 50, 1.1),
    ("normal 1e8 float32", "", "ga_free(ga_normal(F32, 0.0, 1.0, 100000000));", 50, 1.0),
] + [
    (f"matmul {k} {n}x{n}",
     f"ga_set_tf32({tf});\nga_t ma = ga_full({dt}, 0.5, {n}, {n}), mb = ga_full({dt}, 0.25, {n}, {n});",
     "ga_free(ga_matmul(ma, mb));", 20 if n < 5000 else 5, 0.98)
    for n in MATH_SIZES for k, dt, tf in MATH_KINDS
]


def gpuc_math_times():
    cells = ["%device gpu\ncudaEvent_t bench_e0, bench_e1;\n"
             "cudaEventCreate(&bench_e0); cudaEventCreate(&bench_e1);"]
    for _, setup, stmt, reps, _ in MATH_CASES:
        cells.append(f"{{\n{setup}\n{stmt} /* warm-up */\ncudaEventRecord(bench_e0, 0);\n"
                     f"for (int r = 0; r < {reps}; r++) {{ {stmt} }}\n"
                     "cudaEventRecord(bench_e1, 0);\ncudaEventSynchronize(bench_e1);\n"
                     "float ms = 0;\ncudaEventElapsedTime(&ms, bench_e0, bench_e1);\n"
                     f'printf("%.6f\\n", ms / {reps} / 1000.0);\n}}\nga_set_tf32(0);')
    out = run_notebook(BIN / "gpuc", OUT, cells, name="bench_randblas", timeout=500,
                       allow_errors=False)
    times = []
    for k in range(len(MATH_CASES)):
        text = "".join(o.get("text", "") for o in out[1 + k]["outputs"])
        m = re.findall(r"^([\d.]+)$", text, re.M)
        times.append(float(m[-1]) if m else float("nan"))
    return times


def cupy_math_times():
    import cupy as cp
    from cupy._core import _routines_linalg as linalg

    def gpu_time(f, reps):
        f()
        cp.cuda.Device().synchronize()
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        for _ in range(reps):
            f()
        e1.record()
        e1.synchronize()
        return cp.cuda.get_elapsed_time(e0, e1) / reps / 1000.0

    rng = cp.random.default_rng(1)
    t = [gpu_time(lambda: rng.random(10 ** 8, dtype=cp.float32), 50),
         gpu_time(lambda: rng.standard_normal(10 ** 8, dtype=cp.float32), 50)]
    dtypes = {"F32": cp.float32, "F64": cp.float64, "F16": cp.float16}
    for n in MATH_SIZES:
        for k, dt, tf in MATH_KINDS:
            a = cp.full((n, n), 0.5, dtypes[dt])
            b = cp.full((n, n), 0.25, dtypes[dt])
            linalg.set_compute_type(dtypes[dt], linalg.COMPUTE_TYPE_TF32 if tf
                                    else linalg.COMPUTE_TYPE_DEFAULT)
            t.append(gpu_time(lambda: a @ b, 20 if n < 5000 else 5))
            linalg.set_compute_type(dtypes[dt], linalg.COMPUTE_TYPE_DEFAULT)
            del a, b
    return t


gm, cm = gpuc_math_times(), cupy_math_times()
print()
print(f"{'case':26} {'gpuc':>11} {'CuPy':>11} {'CuPy/gpuc':>10} {'goal':>6}")
for (name, _, _, _, goal), a, b in zip(MATH_CASES, gm, cm):
    extra = ""
    if name.startswith("matmul"):
        n = int(name.split()[-1].split("x")[0])
        extra = f"   ({2 * n ** 3 / a / 1e12:.1f} vs {2 * n ** 3 / b / 1e12:.1f} TFLOP/s)"
    else:
        extra = f"   ({4e8 / a / 1e9:.0f} vs {4e8 / b / 1e9:.0f} GB/s written)"
    print(f"{name:26} {a * 1e3:9.3f}ms {b * 1e3:9.3f}ms {b / a:10.2f} {goal:>6}{extra}")
