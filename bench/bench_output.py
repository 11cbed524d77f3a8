#!/usr/bin/env python3
"""Print-heavy cells, through jupyter_client: the time from sending the
execute_request to status idle on IOPub, with every stream message read,
for a loop of N printf lines (stdout only) and the same loop alternating
stdout and stderr every 1000 lines. Median of --repeat runs per binary.

    build/venv/bin/python bench/bench_output.py --gpuc build/gpuc \
        [--baseline OTHER/gpuc] [--lines 100000] [--repeat 5]

--baseline runs the same cells against another build (the main branch,
say) in the same run, so that the two figures are comparable.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client import KernelManager

CELLS = {
    "printf lines": 'for (int i = 0; i < {n}; i++) printf("line %d of the output\\n", i);',
    "stdout/stderr every 1000 lines":
        'for (int i = 0; i < {n}; i++) fprintf(i / 1000 % 2 ? stderr : stdout, '
        '"line %d of the output\\n", i);',
}


def run_cell(kc, code: str) -> tuple[float, int]:
    """Seconds to idle and characters of stream text received."""
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    chars = 0
    while True:
        msg = kc.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            chars += len(msg["content"]["text"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return time.perf_counter() - t0, chars


def measure(gpuc: str, lines: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as prefix:
        subprocess.run([gpuc, "install", "--prefix", prefix], check=True,
                       stdout=subprocess.DEVNULL)
        os.environ["JUPYTER_PATH"] = str(Path(prefix) / "share" / "jupyter")
        km = KernelManager(kernel_name="gpuc")
        km.start_kernel()
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=30)
        out = {}
        try:
            run_cell(kc, "#include <stdio.h>")
            for name, cell in CELLS.items():
                code = cell.format(n=lines)
                times, chars = [], 0
                for _ in range(repeat):
                    t, chars = run_cell(kc, code)
                    times.append(t)
                out[name] = (statistics.median(times), chars)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpuc", default="build/gpuc")
    ap.add_argument("--baseline", help="another gpuc binary to compare with")
    ap.add_argument("--lines", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    builds = {"gpuc": args.gpuc}
    if args.baseline:
        builds["baseline"] = args.baseline
    results = {label: measure(str(Path(exe).resolve()), args.lines, args.repeat)
               for label, exe in builds.items()}
    print(f"{args.lines} lines, median of {args.repeat}")
    for name in CELLS:
        for label, res in results.items():
            t, chars = res[name]
            print(f"  {name:30s} {label:9s} {t * 1000:8.1f} ms  ({chars} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
