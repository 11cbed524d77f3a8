"""Joining, indexing by data, sorting and searching, several-axis reductions
and integer fmod against CuPy, on the GPU machine, in one run (issue 29
part 1: each at >= 0.95x CuPy is the goal), and part 2's scans along the
last axis and float64 normals; full, arange and linspace of 1e8.

    PYTHONPATH=tests python3 bench/bench_arrays2.py BIN_DIR OUT_DIR [WORD ...]

WORDs: only the cases whose name holds one of them (e.g. `take put`).

Timed as bench/bench_math.py times: CUDA events around back-to-back calls
after a warm-up (GPU time per call); gpuc in a notebook run by `gpuc run`,
CuPy in this process, on the same data (linspace and a fixed pattern, no
random generator shared). Operations whose result size depends on the data
(masks, nonzero, unique) read the count back to the host on both sides, as
CuPy must. Prints one line per case: gpuc, CuPy, CuPy/gpuc (above 1: gpuc
is faster), and GB/s of the bytes each call must at least move.
"""
import sys
from pathlib import Path

from gpuc_testing.bench import case_times, cupy_per_call_ms, output_lines
from gpuc_testing.notebook import run_notebook
from gpuc_testing.sources import per_call_ms, timed_case

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
ONLY = sys.argv[3:]  # words: only the cases whose name holds one of them
OUT.mkdir(parents=True, exist_ok=True)
N = 100_000_000   # elements of the big vectors
S = 10_000_000    # of the sorts
M = 10_000        # a side of the matrix
F4 = 4

