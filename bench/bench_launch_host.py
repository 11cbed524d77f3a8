#!/usr/bin/env python3
"""gpuc's own host work around a kernel launch and a compile-cache memory
hit, on a machine without a GPU: the executor runs against a counting
stand-in for libcuda (tests/stub_driver/libcuda_stub.c: one sm_90 device,
cuLaunchKernel a no-op), so what a launch costs is gpuc's path from the
host cell's `empty<<<1, 1>>>()` to cuLaunchKernel, and the driver calls it
makes are counted. NVRTC compiles for sm_90 as on the GPU machine.

    python3 bench/bench_launch_host.py --gpuc build/gpuc [--launches 100000]

Prints ns per launch (median and min of 20 rounds), driver calls per
launch, and the memory hits of a kernel cell run again (first, then the
median of the rest). Not a GPU figure: bench_gpu.py measures those.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile

import bench_gpu

ROUNDS = 20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuc", required=True)
    ap.add_argument("--launches", type=int, default=100000)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp(prefix="gpuc-stub-")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", os.path.join(work, "libcuda.so.1"),
                    os.path.join(here, "..", "tests", "stub_driver", "libcuda_stub.c")], check=True)
    report = os.path.join(work, "calls.txt")
    total = 100 + ROUNDS * a.launches
    env = dict(os.environ, LD_LIBRARY_PATH=work, XDG_CACHE_HOME=os.path.join(work, "cache"),
               GPUC_VERBOSE="1", STUB_REPORT=report, STUB_REPORT_AT=str(total))
    loop = ("#include <time.h>\nstruct timespec t0, t1;\ndouble per[%d];\n"
            "for (int i = 0; i < 100; i++) empty<<<1, 1>>>();\n"
            "for (int r = 0; r < %d; r++) {\n"
            "    clock_gettime(CLOCK_MONOTONIC, &t0);\n"
            "    for (int i = 0; i < %d; i++) empty<<<1, 1>>>();\n"
            "    clock_gettime(CLOCK_MONOTONIC, &t1);\n"
            "    per[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / %d;\n}\n"
            "for (int r = 0; r < %d; r++) printf(\"%%.2f\\n\", per[r]);"
            % (ROUNDS, ROUNDS, a.launches, a.launches, ROUNDS))
    kernel = "%%kernel\n" + bench_gpu.KERNEL
    outs = bench_gpu.run_gpuc(a.gpuc, [kernel] * 8 + ["%%kernel\n" + bench_gpu.EMPTY, loop], env)
    hits = [bench_gpu.compiled_ms(o) * 1e3 for o in outs[1:8]]
    per = [float(x) for x in outs[9].split()]
    # the counts from the cell that launched: the first report is the loop's end
    calls = {}
    for line in open(report):
        name, n = line.split()
        calls[name] = int(n)
    at_launch = {k: v for k, v in calls.items() if not re.match(r"cuModule|cuInit|cuDriver", k)}
    res = {"launch_ns_median": statistics.median(per), "launch_ns_min": min(per),
           "memory_hit_first_us": hits[0], "memory_hit_later_us": statistics.median(hits[1:]),
           "driver_calls": calls}
    print(f"host time per launch: {res['launch_ns_median']:.1f} ns (median of {ROUNDS} x "
          f"{a.launches}), min {res['launch_ns_min']:.1f} ns")
    print("driver calls per launch: " + ", ".join(
        f"{k} {v / total:.2f}" for k, v in sorted(at_launch.items()) if v >= total / 2))
    print(f"memory hit: first {res['memory_hit_first_us']:.1f} us, then "
          f"{res['memory_hit_later_us']:.1f} us (median of {len(hits) - 1})")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
