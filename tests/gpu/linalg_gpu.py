"""Linear algebra, FFTs and einsum on the GPU machine (cuSOLVER, cuFFT,
cuBLAS): every case of the CPU backend's and the simulator's tests
(tests/array/linalg_cases.py) on gpu0, against NumPy.

    python3 tests/gpu/linalg_gpu.py BIN_DIR OUT_DIR [DEVICE]

DEVICE (a C expression, 0 by default: gpu0) lets the script itself be
tried where there is no GPU: 1000 runs it on the simulator's device.

Runs one notebook with `gpuc run` (no Jupyter needed) and checks its
outputs; prints PASS/FAIL per check and exits non-zero on a failure."""
import sys
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "array")]  # gpuc_testing, linalg_cases
import linalg_cases as lc  # noqa: E402
from gpuc_testing.notebook import run_cells  # noqa: E402

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
OUT.mkdir(parents=True, exist_ok=True)
DEVICE = sys.argv[3] if len(sys.argv) > 3 else "0"
failed = 0


def check(what, fn):
    global failed
    try:
        fn()
        print("PASS " + what)
    except Exception:  # an assertion, or a file the cell did not write
        failed = 1
        print("FAIL " + what + ": " + traceback.format_exc(limit=1).strip().splitlines()[-1])


def run(name, cells):
    """Runs cells as a notebook (gpuc run's own time limit); (result, stdout, error) per cell."""
    return run_cells(BIN / "gpuc", OUT, cells, timeout=None, name=name)


arrays = lc.inputs()
for name, value in arrays.items():
    np.save(OUT / f"{name}.npy", value)
res = run("linalg_gpu", ["%device gpu"] + lc.cells_for("gpu", DEVICE, arrays))[1:]
names = ["load"] + list(lc.CASES) + ["norms"]
for i, name in enumerate(names):
    check(f"{name} runs on gpu0", lambda i=i: (_ for _ in ()).throw(AssertionError(res[i][2]))
          if res[i][2] else None)
for name in lc.CASES:
    check(f"{name} as NumPy", lambda name=name: lc.check_case(OUT, "gpu", arrays, name))
for name in lc.FACTORS:
    check(f"{name} rebuilds the matrix", lambda name=name: lc.check_factors(OUT, "gpu", arrays, name))
check("norms as NumPy", lambda: lc.check_norms(arrays, res[len(lc.CASES) + 1][1]))
check("errors (LinAlgError ...) and the session after them", lambda: lc.check_errors(res))
# Fills on the GPU by one kernel (inv's identities: a strided diagonal view),
# and numbers-only ga_map_out into a view, against NumPy.
fill = run("fill_gpu", ["%device gpu", f"""ga_t e = ga_eye(F64, 300);
ga_t g = ga_zeros(F32, 4, 6);
ga_map_out(ga_slice(ga_reshape(g, 24), 0, 1, GA_END, 7), "a * 2", 1.5);
ga_t h = ga_zeros(F64, 3, 5);
ga_map_out(h, "a", -2);
ga_t i = ga_inv(ga_add(ga_eye(F64, 64), 1));
ga_save(ga_to_device(e, GA_CPU), "fill_e.npy"); ga_save(ga_to_device(g, GA_CPU), "fill_g.npy");
ga_save(ga_to_device(h, GA_CPU), "fill_h.npy"); ga_save(ga_to_device(i, GA_CPU), "fill_i.npy");"""])
g_ref = np.zeros(24, np.float32)
g_ref[1::7] = 3
check("fills run on gpu0", lambda: (_ for _ in ()).throw(AssertionError(fill[1][2]))
      if fill[1][2] else None)
check("ga_eye on gpu0 as NumPy", lambda: np.testing.assert_array_equal(np.load(OUT / "fill_e.npy"),
                                                                      np.eye(300)))
check("numbers-only ga_map_out into a diagonal view", lambda: np.testing.assert_array_equal(
    np.load(OUT / "fill_g.npy"), g_ref.reshape(4, 6)))
check("numbers-only ga_map_out into a whole array", lambda: np.testing.assert_array_equal(
    np.load(OUT / "fill_h.npy"), np.full((3, 5), -2.0)))
check("inv of I + 1 (64) as NumPy", lambda: np.testing.assert_allclose(
    np.load(OUT / "fill_i.npy"), np.linalg.inv(np.eye(64) + 1), rtol=1e-12, atol=1e-12))
print("FAILED" if failed else "all passed")
sys.exit(failed)