# name, bytes, calls, gpuc statement (a function body), CuPy statement
CASES = [
    ("concatenate 2 x 5e7 float32", 4 * N * F4 // 2, 20,
     "ga_free(ga_concatenate(0, h1, h2));", "cp.concatenate((h1, h2))"),
    ("stack 2 x 5e7 float32", 4 * N * F4 // 2, 20, "ga_free(ga_stack(0, h1, h2));",
     "cp.stack((h1, h2))"),
    ("pad 1e4 x 1e4 float32 by 8, constant", 2 * M * M * F4, 20,
     'ga_free(ga_pad(m, "constant", 0, 8));', "cp.pad(m, 8)"),
    ("pad 1e4 x 1e4 float32 by 8, reflect", 2 * M * M * F4, 20,
     'ga_free(ga_pad(m, "reflect", 0, 8));', "cp.pad(m, 8, 'reflect')"),
    ("repeat 2.5e7 float32 x 4", 5 * N * F4 // 4, 20, "ga_free(ga_repeat(q, 4, 0));",
     "cp.repeat(q, 4, 0)"),
    ("tile 1e4 x 2500 float32 (1, 4)", 5 * N * F4 // 4, 20, "ga_free(ga_tile(mq, 1, 4));",
     "cp.tile(mq, (1, 4))"),
    ("flip 1e8 float32 (copied)", 2 * N * F4, 20, "ga_free(ga_copy(ga_flip(x, 0)));",
     "cp.flip(x, 0).copy()"),
    ("roll 1e8 float32", 2 * N * F4, 20, "ga_free(ga_roll(x, 12345, 0));", "cp.roll(x, 12345)"),
    ("take 1e7 of 1e8 float32", S * (8 + 2 * F4), 20, "ga_free(ga_take(x, idx, 0));",
     "cp.take(x, idx)"),
    ("put 1e7 into 1e8 float32", S * (8 + 2 * F4), 20, "ga_put(xw, idx, 2.5);",
     "cp.put(xw, idx, 2.5)"),
    # CuPy's take and put wrap indices and never raise: NumPy's mode "wrap"
    ("take 1e7 of 1e8 float32, mode wrap (CuPy's)", S * (8 + 2 * F4), 20,
     'ga_free(ga_take_mode(x, idx, 0, "wrap"));', "cp.take(x, idx)"),
    ("put 1e7 into 1e8 float32, mode wrap (CuPy's)", S * (8 + 2 * F4), 20,
     'ga_put_mode(xw, idx, 2.5, "wrap");', 'cp.put(xw, idx, 2.5, mode="wrap")'),
    ("mask select 1e8 float32 (half)", N * (F4 + 1) + N // 2 * F4, 20,
     "ga_free(ga_mask_select(x, mk));", "x[mk]"),
    ("mask assign 1e8 float32 (scalar)", N * (2 * F4 + 1), 20, "ga_mask_assign(xw, mk, 0.25);",
     "xw.__setitem__(mk, 0.25)"),
    ("nonzero 1e8 bool (half)", N + N // 2 * 8, 20, "ga_free(ga_flatnonzero(mk));",
     "cp.flatnonzero(mk)"),
    ("argwhere 1e4 x 1e4 bool (half)", M * M + M * M // 2 * 16, 10,
     "ga_free(ga_argwhere(mk2));", "cp.argwhere(mk2)"),
    ("compress 1e4 x 1e4 float32 columns (half)", M * M * F4 * 3 // 2, 10,
     "ga_free(ga_compress(cond, m, 1));", "cp.compress(cond, m, 1)"),
    ("sort 1e7 float32", 2 * S * F4, 5, "ga_free(ga_sort(s, 0));", "cp.sort(s)"),
    ("argsort 1e7 float32", S * (2 * F4 + 8), 5, "ga_free(ga_argsort(s, 0));", "cp.argsort(s)"),
    ("sort rows of 1e4 x 1e3 float32", 2 * S * F4, 5, "ga_free(ga_sort(sr, 1));",
     "cp.sort(sr, 1)"),
    ("unique 1e7 int32 (1e4 values)", 2 * S * F4, 5, "ga_free(ga_unique(si));", "cp.unique(si)"),
    ("sort 1e7 float64", 2 * S * 8, 5, "ga_free(ga_sort(sd, 0));", "cp.sort(sd)"),
    ("argsort 1e7 int32 (1e4 values)", S * (2 * F4 + 8), 5, "ga_free(ga_argsort(si, 0));",
     "cp.argsort(si)"),
    ("searchsorted 1e7 into 1e6 float32", S * (F4 + 8), 20,
     'ga_free(ga_searchsorted(st, sq, "left"));', "cp.searchsorted(st, sq)"),
    ("histogram 1e8 float32, 100 bins", N * F4, 10, "ga_free(ga_histogram(x, 100, 0, 1, 0));",
     "cp.histogram(x, 100, (0, 1))"),
    ("sum over axes (0, 2) of 100 x 1000 x 1000 float32", N * F4, 20,
     "ga_free(ga_sum_axes(t3, 0, 0, 2));", "cp.sum(t3, axis=(0, 2))"),
    ("var ddof=1 along axis 1 of 1e4 x 1e4 float32", M * M * F4, 20,
     "ga_free(ga_var_ddof(m, 1, 1, 0));", "cp.var(m, axis=1, ddof=1)"),
    ("fmod 1e8 int32", 3 * N * F4, 20, "ga_fmod_out(io, ia, ib);", "cp.fmod(ia, ib, out=io)"),
    # part 2 of the issue: scans along the last axis, float64 normals
    ("cumsum along axis 1 of 1e4 x 1e4 float32", 2 * M * M * F4, 20,
     "ga_free(ga_cumsum(m, 1));", "cp.cumsum(m, axis=1)"),
    ("cumsum along axis 1 of 100 x 1e6 float32", 2 * N * F4, 20,
     "ga_free(ga_cumsum(w2, 1));", "cp.cumsum(w2, axis=1)"),
    ("normal 1e8 float64", N * 8, 20, "ga_free(ga_normal(F64, 0.0, 1.0, N8));",
     "rng.standard_normal(N8, dtype=cp.float64)"),
    # values made on the device (runtime/array/ga_fill): a new array each call
    ("full 1e8 float32", N * F4, 20, "ga_free(ga_full(F32, 2.5, N8));",
     "cp.full(N8, 2.5, dtype=cp.float32)"),
    ("full 1e8 int64", N * 8, 20, "ga_free(ga_full(I64, 9223372036854775807LL, N8));",
     "cp.full(N8, 2**63 - 1, dtype=cp.int64)"),
    ("arange 1e8 float32", N * F4, 20, "ga_free(ga_arange(F32, 0, N8, 1));",
     "cp.arange(0, N8, 1, dtype=cp.float32)"),
    ("arange 1e8 int64", N * 8, 20, "ga_free(ga_arange(I64, 0, N8, 1));",
     "cp.arange(0, N8, 1, dtype=cp.int64)"),
    ("linspace 1e8 float32", N * F4, 20, "ga_free(ga_linspace(F32, 0, 1, N8));",
     "cp.linspace(0, 1, N8, dtype=cp.float32)"),
    ("linspace 1e8 float64", N * 8, 20, "ga_free(ga_linspace(F64, 0, 1, N8));",
     "cp.linspace(0, 1, N8)"),
]

