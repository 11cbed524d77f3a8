#!/usr/bin/env python3
"""gpuc against ipykernel, side by side in one run, through jupyter_client.

For each kernel:
  startup     time from KernelManager.start_kernel() to the first
              kernel_info_reply on shell (median of --launches launches);
  round trip  median time from sending a trivial execute_request (`1`) to
              its status idle on IOPub (--requests requests, after warm-up),
              and the same with a different cell each time (`1 + i`: gpuc
              reuses the code of a re-run cell, so this one compiles each);
              both through jupyter_client (what a Python front end sees: its
              threads and message parsing count in both kernels' times) and
              through a bare ZeroMQ client (RawClient: what the kernel
              itself costs, as issue 14 measured it);
  memory      resident memory of the kernel's whole process tree (kernel +
              executor / children), idle after a warm-up cell, twice: the
              sum of VmRSS (counts a shared library page once per process
              that maps it) and the sum of Pss from smaps_rollup (counts a
              page shared by N processes as 1/N in each: the tree's real
              share of memory).

Goals (docs/performance.md): startup <= 1/10 of ipykernel's, round trip
<= 1/4, memory <= 1/4.

    make bench
    build/venv/bin/python bench/bench_kernel.py --gpuc build/gpuc \
        [--launches 10] [--requests 200] [--json build/bench/kernel.json]

The gpuc kernelspec is installed into a temporary directory put first on
JUPYTER_PATH; ipykernel is the venv's own (python -m ipykernel_launcher).
"""
from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import zmq

QUIET = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
GOALS = {"startup_s": 1 / 10, "roundtrip_s": 1 / 4, "roundtrip_varying_s": 1 / 4,
         "roundtrip_raw_s": 1 / 4, "roundtrip_raw_varying_s": 1 / 4,
         "rss_kib": 1 / 4, "pss_kib": 1 / 4}


