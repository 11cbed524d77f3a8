"""The CUDA simulator against Numba's (NUMBA_ENABLE_CUDASIM=1), on this
machine, in one run: a 1e6-element vector add with 256-thread blocks and a
shared-memory tiled 512x512 float matmul (16x16 tiles, two __syncthreads()
per tile).

    PYTHONPATH=tests python3 bench/bench_sim.py [--gpuc build/gpuc] [--json OUT.json]
                                          [--threads 1,2,16] [--no-numba]

gpuc's times come from a notebook run by `gpuc run` after `%device cpu`,
with each number of worker threads given (--threads, default 1,auto: the
first is the one compared with Numba), a vector add of 1e7 elements too:
each kernel is compiled and run once (warm-up), then the launch is timed
with the wall clock around launch + cudaDeviceSynchronize (best of --runs,
default 3; 10 gives steadier figures on a shared machine). Numba's simulator runs each thread as a Python thread,
so it is measured at small sizes (vector add: 2^14 elements; matmul:
32x32) and scaled by the work (elements; n^3). numba is installed into
this Python's environment with pip when it is missing. Prints one line per
case with both times and the ratio (goal: gpuc >= 100x faster), and gpuc's
times with %sim --memcheck (the default: the unchecked cells say
--no-memcheck) and with %sim --racecheck (goal: racecheck at most 20x the
unchecked time)."""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpuc_testing.sources import TILED_MATMUL

ROOT = Path(__file__).resolve().parent.parent

VADD = r"""
__global__ void bench_vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}"""

KERNELS = "%%kernel" + VADD + TILED_MATMUL  # the matmul: the tests' too (tests/sim)

HOST = r"""
#include <time.h>
static double bench_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int n = 1000000, m = 512;
float *a, *b, *c, *A, *B, *C;
cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&c, n * 4);
cudaMalloc(&A, m * m * 4); cudaMalloc(&B, m * m * 4); cudaMalloc(&C, m * m * 4);
for (int i = 0; i < n; i++) { a[i] = i; b[i] = 1; }       /* device memory is host memory here */
for (int i = 0; i < m * m; i++) { A[i] = (i % 13) * 0.25f; B[i] = (i % 7) - 3; }
double best = 1e9, t0;
for (int r = 0; r <= BENCH_RUNS; r++) {
    t0 = bench_now();
    bench_vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
    cudaDeviceSynchronize();
    if (r > 0 && bench_now() - t0 < best) best = bench_now() - t0;
}
printf("vadd %.6f check %.1f\n", best, c[n - 1]);
best = 1e9;
dim3 grid(m / 16, m / 16);
dim3 block(16, 16);
for (int r = 0; r <= BENCH_RUNS; r++) {
    t0 = bench_now();
    bench_matmul<<<grid, block>>>(A, B, C, m);
    cudaDeviceSynchronize();
    if (r > 0 && bench_now() - t0 < best) best = bench_now() - t0;
}
double want = 0;
for (int k = 0; k < m; k++) want += A[k] * B[k * m];
printf("matmul %.6f check %.3f %.3f\n", best, C[0], want);
"""


# a vector add of 1e7 elements, after HOST (which made the kernels and the clock)
HOST_BIG = r"""
{
int nb = 10000000;
float *a, *b, *c;
cudaMalloc(&a, nb * 4); cudaMalloc(&b, nb * 4); cudaMalloc(&c, nb * 4);
for (int i = 0; i < nb; i++) { a[i] = i % 1000; b[i] = 1; }
double best = 1e9, t0;
for (int r = 0; r <= BENCH_RUNS; r++) {
    t0 = bench_now();
    bench_vadd<<<(nb + 255) / 256, 256>>>(a, b, c, nb);
    cudaDeviceSynchronize();
    if (r > 0 && bench_now() - t0 < best) best = bench_now() - t0;
}
printf("vadd10m %.6f check %.1f\n", best, c[nb - 1]);
cudaFree(a); cudaFree(b); cudaFree(c);
}
"""

# the checks measured (with one worker, as checks run): the %sim line before
# the timed cell, and the name
CHECKS = [("%sim --memcheck", "memcheck"), ("%sim --no-memcheck --racecheck", "racecheck")]


def parse_times(text: str) -> dict:
    """{"vadd": s, "matmul": s, "vadd10m": s} from a timed cell's output, checked."""
    got = {}
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] in ("vadd", "matmul", "vadd10m"):
            got[parts[0]] = float(parts[1])
            if parts[0] == "matmul":
                assert abs(float(parts[3]) - float(parts[4])) < 1e-3 * max(1, abs(float(parts[4]))), line
            elif parts[0] == "vadd":
                assert float(parts[3]) == 1000000.0, line
            else:
                assert float(parts[3]) == 1000.0, line
    return got


def gpuc_times(gpuc: Path, threads: list, runs: int = 3) -> dict:
    """{"threads": {"1": {"vadd": s, "vadd10m": s, "matmul": s}, "2": ...},
    "memcheck": {"vadd": s, "matmul": s}, "racecheck": ...}: unchecked with each
    number of worker threads (%sim --threads), then each check; each the best
    of runs launches after a first one."""
    cells = ["%device cpu", KERNELS]
    timed = []                 # (cell index, where the times go, name)
    for t in threads:
        cells.append(f"%sim --no-memcheck --no-racecheck --threads {t}")
        timed += [(len(cells), "threads", t), (len(cells) + 1, "threads", t)]
        cells += [HOST.replace("BENCH_RUNS", str(runs)), HOST_BIG.replace("BENCH_RUNS", str(runs))]
    for magic, name in CHECKS:
        cells += [magic]
        timed.append((len(cells), name, None))
        cells.append(HOST.replace("BENCH_RUNS", str(runs)))
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": c, "id": f"c{i}"} for i, c in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
          "nbformat": 4, "nbformat_minor": 5}
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "bench_sim.ipynb", Path(tmp) / "out.ipynb"
        src.write_text(json.dumps(nb))
        subprocess.run([str(gpuc), "run", str(src), "-o", str(out), "--timeout", "500"],
                       check=True, cwd=tmp)
        outputs = json.loads(out.read_text())["cells"]
    result = {"threads": {}}
    for index, where, t in timed:
        text = "".join(o.get("text", "") for o in outputs[index]["outputs"])
        got = parse_times(text)
        if t is None:
            result[where] = got
        else:
            result["threads"].setdefault(t, {}).update(got)
    return result


