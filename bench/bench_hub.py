#!/usr/bin/env python3
"""gpuc and ipykernel under JupyterHub, side by side in one run: many users
at once, each with a kernel of each kind, cells over the websocket through
the hub's proxy (what JupyterLab does; docs/hosting.md).

Two hubs are started from deploy/jupyterhub/jupyterhub_config.py on
localhost, one as configured (tornado's websocket with Nagle's algorithm on)
and one with GPUC_HUB_NODELAY=1 (singleuser_nodelay.py: TCP_NODELAY on the
kernel websocket). On each, --users users log in and start their servers;
each starts a gpuc and an ipykernel ("python3") kernel. Then, per hub and
kernel:

  alone      round trip of --cells cells of one user, one after another
             (send execute_request -> status idle; a different cell each
             time: `i + 1`)
  together   every user running --cells cells at once, each in its own
             thread: every request answered, p50 and p99 of the round trips

    PYTHONPATH=tests build/venv/bin/python bench/bench_hub.py --gpuc build/gpuc \
        [--users 20] [--cells 50] [--json build/bench/hub.json]

The gpuc kernelspec is installed into a temporary folder put first on
JUPYTER_PATH; ipykernel is the venv's own. The client is Python
(websocket-client, one thread per user): its own time is in every figure,
for both kernels alike.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gpuc_testing.hub import login, start_hub, why_not

KERNELS = {"gpuc": "gpuc", "ipykernel": "python3"}


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def round_trips(ws, cells: int, warmup: int = 3) -> list[float]:
    for i in range(warmup):
        ws.execute_ok(f"{i} + 1")
    times = []
    for i in range(cells):
        r = ws.execute_ok(f"{i} + 1")
        assert r.result == str(i + 1), r.describe()
        times.append(r.seconds)
    return times


def measure(hub, users: int, cells: int) -> dict:
    started = time.monotonic()
    people = [login(hub, f"user{i:02d}") for i in range(users)]
    with ThreadPoolExecutor(users) as pool:
        list(pool.map(lambda u: u.start_server(timeout=300), people))
    servers_s = time.monotonic() - started
    sockets = {}
    for u in people:
        for kind, spec in KERNELS.items():
            ws = u.connect(u.start_kernel(spec))
            ws.wait_ready()
            sockets[u.name, kind] = ws
    out = {"servers_start_s": servers_s}
    for kind in KERNELS:
        alone = round_trips(sockets[people[0].name, kind], cells)
        barrier = threading.Barrier(users)

        def run(u):
            barrier.wait()
            return round_trips(sockets[u.name, kind], cells, warmup=0)

        t0 = time.monotonic()
        with ThreadPoolExecutor(users) as pool:
            per_user = list(pool.map(run, people))
        wall = time.monotonic() - t0
        together = [t for ts in per_user for t in ts]
        out[kind] = {
            "alone_p50_ms": 1e3 * statistics.median(alone),
            "alone_p99_ms": 1e3 * percentile(alone, 99),
            "together_answered": len(together),
            "together_expected": users * cells,
            "together_p50_ms": 1e3 * statistics.median(together),
            "together_p99_ms": 1e3 * percentile(together, 99),
            "together_cells_per_s": len(together) / wall,
        }
    for ws in sockets.values():
        ws.close()
    for u in people:
        u.stop_server()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpuc", default="build/gpuc")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--cells", type=int, default=50)
    ap.add_argument("--json", default="build/bench/hub.json")
    args = ap.parse_args()
    reason = why_not()
    if reason:
        print(f"bench_hub: {reason}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="gpuc-bench-hub-") as prefix:
        subprocess.run([os.path.abspath(args.gpuc), "install", "--prefix", prefix], check=True,
                       capture_output=True)
        os.environ["JUPYTER_PATH"] = f"{prefix}/share/jupyter"
        results = {"machine": f"{platform.node()} ({os.cpu_count()} CPUs)", "users": args.users,
                   "cells": args.cells}
        for mode, nodelay in (("as configured", "0"), ("TCP_NODELAY", "1")):
            hub = start_hub(GPUC_HUB_NODELAY=nodelay)
            try:
                results[mode] = measure(hub, args.users, args.cells)
            finally:
                hub.stop()
    print(f"{args.users} users, {args.cells} cells each, on {results['machine']}")
    print(f"{'websocket':14} {'kernel':10} {'alone p50':>10} {'alone p99':>10} "
          f"{'together p50':>13} {'together p99':>13} {'answered':>10} {'cells/s':>8}")
    for mode in ("as configured", "TCP_NODELAY"):
        for kind in KERNELS:
            r = results[mode][kind]
            print(f"{mode:14} {kind:10} {r['alone_p50_ms']:8.1f}ms {r['alone_p99_ms']:8.1f}ms "
                  f"{r['together_p50_ms']:11.1f}ms {r['together_p99_ms']:11.1f}ms "
                  f"{r['together_answered']:>4}/{r['together_expected']:<5} "
                  f"{r['together_cells_per_s']:8.0f}")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=1))
    ok = all(results[m][k]["together_answered"] == results[m][k]["together_expected"]
             for m in ("as configured", "TCP_NODELAY") for k in KERNELS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
