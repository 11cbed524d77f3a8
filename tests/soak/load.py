"""The load: many kernels started at once on this machine.

    PYTHONPATH=tests build/venv/bin/python tests/soak/load.py [--kernels 50]

Starts N gpuc kernels at the same time (jupyter_client, as a notebook
server would), waits until each answers kernel_info, runs one cell in
each, and reports the time to ready (min, median, max) and the memory of
each kernel's processes (the kernel and its executor). Exits non-zero when
a kernel does not answer or the cell's result is wrong."""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from gpuc_testing.kernel import (children, kernel_pid, rss_kib, start_kernel, stop_kernel,
                                 value_of)


def one(i: int):
    t0 = time.perf_counter()
    km, kc = start_kernel()
    ready = time.perf_counter() - t0
    ok = value_of(kc, f"{i} * 2") == str(i * 2)
    pid = kernel_pid(km)
    mem = rss_kib(pid) + sum(rss_kib(c) for c in children(pid))
    return km, kc, ready, ok, mem


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", type=int, default=50)
    n = ap.parse_args().kernels
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(one, range(n)))
    total = time.perf_counter() - t0
    ready = sorted(r[2] for r in results)
    mems = sorted(r[4] for r in results)
    bad = sum(1 for r in results if not r[3])
    print(f"{n} kernels started at once: all ready and a cell run in {total:.1f} s")
    print(f"time to ready: min {ready[0]:.2f} s, median {statistics.median(ready):.2f} s, "
          f"max {ready[-1]:.2f} s")
    print(f"memory per kernel (kernel + executor resident): min {mems[0] / 1024:.1f} MiB, "
          f"median {statistics.median(mems) / 1024:.1f} MiB, max {mems[-1] / 1024:.1f} MiB")
    print(f"wrong results: {bad}")
    for km, kc, *_ in results:
        stop_kernel(km, kc)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
