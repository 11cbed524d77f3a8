"""The soak: thousands of cells through the real kernel, then restarts.

    PYTHONPATH=tests build/venv/bin/python tests/soak/soak.py [--cells 10000] [--restarts 100]

Cells rebind and redefine the same few names (declarations, functions,
output), with a compile error every 37th cell, a fault every 100th and an
interrupt of an endless loop every 500th. Every 500 cells it samples the
resident memory (the peak over the window's last 128 cells), open file
descriptors and threads of the kernel and the executor, and the mean
wall time per cell. Then it replaces the executor `--restarts` times (a
cell that _exit()s) and restarts the kernel as many times, sampling the
kernel process's memory, descriptors and threads.
Prints a report (docs/reliability.md keeps the figures) and exits non-zero
when a goal is missed: resident memory after warm-up grows < 10%, no
descriptor or thread leak, time per cell flat (last 500 <= 1.5x the
first 500 after warm-up)."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from gpuc_testing.kernel import (children, execute, kernel_pid, start_kernel, stop_kernel,
                                 value_of)

# A process's resident size at a sample is the largest seen after each of
# the window's last PEAK_CELLS cells: the executor gives its heap's free
# pages back every 64 requests when idle, so one reading may fall just
# after that and not show what the process really needs.
PEAK_CELLS = 128


def proc(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {"rss_kib": int(fields["VmRSS"].split()[0]),
            "threads": int(fields["Threads"]),
            "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def cell(i: int) -> tuple[str, str | None]:
    """The code of cell i and the ename it must give (None: ok)."""
    if i % 100 == 99:
        return "int *soak_null = 0;\n*soak_null = 1;", "SegmentationFault"
    if i % 37 == 36:
        return "int broken_cell = ;", "CompileError"
    k = i % 4
    if k == 0:
        return f"int soak_v = {i};\ndouble soak_d = soak_v * 0.5;", None
    if k == 1:
        return f"int soak_f(int x) {{ return x + {i}; }}\nsoak_f(1)", None
    if k == 2:
        return f'printf("cell {i}: %d\\n", soak_v);\nsoak_v + 1', None
    return "struct soak_s { int a; char name[8]; } soak_s = {3, \"ab\"};\nsoak_s", None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=10000)
    ap.add_argument("--restarts", type=int, default=100)
    args = ap.parse_args()
    failures: list[str] = []
    km, kc = start_kernel()
    kpid = kernel_pid(km)
    samples = []
    t0 = time.perf_counter()
    window, peak = [], {}
    for i in range(args.cells):
        code, want = cell(i)
        if i % 500 == 250:  # an interrupt of an endless loop
            msg_id = kc.execute("for (;;) {}")
            time.sleep(0.05)
            km.interrupt_kernel()
            reply = kc.get_shell_msg(timeout=30)
            while reply["parent_header"].get("msg_id") != msg_id:
                reply = kc.get_shell_msg(timeout=30)
            if reply["content"].get("ename") != "Interrupted":
                failures.append(f"cell {i}: the interrupt gave {reply['content'].get('ename')}")
        s = time.perf_counter()
        run = execute(kc, code)
        window.append(time.perf_counter() - s)
        if (run.ename if want else run.status) != (want or "ok"):
            failures.append(f"cell {i}: {code!r} gave {run.describe()[:200]}")
        if (i + 1) % 500 >= 500 - PEAK_CELLS or (i + 1) % 500 == 0:
            ex = [p for p in children(kpid)]
            now = {"kernel": proc(kpid), "executor": proc(ex[0]) if ex else None}
            for who, p in now.items():
                if p:
                    peak[who] = max(peak.get(who, 0), p["rss_kib"])
        if (i + 1) % 500 == 0:
            for who, p in now.items():
                if p:
                    p["rss_kib"] = peak[who]
            sample = {"cells": i + 1, **now,
                      "ms_per_cell": 1000 * sum(window) / len(window)}
            window, peak = [], {}
            samples.append(sample)
            print(f"{sample['cells']:6d} cells  kernel {sample['kernel']}  executor "
                  f"{sample['executor']}  {sample['ms_per_cell']:.2f} ms/cell", flush=True)
    print(f"{args.cells} cells in {time.perf_counter() - t0:.1f} s")
    if len(samples) >= 3:
        warm, last = samples[1], samples[-1]  # after the first 500 cells
        for who in ("kernel", "executor"):
            a, b = warm[who]["rss_kib"], last[who]["rss_kib"]
            growth = (b - a) / a
            print(f"{who}: resident {a} -> {b} KiB after warm-up ({100 * growth:+.1f}%, "
                  f"{1024 * (b - a) / (last['cells'] - warm['cells']):.1f} bytes per cell)")
            if growth >= 0.10:
                failures.append(f"{who} memory grew {100 * growth:.1f}% after warm-up")
            if last[who]["fds"] > warm[who]["fds"] or last[who]["threads"] > warm[who]["threads"]:
                failures.append(f"{who}: descriptors or threads grew: {warm[who]} -> {last[who]}")
        ratio = last["ms_per_cell"] / warm["ms_per_cell"]
        print(f"time per cell: {warm['ms_per_cell']:.2f} ms (cells 501-1000) -> "
              f"{last['ms_per_cell']:.2f} ms (last 500): {ratio:.2f}x")
        if ratio > 1.5:
            failures.append(f"time per cell grew {ratio:.2f}x")
    # executor restarts: the kernel process must not keep anything of them
    before = proc(kpid)
    for r in range(args.restarts):
        run = execute(kc, "#include <unistd.h>\n_exit(0);")
        if run.ename != "ExecutorDied":
            failures.append(f"executor restart {r}: {run.describe()[:200]}")
        if value_of(kc, "1 + 1") != "2":
            failures.append(f"executor restart {r}: the next cell did not run")
    after = proc(kpid)
    print(f"{args.restarts} executor restarts: kernel {before} -> {after}")
    if after["fds"] > before["fds"] or after["threads"] > before["threads"] or \
            after["rss_kib"] > before["rss_kib"] * 1.10:
        failures.append(f"executor restarts leaked in the kernel: {before} -> {after}")
    # kernel restarts: nothing left behind (processes, the manager's side)
    for r in range(args.restarts):
        km.restart_kernel(now=True)
        kc.wait_for_ready(timeout=60)
        if value_of(kc, "40 + 2") != "42":
            failures.append(f"kernel restart {r}: no answer")
    stop_kernel(km, kc)
    print(f"{args.restarts} kernel restarts: done")
    for f in failures[:20]:
        print("FAIL", f)
    print("soak:", "PASS" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
