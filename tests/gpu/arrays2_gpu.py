"""Joining, indexing by data, sorting and searching, several-axis reductions,
ddof and integer fmod on the GPU machine: each case on GPU 0 and on the CPU
backend, both checked against NumPy (tests/array/test_rearrange_numpy.py's
kinds, with sizes that take the GPU's multi-pass paths: radix sorts of
millions, segmented sorts of many lines, compactions of millions across
the compaction's tiles, takes and puts of a million indices).

    python3 tests/gpu/arrays2_gpu.py BIN_DIR OUT_DIR [cpu]

Runs one notebook with `gpuc run` (no Jupyter needed); prints PASS/FAIL per
case and exits non-zero on a failure. `cpu` as a third argument runs the
CPU backend only (to try the script where there is no GPU)."""
import sys
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # gpuc_testing
from gpuc_testing.notebook import run_notebook  # noqa: E402
from gpuc_testing.numpy_cases import (close, default_tol, device_cells, load_result,  # noqa: E402
                                      print_cell_errors, random_array)

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
DEVICES = ("GA_CPU",) if sys.argv[3:] == ["cpu"] else ("0", "GA_CPU")
OUT.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(29)
arr = partial(random_array, rng)


nanny = arr("float32", (2_000_003,), -1e4, 1e4)
nanny[::1001] = np.nan
INPUTS = {
    "m": arr("float32", (301, 517)), "d": arr("float64", (64, 33, 5)),
    "i": arr("int32", (700, 3000), -1000, 1000), "h": arr("float16", (9000,), -4, 4),
    "u": arr("uint8", (1_000_001,), 0, 256), "b": arr("bool", (1000, 3001)),
    "big": nanny, "idx": arr("int64", (100_000,), -300_000, 300_000),
    "sorted": np.sort(arr("float64", (100_000,), -1e3, 1e3)), "q": arr("float64", (500, 200), -1.1e3, 1.1e3),
    "ints": arr("int64", (3_000_000,), 0, 5000), "vals": arr("float32", (64,)),
    "cols": arr("int64", (500,), -3000, 3000), "fa": arr("int32", (5000,), -100, 100), "fb": arr("int32", (5000,), -7, 7),
    # the compaction's tiles (8192 a block, ranked 2048 at once): long runs
    # and scattered elements; take's turns (4 a thread): a million indices
    "runs": ((np.arange(3_000_007) // 5000) % 3 == 1) | (rng.random(3_000_007) < 0.01),
    "b3": arr("bool", (64, 1000, 47)), "idx2": arr("int32", (1_000_003,), -2_000_003, 2_000_003),
}
CASES = [  # name, gpuc expression over the inputs, NumPy
    ("concatenate promote", "ga_concatenate(1, m, ga_astype(m, F64))",
     lambda v: np.concatenate((v["m"], v["m"].astype(np.float64)), 1)),
    ("stack of a transpose", "ga_stack(0, ga_transpose(m), ga_transpose(m))",
     lambda v: np.stack((v["m"].T, v["m"].T))),
    ("pad reflect", 'ga_pad(m, "reflect", 0, 3, 4)', lambda v: np.pad(v["m"], (3, 4), "reflect")),
    ("pad constant 3-d", 'ga_pad(d, "constant", 2, 1, 0, 0, 2, 3, 3)',
     lambda v: np.pad(v["d"], ((1, 0), (0, 2), (3, 3)), constant_values=2)),
    ("repeat", "ga_repeat(m, 3, 0)", lambda v: np.repeat(v["m"], 3, 0)),
    ("tile", "ga_tile(m, 2, 3)", lambda v: np.tile(v["m"], (2, 3))),
    ("flip all (a view, copied)", "ga_copy(ga_flip(d, GA_ALL))", lambda v: np.flip(v["d"]).copy()),
    ("roll", "ga_roll(i, 1234, 1)", lambda v: np.roll(v["i"], 1234, 1)),
    ("roll flat (one kernel)", "ga_roll(big, -123457, 0)", lambda v: np.roll(v["big"], -123457, 0)),
    ("roll rows (one kernel)", "ga_roll(i, 3, 0)", lambda v: np.roll(v["i"], 3, 0)),
    ("take axis 1", "ga_take(i, cols, 1)", lambda v: np.take(v["i"], v["cols"], 1)),
    ("take flat", "ga_take(big, idx, GA_ALL)", lambda v: np.take(v["big"], v["idx"])),
    ("nonzero 2-d", "ga_argwhere(b)", lambda v: np.argwhere(v["b"])),
    ("flatnonzero", "ga_flatnonzero(ga_gt(u, 200))", lambda v: np.flatnonzero(v["u"] > 200)),
    ("mask select", "ga_mask_select(big, ga_gt(big, 5000))", lambda v: v["big"][v["big"] > 5000]),
    ("mask select rows", "ga_mask_select(i, ga_gt(ga_col(i, 0), 0))",
     lambda v: v["i"][v["i"][:, 0] > 0]),
    ("compress axis 1", "ga_compress(ga_gt(ga_row(i, 0), 0), i, 1)",
     lambda v: np.compress(v["i"][0] > 0, v["i"], 1)),
    ("flatnonzero of runs (a stepped view)", "ga_flatnonzero(ga_slice(runs, 0, 1, GA_END, 3))",
     lambda v: np.flatnonzero(v["runs"][1::3])),
    ("argwhere 3-d", "ga_argwhere(b3)", lambda v: np.argwhere(v["b3"])),
    ("argwhere of a transpose", "ga_argwhere(ga_transpose(b))", lambda v: np.argwhere(v["b"].T)),
    ("nonzero of none", "ga_flatnonzero(ga_gt(h, 100))", lambda v: np.flatnonzero(v["h"] > 100)),
    ("mask select of a transpose", "ga_mask_select(ga_transpose(q), ga_transpose(ga_gt(q, 0)))",
     lambda v: v["q"].T[v["q"].T > 0]),
    ("mask select u8 by runs", "ga_mask_select(ga_slice(u, 0, 0, 1000001, 1), ga_slice(runs, 0, 0, 1000001, 1))",
     lambda v: v["u"][v["runs"][:1000001]]),
    ("take flat, a million int32 indices", "ga_take(big, idx2, 0)", lambda v: np.take(v["big"], v["idx2"])),
    ("take mode wrap (indices past both ends)", 'ga_take_mode(big, ga_mul(idx2, 3), 0, "wrap")',
     lambda v: np.take(v["big"], v["idx2"] * 3, mode="wrap")),
    ("take mode clip along axis 1", 'ga_take_mode(i, ga_sub(ga_mul(cols, 3), 20), 1, "clip")',
     lambda v: np.take(v["i"], v["cols"] * 3 - 20, 1, mode="clip")),
    ("sort f32 with NaN", "ga_sort(big, 0)", lambda v: np.sort(v["big"])),
    ("argsort f32 (stable)", "ga_argsort(big, 0)", lambda v: np.argsort(v["big"], kind="stable")),
    ("sort rows i32", "ga_sort(i, 1)", lambda v: np.sort(v["i"], 1)),
    ("argsort columns i32", "ga_argsort(i, 0)", lambda v: np.argsort(v["i"], 0, kind="stable")),
    ("sort f16", "ga_sort(h, 0)", lambda v: np.sort(v["h"])),
    ("sort u8 (ties)", "ga_sort(u, 0)", lambda v: np.sort(v["u"])),
    ("unique i64", "ga_unique(ints)", lambda v: np.unique(v["ints"])),
    ("searchsorted left", 'ga_searchsorted(sorted, q, "left")',
     lambda v: np.searchsorted(v["sorted"], v["q"], "left")),
    ("searchsorted right", 'ga_searchsorted(sorted, q, "right")',
     lambda v: np.searchsorted(v["sorted"], v["q"], "right")),
    ("histogram i64", "ga_histogram(ints, 100, 0, 0, 0)", lambda v: np.histogram(v["ints"], 100)[0]),
    ("histogram range", "ga_histogram(q, 37, -500, 750, 0)",
     lambda v: np.histogram(v["q"], 37, (-500, 750))[0]),
    ("sum over two axes", "ga_sum_axes(d, 0, 0, 2)", lambda v: v["d"].sum(axis=(0, 2))),
    ("max over axes (transpose)", "ga_max_axes(ga_transpose(d), 1, 0, 1)",
     lambda v: v["d"].T.max(axis=(0, 1), keepdims=True)),
    ("var ddof 1", "ga_var_ddof(d, 1, 1, 0)", lambda v: v["d"].var(axis=1, ddof=1)),
    ("std ddof over axes", "ga_std_axes_ddof(m, 1, 0, 0, 1)", lambda v: np.asarray(v["m"].std(ddof=1))),
    ("fmod int32", "ga_fmod(fa, fb)",
     lambda v: np.where(v["fb"] == 0, 0, np.fmod(v["fa"], np.where(v["fb"] == 0, 1, v["fb"])))
     .astype(np.int32)),
    # made on the device (runtime/array/ga_fill), NumPy's bits: sizes past a
    # grid, float32 indices past 2^24, wrapping integers, int64 extremes
    ("arange f32 bit for bit", "ga_arange(F32, 0.1, 2e6, 0.1)",
     lambda v: np.arange(0.1, 2e6, 0.1, dtype=np.float32)),
    ("arange f64 bit for bit", "ga_arange(F64, -3.5, 3e5, 0.037)",
     lambda v: np.arange(-3.5, 3e5, 0.037, dtype=np.float64)),
    ("arange f16 bit for bit", "ga_arange(F16, 0, 60000, 0.37)",
     lambda v: np.arange(0.0, 60000.0, 0.37, dtype=np.float16)),
    ("arange i64 huge steps bit for bit", "ga_arange(I64, -4611686018427387904.0, 4611686018427387904.0, 1099511627776.0)",
     lambda v: np.arange(-2.0**62, 2.0**62, 2.0**40, dtype=np.int64)),
    ("arange i64 of integers past 2^53 bit for bit",
     "ga_arange(I64, 9007199254740993LL, 9007199254740993LL + 30000000LL, 3)",
     lambda v: np.arange(2**53 + 1, 2**53 + 1 + 30000000, 3, dtype=np.int64)),
    ("arange u8 wrapping bit for bit", "ga_arange(U8, 250, -1e6, -7)",
     lambda v: np.arange(250.0, -1e6, -7.0, dtype=np.uint8)),
    ("arange c64 bit for bit", "ga_arange(C64, 1, -1e5, -0.25)",
     lambda v: np.arange(1.0, -1e5, -0.25, dtype=np.complex64)),
    ("linspace f64 bit for bit", "ga_linspace(F64, -1.5, 2.25, 10000001)",
     lambda v: np.linspace(-1.5, 2.25, 10000001)),
    ("linspace f32 bit for bit", "ga_linspace(F32, 0.1, 1e6, 9999999)",
     lambda v: np.linspace(0.1, 1e6, 9999999, dtype=np.float32)),
    ("linspace f16 bit for bit", "ga_linspace(F16, -100, 100, 100001)",
     lambda v: np.linspace(-100.0, 100.0, 100001, dtype=np.float16)),
    ("linspace i32 bit for bit", "ga_linspace(I32, -5, 5e6, 1000003)",
     lambda v: np.linspace(-5.0, 5e6, 1000003, dtype=np.int32)),
    ("full i64 max bit for bit", "ga_full(I64, 9223372036854775807LL, 1000003)",
     lambda v: np.full(1000003, 2**63 - 1, np.int64)),
    ("full u64 max bit for bit", "ga_full(U64, 18446744073709551615ULL, 1000001)",
     lambda v: np.full(1000001, 2**64 - 1, np.uint64)),
    ("full f16 bit for bit", "ga_full(F16, 0.1, 2000001)", lambda v: np.full(2000001, 0.1, np.float16)),
    ("full c64 bit for bit", "ga_full(C64, 1.5, 1000003)", lambda v: np.full(1000003, 1.5, np.complex64)),
    ("full c128 bit for bit", "ga_full(C128, -2.25, 333, 1001)",
     lambda v: np.full((333, 1001), -2.25, np.complex128)),
    ("full u8 bit for bit", "ga_full(U8, 255, 1000003)", lambda v: np.full(1000003, 255, np.uint8)),
    ("full bool bit for bit", "ga_full(BOOL, 1, 1000001)", lambda v: np.full(1000001, True)),
    ("full of a view bit for bit", "ga_pad(ga_slice(m, 1, 3, 500, 1), \"constant\", 7, 5, 6)",
     lambda v: np.pad(v["m"][:, 3:500], (5, 6), constant_values=7)),
    ("eye c128 (a strided fill) bit for bit", "ga_eye(C128, 1000)", lambda v: np.eye(1000, dtype=np.complex128)),
]

# Sorting every dtype at sizes around the GPU's tiles (0, 1, 2, 2^k +- 1)
# and 1e7: the onesweep sort of one line (CUB's agents), with NaNs of both
# signs, -0.0, infinities and many ties; several lines (a block a line, or
# the segmented radix sort past 2048 a line and below 16) and one line of a
# 2-d array along either axis. argsort is checked
# against NumPy's kind="stable" (gpuc's sorts are stable on every backend;
# NumPy's default argsort is not); sort also keeps every value's bits
# (-0.0 stays -0.0), checked below.
SORT_DTYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
               "float16", "float32", "float64")
SORT_SIZES = (0, 1, 2, 4095, 4097, 131073, 1048575)


def sort_input(dtype, n):
    dt = np.dtype(dtype)
    if dt == bool:
        return rng.random(n) < 0.3
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        small = rng.integers(0 if dt.kind == "u" else -100, 100, size=n).astype(dt)
        return np.where(rng.random(n) < 0.5, small, x)  # ties, and the whole range
    x = (rng.standard_normal(n) * 1e3).astype(dt)
    tie = rng.random(n) < 0.3
    x[tie] = np.round(x[tie] / 100)
    special = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, -1.0], dt)
    if n:
        at = rng.integers(0, n, size=min(n, 64 + n // 50))
        x[at] = special[rng.integers(0, len(special), size=len(at))]
    return x


for _dt in SORT_DTYPES:
    for _n in SORT_SIZES + ((10_000_000,) if _dt in ("float32", "int64", "uint16") else ()):
        _k = f"s_{_dt}_{_n}"
        INPUTS[_k] = sort_input(_dt, _n)
        CASES += [
            (f"sort {_dt} n={_n}", f"ga_sort({_k}, 0)", lambda v, k=_k: np.sort(v[k])),
            (f"argsort {_dt} n={_n} (stable)", f"ga_argsort({_k}, 0)",
             lambda v, k=_k: np.argsort(v[k], kind="stable")),
            (f"unique {_dt} n={_n}", f"ga_unique({_k})", lambda v, k=_k: np.unique(v[k])),
        ]
# lines at the edges of the GPU's block-a-line sort (16 .. 2048 a line) and past them
for _dt, _shape, _axis, _arg in (("float32", (5000, 16), 1, 1), ("float32", (3000, 15), 1, 0),
                                 ("int64", (700, 65), 1, 1), ("uint8", (100, 1025), 1, 0),
                                 ("float64", (50, 2048), 1, 1), ("int16", (2049, 40), 0, 1),
                                 ("float16", (33, 513), 1, 0), ("uint32", (64, 1000), 1, 0)):
    _k = f"l_{_dt}_{_shape[0]}x{_shape[1]}"
    INPUTS[_k] = sort_input(_dt, _shape[0] * _shape[1]).reshape(_shape)
    CASES.append((f"argsort {_k} along {_axis} (stable)", f"ga_argsort({_k}, {_axis})",
                  lambda v, k=_k, a=_axis: np.argsort(v[k], a, kind="stable")) if _arg else
                 (f"sort {_k} along {_axis}", f"ga_sort({_k}, {_axis})",
                  lambda v, k=_k, a=_axis: np.sort(v[k], a)))
INPUTS["col"] = sort_input("float32", 4097).reshape(4097, 1)
INPUTS["row"] = sort_input("float64", 131073).reshape(1, 131073)
INPUTS["lines"] = sort_input("float64", 300 * 4097).reshape(300, 4097)
INPUTS["hlines"] = sort_input("float16", 2000 * 37).reshape(2000, 37)
CASES += [
    ("sort one column along axis 0", "ga_sort(col, 0)", lambda v: np.sort(v["col"], 0)),
    ("argsort one row along axis 1", "ga_argsort(row, 1)",
     lambda v: np.argsort(v["row"], 1, kind="stable")),
    ("argsort one row flat", "ga_argsort(row, GA_ALL)", lambda v: np.argsort(v["row"], None, kind="stable")),
    ("sort several lines f64 NaN", "ga_sort(lines, 1)", lambda v: np.sort(v["lines"], 1)),
    ("argsort several lines f16 along axis 0", "ga_argsort(hlines, 0)",
     lambda v: np.argsort(v["hlines"], 0, kind="stable")),
]


def same_bits(got, x):
    """sort gave back x's very values: the same multiset of bit patterns."""
    if got.dtype.kind != "f" or got.shape != np.sort(x, None).shape:
        return True
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    return np.array_equal(np.sort(got.view(u), None), np.sort(x.view(u), None))


def main():
    for k, a in INPUTS.items():
        np.save(OUT / f"in_{k}.npy", a)
    cells = []
    for dev in DEVICES:
        tag = "gpu" if dev == "0" else "cpu"
        cells += device_cells(OUT, INPUTS, [expr for _, expr, _ in CASES], dev, tag)
        # put and mask assignment write in place; nonzero fills an array of ga_t
        cells.append("ga_t pm = ga_copy(m), mk = ga_lt(m, 0);\n"
                     "ga_mask_assign(pm, mk, ga_mul(ga_mask_select(m, mk), 2));\n"
                     "ga_t pv = ga_copy(big);\nga_put(pv, ga_slice(idx, 0, 0, 64, 1), vals);\n"
                     "ga_t nz[2]; ga_nonzero(b, nz);\n"
                     "ga_t pw = ga_copy(big);\nga_put(pw, idx2, 2.5);\n"
                     f'ga_save(pv, "{OUT}/{tag}_put.npy"); ga_save(nz[1], "{OUT}/{tag}_nz.npy");\n'
                     f'ga_save(pw, "{OUT}/{tag}_put2.npy");')
        cells.append(f'ga_save(pm, "{OUT}/{tag}_massign.npy");')
    out = run_notebook(BIN / "gpuc", OUT, cells, name="arrays2", timeout=None, progress=True)
    failed = 0
    print_cell_errors(out)
    v = INPUTS
    pv = v["big"].copy()
    np.put(pv, v["idx"][:64], v["vals"])
    pm = v["m"].copy()
    pm[pm < 0] = v["m"][v["m"] < 0] * 2
    pw = v["big"].copy()
    np.put(pw, v["idx2"], 2.5)
    extra = [("put", "put", pv), ("nonzero", "nz", np.nonzero(v["b"])[1]),
             ("put a million indices, one value", "put2", pw),
             ("mask assign", "massign", pm)]
    checks = [(name, str(n), ref(v)) for n, (name, _, ref) in enumerate(CASES)] + \
             [(name, key, want) for name, key, want in extra]
    for name, key, want in checks:
        want = np.asarray(want)
        for tag in ("gpu", "cpu") if len(DEVICES) == 2 else ("cpu",):
            got, ok, detail = load_result(OUT / f"{tag}_{key}.npy", want)
            if ok and (want.dtype.kind in "biu" or "sort" in name or "take" in name or
                       "mask" in name or "put" in name or "pad" in name or "unique" in name or
                       "roll" in name or "bit for bit" in name):
                ok = np.array_equal(got, want, equal_nan=want.dtype.kind == "f")
                detail += f", {np.count_nonzero(got != want)} differ"
                src = CASES[int(key)][1].split("(")[1].split(",")[0] if key.isdigit() else ""
                if ok and name.startswith("sort ") and src in v:
                    ok = same_bits(got, v[src])
                    detail += ", values changed (bits)"
            elif ok:
                ok = close(got, want, default_tol(want.dtype))
            print(("PASS " if ok else "FAIL ") + f"{tag} {name}" + ("" if ok else f": {detail}"))
            failed |= not ok
    sys.exit(1 if failed else 0)


main()
