"""Array math against CuPy 14.2, on the GPU machine, in one run (issue
"Array math"): a device-to-device copy (the bandwidth reference), the fused
elementwise (x - y)^2, whole-array and by-axis sums, a fused map-reduce,
over float32.

    PYTHONPATH=tests python3 bench/bench_math.py BIN_DIR OUT_DIR

Both sides are timed the same way: CUDA events around N back-to-back
calls after a warm-up (the GPU time per call, what bandwidth figures
mean); gpuc in a notebook run by `gpuc run`, CuPy in this process. Prints
one line per case: gpuc, CuPy, the ratio, and GB/s.
"""
import sys
from pathlib import Path

from gpuc_testing.bench import case_times, cupy_per_call_ms, output_lines
from gpuc_testing.notebook import run_notebook
from gpuc_testing.sources import per_call_ms, timed_case

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
OUT.mkdir(parents=True, exist_ok=True)
N = 100_000_000
M = 10_000
F4 = 4

# name, bytes moved per call, gpuc statement (a function body), CuPy statement
CASES = [
    ("copy 1e8 float32 (device to device)", 2 * N * F4,
     "cudaMemcpy(ga_data(o), ga_data(x), (size_t)N * 4, cudaMemcpyDeviceToDevice);",
     "cp.copyto(o, x)"),
    ("(x - y)^2 1e8 float32, fused", 3 * N * F4,
     'ga_map_out(o, "(a - b) * (a - b)", x, y);', "sqdiff(x, y, o)"),
    ("(x - y)^2 1e8 float32, plain CuPy (temporaries)", 3 * N * F4,
     'ga_map_out(o, "(a - b) * (a - b)", x, y);', "cp.square(x - y)"),
    ("sum 1e8 float32", N * F4, "ga_free(ga_sum_axis(x, GA_ALL, 0));", "cp.sum(x)"),
    ("sum axis 0 of 1e4 x 1e4 float32", M * M * F4, "ga_free(ga_sum_axis(m, 0, 0));",
     "cp.sum(m, axis=0)"),
    ("sum axis 1 of 1e4 x 1e4 float32", M * M * F4, "ga_free(ga_sum_axis(m, 1, 0));",
     "cp.sum(m, axis=1)"),
    ("sum((x - y)^2) 1e8 float32, one pass", 2 * N * F4,
     'ga_free(ga_map("sum((a - b) * (a - b))", x, y));', "sumsq(x, y)"),
    ("cumsum 1e8 float32", 2 * N * F4, "ga_free(ga_cumsum(x, GA_ALL));", "cp.cumsum(x)"),
    ("max 1e8 float32", N * F4, "ga_free(ga_max_axis(x, GA_ALL, 0));", "cp.max(x)"),
    ("argmax 1e8 float32", N * F4, "ga_free(ga_argmax_axis(x, GA_ALL, 0));", "cp.argmax(x)"),
    ("C-contiguous copy of a transposed 2000 x 50000 float32", 2 * N * F4,
     "ga_free(ga_copy(ga_transpose(tm)));", "cp.ascontiguousarray(tm.T)"),
]
REPS = 50


def gpuc_times():
    cells = ["%device gpu", f"""
#define N {N}
ga_t x = ga_linspace(F32, 0, 1, N), y = ga_linspace(F32, 1, 0, N), o = ga_empty(F32, N);
ga_t m = ga_linspace(F32, 0, 1, {M * M}), mm;
mm = ga_reshape(m, {M}, {M}); m = mm;
ga_t tm = ga_reshape(x, 2000, N / 2000);
{per_call_ms()}"""]
    for k, (_, _, stmt, _) in enumerate(CASES):
        cells.append(timed_case(k, stmt, REPS))
    out = run_notebook(BIN / "gpuc", OUT, cells, name="bench_math", timeout=500,
                       allow_errors=False)
    return case_times(output_lines(out), len(CASES))


def cupy_times():
    import cupy as cp
    x = cp.linspace(0, 1, N, dtype=cp.float32)
    y = cp.linspace(1, 0, N, dtype=cp.float32)
    o = cp.empty(N, dtype=cp.float32)
    m = cp.linspace(0, 1, M * M, dtype=cp.float32).reshape(M, M)
    sqdiff_k = cp.ElementwiseKernel("T a, T b", "T c", "c = (a - b) * (a - b)", "sqdiff")
    sumsq_k = cp.ReductionKernel("T a, T b", "T s", "(a - b) * (a - b)", "a + b", "s = a", "0",
                                 "sumsq")
    env = {"cp": cp, "x": x, "y": y, "o": o, "m": m, "tm": x.reshape(2000, N // 2000), "sqdiff": sqdiff_k,
           "sumsq": lambda a, b: sumsq_k(a, b)}
    return cupy_per_call_ms(env, ((stmt, REPS) for *_, stmt in CASES))


g, c = gpuc_times(), cupy_times()
print(f"{'case':50} {'gpuc':>10} {'CuPy':>10} {'CuPy/gpuc':>10} {'gpuc GB/s':>10} {'CuPy GB/s':>10}")
for (name, nbytes, _, _), a, b in zip(CASES, g, c):
    print(f"{name:50} {a:8.4f}ms {b:8.4f}ms {b / a:10.3f} {nbytes / a / 1e6:10.0f} "
          f"{nbytes / b / 1e6:10.0f}")
copy = CASES[0][1] / g[0] / 1e6
print(f"(x - y)^2 fused: {CASES[1][1] / g[1] / 1e6:.0f} GB/s = "
      f"{100 * (CASES[1][1] / g[1] / 1e6) / copy:.1f}% of the device-to-device copy "
      f"({copy:.0f} GB/s, same run; goal >= 95%)")
print(f"sum((x - y)^2) one pass: {CASES[6][1] / g[6] / 1e6:.0f} GB/s = "
      f"{100 * (CASES[6][1] / g[6] / 1e6) / copy:.1f}% of the copy's bandwidth (goal >= 90% of read bandwidth)")
