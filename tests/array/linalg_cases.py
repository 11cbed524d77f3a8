"""The cases of linear algebra, FFTs and einsum against NumPy, written
once for the CPU backend's and the simulator's tests
(tests/array/test_linalg_numpy.py) and the GPU machine's
(tests/gpu/linalg_gpu.py): the inputs, the cells that compute each case
(a case leaves its outputs in o0, o1... and saves them), NumPy's answers,
and the checks. Plain Python and NumPy: no pytest."""
import numpy as np

def inputs():
    rng = np.random.default_rng(29)
    f = lambda dt, *s: rng.standard_normal(s).astype(dt)
    spd = lambda dt, *s: (lambda m: (m @ np.swapaxes(m, -1, -2) + s[-1] * np.eye(s[-1])).astype(dt))(
        rng.standard_normal(s))
    c = lambda dt, *s: (rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(dt)
    return {
        "a64": f(np.float64, 5, 5), "a32": f(np.float32, 6, 6), "b64": f(np.float64, 5),
        "m32": f(np.float32, 6, 3), "A3": f(np.float64, 4, 3, 3), "B3": f(np.float64, 4, 3, 2),
        "Bm": f(np.float64, 3, 2), "ai": rng.integers(-5, 6, (4, 4)).astype(np.int32),
        "bi": rng.integers(-5, 6, (4,)).astype(np.int64),
        "s64": spd(np.float64, 5, 5), "s32": spd(np.float32, 4, 4), "S3": spd(np.float64, 3, 4, 4),
        "tall": f(np.float64, 7, 4), "wide": f(np.float32, 3, 6), "T3": f(np.float64, 2, 5, 3),
        "W3": f(np.float64, 2, 3, 5),
        "x32": f(np.float32, 4, 16), "x64": f(np.float64, 3, 10), "z64": c(np.complex64, 5, 12),
        "z128": c(np.complex128, 6, 9), "xi": rng.integers(-9, 9, (3, 8)).astype(np.int16),
        "v3": f(np.float64, 4, 6, 8), "v4": f(np.float32, 2, 3, 4, 5), "zv4": c(np.complex128, 3, 2, 4, 6),
        "e1": f(np.float64, 3, 4), "e2": f(np.float64, 4, 5), "eb1": f(np.float32, 2, 3, 4),
        "eb2": f(np.float32, 2, 4, 5), "ei": rng.integers(-4, 5, (3, 4)).astype(np.int32),
        "ev": f(np.float64, 4), "eq": f(np.float64, 4, 4),
    }


def sv(a):
    """NumPy's singular values (the same for both signs of the vectors)."""
    return np.linalg.svd(a, compute_uv=False)


# name: (C code leaving each output in o0, o1...; NumPy's outputs; "close", "abs" or "svd"
# (abs over the first min(m, n) columns of U and rows of V^T only, the input named last))
CASES = {
    # solve, inv, det
    "solve_vec": ("ga_t o0 = ga_solve(a64, b64);", lambda i: [np.linalg.solve(i["a64"], i["b64"])]),
    "solve_f32": ("ga_t o0 = ga_solve(a32, m32);", lambda i: [np.linalg.solve(i["a32"], i["m32"])]),
    "solve_batch": ("ga_t o0 = ga_solve(A3, B3);", lambda i: [np.linalg.solve(i["A3"], i["B3"])]),
    "solve_bcast": ("ga_t o0 = ga_solve(A3, Bm);", lambda i: [np.linalg.solve(i["A3"], i["Bm"])]),
    "solve_view": ("ga_t o0 = ga_solve(ga_transpose(a64), ga_slice(b64, 0, GA_END, GA_END, -1));",
                   lambda i: [np.linalg.solve(i["a64"].T, i["b64"][::-1])]),
    "solve_int": ("ga_t o0 = ga_solve(ai, bi);",
                  lambda i: [np.linalg.solve(i["ai"], i["bi"])]),
    "solve_f32_f64": ("ga_t o0 = ga_solve(ga_slice(ga_slice(a32, 0, 0, 5, 1), 1, 0, 5, 1), b64);",
                      lambda i: [np.linalg.solve(i["a32"][:5, :5], i["b64"])]),
    "det32": ("ga_t o0 = ga_det(a32);", lambda i: [np.linalg.det(i["a32"])]),
    "inv64": ("ga_t o0 = ga_inv(a64);", lambda i: [np.linalg.inv(i["a64"])]),
    "inv32_view": ("ga_t o0 = ga_inv(ga_slice(ga_slice(a32, 0, 1, GA_END, 1), 1, 0, 5, 1));",
                   lambda i: [np.linalg.inv(i["a32"][1:, :5])]),
    "inv_batch": ("ga_t o0 = ga_inv(A3);", lambda i: [np.linalg.inv(i["A3"])]),
    "inv_empty": ("ga_t o0 = ga_inv(ga_zeros(F64, 0, 3, 3));",
                  lambda i: [np.linalg.inv(np.zeros((0, 3, 3)))]),
    "det64": ("ga_t o0 = ga_det(a64);", lambda i: [np.linalg.det(i["a64"])]),
    "det_batch": ("ga_t o0 = ga_det(A3);", lambda i: [np.linalg.det(i["A3"])]),
    "det_int": ("ga_t o0 = ga_det(ai);", lambda i: [np.linalg.det(i["ai"])]),
    "det_singular": ("ga_t o0 = ga_det(ga_ones(F32, 3, 3));",
                     lambda i: [np.linalg.det(np.ones((3, 3), np.float32))]),
    "det_0x0": ("ga_t o0 = ga_det(ga_zeros(F64, 0, 0));", lambda i: [np.linalg.det(np.zeros((0, 0)))]),
    # cholesky, qr, svd, eigh (vectors up to sign: "abs")
    "cholesky64": ("ga_t o0 = ga_cholesky(s64);", lambda i: [np.linalg.cholesky(i["s64"])]),
    "cholesky32": ("ga_t o0 = ga_cholesky(s32);", lambda i: [np.linalg.cholesky(i["s32"])]),
    "cholesky_batch": ("ga_t o0 = ga_cholesky(S3);", lambda i: [np.linalg.cholesky(i["S3"])]),
    "qr_tall": ("ga_t o0, o1; ga_qr(tall, &o0, &o1);", lambda i: list(np.linalg.qr(i["tall"])), "abs"),
    "qr_wide": ("ga_t o0, o1; ga_qr(wide, &o0, &o1);", lambda i: list(np.linalg.qr(i["wide"])), "abs"),
    "qr_batch": ("ga_t o0, o1; ga_qr(T3, &o0, &o1);", lambda i: list(np.linalg.qr(i["T3"])), "abs"),
    "qr_r": ("ga_t o0; ga_qr(tall, NULL, &o0);", lambda i: [np.linalg.qr(i["tall"], mode="r")], "abs"),
    "svd_tall": ("ga_t o0, o1, o2; ga_svd(tall, 0, &o0, &o1, &o2);",
                 lambda i: list(np.linalg.svd(i["tall"], full_matrices=False)), "abs"),
    "svd_wide_full": ("ga_t o0, o1, o2; ga_svd(wide, 1, &o0, &o1, &o2);",
                      lambda i: list(np.linalg.svd(i["wide"])), "abs"),
    "svd_square": ("ga_t o0, o1, o2; ga_svd(a64, 0, &o0, &o1, &o2);",
                   lambda i: list(np.linalg.svd(i["a64"], full_matrices=False)), "abs"),
    "svd_square_full": ("ga_t o0, o1, o2; ga_svd(a32, 1, &o0, &o1, &o2);",
                        lambda i: list(np.linalg.svd(i["a32"])), "abs"),
    "svd_wide": ("ga_t o0, o1, o2; ga_svd(wide, 0, &o0, &o1, &o2);",
                 lambda i: list(np.linalg.svd(i["wide"], full_matrices=False)), "abs"),
    "svd_tall_full": ("ga_t o0, o1, o2; ga_svd(tall, 1, &o0, &o1, &o2);",
                      lambda i: list(np.linalg.svd(i["tall"])), "svd", "tall"),
    "svd_batch": ("ga_t o0, o1, o2; ga_svd(W3, 0, &o0, &o1, &o2);",
                  lambda i: list(np.linalg.svd(i["W3"], full_matrices=False)), "abs"),
    "svd_values": ("ga_t o0; ga_svd(T3, 0, NULL, &o0, NULL);", lambda i: [sv(i["T3"])]),
    "eigh64": ("ga_t o0, o1; ga_eigh(s64, &o0, &o1);", lambda i: list(np.linalg.eigh(i["s64"])), "abs"),
    "eigh_batch": ("ga_t o0, o1; ga_eigh(S3, &o0, &o1);", lambda i: list(np.linalg.eigh(i["S3"])), "abs"),
    "eigvalsh32": ("ga_t o0; ga_eigh(s32, &o0, NULL);", lambda i: [np.linalg.eigvalsh(i["s32"])]),
    # lstsq: x, residuals, rank, s
    "lstsq_over": ("long long rk; ga_t o1, o3; ga_t o0 = ga_lstsq(tall, ga_col(tall, 0), -1, &o1, &rk, &o3);\n"
                   "ga_t o2 = ga_full(I64, rk, 1);",
                   lambda i: [np.asarray(x) for x in np.linalg.lstsq(i["tall"], i["tall"][:, 0] * 1.0)]
                   [:2] + [np.full(1, 4, np.int64), sv(i["tall"])]),
    "lstsq_under": ("long long rk; ga_t o1; ga_t o0 = ga_lstsq(ga_transpose(tall), ga_transpose(e1), -1, &o1, &rk, NULL);\n"
                    "ga_t o2 = ga_full(I64, rk, 1);",
                    lambda i: [np.linalg.lstsq(i["tall"].T, i["e1"].T)[0], np.zeros(0),
                               np.full(1, 4, np.int64)]),
    # FFTs
    "fft32": ("ga_t o0 = ga_fft(x32, 0, -1, NULL);", lambda i: [np.fft.fft(i["x32"])]),
    "fft64_axis0": ("ga_t o0 = ga_fft(x64, 0, 0, \"ortho\");", lambda i: [np.fft.fft(i["x64"], axis=0, norm="ortho")]),
    "fft_c64": ("ga_t o0 = ga_fft(z64, 0, 1, \"forward\");", lambda i: [np.fft.fft(i["z64"], norm="forward")]),
    "ifft_c128": ("ga_t o0 = ga_ifft(z128, 0, -1, NULL);", lambda i: [np.fft.ifft(i["z128"])]),
    "ifft_c128_ortho": ("ga_t o0 = ga_ifft(z128, 0, 0, \"ortho\");",
                        lambda i: [np.fft.ifft(i["z128"], axis=0, norm="ortho")]),
    "fft_int": ("ga_t o0 = ga_fft(xi, 0, -1, NULL);", lambda i: [np.fft.fft(i["xi"])]),
    # a non-last axis read in place with strides (its batch one run), or copied (two runs)
    "fft_axis0_4d": ("ga_t o0 = ga_fft(zv4, 0, 0, NULL);", lambda i: [np.fft.fft(i["zv4"], axis=0)]),
    "fft_axis2_4d": ("ga_t o0 = ga_ifft(zv4, 0, 2, \"ortho\");",
                     lambda i: [np.fft.ifft(i["zv4"], axis=2, norm="ortho")]),
    "rfft_axis0_3d": ("ga_t o0 = ga_rfft(v3, 0, 0, \"forward\");",
                      lambda i: [np.fft.rfft(i["v3"], axis=0, norm="forward")]),
    # real input: an R2C into the whole length, the upper half mirrored (odd and even n)
    "fft_real_odd": ("ga_t o0 = ga_fft(v4, 0, -1, \"ortho\");",
                     lambda i: [np.fft.fft(i["v4"], norm="ortho")]),
    "fft_real_even": ("ga_t o0 = ga_fft(v3, 0, 2, NULL);", lambda i: [np.fft.fft(i["v3"], axis=2)]),
    "ifft_real": ("ga_t o0 = ga_ifft(x32, 0, -1, NULL);", lambda i: [np.fft.ifft(i["x32"])]),
    "fft_pad": ("ga_t o0 = ga_fft(x64, 16, -1, NULL);", lambda i: [np.fft.fft(i["x64"], 16)]),
    "fft_crop": ("ga_t o0 = ga_fft(z128, 5, 1, NULL);", lambda i: [np.fft.fft(i["z128"], 5)]),
    "fft_view": ("ga_t o0 = ga_fft(ga_slice(ga_transpose(x32), 0, GA_END, GA_END, -2), 0, 0, NULL);",
                 lambda i: [np.fft.fft(i["x32"].T[::-2], axis=0)]),
    "rfft32": ("ga_t o0 = ga_rfft(x32, 0, -1, NULL);", lambda i: [np.fft.rfft(i["x32"])]),
    "rfft64_odd": ("ga_t o0 = ga_rfft(x64, 9, 1, \"forward\");", lambda i: [np.fft.rfft(i["x64"], 9, norm="forward")]),
    "rfft_axis0": ("ga_t o0 = ga_rfft(x64, 0, 0, NULL);", lambda i: [np.fft.rfft(i["x64"], axis=0)]),
    "irfft_c64": ("ga_t o0 = ga_irfft(z64, 0, -1, NULL);", lambda i: [np.fft.irfft(i["z64"])]),
    "irfft_odd": ("ga_t o0 = ga_irfft(z128, 17, -1, \"ortho\");",
                  lambda i: [np.fft.irfft(i["z128"], 17, norm="ortho")]),
    "irfft_real_in": ("ga_t o0 = ga_irfft(x64, 0, 0, NULL);", lambda i: [np.fft.irfft(i["x64"], axis=0)]),
    "fft2": ("ga_t o0 = ga_fft2(v3, NULL);", lambda i: [np.fft.fft2(i["v3"])]),
    "ifft2": ("ga_t o0 = ga_ifft2(z64, \"ortho\");", lambda i: [np.fft.ifft2(i["z64"], norm="ortho")]),
    "rfft2": ("ga_t o0 = ga_rfft2(v3, NULL);", lambda i: [np.fft.rfft2(i["v3"])]),
    "irfft2": ("ga_t o0 = ga_irfft2(z128, NULL);", lambda i: [np.fft.irfft2(i["z128"])]),
    "fftn3": ("ga_t o0 = ga_fftn(v3, \"forward\");", lambda i: [np.fft.fftn(i["v3"], norm="forward")]),
    "fftn4": ("ga_t o0 = ga_fftn(v4, NULL);", lambda i: [np.fft.fftn(i["v4"])]),
    "ifftn4": ("ga_t o0 = ga_ifftn(zv4, NULL);", lambda i: [np.fft.ifftn(i["zv4"])]),
    "rfftn4": ("ga_t o0 = ga_rfftn(v4, \"ortho\");", lambda i: [np.fft.rfftn(i["v4"], norm="ortho")]),
    "irfftn4": ("ga_t o0 = ga_irfftn(zv4, NULL);", lambda i: [np.fft.irfftn(i["zv4"])]),
    "fft_empty": ("ga_t o0 = ga_fft(ga_zeros(F64, 0, 8), 0, -1, NULL);",
                  lambda i: [np.fft.fft(np.zeros((0, 8)))]),
    # einsum
    "es_mm": ("ga_t o0 = ga_einsum(\"ij,jk->ik\", e1, e2);", lambda i: [np.einsum("ij,jk->ik", i["e1"], i["e2"])]),
    "es_implicit": ("ga_t o0 = ga_einsum(\"ij,jk\", e1, e2);", lambda i: [np.einsum("ij,jk", i["e1"], i["e2"])]),
    "es_bmm": ("ga_t o0 = ga_einsum(\"bij,bjk->bki\", eb1, eb2);",
               lambda i: [np.einsum("bij,bjk->bki", i["eb1"], i["eb2"])]),
    "es_nt": ("ga_t o0 = ga_einsum(\"ij,kj->ik\", e1, e1);", lambda i: [np.einsum("ij,kj->ik", i["e1"], i["e1"])]),
    "es_mv": ("ga_t o0 = ga_einsum(\"ij,j->i\", eq, ev);", lambda i: [np.einsum("ij,j->i", i["eq"], i["ev"])]),
    "es_dot": ("ga_t o0 = ga_einsum(\"i,i->\", ev, ev);", lambda i: [np.einsum("i,i->", i["ev"], i["ev"])]),
    "es_outer": ("ga_t o0 = ga_einsum(\"i,j->ij\", ev, ga_row(e1, 0));",
                 lambda i: [np.einsum("i,j->ij", i["ev"], i["e1"][0])]),
    "es_hadamard": ("ga_t o0 = ga_einsum(\"ij,ij->ji\", e1, e1);",
                    lambda i: [np.einsum("ij,ij->ji", i["e1"], i["e1"])]),
    "es_trace": ("ga_t o0 = ga_einsum(\"ii->\", eq);", lambda i: [np.einsum("ii->", i["eq"])]),
    "es_diag": ("ga_t o0 = ga_einsum(\"ii->i\", eq);", lambda i: [np.einsum("ii->i", i["eq"])]),
    "es_transpose": ("ga_t o0 = ga_einsum(\"ij->ji\", e1);", lambda i: [np.einsum("ij->ji", i["e1"])]),
    "es_colsum": ("ga_t o0 = ga_einsum(\"ij->j\", e1);", lambda i: [np.einsum("ij->j", i["e1"])]),
    "es_int": ("ga_t o0 = ga_einsum(\"ij,kj->ik\", ei, ei);", lambda i: [np.einsum("ij,kj->ik", i["ei"], i["ei"])]),
    "es_lone": ("ga_t o0 = ga_einsum(\"ij,jk->k\", e1, e2);", lambda i: [np.einsum("ij,jk->k", i["e1"], i["e2"])]),
}

# norms: (C call's ord, NumPy's call)
NORMS = [
    ("a64", "NULL", lambda a: np.linalg.norm(a)), ("a64", '"fro"', lambda a: np.linalg.norm(a, "fro")),
    ("a64", '"nuc"', lambda a: np.linalg.norm(a, "nuc")), ("a64", '"inf"', lambda a: np.linalg.norm(a, np.inf)),
    ("a64", '"-inf"', lambda a: np.linalg.norm(a, -np.inf)), ("a64", '"1"', lambda a: np.linalg.norm(a, 1)),
    ("a64", '"-1"', lambda a: np.linalg.norm(a, -1)), ("a64", '"2"', lambda a: np.linalg.norm(a, 2)),
    ("a64", '"-2"', lambda a: np.linalg.norm(a, -2)), ("b64", "NULL", lambda a: np.linalg.norm(a)),
    ("b64", '"1"', lambda a: np.linalg.norm(a, 1)), ("b64", '"3"', lambda a: np.linalg.norm(a, 3)),
    ("b64", '"inf"', lambda a: np.linalg.norm(a, np.inf)), ("b64", '"-inf"', lambda a: np.linalg.norm(a, -np.inf)),
    ("b64", '"0"', lambda a: np.linalg.norm(a, 0)), ("ai", '"2"', lambda a: np.linalg.norm(a, 2)),
    ("v3", "NULL", lambda a: np.linalg.norm(a)),
]

ERRORS = [
    ("ga_solve(ga_zeros(F64, 3, 3), ga_ones(F64, 3))", "LinAlgError", "ga_solve: Singular matrix"),
    ("ga_t sing = ga_copy(A3);\nga_set(sing, 0, 1, 0, 0);\nga_set(sing, 0, 1, 1, 0);\n"
     "ga_set(sing, 0, 1, 2, 0);\nga_inv(sing)", "LinAlgError",
     "ga_inv: Singular matrix (matrix 1 of the batch)"),
    ("ga_cholesky(a64)", "LinAlgError", "ga_cholesky: Matrix is not positive definite"),
    ("ga_inv(m32)", "ShapeError", "ga_inv: inv: the last 2 dimensions of the array must be square, not (6, 3)"),
    ("ga_det(b64)", "ShapeError", "ga_det: det: 1-dimensional array given"),
    ("ga_solve(a64, m32)", "ShapeError", "ga_solve: solve: shapes (5, 5) and (6, 3) do not align"),
    ("ga_inv(ga_ones(F16, 2, 2))", "DTypeError", "ga_inv: inv of float16"),
    ("ga_norm(a64, \"3\")", "ValueError", "ga_norm: norm: invalid norm order \"3\" for matrices"),
    ("ga_fft(x32, 0, -1, \"bogus\")", "ValueError", "ga_fft: norm \"bogus\""),
    ("ga_rfft(z64, 0, -1, NULL)", "DTypeError", "ga_rfft: rfft of complex64: the input must be real"),
    ("ga_fft(x32, 0, 2, NULL)", "ShapeError", "ga_fft: axis 2 is out of range for a 2-d array"),
    ("ga_einsum(\"...ij,jk\", e1, e2)", "ValueError", "ga_einsum: \"...ij,jk\": ellipsis (...) is not supported"),
    ("ga_einsum(\"ij,jk->ik\", e1, e1)", "ShapeError", "ga_einsum: \"ij,jk->ik\": the size of 'j'"),
    ("ga_einsum(\"i,i,i\", ev, ev, ev)", "ValueError", "ga_einsum: einsum of 3 operands"),
]


def cells_for(dev, device, names):
    """The cells of every case for device (a C expression: GA_CPU, 1000 for
    sim0, 0 for gpu0), its files named after dev."""
    load = "".join(f'ga_t {n} = ga_to_device(ga_load("{n}.npy"), {device});\n' for n in names)
    cells = [load]
    for name, case in CASES.items():
        nout = case[0].count("o") and sum(f"o{k}" in case[0] for k in range(4))
        saves = "".join(f'ga_save(o{k}, "{dev}_{name}_{k}.npy");\n' for k in range(nout))
        cells.append("{\n" + case[0] + "\n" + saves + "}")
    cells.append('printf("' + " ".join(["%.17g"] * len(NORMS)) + '\\n", ' +
                 ", ".join(f"ga_norm({a}, {o})" for a, o, _ in NORMS) + ");")
    cells += [e[0] for e in ERRORS]
    cells.append("ga_dim(ga_inv(a64), 0)")  # the session goes on after the errors
    return cells




def close(mine, ref, name):
    tol = 2e-4 if ref.dtype in (np.float32, np.complex64) else 1e-9
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    np.testing.assert_allclose(mine, ref, rtol=tol, atol=tol * scale, err_msg=name)


def check_case(folder, dev, arrays, name):
    """Case name's saved outputs against NumPy's (AssertionError if not)."""
    code, ref_fn = CASES[name][:2]
    mode = CASES[name][2] if len(CASES[name]) > 2 else "close"
    for k, ref in enumerate(ref_fn(arrays)):
        ref = np.asarray(ref)
        mine = np.load(folder / f"{dev}_{name}_{k}.npy")
        assert mine.dtype == ref.dtype and mine.shape == ref.shape, (name, k, mine.dtype, ref.dtype,
                                                                     mine.shape, ref.shape)
        if mode == "svd" and k != 1:  # a full U's (V^T's) columns (rows) past min(m, n): any basis
            keep = min(arrays[CASES[name][3]].shape[-2:])
            mine, ref = (mine[..., :keep], ref[..., :keep]) if k == 0 else (mine[..., :keep, :],
                                                                            ref[..., :keep, :])
        close(np.abs(mine) if mode in ("abs", "svd") else mine,
              np.abs(ref) if mode in ("abs", "svd") else ref, f"{dev} {name} output {k}")


FACTORS = {"qr_tall": "tall", "qr_wide": "wide", "qr_batch": "T3", "svd_tall": "tall",
           "svd_wide_full": "wide", "svd_batch": "W3", "svd_square": "a64",
           "svd_square_full": "a32", "svd_wide": "wide", "svd_tall_full": "tall", "eigh64": "s64",
           "eigh_batch": "S3"}


def check_factors(folder, dev, arrays, name):
    """Up to the signs of the vectors, which LAPACKs may choose apart: the
    factors give the matrix back and the vectors are orthonormal."""
    out = [np.load(folder / f"{dev}_{name}_{k}.npy") for k in range(3 if "svd" in name else 2)]
    src = FACTORS[name]
    a = arrays[src].astype(np.float64)
    tol = dict(rtol=1e-4, atol=1e-4) if arrays[src].dtype == np.float32 else dict(rtol=1e-9, atol=1e-9)
    if name.startswith("qr"):
        q, r = out
        np.testing.assert_allclose(q @ r, a, **tol)
        assert np.allclose(np.triu(r), r)
    elif name.startswith("svd"):
        u, s, vh = out
        k = s.shape[-1]
        np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, **tol)
        eye = np.eye(vh.shape[-2])  # V^T's rows orthonormal too
        np.testing.assert_allclose(vh @ np.swapaxes(vh, -1, -2),
                                   np.broadcast_to(eye, vh.shape[:-2] + eye.shape), **tol)
        q = u
    else:
        w, q = out
        np.testing.assert_allclose(a @ q, q * w[..., None, :], **tol)
    eye = np.eye(q.shape[-1])
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q,
                               np.broadcast_to(eye, q.shape[:-2] + eye.shape), **tol)


def check_norms(arrays, text):
    got = [float(x) for x in text.split()]
    assert len(got) == len(NORMS), text
    for (a, o, fn), g in zip(NORMS, got):
        ref = float(fn(arrays[a].astype(np.float64)))
        assert abs(g - ref) <= 1e-10 * max(1.0, abs(ref)), (a, o, g, ref)


def check_errors(res):
    """The error cells' results (and the cell after them, which runs)."""
    first = len(CASES) + 2
    for (code, kind, text), (_, _, err) in zip(ERRORS, res[first:first + len(ERRORS)]):
        assert err is not None and err[0] == kind and err[1].startswith(text), (code, err)
    assert res[first + len(ERRORS)][2] is None and res[first + len(ERRORS)][0] == "5"
