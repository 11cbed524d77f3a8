"""ga_full, ga_set, ga_eye, ga_arange and ga_linspace against NumPy, bit
for bit, on the CPU backend and the simulator (device 0 where the host has
no GPU; on the GPU machine tests/gpu/arrays2_gpu.py runs the same cases on
the GPU): the values are made by kernels (runtime/array/ga_fill), and
NumPy is the oracle — integer values exact to the int64 and uint64
extremes, float16 rounded once, complex, bool; arange with NumPy's length
and its fill arithmetic (float32 and float16 in their own precision,
integers wrapping, negative and non-integer steps, empty ranges, huge
int64 steps); linspace with its step, endpoint and one-element rules.
Skipped when NumPy is not installed."""
import os

import pytest

from gpuc_testing.notebook import run_cells

np = pytest.importorskip("numpy")

# (gpuc dtype, NumPy dtype)
DT = {"BOOL": np.bool_, "I8": np.int8, "U8": np.uint8, "I16": np.int16, "U16": np.uint16,
      "I32": np.int32, "U32": np.uint32, "I64": np.int64, "U64": np.uint64, "F16": np.float16,
      "F32": np.float32, "F64": np.float64, "C64": np.complex64, "C128": np.complex128}

# ga_arange(dtype, start, stop, step): the arguments are doubles, so NumPy
# gets Python floats
ARANGE = [
    ("F64", 0, 10, 1), ("F64", 0, 1, 0.1), ("F64", 1, -1, -0.3), ("F64", -3.5, 7.25, 0.37),
    ("F64", 10, 0, 1), ("F64", 0, 0, 1), ("F64", 5, 6, 10), ("F64", 1e16, 1e16 + 100, 7),
    ("F64", -1e-3, 1e-3, 3e-5), ("F64", 0.1, 1000.1, 0.7), ("F64", -0.0, 3, 1),
    ("F32", -0.0, 2, 0.5), ("F64", 1.7e308, 1.79e308, 1.7e308),
    ("F32", 0, 1, 0.1), ("F32", 1, -1, -0.3), ("F32", -3.5, 7.25, 0.37),
    ("F32", 16777200, 16777300, 1), ("F32", 0.1, 3000.1, 0.7), ("F32", 1e-3, 30, 1.1e-3),
    ("F16", 0, 1, 0.1), ("F16", -2, 2, 0.37), ("F16", 0, 3000, 1.5), ("F16", 100, -100, -3.3),
    ("I64", 0, 10, 1), ("I64", -5, 5, 2), ("I64", 10, -10, -3), ("I64", 0.5, 5, 0.7),
    ("I64", 0, 2.0**62, 2.0**58), ("I64", -2.0**62, 2.0**62, 2.0**59), ("I64", -0.5, 5, 1.0),
    ("I8", 0, 300, 37), ("I8", 0, 300, 1), ("U8", 250, 0, -7), ("U8", -0.5, 5, 1.0),
    ("I16", -1000, 1000, 13), ("U16", 0, 70000, 333), ("I32", -7, 1000, 3),
    ("U32", 4e9, 0, -1.5e7), ("U64", 2.0**63, 2.0**64 - 2048, 2.0**61),
    ("C64", 0, 5, 0.5), ("C64", 1, -1, -0.25), ("C128", -3.5, 7.25, 0.37),
    ("BOOL", 0, 2, 1), ("BOOL", 1, 0, -1), ("BOOL", 0, 1, 0.5),
]

