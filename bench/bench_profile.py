#!/usr/bin/env python3
"""What %%profile costs: a cell of 1000 small launches timed inside the cell
(host clock, launches and a final synchronisation), plain and under
%%profile (times-only mode), alternated --rounds times in one notebook run
by `gpuc run`; the best of each and their ratio. The goal (issue 28): at
most 1.05 on a GPU (CUPTI's activity records). The same cells with a tenth
of the launches split what %%profile adds into a cost per launch (CUPTI's
work at each launch) and a fixed cost per cell (what CUPTI does once, at a
cell's first launch): (t(N) - t(N/10)) / (0.9 N), and the rest. On the
simulator every profiled launch runs instrumented, so its ratio is large
and says what the counts cost, not a goal.

Where nvcc and CUPTI's headers are found, the same loop in a bare CUDA
program under CUPTI alone (bench/cupti_floor.cu: CONCURRENT_KERNEL records,
nothing else) runs after the notebook: CUPTI's own cost a launch, the floor
under gpuc's, so that what %%profile adds beyond CUPTI is measured too.

    PYTHONPATH=tests python3 bench/bench_profile.py BIN_DIR [--rounds 7] [--launches 1000] [--json OUT.json]
"""
import argparse
import glob
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from gpuc_testing.cupti import cupti_flags

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("--rounds", type=int, default=7)
ap.add_argument("--launches", type=int, default=1000)
ap.add_argument("--json")
args = ap.parse_args()

KERNEL = "%%kernel\n__global__ void tiny(int *p) { if (threadIdx.x == 0 && p) p[0] = 1; }"
SETUP = """#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
for (int r = 0; r < 100; r++) tiny<<<1, 32>>>((int *)0);
cudaDeviceSynchronize();"""


def small(n):
    return f"""{{ double t0 = now(); for (int r = 0; r < {n}; r++) tiny<<<1, 32>>>((int *)0);
cudaDeviceSynchronize(); printf("SMALL {n} %.9f\\n", now() - t0); }}"""


FEW = max(1, args.launches // 10)
cells = [KERNEL, SETUP, "%gpu"]
for _ in range(args.rounds):
    for n in (args.launches, FEW):
        cells += ["// plain\n" + small(n), "%%profile\n// profiled\n" + small(n)]
nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                 "source": c, "id": f"b{i}"} for i, c in enumerate(cells)],
      "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
      "nbformat": 4, "nbformat_minor": 5}
with tempfile.TemporaryDirectory() as tmp:
    src, out = Path(tmp) / "bench.ipynb", Path(tmp) / "bench.out.ipynb"
    src.write_text(json.dumps(nb))
    subprocess.run([str(Path(args.bin) / "gpuc"), "run", str(src), "-o", str(out)], check=True)
    done = json.loads(out.read_text())["cells"]
times = {(k, n): [] for k in ("plain", "profiled") for n in (args.launches, FEW)}
device = ""
for c in done:
    text = "".join(o.get("text", "") for o in c["outputs"] if o["output_type"] == "stream")
    if c["source"] == "%gpu":
        device = text.strip().splitlines()[0] if text.strip() else ""
    for key in ("plain", "profiled"):
        if f"// {key}\n" in c["source"]:
            for line in text.splitlines():
                if line.startswith("SMALL "):
                    _, n, t = line.split()
                    times[(key, int(n))].append(float(t))
best = {k: min(v) for k, v in times.items()}
N = args.launches
plain, prof = best[("plain", N)], best[("profiled", N)]
split = {}
for key in ("plain", "profiled"):
    per = (best[(key, N)] - best[(key, FEW)]) / (N - FEW) if N > FEW else 0
    split[key] = {"per_launch_us": per * 1e6, "fixed_us": (best[(key, N)] - per * N) * 1e6}
result = {"device": device, "launches": N, "rounds": args.rounds,
          "plain_s": plain, "profiled_s": prof, "ratio": prof / plain,
          "per_launch_us": {"plain": plain / N * 1e6, "profiled": prof / N * 1e6},
          "few_launches": FEW, "few_plain_s": best[("plain", FEW)],
          "few_profiled_s": best[("profiled", FEW)], "split": split}
print(f"{device}\n{N} small launches: plain {plain * 1e3:.3f} ms, under %%profile "
      f"{prof * 1e3:.3f} ms: {prof / plain:.3f}x (best of {args.rounds} each, alternated)")
for key in ("plain", "profiled"):
    print(f"{key}: {split[key]['per_launch_us']:.3f} us a launch + {split[key]['fixed_us']:.1f} us "
          f"a cell (from {N} and {FEW} launches)")
print(f"%%profile adds {split['profiled']['per_launch_us'] - split['plain']['per_launch_us']:.3f} us "
      f"a launch and {split['profiled']['fixed_us'] - split['plain']['fixed_us']:.1f} us a cell")


def cupti_floor(tmp):
    """(plain, traced) seconds of the bare CUPTI program, or None where it cannot be built."""
    nvcc = shutil.which("nvcc") or next(iter(glob.glob("/usr/local/cuda/bin/nvcc")), None)
    if not nvcc:
        return None
    flags = cupti_flags(nvcc, tmp, first=[Path(args.bin).resolve().parent / "lib/cupti"])
    if not flags:
        return None
    exe = Path(tmp) / "cupti_floor"
    cmd = [nvcc, "-O2", "-o", str(exe), str(Path(__file__).with_name("cupti_floor.cu")), *flags]
    if subprocess.run(cmd).returncode:
        return None
    res = subprocess.run([str(exe), str(N), str(2 * args.rounds)], capture_output=True, text=True)
    vals = dict(l.split() for l in res.stdout.splitlines() if len(l.split()) == 2)
    return (float(vals["plain"]), float(vals["traced"])) if "traced" in vals else None


with tempfile.TemporaryDirectory() as tmp:
    floor = cupti_floor(tmp)
if floor:
    plain_b, traced_b = floor
    added = (prof - plain) / N * 1e6
    added_b = (traced_b - plain_b) / N * 1e6
    result["cupti_floor"] = {"plain_s": plain_b, "traced_s": traced_b, "ratio": traced_b / plain_b,
                             "added_us": added_b, "gpuc_added_us": added}
    print(f"bare CUPTI (cupti_floor.cu, same loop): plain {plain_b * 1e3:.3f} ms, traced "
          f"{traced_b * 1e3:.3f} ms: {traced_b / plain_b:.3f}x, {added_b:.3f} us a launch; "
          f"%%profile {added:.3f} us a launch, {added - added_b:+.3f} us beyond CUPTI's own")
else:
    print("bare CUPTI reference not built (no nvcc or no CUPTI headers/library)")
if args.json:
    Path(args.json).write_text(json.dumps(result, indent=1))
