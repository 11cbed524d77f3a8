"""ga_matmul and ga_dot through the real kernel (CPU backend, OpenBLAS),
against NumPy's matmul and dot of the same .npy inputs: each dtype,
transposed and strided views, batches with broadcasting, matrix-vector,
vector-matrix, empty and 1x1 shapes, promotion, and the errors (the
session and its arrays live on). Skipped when NumPy is not installed."""
import pytest

from gpuc_testing.notebook import run_cells

np = pytest.importorskip("numpy")

TOL = {np.float16: dict(rtol=2e-3, atol=2e-3), np.float32: dict(rtol=1e-5, atol=1e-5),
       np.float64: dict(rtol=1e-12, atol=1e-12)}

# name: (expression in a cell, NumPy's expression over the inputs)
CASES = {
    "mm32": ("ga_matmul(a32, b32)", lambda i: i["a32"] @ i["b32"]),
    "mm64": ("ga_matmul(a64, b64)", lambda i: i["a64"] @ i["b64"]),
    "mm16": ("ga_matmul(a16, b16)", lambda i: i["a16"] @ i["b16"]),
    "tt32": ("ga_matmul(ga_transpose(b32), ga_transpose(a32))",
             lambda i: i["b32"].T @ i["a32"].T),
    "tn64": ("ga_matmul(ga_transpose(c64), b64)", lambda i: i["c64"].T @ i["b64"]),
    "nt16": ("ga_matmul(a16, ga_transpose(d16))", lambda i: i["a16"] @ i["d16"].T),
    "step": ("ga_matmul(ga_slice(a64, 0, 1, GA_END, 2), ga_slice(b64, 1, GA_END, GA_END, -3))",
             lambda i: i["a64"][1::2] @ i["b64"][:, ::-3]),
    "batch": ("ga_matmul(p32, q32)", lambda i: i["p32"] @ i["q32"]),
    "batch_b": ("ga_matmul(p32, s32)", lambda i: i["p32"] @ i["s32"]),
    "batch_t": ("ga_matmul(ga_permute(r64, 0, 2, 1), b64)",
                lambda i: i["r64"].transpose(0, 2, 1) @ i["b64"]),
    "batch_v": ("ga_matmul(p32, ga_index(ga_row(q32, 0), 1, 0))",
                lambda i: i["p32"] @ i["q32"][0][:, 0]),
    "v_batch": ("ga_matmul(ga_index(p32, 0, 0), q32)",
                lambda i: i["p32"][0][0] @ i["q32"]),
    "mv": ("ga_matmul(a64, v64)", lambda i: i["a64"] @ i["v64"]),
    "vm": ("ga_matmul(w64, a64)", lambda i: i["w64"] @ i["a64"]),
    "vv": ("ga_matmul(v64, v64)", lambda i: i["v64"] @ i["v64"]),
    "col": ("ga_matmul(ga_col(b32, 3), b32)", lambda i: i["b32"][:, 3] @ i["b32"]),
    "mixed": ("ga_matmul(a32, b64)", lambda i: i["a32"] @ i["b64"]),
    "int": ("ga_matmul(n32, b32)", lambda i: i["n32"] @ i["b32"]),
    "empty": ("ga_matmul(ga_zeros(F32, 0, 3), ga_ones(F32, 3, 4))",
              lambda i: np.zeros((0, 3), np.float32) @ np.ones((3, 4), np.float32)),
    "k0": ("ga_matmul(ga_zeros(F64, 2, 0), ga_ones(F64, 0, 3))",
           lambda i: np.zeros((2, 0)) @ np.ones((0, 3))),
    "one": ("ga_matmul(ga_full(F32, 3, 1, 1), ga_full(F32, -2, 1, 1))",
            lambda i: np.full((1, 1), 3, np.float32) @ np.full((1, 1), -2, np.float32)),
}


def inputs():
    rng = np.random.default_rng(16)
    f = lambda dt, *s: rng.standard_normal(s).astype(dt)
    return {"a32": f(np.float32, 64, 48), "b32": f(np.float32, 48, 80),
            "a64": f(np.float64, 64, 48), "b64": f(np.float64, 48, 80),
            "c64": f(np.float64, 48, 64),
            "a16": f(np.float16, 33, 40), "b16": f(np.float16, 40, 21),
            "d16": f(np.float16, 21, 40),
            "p32": f(np.float32, 3, 1, 4, 5), "q32": f(np.float32, 2, 5, 6),
            "s32": f(np.float32, 3, 5, 6),
            "r64": f(np.float64, 7, 48, 5),
            "v64": f(np.float64, 48), "w64": f(np.float64, 64),
            "n32": rng.integers(-9, 9, (64, 48)).astype(np.int32)}