# ga_arange of three integers: NumPy's arange of Python ints, exact past
# 2^53; the length is the quotient rounded to a double, as Python divides
# (2^62 + 1 over 2^62 is 1.0: one element; 2^62 + 2^9 a tie, to 1.0)
ARANGE_INT = [
    ("I64", 0, 10, 1), ("I64", 10, -10, -3), ("I64", -2**63, 2**63 - 1, 2**61),
    ("I64", 2**53 + 1, 2**53 + 41, 3), ("I64", 2**62 + 1, 2**62 + 100, 7),
    ("I64", 0, 2**62 + 1, 2**62), ("I64", 0, 2**62 + 2**9, 2**62), ("I64", 0, 2**62 + 2**10, 2**62),
    ("I64", 0, -(2**62) - 1, -(2**62)), ("I64", 5, 5, 1), ("I64", 5, 0, 1),
    ("U64", 2**63 - 100, 2**63 - 1, 9), ("I8", 0, 300, 37), ("U8", 250, 0, -7),
    ("I32", -7, 1000, 3), ("U16", 65530, 65535, 2), ("F64", 2**53 + 1, 2**53 + 41, 3),
    ("F32", 16777217, 16777260, 3), ("F16", -100, 3000, 7), ("C128", 2**60 + 1, 2**60 + 9, 1),
    ("BOOL", 1, -1, -1),
]

# ga_linspace(dtype, start, stop, num)
LINSPACE = [
    ("F64", 0, 1, 5), ("F64", 0, 1, 7), ("F64", -1.5, 2.25, 100), ("F64", 1, 0, 11),
    ("F64", 0, 1, 1), ("F64", 0, 1, 0), ("F64", 0, 1, 2), ("F64", 5, 5, 4),
    ("F64", 0, 5e-324, 3), ("F64", 1e300, -1e300, 9), ("F64", 0.1, 0.7, 1000),
    ("F64", -0.0, 1, 3), ("F64", -0.0, 1, 1), ("F64", 0.0, -1, 1),
    ("F32", 0, 1, 10), ("F32", -3, 7, 1001), ("F32", 0.1, 1e6, 777),
    ("F16", 0, 1, 11), ("F16", -100, 100, 51), ("F16", 0.1, 3000, 333),
    ("I32", 0, 10, 7), ("I32", -5, 5, 11), ("I32", 10, -10, 9), ("U8", 0, 255, 18),
    ("I64", 0, 2.0**40, 33), ("I8", -100, 100, 77), ("U64", 0, 1e19, 5),
    ("C128", 0, 1, 5), ("C64", -1, 1, 9), ("BOOL", 0, 1, 5), ("BOOL", 0, 0, 3),
]

# ga_full(dtype, value, shape): (C value text, the Python value NumPy gets)
FULL = [
    ("I64", "9223372036854775807LL", 2**63 - 1), ("I64", "(-9223372036854775807LL - 1)", -2**63),
    ("I64", "9007199254740993LL", 2**53 + 1), ("U64", "18446744073709551615ULL", 2**64 - 1),
    ("U64", "9223372036854775809ULL", 2**63 + 1), ("F64", "9007199254740993LL", 2**53 + 1),
    ("F32", "16777217", 16777217), ("F32", "1152921573326323713LL", 2**60 + 2**36 + 1),
    ("F32", "18446744073709551615ULL", 2**64 - 1), ("F16", "0.1", 0.1),
    ("F16", "65519.0", 65519.0), ("F16", "2049", 2049), ("F16", "1.0004882812509095", 1.0004882812509095),
    ("F32", "-0.0", -0.0), ("F64", "-0.0", -0.0), ("C64", "1.5", 1.5), ("C128", "-2.25", -2.25),
    ("BOOL", "1", True), ("I8", "-1", -1), ("U8", "255", 255), ("I16", "-32768", -32768),
    ("U32", "4294967295U", 2**32 - 1), ("I32", "2.75", 2.75), ("U16", "7", 7),
]

SIZES = [1, 3, 16, 37, 1000]  # around the kernel's 16-byte words


def c_num(x):
    return repr(float(x))


def c_int(x):
    return "(-9223372036854775807LL - 1)" if x == -2**63 else f"{x}LL"


def devices():
    return ["GA_CPU", "0"]  # 0: the simulator where the host has no GPU


