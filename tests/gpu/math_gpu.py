"""Array math on the GPU machine: each case of tests/array/test_math_numpy.py's
kinds on GPU 0 and on the CPU backend, both checked against NumPy (and so
against each other).

    python3 tests/gpu/math_gpu.py BIN_DIR OUT_DIR

Runs one notebook with `gpuc run` (no Jupyter needed); prints PASS/FAIL per
case and exits non-zero on a failure."""
import json
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # gpuc_testing
from gpuc_testing.notebook import run_notebook, write_notebook  # noqa: E402
from gpuc_testing.numpy_cases import (close, default_tol, device_cells, load_result,  # noqa: E402
                                      print_cell_errors, random_array)

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
OUT.mkdir(parents=True, exist_ok=True)
arr = partial(random_array, np.random.default_rng(7))


big = arr("float32", (3_000_001,))
mat = arr("float32", (301, 517))
INPUTS = {
    "f": arr("float32", (1000,)), "g": arr("float32", (1000,)), "d": arr("float64", (64, 33)),
    "i": arr("int32", (64, 33)), "h": arr("float16", (500,), -4, 4), "u": arr("uint8", (257,), 0, 200),
    "b": arr("bool", (64, 33)), "big": big, "mat": mat, "col": arr("float64", (64, 1)),
    "pos": arr("float32", (1000,), 0.5, 9),
}
CASES = [  # name, gpuc expression over the inputs, NumPy
    ("add f32", "ga_add(f, g)", lambda v: v["f"] + v["g"]),
    ("fused", 'ga_map("(a - b) * (a - b) + s * a", f, g, 0.5)',
     lambda v: (v["f"] - v["g"]) ** 2 + np.float32(0.5) * v["f"]),
    ("promote i32+f64", "ga_add(i, d)", lambda v: v["i"] + v["d"]),
    ("broadcast col", "ga_mul(d, col)", lambda v: v["d"] * v["col"]),
    ("transpose view", "ga_sub(ga_transpose(d), 1)", lambda v: v["d"].T - 1),
    ("step view", "ga_sqrt(ga_abs(ga_slice(f, 0, GA_END, GA_END, -3)))",
     lambda v: np.sqrt(np.abs(v["f"][::-3]))),
    ("f16 exp", "ga_exp(h)", lambda v: np.exp(v["h"])),
    ("int mod", "ga_mod(i, 7)", lambda v: v["i"] % 7),
    ("uint8 wrap", "ga_add(u, 100)", lambda v: v["u"] + np.uint8(100)),
    ("where", "ga_where(b, i, d)", lambda v: np.where(v["b"], v["i"], v["d"])),
    ("log", "ga_log(pos)", lambda v: np.log(v["pos"])),
    ("sum big", "ga_sum_axis(big, GA_ALL, 0)", lambda v: np.asarray(v["big"].sum())),
    ("mean big", "ga_mean_axis(big, GA_ALL, 0)", lambda v: np.asarray(v["big"].mean())),
    ("max big", "ga_max_axis(big, GA_ALL, 0)", lambda v: np.asarray(v["big"].max())),
    ("argmax big", "ga_argmax_axis(big, GA_ALL, 0)", lambda v: np.asarray(v["big"].argmax())),
    ("argmin strided", "ga_argmin_axis(ga_slice(big, 0, 1, GA_END, 2), GA_ALL, 0)",
     lambda v: np.asarray(v["big"][1::2].argmin())),
    ("sum axis 0", "ga_sum_axis(mat, 0, 0)", lambda v: v["mat"].sum(axis=0)),
    ("sum axis 1", "ga_sum_axis(mat, 1, 1)", lambda v: v["mat"].sum(axis=1, keepdims=True)),
    ("max axis 0 of a transpose", "ga_max_axis(ga_transpose(mat), 0, 0)",
     lambda v: v["mat"].T.max(axis=0)),
    ("var axis 1", "ga_var_axis(d, 1, 0)", lambda v: v["d"].var(axis=1)),
    ("std all", "ga_std_axis(i, GA_ALL, 0)", lambda v: np.asarray(v["i"].std())),
    ("count_nonzero", "ga_count_nonzero_axis(b, 0, 0)",
     lambda v: np.count_nonzero(v["b"], axis=0).astype(np.int64)),
    ("any/all", "ga_all_axis(b, 1, 0)", lambda v: v["b"].all(axis=1)),
    ("sum of i32", "ga_sum_axis(i, GA_ALL, 0)", lambda v: np.asarray(v["i"].sum())),
    ("fused map-reduce", 'ga_map("sum((a - b) * (a - b))", f, g)',
     lambda v: np.asarray(((v["f"] - v["g"]) ** 2).sum())),
    ("sum of a transpose (materialised)", "ga_sum_axis(ga_transpose(d), GA_ALL, 0)",
     lambda v: np.asarray(v["d"].T.sum())),
    ("copy of a transpose (a copy kernel)", "ga_copy(ga_transpose(d))", lambda v: v["d"].T.copy()),
    ("strided view to the host", "ga_slice(ga_transpose(mat), 0, 1, GA_END, 3)",
     lambda v: v["mat"].T[1::3]),
    # float32 running sums drift (sequential on the CPU, tiled on a GPU): against float64
    ("cumsum flat", "ga_cumsum(big, GA_ALL)",
     lambda v: np.cumsum(v["big"].astype(np.float64)).astype(np.float32)),
    ("cumsum axis 0", "ga_cumsum(mat, 0)", lambda v: np.cumsum(v["mat"], axis=0)),
    ("cumsum axis 1", "ga_cumsum(mat, 1)", lambda v: np.cumsum(v["mat"], axis=1)),
    ("cumprod int", "ga_cumprod(ga_mod(i, 3), 1)", lambda v: np.cumprod(v["i"] % 3, axis=1)),
    ("cumsum of a transpose", "ga_cumsum(ga_transpose(d), 0)", lambda v: np.cumsum(v["d"].T, axis=0)),
    ("%%elementwise", "sqdiff(f, g)", lambda v: (v["f"] - v["g"]) ** 2),
    ("%%reduce", 'ga_map("sumsq(a - b)", f, g)', lambda v: np.asarray(((v["f"] - v["g"]) ** 2).sum())),
    ("prod axis", "ga_prod_axis(ga_astype(ga_mod(i, 3), I64), 0, 0)",
     lambda v: np.prod((v["i"] % 3).astype(np.int64), axis=0)),
]