SETUP_GPUC = f"""
ga_t x = ga_linspace(F32, 0, 1, {N}), xw = ga_copy(x);
ga_t h1 = ga_slice(x, 0, 0, {N // 2}, 1), h2 = ga_slice(x, 0, {N // 2}, GA_END, 1);
ga_t m = ga_reshape(ga_linspace(F32, 0, 1, {M * M}), {M}, {M});
ga_t q = ga_slice(x, 0, 0, {N // 4}, 1), mq = ga_reshape(ga_copy(q), {M}, {N // 4 // M});
ga_t idx = ga_astype(ga_mod(ga_mul(ga_arange(I64, 0, {S}, 1), 7919), {N}), I64);
ga_t mk = ga_gt(ga_sin(ga_mul(x, 1000)), 0), mk2 = ga_reshape(ga_copy(ga_slice(mk, 0, 0, {M * M}, 1)), {M}, {M});
ga_t cond = ga_eq(ga_mod(ga_arange(I32, 0, {M}, 1), 2), 0);
ga_t s = ga_sin(ga_mul(ga_linspace(F32, 0, 1, {S}), 123456.0f)), sr = ga_reshape(ga_copy(s), {M}, {S // M});
ga_t si = ga_astype(ga_mod(ga_mul(ga_arange(I64, 0, {S}, 1), 7919), 10000), I32), sd = ga_astype(s, F64);
ga_t st = ga_linspace(F32, 0, 1, 1000000), sq = ga_slice(s, 0, 0, {S}, 1);
ga_t t3 = ga_reshape(x, 100, 1000, 1000), w2 = ga_reshape(x, 100, {N // 100});
#define N8 {N}
ga_t ia = ga_astype(ga_sub(ga_mod(ga_arange(I64, 0, {N}, 1), 2001), 1000), I32);
ga_t ib = ga_astype(ga_sub(ga_mod(ga_arange(I64, 0, {N}, 1), 13), 6), I32), io = ga_empty_like(ia);
{per_call_ms()}"""


if ONLY:
    CASES = [c for c in CASES if any(w in c[0] for w in ONLY)]


def gpuc_times():
    cells = ["%device gpu", SETUP_GPUC]
    for k, (_, _, reps, stmt, _) in enumerate(CASES):
        cells.append(timed_case(k, stmt, reps))
    out = run_notebook(BIN / "gpuc", OUT, cells, name="bench_arrays2", timeout=580,
                       allow_errors=True)
    return case_times(output_lines(out), len(CASES))


def cupy_times():
    import cupy as cp
    x = cp.linspace(0, 1, N, dtype=cp.float32)
    xw = x.copy()
    h1, h2 = x[:N // 2], x[N // 2:]
    m = cp.linspace(0, 1, M * M, dtype=cp.float32).reshape(M, M)
    q = x[:N // 4]
    mq = q.copy().reshape(M, N // 4 // M)
    idx = (cp.arange(S, dtype=cp.int64) * 7919) % N
    mk = cp.sin(x * cp.float32(1000)) > 0
    mk2 = mk[:M * M].copy().reshape(M, M)
    cond = cp.arange(M, dtype=cp.int32) % 2 == 0
    s = cp.sin(cp.linspace(0, 1, S, dtype=cp.float32) * cp.float32(123456))
    sr = s.copy().reshape(M, S // M)
    si = ((cp.arange(S, dtype=cp.int64) * 7919) % 10000).astype(cp.int32)
    sd = s.astype(cp.float64)
    st, sq = cp.linspace(0, 1, 1000000, dtype=cp.float32), s
    t3 = x.reshape(100, 1000, 1000)
    w2 = x.reshape(100, N // 100)
    N8 = N
    rng = cp.random.default_rng(1)
    ia = ((cp.arange(N, dtype=cp.int64) % 2001) - 1000).astype(cp.int32)
    ib = ((cp.arange(N, dtype=cp.int64) % 13) - 6).astype(cp.int32)
    io = cp.empty_like(ia)
    env = dict(locals())
    env["cp"] = cp
    return cupy_per_call_ms(env, ((stmt, reps) for _, _, reps, _, stmt in CASES))


g, c = gpuc_times(), cupy_times()
print(f"{'case':52} {'gpuc':>10} {'CuPy':>10} {'CuPy/gpuc':>10} {'gpuc GB/s':>10} {'CuPy GB/s':>10}")
for (name, nbytes, _, _, _), a, b in zip(CASES, g, c):
    print(f"{name:52} {a:8.4f}ms {b:8.4f}ms {b / a:10.3f} {nbytes / a / 1e6:10.0f} "
          f"{nbytes / b / 1e6:10.0f}")
behind = [name for (name, *_), a, b in zip(CASES, g, c) if not b / a >= 0.95]
print(f"{len(CASES) - len(behind)} of {len(CASES)} at >= 0.95x CuPy; behind: {', '.join(behind) or 'none'}")
