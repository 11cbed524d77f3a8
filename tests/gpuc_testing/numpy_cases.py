"""Array cases checked against NumPy by the GPU scripts (tests/gpu/math_gpu.py,
arrays2_gpu.py): random inputs saved as .npy files, cells that load them on
a device and save each case's result beside them, the cells' errors
printed, and each result read back and compared (load_result, close);
which cases must match NumPy exactly stays with each script."""
import numpy as np


def random_array(rng, dtype, shape, lo=-50, hi=50):
    """Values of dtype in [lo, hi) from rng (bool: about half true; unsigned:
    from max(lo, 0))."""
    dt = np.dtype(dtype)
    if dt == bool:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(max(lo, 0) if dt.kind == "u" else lo, hi, size=shape).astype(dt)
    return (rng.random(shape) * (hi - lo) + lo).astype(dt)


def device_cells(folder, names, exprs, dev, tag):
    """Cells that load folder/in_NAME.npy as the ga_t NAME on device dev
    (a ga_use_device argument: "0", "GA_CPU") and save each expression's
    result as folder/TAG_N.npy, N its index in exprs."""
    cells = [f"ga_use_device({dev});\n" + "\n".join(
        f'ga_t {k} = ga_load("{folder}/in_{k}.npy");' for k in names)]
    return cells + [f'ga_save({expr}, "{folder}/{tag}_{n}.npy");' for n, expr in enumerate(exprs)]


def print_cell_errors(cells):
    """Prints "ERROR in cell: SOURCE -> ENAME EVALUE" for each error output
    of executed cells (json.load's)."""
    for c in cells:
        for o in c["outputs"]:
            if o["output_type"] == "error":
                print("ERROR in cell:", "".join(c["source"])[:200], "->", o["ename"], o["evalue"])


def load_result(path, want):
    """The result saved at path against NumPy's want: (the array, or None
    where there is none; whether it has want's dtype and shape; the detail
    for a FAIL line)."""
    if not path.exists():
        return None, False, "no result"
    got = np.load(path)
    return (got, got.dtype == want.dtype and got.shape == want.shape,
            f"{got.dtype}{got.shape} vs NumPy {want.dtype}{want.shape}")


def default_tol(dtype):
    """The relative tolerance of a floating result: float16 2e-3, float32
    1e-5, else 1e-12."""
    return 2e-3 if dtype == np.float16 else 1e-5 if dtype == np.float32 else 1e-12


def close(got, want, tol):
    """got equals want within tol, relative, and tol times want's largest
    magnitude (at least 1), absolute; compared in float64."""
    return np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                       atol=tol * max(1.0, float(np.abs(want).max(initial=0))))
