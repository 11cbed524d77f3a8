"""Linear algebra, FFTs and einsum against CuPy (cupy.linalg, cupy.fft,
cupy.einsum), on the GPU machine, in one run (issue 29: each >= 0.95x
CuPy).

    PYTHONPATH=tests python3 bench/bench_linalg.py BIN_DIR OUT_DIR [WORD...]

WORDs: only the cases whose name holds one of them (e.g. `svd lstsq`).

Both sides are timed the same way: CUDA events around REPS back-to-back
calls after two warm-up calls (plans and workspaces made), results freed
each call; gpuc in a notebook run by `gpuc run`, CuPy in this process on
the same inputs. Prints one line per case: gpuc, CuPy, CuPy/gpuc (above 1:
gpuc is faster). gpuc waits for the info of each factoring step (getrf,
potrf, gesvd, syevd: LinAlgError as NumPy); CuPy does not by default
(cupyx.errstate's linalg='ignore'), except det, lstsq and the like that
read results back. Last, the cuSOLVER and cuBLAS files each process
mapped (/proc/self/maps): both sides must time the same libraries.
"""
import sys
from pathlib import Path

from gpuc_testing.bench import case_times, cupy_per_call_ms, output_lines
from gpuc_testing.notebook import run_notebook
from gpuc_testing.sources import per_call_ms, timed_case

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
ONLY = sys.argv[3:]  # words: only the cases whose name holds one of them
OUT.mkdir(parents=True, exist_ok=True)
REPS = 20

# name, gpuc statement (a function body), CuPy statement
CASES = [
    ("fft c64 2048 x 16384 (last axis)", "ga_free(ga_fft(zc, 0, -1, NULL));", "cp.fft.fft(zc)"),
    ("ifft c64 2048 x 16384 (scaled)", "ga_free(ga_ifft(zc, 0, -1, NULL));", "cp.fft.ifft(zc)"),
    ("fft c128 axis 0 of 4096 x 1024", "ga_free(ga_fft(zd, 0, 0, NULL));", "cp.fft.fft(zd, axis=0)"),
    ("rfft f32 2048 x 16384", "ga_free(ga_rfft(x, 0, -1, NULL));", "cp.fft.rfft(x)"),
    ("irfft c64 2048 x 8193 -> 16384", "ga_free(ga_irfft(xr, 16384, -1, NULL));",
     "cp.fft.irfft(xr, 16384)"),
    ("fft2 c64 4096 x 4096", "ga_free(ga_fft2(z2, NULL));", "cp.fft.fft2(z2)"),
    ("rfftn f32 256^3", "ga_free(ga_rfftn(v3, NULL));", "cp.fft.rfftn(v3)"),
    ("fft f32 (real input) 2048 x 16384", "ga_free(ga_fft(x, 0, -1, NULL));", "cp.fft.fft(x)"),
    ("solve f64 4096 x 4096, 1 rhs", "ga_free(ga_solve(a, b));", "cp.linalg.solve(a, b)"),
    ("solve f32 batch 512 x 32 x 32", "ga_free(ga_solve(ab, bb));", "cp.linalg.solve(ab, bb)"),
    ("inv f64 2048", "ga_free(ga_inv(a2));", "cp.linalg.inv(a2)"),
    ("det f64 2048", "ga_free(ga_det(a2));", "cp.linalg.det(a2)"),
    # inv's two halves apart: getrf alone is det; getrf + getrs of 2048 general right-hand sides
    ("solve f64 2048, 2048 rhs", "ga_free(ga_solve(a2, a2));", "cp.linalg.solve(a2, a2)"),
    ("cholesky f64 4096", "ga_free(ga_cholesky(spd));", "cp.linalg.cholesky(spd)"),
    ("qr f32 4096 x 1024", "ga_t q, r; ga_qr(tq, &q, &r); ga_free(q); ga_free(r);",
     "cp.linalg.qr(tq)"),
    ("svd f32 1024 x 1024", "ga_t u, s, v; ga_svd(sq, 0, &u, &s, &v); ga_free(u); ga_free(s); "
     "ga_free(v);", "cp.linalg.svd(sq, full_matrices=False)"),
    ("eigh f64 2048", "ga_t w, v; ga_eigh(sym, &w, &v); ga_free(w); ga_free(v);",
     "cp.linalg.eigh(sym)"),
    # lstsq's own step apart: the reduced SVD of the same tall matrix
    ("svd f64 4096 x 512 (reduced, lstsq's)", "ga_t u, s, v; ga_svd(ls, 0, &u, &s, &v); "
     "ga_free(u); ga_free(s); ga_free(v);", "cp.linalg.svd(ls, full_matrices=False)"),
    ("lstsq f64 4096 x 512", "ga_t r, s; long long k; ga_free(ga_lstsq(ls, lb, -1, &r, &k, &s)); "
     "ga_free(r); ga_free(s);", "cp.linalg.lstsq(ls, lb, rcond=None)"),
    ("norm fro f32 8192 x 8192", "volatile double n = ga_norm(big, NULL); (void)n;",
     "float(cp.linalg.norm(big))"),
    ("einsum ij,jk->ik f32 4096", "ga_free(ga_einsum(\"ij,jk->ik\", m1, m2));",
     "cp.einsum('ij,jk->ik', m1, m2)"),
    ("einsum bij,bjk->bik f32 64 x 256", "ga_free(ga_einsum(\"bij,bjk->bik\", e1, e2));",
     "cp.einsum('bij,bjk->bik', e1, e2)"),
    ("einsum ij->j f32 8192 x 8192", "ga_free(ga_einsum(\"ij->j\", big));",
     "cp.einsum('ij->j', big)"),
    ("einsum ii-> f32 8192 (trace)", "ga_free(ga_einsum(\"ii->\", big));",
     "cp.einsum('ii->', big)"),
]
if ONLY:
    CASES = [c for c in CASES if any(w in c[0] for w in ONLY)]