@pytest.fixture(scope="module")
def session(gpuc_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("blas")
    arrays = inputs()
    for name, value in arrays.items():
        np.save(folder / f"{name}.npy", value)
    load = "".join(f'ga_t {n} = ga_load("{n}.npy");\n' for n in arrays)
    saves = "".join(f'ga_save({expr}, "out_{name}.npy");\n' for name, (expr, _) in CASES.items())
    cells = [
        load,
        saves,
        # dots: printed with all digits
        'printf("%.17g %.17g %.17g\\n", ga_dot(v64, v64), ga_dot(ga_col(a32, 0), ga_col(a32, 1)),\n'
        '       ga_dot(ga_row(a16, 2), ga_slice(ga_row(d16, 3), 0, GA_END, GA_END, -1)));',
        # errors, each its own cell, then the session still works
        "ga_matmul(ga_zeros(F32, 3, 4), ga_zeros(F32, 5, 2))",
        "ga_matmul(n32, ga_transpose(n32))",
        "ga_matmul(ga_zeros(F64), a64)",
        "ga_matmul(p32, ga_zeros(F32, 2, 1, 5, 6))",
        "ga_dot(a64, b64)",
        "ga_dot(v64, w64)",
        "ga_t gone = ga_copy(a64);\nga_free(gone);\nga_matmul(gone, b64)",
        "ga_set_tf32(1);\nga_t again = ga_matmul(a32, b32);\nga_set_tf32(0);\n"
        "ga_dim(again, 0) * 1000 + ga_dim(again, 1)",
    ]
    return folder, arrays, run_cells(gpuc_bin, folder, cells)


def test_cells_run(session):
    for i, (res, out, err) in enumerate(session[2][:3]):
        assert err is None, (i, err)


@pytest.mark.parametrize("name", list(CASES))
def test_matmul_as_numpy(session, name):
    folder, arrays, _ = session
    mine = np.load(folder / f"out_{name}.npy")
    ref = CASES[name][1](arrays)
    assert mine.dtype == ref.dtype and mine.shape == ref.shape
    np.testing.assert_allclose(mine.astype(np.float64), ref.astype(np.float64),
                               **TOL[ref.dtype.type])


def test_dot_as_numpy(session):
    _, arrays, res = session
    got = [float(x) for x in res[2][1].split()]
    a32, a16, d16, v64 = arrays["a32"], arrays["a16"], arrays["d16"], arrays["v64"]
    assert got[0] == pytest.approx(float(v64 @ v64), rel=1e-14)
    assert got[1] == pytest.approx(float(a32[:, 0] @ a32[:, 1]), rel=1e-5, abs=1e-5)
    assert got[2] == pytest.approx(float(np.dot(a16[2], d16[3][::-1])), rel=3e-3, abs=3e-3)


def test_errors(session):
    res = session[2]
    expect = [
        ("ShapeError", "ga_matmul: shapes (3, 4) and (5, 2) do not align: 4 != 5"),
        ("DTypeError", "ga_matmul: int32 and int32: products are computed for float16, float32 "
                       "and float64 only"),
        ("ShapeError", "ga_matmul: a 0-d array is not a matrix"),
        ("ShapeError", "ga_matmul: shapes (3, 1, 4, 5) and (2, 1, 5, 6) do not broadcast in "
                       "their batch dimensions: 3 != 2"),
        ("ShapeError", "ga_dot: takes two vectors (1-d arrays), not shapes (64, 48) and (48, 80)"),
        ("ShapeError", "ga_dot: shapes (48,) and (64,) do not align: 48 != 64"),
        ("FreedArrayError", "ga_matmul: "),
    ]
    for (kind, text), (_, _, err) in zip(expect, res[3:10]):
        assert err is not None and err[0] == kind and err[1].startswith(text), err
    assert res[10][2] is None and res[10][0] == "64080"
