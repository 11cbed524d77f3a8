"""Device arrays against CuPy, on the GPU machine, in one run: the pool's
allocate + free of 1 MiB, zeros of 1e6 float32, printing 1e6 and 1e8
elements, host<->device copies of 1 GiB from ordinary (malloc) memory.

    python3 bench/bench_arrays.py BIN_DIR OUT_DIR

gpuc's times come from %timeit in a notebook run by `gpuc run`; CuPy's
from timeit in this process (host time, what a user waits for; copies are
synchronous in both). Prints one line per case with both and the ratio
(gpuc / CuPy: below 1 is faster)."""
import json
import re
import subprocess
import sys
import timeit
from pathlib import Path

import numpy as np

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
OUT.mkdir(parents=True, exist_ok=True)
UNITS = {"ns": 1e-9, "μs": 1e-6, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}

CASES = [  # name, setup cell, %timeit statement
    ("alloc+free 1 MiB (warm pool)", "ga_free(ga_empty(U8, 1 << 20));",
     "%timeit -n 20000 -r 7 ga_free(ga_empty(U8, 1 << 20));"),
    ("the driver's pool: cudaMallocAsync + cudaFreeAsync 1 MiB",
     "extern int cudaMallocAsync(void **, size_t, void *);\n"
     "extern int cudaFreeAsync(void *, void *);\nvoid *drv_p;\n"
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
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": c, "id": f"c{i}"} for i, c in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
          "nbformat": 4, "nbformat_minor": 5}
    src = OUT / "bench_arrays.ipynb"
    src.write_text(json.dumps(nb))
    subprocess.run([str(BIN / "gpuc"), "run", str(src), "-o", str(OUT / "bench_arrays.out.ipynb"),
                    "--timeout", "500"], check=True, cwd=OUT)
    out = json.loads((OUT / "bench_arrays.out.ipynb").read_text())["cells"]
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