LOOSE = {"cumsum flat": 1e-3}  # relative to the largest value: 3e6 float32 additions


def main():
    for k, a in INPUTS.items():
        np.save(OUT / f"in_{k}.npy", a)
    cells = ["%%elementwise sqdiff(T a, T b) -> T c\nc = (a - b) * (a - b);",
             "%%reduce sumsq(T x) -> T s\nmap: x * x\nreduce: a + b\nidentity: 0"]
    for dev in ("0", "GA_CPU"):
        cells += device_cells(OUT, INPUTS, [expr for _, expr, _ in CASES], dev,
                              "gpu" if dev == "0" else "cpu")
    out = run_notebook(BIN / "gpuc", OUT, cells, name="math", timeout=None, progress=True)
    failed = 0
    print_cell_errors(out)
    for n, (name, _, ref) in enumerate(CASES):
        want = ref(INPUTS)
        for tag in ("gpu", "cpu"):
            got, ok, detail = load_result(OUT / f"{tag}_{n}.npy", want)
            if ok and want.dtype.kind in "biu":
                ok = np.array_equal(got, want)
            elif ok:
                ok = close(got, want, LOOSE.get(name, default_tol(want.dtype)))
                detail += f", max diff {np.abs(got.astype(np.float64) - want).max(initial=0):.3g}"
            print(("PASS " if ok else "FAIL ") + f"{tag} {name}" + ("" if ok else f": {detail}"))
            failed |= not ok
    # %%speedup --devices on the GPU: both columns, the check agreeing
    cell = ('%%speedup --devices --check r --sizes 1e3,1e6,1e7 -r 3\n//%% setup\n'
            'ga_t x = ga_linspace(F32, 0, 1, N), y = ga_ones_like(x), r = ga_empty_like(x);\n'
            '//%% run\nga_map_out(r, "(a - b) * (a - b)", x, y);')
    # then %timeit of the same ga_map: its kernel is GPU work, timed on a "GPU:" line
    cells = [cell, 'ga_t x2 = ga_linspace(F32, 0, 1, 1000000), y2 = ga_ones_like(x2), '
             'r2 = ga_empty_like(x2);',
             '%timeit -n 10 -r 3 ga_map_out(r2, "(a - b) * (a - b)", x2, y2);']
    p = subprocess.run([str(BIN / "gpuc"), "run", str(write_notebook(OUT, cells, "speedup")), "-o",
                        str(OUT / "speedup.out.ipynb")], capture_output=True, text=True, cwd=OUT)
    text = timeit = ""
    if p.returncode == 0:
        out_cells = json.loads((OUT / "speedup.out.ipynb").read_text())["cells"]
        outs = out_cells[0]["outputs"]
        text = "\n".join(o.get("data", {}).get("text/plain", "") for o in outs)
        print(text)
        timeit = "".join(o.get("text", "") for o in out_cells[2]["outputs"])
        print(timeit)
    # ga_map's kernel is GPU work: the "GPU kernels" column is timed, not "no GPU work"
    ok = (p.returncode == 0 and "r on the CPU backend = on the GPU" in text and "not run" not in text
          and "no GPU work" not in text and "launched no kernels" not in text)
    print(("PASS " if ok else "FAIL ") + "%%speedup --devices on the GPU" +
          ("" if ok else f": {p.stderr[-400:]}"))
    failed |= not ok
    ok = "\nGPU: " in "\n" + timeit and " per loop" in timeit
    print(("PASS " if ok else "FAIL ") + "%timeit of ga_map_out on the GPU: a GPU line")
    failed |= not ok
    # the teaching notebook, on the GPU: both columns, and the GPU wins
    p = subprocess.run([str(BIN / "gpuc"), "run", str(ROOT / "notebooks/array-math.ipynb"), "-o",
                        str(OUT / "array-math.out.ipynb")], capture_output=True, text=True, cwd=OUT)
    ok = p.returncode == 0
    text = ""
    if ok:
        nb = json.loads((OUT / "array-math.out.ipynb").read_text())
        text = "".join(o.get("text", "") + "".join(o.get("data", {}).get("text/plain", ""))
                       for c in nb["cells"] for o in c.get("outputs", []))
        print(text)
        # %%speedup --devices' verdict: the GPU column filled, and it wins
        ok = (("wins from" in text or "faster at every size" in text) and
              "not run (no GPU)" not in text and "no GPU here" not in text and
              "no GPU work" not in text)
    print(("PASS " if ok else "FAIL ") + "notebooks/array-math.ipynb on the GPU" +
          ("" if ok else f": {p.stderr[-400:]}"))
    failed |= not ok
    sys.exit(1 if failed else 0)


main()