def tree_kib(pid: int, path: str, field: str) -> int:
    """Sum of one /proc/<pid>/<path> field over pid and its descendants."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/{path}").read_text().splitlines():
                if line.startswith(field):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return total


def manager(name: str):
    from jupyter_client import KernelManager
    km = KernelManager(kernel_name=name)
    km.shutdown_wait_time = 5
    # zmq retries a refused connect every 100 ms by default, which would
    # round a fast kernel's startup up to 100 ms: retry every 1 ms instead.
    km.context.setsockopt(zmq.RECONNECT_IVL, 1)
    return km


def startup_once(name: str) -> float:
    km = manager(name)
    t0 = time.perf_counter()
    km.start_kernel(**QUIET)
    sock = km.connect_shell()
    try:
        msg = km.session.msg("kernel_info_request", {})
        km.session.send(sock, msg)
        deadline = t0 + 60
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"{name}: no kernel_info_reply in 60 s")
            if sock.poll(int(left * 1000)):
                _, parts = km.session.feed_identities(sock.recv_multipart())
                reply = km.session.deserialize(parts)
                if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                    elapsed = time.perf_counter() - t0
                    break
    finally:
        sock.close(linger=0)
        km.shutdown_kernel(now=False)
    return elapsed


def execute_wait_idle(kc, code: str, timeout: float = 30) -> float:
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    deadline = t0 + timeout
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError(f"no idle for {code!r}")
        m = kc.get_iopub_msg(timeout=left)
        if (m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status"
                and m["content"]["execution_state"] == "idle"):
            elapsed = time.perf_counter() - t0
            break
    while True:  # the execute_reply, off the clock
        r = kc.get_shell_msg(timeout=timeout)
        if r["parent_header"].get("msg_id") == msg_id:
            if r["content"]["status"] != "ok":
                raise RuntimeError(f"{code!r} failed: {r['content']}")
            return elapsed


class RawClient:
    """A bare ZeroMQ client of one kernel, as the issue measured it: a DEALER
    on shell and a SUB on IOPub, each message signed with hmac and read with
    json directly (no jupyter_client session, no threads), so the time is
    the kernel's, not a Python front end's."""

    def __init__(self, km):
        info = km.get_connection_info()
        key = info["key"]
        self.key = key.encode() if isinstance(key, str) else key
        ctx = zmq.Context.instance()
        url = f"{info['transport']}://{info['ip']}:"
        self.shell = ctx.socket(zmq.DEALER)
        self.shell.connect(url + str(info["shell_port"]))
        self.iopub = ctx.socket(zmq.SUB)
        self.iopub.setsockopt(zmq.SUBSCRIBE, b"")
        self.iopub.connect(url + str(info["iopub_port"]))
        self.session = uuid.uuid4().hex
        self.digest = getattr(hashlib, info.get("signature_scheme", "hmac-sha256").split("-")[1])

    def close(self):
        self.shell.close(linger=0)
        self.iopub.close(linger=0)

    def execute_wait_idle(self, code: str, timeout: float = 30) -> float:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "session": self.session, "username": "bench",
                  "date": "2026-01-01T00:00:00.000000Z", "msg_type": "execute_request",
                  "version": "5.3"}
        content = {"code": code, "silent": False, "store_history": True,
                   "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}
        frames = [json.dumps(header).encode(), b"{}", b"{}", json.dumps(content).encode()]
        sig = hmac.new(self.key, digestmod=self.digest)
        for f in frames:
            sig.update(f)
        t0 = time.perf_counter()
        self.shell.send_multipart([b"<IDS|MSG>", sig.hexdigest().encode(), *frames])
        while True:
            if not self.iopub.poll(int(timeout * 1000)):
                raise TimeoutError(f"no idle for {code!r}")
            parts = self.iopub.recv_multipart()
            i = parts.index(b"<IDS|MSG>")
            if (json.loads(parts[i + 2])["msg_type"] == "status"
                    and json.loads(parts[i + 3]).get("msg_id") == msg_id
                    and json.loads(parts[i + 5])["execution_state"] == "idle"):
                elapsed = time.perf_counter() - t0
                break
        while True:  # the execute_reply, off the clock
            parts = self.shell.recv_multipart()
            i = parts.index(b"<IDS|MSG>")
            if json.loads(parts[i + 3]).get("msg_id") == msg_id:
                status = json.loads(parts[i + 5])["status"]
                if status != "ok":
                    raise RuntimeError(f"{code!r} failed: {status}")
                return elapsed


def open_session(name: str):
    km = manager(name)
    km.start_kernel(**QUIET)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    for _ in range(10):
        execute_wait_idle(kc, "1")
    return km, kc


def measure_all(kernels: dict, launches: int, requests: int) -> dict:
    """Both kernels are measured in the same conditions: launches alternate,
    and both sessions run side by side with their requests interleaved
    (the order flips every round), so that a busy moment of this shared
    machine falls on both alike."""
    results = {label: {"startup_all_s": [], "roundtrips": []} for label in kernels}
    for _ in range(launches):
        for label, name in kernels.items():
            results[label]["startup_all_s"].append(startup_once(name))
    sessions = {label: open_session(name) for label, name in kernels.items()}
    try:
        labels = list(kernels)
        for i in range(requests):
            for label in (labels if i % 2 == 0 else labels[::-1]):
                results[label]["roundtrips"].append(execute_wait_idle(sessions[label][1], "1"))
        # the same with a different cell each time (`1 + i`): gpuc compiles
        # every one, where a re-run of `1` reuses its code
        for label in labels:
            results[label]["varying"] = []
        for i in range(requests):
            for label in (labels if i % 2 == 0 else labels[::-1]):
                results[label]["varying"].append(
                    execute_wait_idle(sessions[label][1], f"1 + {i}"))
        # the same two through a bare ZeroMQ client, with jupyter_client's
        # threads stopped (on a machine of few cores they compete)
        raws = {}
        for label, (km, kc) in sessions.items():
            kc.stop_channels()
            raws[label] = RawClient(km)
        time.sleep(0.5)  # a SUB socket joins late: what is published before is lost
        for raw in raws.values():
            for _ in range(20):
                raw.execute_wait_idle("1")
        for key, code in (("raw", lambda i: "1"), ("raw_varying", lambda i: f"2 + {i}")):
            for label in labels:
                results[label][key] = []
            for i in range(requests):
                for label in (labels if i % 2 == 0 else labels[::-1]):
                    results[label][key].append(raws[label].execute_wait_idle(code(i)))
        for raw in raws.values():
            raw.close()
        time.sleep(1.0)
        for label, (km, _) in sessions.items():
            pid = km.provisioner.process.pid
            results[label]["rss_kib"] = tree_kib(pid, "status", "VmRSS:")
            results[label]["pss_kib"] = tree_kib(pid, "smaps_rollup", "Pss:")
    finally:
        for km, kc in sessions.values():
            kc.stop_channels()
            km.shutdown_kernel(now=False)
    for r in results.values():
        r["roundtrip_varying_s"] = statistics.median(r.pop("varying"))
        r["roundtrip_raw_s"] = statistics.median(r.pop("raw"))
        r["roundtrip_raw_varying_s"] = statistics.median(r.pop("raw_varying"))
        times = r.pop("roundtrips")
        r["startup_s"] = statistics.median(r["startup_all_s"])
        r["roundtrip_s"] = statistics.median(times)
        r["roundtrip_p90_s"] = sorted(times)[int(0.9 * (len(times) - 1))]
    return results


def fmt(key: str, v: float) -> str:
    if key.endswith("_s"):
        return f"{v * 1000:9.2f} ms"
    return f"{v / 1024:9.1f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpuc", default="build/gpuc", help="the gpuc binary")
    ap.add_argument("--launches", type=int, default=10)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--json", default="build/bench/kernel.json", help="result file")
    args = ap.parse_args()

    gpuc = Path(args.gpuc).resolve()
    prefix = tempfile.mkdtemp(prefix="gpuc-bench-")
    subprocess.run([str(gpuc), "install", "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")

    from jupyter_client.kernelspec import KernelSpecManager
    py_spec = KernelSpecManager().get_kernel_spec("python3")
    print(f"gpuc:      {gpuc}")
    print(f"ipykernel: {sys.executable} {' '.join(py_spec.argv[1:3])}")
    print(f"{args.launches} launches, {args.requests} requests each\n", flush=True)

    print("measuring gpuc and ipykernel side by side ...", flush=True)
    results = measure_all({"gpuc": "gpuc", "ipykernel": "python3"}, args.launches,
                          args.requests)

    rows = [("startup (launch -> kernel_info_reply)", "startup_s"),
            ("round trip (execute `1` -> idle)", "roundtrip_s"),
            ("round trip, a new cell each time (`1 + i`)", "roundtrip_varying_s"),
            ("  the same two, bare ZeroMQ client: `1`", "roundtrip_raw_s"),
            ("  a new cell each time (`2 + i`)", "roundtrip_raw_varying_s"),
            ("memory (sum of RSS, process tree)", "rss_kib"),
            ("memory (sum of PSS, process tree)", "pss_kib")]
    print(f"\n{'':40} {'gpuc':>12} {'ipykernel':>12} {'ratio':>8} {'goal':>8}")
    verdicts = {}
    for title, key in rows:
        g, p = results["gpuc"][key], results["ipykernel"][key]
        ratio = g / p if p else float("inf")
        ok = ratio <= GOALS[key]
        verdicts[key] = {"ratio": ratio, "goal": GOALS[key], "met": ok}
        print(f"{title:40} {fmt(key, g):>12} {fmt(key, p):>12} {ratio:8.3f} "
              f"{'<= %.3f' % GOALS[key]:>8} {'met' if ok else 'MISSED'}")

    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": sys.version.split()[0]},
        "gpuc": str(gpuc),
        "launches": args.launches, "requests": args.requests,
        "results": results, "ratios": verdicts,
    }, indent=1) + "\n")
    print(f"\nresults written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