NUMBA = r"""
import os, sys, time, json
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np
from numba import cuda, float32

@cuda.jit
def vadd(a, b, c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = a[i] + b[i]

TILE = 16
@cuda.jit
def matmul(A, B, C, n):
    As = cuda.shared.array((TILE, TILE), float32)
    Bs = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row, col = cuda.blockIdx.y * TILE + ty, cuda.blockIdx.x * TILE + tx
    acc = float32(0)
    for t in range(n // TILE):
        As[ty, tx] = A[row, t * TILE + tx]
        Bs[ty, tx] = B[t * TILE + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()
    C[row, col] = acc

# warm-up: the first launch of each kernel sets the simulator up
_w = np.ones(256, np.float32); vadd[1, 256](_w, _w, np.zeros_like(_w), 256)
_W = np.ones((16, 16), np.float32); matmul[(1, 1), (16, 16)](_W, _W, np.zeros_like(_W), 16)
n = int(sys.argv[1]); m = int(sys.argv[2])
a = np.arange(n, dtype=np.float32); b = np.ones(n, dtype=np.float32); c = np.zeros_like(a)
t0 = time.perf_counter(); vadd[(n + 255) // 256, 256](a, b, c, n); tv = time.perf_counter() - t0
assert c[-1] == n
A = (np.arange(m * m) % 13 * 0.25).astype(np.float32).reshape(m, m)
B = (np.arange(m * m) % 7 - 3).astype(np.float32).reshape(m, m)
C = np.zeros((m, m), np.float32)
t0 = time.perf_counter(); matmul[(m // TILE, m // TILE), (TILE, TILE)](A, B, C, m); tm = time.perf_counter() - t0
assert np.allclose(C, A @ B, rtol=1e-4)
print(json.dumps({"vadd": tv, "matmul": tm}))
"""


def numba_times(n_small: int, m_small: int) -> dict:
    try:
        import numba  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "numba"], check=True)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    out = subprocess.run([sys.executable, "-c", NUMBA, str(n_small), str(m_small)], env=env,
                         check=True, capture_output=True, text=True).stdout
    small = json.loads(out.strip().splitlines()[-1])
    return {"vadd": small["vadd"] * (1000000 / n_small),
            "matmul": small["matmul"] * (512 / m_small) ** 3,
            "vadd_measured": small["vadd"], "matmul_measured": small["matmul"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuc", default=str(ROOT / "build" / "gpuc"))
    ap.add_argument("--json")
    ap.add_argument("--threads", default="1,auto",
                    help="worker thread counts to time, comma-separated (%%sim --threads): "
                         "1,2,4,16 or auto")
    ap.add_argument("--runs", type=int, default=3,
                    help="timed launches per case, after a first one; the best is kept")
    ap.add_argument("--no-numba", action="store_true", help="gpuc's times only")
    ap.add_argument("--numba-n", type=int, default=16384)
    ap.add_argument("--numba-m", type=int, default=32)
    args = ap.parse_args()
    threads = args.threads.split(",")
    times = gpuc_times(Path(args.gpuc), threads, args.runs)
    machine = f"{platform.node()}, {os.cpu_count()} cores, {platform.processor() or platform.machine()}"
    nb = None if args.no_numba else numba_times(args.numba_n, args.numba_m)
    versions = ""
    if nb:
        import numba
        versions = f", numba {numba.__version__}"
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine}{versions}")
    result = {"date": time.strftime("%Y-%m-%d", time.gmtime()), "machine": machine,
              "threads": times["threads"], "cases": []}
    for t in threads:
        g = times["threads"][t]
        print(f"%sim --threads {t}: vector add 1e6 {g['vadd']:.4f} s, 1e7 {g['vadd10m']:.4f} s; "
              f"tiled matmul 512x512 {g['matmul']:.4f} s")
    g = times["threads"][threads[0]]
    rows = [("vector add 1e6 float32, 256-thread blocks", "vadd", 0.5,
             f"{args.numba_n} elements"),
            ("tiled matmul 512x512 float32, 16x16 tiles", "matmul", 5.0,
             f"{args.numba_m}x{args.numba_m}")]
    for title, key, goal, small in rows:
        mem, race = times["memcheck"][key], times["racecheck"][key]
        case = {"case": title, "gpuc_s": g[key], "threads": threads[0], "memcheck_s": mem,
                "racecheck_s": race}
        line = f"{title} (--threads {threads[0]}): gpuc {g[key]:.4f} s (goal <= {goal} s)"
        if nb:
            ratio = nb[key] / g[key]
            line += (f", Numba's simulator {nb[key]:.1f} s (measured "
                     f"{nb[key + '_measured']:.2f} s at {small}, scaled): {ratio:.0f}x faster")
            case.update(numba_s=nb[key], numba_measured_s=nb[key + "_measured"], ratio=ratio)
        print(f"{line}; memcheck {mem:.4f} s ({mem / g[key]:.1f}x), racecheck {race:.4f} s "
              f"({race / g[key]:.1f}x, goal <= 20x)")
        result["cases"].append(case)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