# the same inputs on both sides: made by gpuc, saved, loaded by CuPy
INPUTS = {
    "zc": ("complex64", (2048, 16384)), "zd": ("complex128", (4096, 1024)),
    "x": ("float32", (2048, 16384)), "xr": ("complex64", (2048, 8193)),
    "z2": ("complex64", (4096, 4096)), "v3": ("float32", (256, 256, 256)),
    "a": ("float64", (4096, 4096)), "b": ("float64", (4096,)),
    "ab": ("float32", (512, 32, 32)), "bb": ("float32", (512, 32, 1)),
    "a2": ("float64", (2048, 2048)), "spd": ("float64", (4096, 4096)),
    "tq": ("float32", (4096, 1024)), "sq": ("float32", (1024, 1024)),
    "sym": ("float64", (2048, 2048)), "ls": ("float64", (4096, 512)), "lb": ("float64", (4096,)),
    "big": ("float32", (8192, 8192)), "m1": ("float32", (4096, 4096)),
    "m2": ("float32", (4096, 4096)), "e1": ("float32", (64, 256, 256)),
    "e2": ("float32", (64, 256, 256)),
}


def make_inputs():
    """NumPy arrays saved as .npy in OUT (the same bytes both sides load)."""
    import numpy as np
    rng = np.random.default_rng(29)
    for name, (dt, shape) in INPUTS.items():
        if dt.startswith("complex"):
            v = rng.standard_normal(shape, np.float32) + 1j * rng.standard_normal(shape, np.float32)
        else:
            v = rng.standard_normal(shape, np.float32)
        v = v.astype(dt)
        if name in ("a", "a2", "ab"):  # well conditioned
            v = v + shape[-1] * np.eye(shape[-1], dtype=dt)
        if name in ("spd", "sym"):
            v = (v @ v.T / shape[0] + np.eye(shape[0])).astype(dt)
        np.save(OUT / f"{name}.npy", v)


def gpuc_times():
    load = "".join(f'ga_t {n} = ga_to_device(ga_load("{n}.npy"), 0);\n' for n in INPUTS)
    cells = ["%device gpu", load + "\n" + per_call_ms("ev0", "ev1")]
    for k, (_, stmt, _) in enumerate(CASES):
        cells.append(timed_case(k, stmt, REPS))
    cells.append("#include <string.h>\n"
                 'FILE *maps = fopen("/proc/self/maps", "r");\n'
                 "char line[1024];\n"
                 "while (maps && fgets(line, sizeof line, maps))\n"
                 '    if (strstr(line, "libcusolver") || strstr(line, "libcublas"))\n'
                 '        printf("L %s", strchr(line, \'/\'));\n'
                 "if (maps) fclose(maps);")
    out = run_notebook(BIN / "gpuc", OUT, cells, name="bench_linalg", timeout=580,
                       allow_errors=True)
    lines = list(output_lines(out))
    LIBS["gpuc"] |= {line[2:].strip() for line in lines if line.startswith("L ")}
    return case_times(lines, len(CASES))


LIBS = {"gpuc": set(), "CuPy": set()}


def own_libs():
    """The cuSOLVER and cuBLAS files this process has mapped."""
    with open("/proc/self/maps") as f:
        return {line[line.index("/"):].strip() for line in f
                if "libcusolver" in line or "libcublas" in line}


def cupy_times():
    import cupy as cp
    import numpy as np
    env = {"cp": cp}
    for name in INPUTS:
        env[name] = cp.asarray(np.load(OUT / f"{name}.npy"))
    t = cupy_per_call_ms(env, ((stmt, REPS) for *_, stmt in CASES))
    LIBS["CuPy"] = own_libs()
    return t


make_inputs()
g, c = gpuc_times(), cupy_times()
print(f"{'case':40} {'gpuc':>11} {'CuPy':>11} {'CuPy/gpuc':>10}")
for (name, _, _), a, b in zip(CASES, g, c):
    print(f"{name:40} {a:9.4f}ms {b:9.4f}ms {b / a:10.3f}{'' if b / a >= 0.95 else '  < 0.95'}")
for side, files in LIBS.items():
    print(f"{side} mapped: " + (", ".join(sorted(files)) or "(none found)"))