@pytest.fixture(scope="module", params=devices())
def results(request, gpuc_bin, tmp_path_factory):
    """Every case saved as .npy by one notebook on the device."""
    folder = tmp_path_factory.mktemp("fill")
    cells = [f"ga_use_device({request.param});"]
    body = []
    for i, (dt, start, stop, step) in enumerate(ARANGE):
        body.append(f'ga_save(ga_arange({dt}, {c_num(start)}, {c_num(stop)}, {c_num(step)}), '
                    f'"arange{i}.npy");')
    for i, (dt, start, stop, step) in enumerate(ARANGE_INT):
        body.append(f'ga_save(ga_arange({dt}, {c_int(start)}, {c_int(stop)}, {c_int(step)}), '
                    f'"arange_int{i}.npy");')
    for i, (dt, start, stop, num) in enumerate(LINSPACE):
        body.append(f'ga_save(ga_linspace({dt}, {c_num(start)}, {c_num(stop)}, {num}), '
                    f'"linspace{i}.npy");')
    for i, (dt, text, _) in enumerate(FULL):
        for n in SIZES:
            body.append(f'ga_save(ga_full({dt}, {text}, {n}), "full{i}_{n}.npy");')
    cells.append("\n".join(body))
    # filling views: eye's strided diagonal, ga_set through a transposed view
    cells.append("\n".join(f'ga_save(ga_eye({dt}, 5), "eye_{dt}.npy");' for dt in DT))
    cells.append('ga_t m = ga_zeros(U64, 3, 4);\nga_t t = ga_transpose(m);\n'
                 'ga_set(t, 18446744073709551614ULL, 2, 1);\nga_set(t, 5, 0, 0);\n'
                 'ga_t h = ga_zeros(I64, 2, 3);\nga_set(h, -9223372036854775807LL, 1, 2);\n'
                 'ga_save(m, "set_u64.npy");\nga_save(h, "set_i64.npy");')
    cells += ["ga_arange(BOOL, 0, 3, 1)", "ga_arange(I8, 0, 300, 200)",
              "ga_arange(U8, -3.5, 2, 0.7)", "ga_arange(F32, 0, 1, 0)",
              "ga_arange(I64, -9223372036854775807LL, 9223372036854775807LL, 1)",
              "ga_arange(U8, -3, 2, 1)", "ga_arange(F32, 0.0, 1, 0)",
              "ga_arange(F64, 1.0, 0.0, 1e-320)",
              "ga_full(I8, 300, 2)", "ga_full(U8, -1, 2)", "ga_full(I64, 18446744073709551615ULL, 1)",
              "ga_set(ga_zeros(U16, 2), 70000, 0)", "ga_linspace(F32, 0, 1, -1)"]
    res = run_cells(gpuc_bin, folder, cells, timeout=600)
    return folder, res


def load(folder, name):
    return np.load(folder / name)


def same_bits(got, want, what):
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, NumPy {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, NumPy {want.shape}"
    g, w = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if g.tobytes() != w.tobytes():
        diff = np.flatnonzero(np.any(g.view(np.uint8).reshape(max(g.size, 1), -1) !=
                                     w.view(np.uint8).reshape(max(w.size, 1), -1), axis=1))
        i = diff[0]
        raise AssertionError(f"{what}: {diff.size} elements differ, first [{i}]: "
                             f"gpuc {g.flat[i]!r}, NumPy {w.flat[i]!r}")


def test_cells_ran(results):
    _, res = results
    assert all(r[2] is None for r in res[:4]), res[:4]


def test_arange_is_numpys_bit_for_bit(results):
    folder, _ = results
    for i, (dt, start, stop, step) in enumerate(ARANGE):
        want = np.arange(float(start), float(stop), float(step), dtype=DT[dt])
        same_bits(load(folder, f"arange{i}.npy"), want, f"arange({dt}, {start}, {stop}, {step})")


def test_arange_of_small_integers_is_numpys_integer_arange(results):
    """A cell's integers become doubles; below 2^53 that is NumPy's own
    integer arange."""
    folder, _ = results
    for i, (dt, start, stop, step) in enumerate(ARANGE):
        if all(float(x).is_integer() and abs(x) < 2**53 for x in (start, stop, step)) and \
                dt not in ("BOOL",) and np.dtype(DT[dt]).kind in "iu" and start >= 0:
            want = np.arange(int(start), int(stop), int(step), dtype=DT[dt])
            same_bits(load(folder, f"arange{i}.npy"), want, f"arange({dt}, {start}, {stop}, {step})")


def test_arange_of_integers_is_exact(results):
    folder, _ = results
    for i, (dt, start, stop, step) in enumerate(ARANGE_INT):
        want = np.arange(start, stop, step, dtype=DT[dt])
        same_bits(load(folder, f"arange_int{i}.npy"), want, f"arange({dt}, {start}, {stop}, {step})")
    assert load(folder, "arange_int5.npy").size == 1 and load(folder, "arange_int7.npy").size == 2


def test_linspace_is_numpys_bit_for_bit(results):
    folder, _ = results
    for i, (dt, start, stop, num) in enumerate(LINSPACE):
        want = np.linspace(float(start), float(stop), num, dtype=DT[dt])
        same_bits(load(folder, f"linspace{i}.npy"), want, f"linspace({dt}, {start}, {stop}, {num})")


def test_full_is_exact_in_every_dtype(results):
    folder, _ = results
    for i, (dt, text, value) in enumerate(FULL):
        for n in SIZES:
            want = np.full(n, value, dtype=DT[dt])
            same_bits(load(folder, f"full{i}_{n}.npy"), want, f"ga_full({dt}, {text}, {n})")


def test_views_are_filled_exactly(results):
    folder, _ = results
    for dt, t in DT.items():
        same_bits(load(folder, f"eye_{dt}.npy"), np.eye(5, dtype=t), f"ga_eye({dt}, 5)")
    m = np.zeros((3, 4), np.uint64)
    m.T[2, 1] = 2**64 - 2
    m.T[0, 0] = 5
    same_bits(load(folder, "set_u64.npy"), m, "ga_set of a transposed uint64 view")
    h = np.zeros((2, 3), np.int64)
    h[1, 2] = -(2**63) + 1
    same_bits(load(folder, "set_i64.npy"), h, "ga_set of an int64")


def test_numpys_errors(results):
    """NumPy's TypeError (bool arange past 2), OverflowError (a value out of
    an integer dtype) and ZeroDivisionError (step 0), as DTypeError and
    ValueError; the session lives on."""
    _, res = results
    errors = [r[2] for r in res[4:]]
    assert errors[0][0] == "DTypeError" and "at most 2" in errors[0][1], errors[0]
    assert errors[1] == ("ValueError", "ga_arange: start + step 200 is out of bounds for int8"), errors[1]
    assert errors[2] == ("ValueError", "ga_arange: start -3.5 is out of bounds for uint8"), errors[2]
    assert errors[3] == ("ValueError", "ga_arange: arange: step must not be 0"), errors[3]
    assert errors[4][0] == "ShapeError" and "too many" in errors[4][1], errors[4]
    assert errors[5] == ("ValueError", "ga_arange: start -3 is out of bounds for uint8"), errors[5]
    assert errors[6][0] == "ValueError" and "step not 0" in errors[6][1], errors[6]
    assert errors[7][0] == "ShapeError" and "too many" in errors[7][1], errors[7]  # NumPy: ValueError
    assert errors[8] == ("ValueError", "ga_full: 300 is out of bounds for int8"), errors[8]
    assert errors[9] == ("ValueError", "ga_full: -1 is out of bounds for uint8"), errors[9]
    assert errors[10] == ("ValueError", "ga_full: 18446744073709551615 is out of bounds for int64"), errors[10]
    assert errors[11] == ("ValueError", "ga_set: 70000 is out of bounds for uint16"), errors[11]
    assert errors[12][0] == "ShapeError" and "negative" in errors[12][1], errors[12]
    for start, stop, step, dt in [(0.0, 300.0, 200.0, np.int8), (-3, 2, 1, np.uint8)]:
        with pytest.raises(OverflowError):
            np.arange(start, stop, step, dtype=dt)
