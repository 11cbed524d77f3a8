"""Array math against NumPy: elementwise operations, fused expressions,
broadcasting, type promotion, views, `out`, reductions — through the real
kernel, with NumPy computing the expected answer from the same `.npy`
inputs.

Runs on the CPU backend by default; GPUC_ARRAY_DEVICE=0 runs the same
cases on GPU 0 (the GPU machine: tests/gpu/run.sh). Results must have
NumPy's dtype and shape; integers and comparisons must be equal, floats
within a few ulps (transcendental functions come from different libraries).
"""
import math
import re
import os

import pytest

np = pytest.importorskip("numpy")

from gpuc_testing.kernel import execute, scaled, start_kernel, stop_kernel

DEVICE = os.environ.get("GPUC_ARRAY_DEVICE", "GA_CPU")
RNG = np.random.default_rng(20261124)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    km, kc = start_kernel()
    run = execute(kc, f"ga_use_device({DEVICE});")
    assert run.status == "ok", run.describe()
    yield kc, tmp_path_factory.mktemp("math")
    stop_kernel(km, kc)


def values(dtype, shape, low=-50, high=50):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return RNG.random(shape) < 0.5
    if dt.kind in "iu":
        lo = max(low, np.iinfo(dt).min) if dt.kind == "i" else 0
        return RNG.integers(lo, min(high, np.iinfo(dt).max), size=shape, endpoint=True).astype(dt)
    return (RNG.random(shape) * (high - low) + low).astype(dt)


class Session:
    """Inputs saved as .npy, a cell that saves its result, the result read back."""

    def __init__(self, kernel, name):
        self.kc, self.dir = kernel
        self.name = name
        self.n = 0

    def put(self, arr):
        self.n += 1
        path = self.dir / f"{self.name}_{self.n}.npy"
        np.save(path, arr)
        return f'ga_load("{path}")'

    def run(self, code):
        return execute(self.kc, code, timeout=scaled(120))

    def value(self, expr):
        out = self.dir / f"{self.name}_out.npy"
        if out.exists():
            out.unlink()
        run = self.run(f'ga_save({expr}, "{out}");')
        assert run.status == "ok", run.describe()
        return np.load(out)

    def error(self, code):
        run = self.run(code)
        assert run.status == "error", f"{code} should fail"
        return run.reply["content"]["ename"], run.reply["content"]["evalue"]


def same(got, want, ulps=4):
    assert got.dtype == want.dtype, f"dtype {got.dtype}, NumPy {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape}, NumPy {want.shape}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        eps = np.finfo(want.dtype).eps
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=ulps * eps, atol=ulps * eps, equal_nan=True)


def same_as(what, got, want, scale=None, ulps=16):
    """same(), the failure naming what was compared; floats within ulps of
    scale (the sum of the magnitudes: a sum's rounding depends on its
    order, which is not NumPy's) where scale is given."""
    try:
        if scale is None or want.dtype.kind not in "fc":
            same(got, want, ulps)
        else:
            assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
            eps = np.finfo(want.dtype).eps
            np.testing.assert_allclose(got, want, rtol=0, atol=ulps * eps * np.max(scale))
    except AssertionError as e:
        raise AssertionError(f"{what}: got {got}, NumPy {want}: {e}") from None


# ---- elementwise -------------------------------------------------------------

PAIRS = [("float32", "float32"), ("float32", "int32"), ("int8", "uint8"), ("float16", "float32"),
         ("int64", "float64"), ("uint16", "int16"), ("int32", "int32"), ("bool", "int8"),
         ("float16", "float16"), ("uint64", "uint8")]

BINARY = {
    "ga_add": np.add, "ga_sub": np.subtract, "ga_mul": np.multiply, "ga_div": np.true_divide,
    "ga_maximum": np.maximum, "ga_minimum": np.minimum, "ga_eq": np.equal, "ga_lt": np.less,
    "ga_ge": np.greater_equal, "ga_logical_and": np.logical_and,
}


@pytest.mark.parametrize("da,db", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
@pytest.mark.parametrize("fn", sorted(BINARY))
def test_binary(kernel, fn, da, db):
    if fn == "ga_sub" and da == "bool":
        pytest.skip("NumPy refuses bool - bool: tested in test_errors")
    s = Session(kernel, fn)
    a, b = values(da, (7, 5)), values(db, (7, 5))
    if fn == "ga_div":
        b = np.where(b == 0, 1, b).astype(db)
    with np.errstate(all="ignore"):
        want = BINARY[fn](a, b)
    same(s.value(f"{fn}({s.put(a)}, {s.put(b)})"), want)


INT_OPS = {"ga_mod": np.remainder, "ga_bitwise_and": np.bitwise_and,
           "ga_bitwise_xor": np.bitwise_xor, "ga_left_shift": np.left_shift,
           "ga_right_shift": np.right_shift}


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint32"])
@pytest.mark.parametrize("fn", sorted(INT_OPS))
def test_integer_ops(kernel, fn, dtype):
    s = Session(kernel, fn)
    a = values(dtype, (40,), -100, 100)
    b = values(dtype, (40,), -7, 7) if fn != "ga_mod" else values(dtype, (40,), -9, 9)
    if "shift" in fn:
        b = np.abs(b).astype(dtype)
    with np.errstate(all="ignore"):
        want = INT_OPS[fn](a, b)   # x % 0 is 0 in NumPy, as here
    same(s.value(f"{fn}({s.put(a)}, {s.put(b)})"), want)


def test_integer_wraparound_and_division(kernel):
    s = Session(kernel, "wrap")
    a = np.array([127, -128, 100, -1], np.int8)
    b = np.array([1, -1, 100, 0], np.int8)
    with np.errstate(all="ignore"):
        same(s.value(f"ga_add({s.put(a)}, {s.put(b)})"), a + b)
        same(s.value(f"ga_mul({s.put(a)}, {s.put(b)})"), a * b)
        same(s.value(f"ga_mod({s.put(a)}, {s.put(b)})"), a % b)
        big = np.array([2**31 - 1, -2**31], np.int32)
        same(s.value(f"ga_add({s.put(big)}, 1)"), big + 1)
        x = np.array([1, -1, 0], np.int32)
        same(s.value(f"ga_div({s.put(x)}, {s.put(np.zeros(3, np.int32))})"),
             x / np.zeros(3, np.int32))
        f = np.array([-7.5, 7.5, 3.0, -0.0], np.float64)
        g = np.array([2.0, -2.0, 0.0, 1.0], np.float64)
        same(s.value(f"ga_mod({s.put(f)}, {s.put(g)})"), np.remainder(f, g))


UNARY = ["sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "tanh",
         "sinh", "cosh", "arctan", "arcsin", "floor", "ceil", "trunc", "rint", "abs", "sign",
         "square", "negative", "isnan", "isfinite", "cbrt", "exp2"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int16", "int32"])
@pytest.mark.parametrize("fn", UNARY)
def test_unary(kernel, fn, dtype):
    s = Session(kernel, fn)
    low, high = (0.01, 0.99) if fn in ("arcsin",) else (0.1, 9) if fn.startswith("log") or fn == "sqrt" else (-3, 3)
    a = values(dtype, (6, 9), low, high)
    if np.dtype(dtype).kind == "i" and fn in ("arcsin",):
        a = np.zeros_like(a)
    name = {"negative": "ga_neg"}.get(fn, f"ga_{fn}")
    with np.errstate(all="ignore"):
        want = getattr(np, fn)(a)
    got = s.value(f"{name}({s.put(a)})")
    same(got, want, ulps=8 if np.dtype(want.dtype) != np.float16 else 2)


def test_nan_and_inf(kernel):
    s = Session(kernel, "nan")
    a = np.array([1.0, np.nan, -np.inf, np.inf, 0.0], np.float32)
    b = np.array([np.nan, 2.0, 1.0, np.nan, -0.0], np.float32)
    same(s.value(f"ga_maximum({s.put(a)}, {s.put(b)})"), np.maximum(a, b))
    same(s.value(f"ga_minimum({s.put(a)}, {s.put(b)})"), np.minimum(a, b))
    same(s.value(f"ga_isnan({s.put(a)})"), np.isnan(a))
    with np.errstate(all="ignore"):
        same(s.value(f"ga_div({s.put(a)}, {s.put(b)})"), a / b)
    same(s.value(f'ga_map("clip(x, -1, 1)", {s.put(a)})'), np.clip(a, -1, 1))


# ---- fused expressions, scalars, broadcasting, views, out ----------------------

def test_fused_expression(kernel):
    s = Session(kernel, "fused")
    a, b, c = values("float32", (1000,)), values("float32", (1000,)), values("float32", (1000,))
    got = s.value(f'ga_map("(a - b) * (a - b) + alpha * c", {s.put(a)}, {s.put(b)}, 0.5, {s.put(c)})')
    same(got, ((a - b) * (a - b) + np.float32(0.5) * c).astype(np.float32))
    got = s.value(f'ga_map("x, y: y - x", {s.put(a)}, {s.put(b)})')
    same(got, b - a)
    i = values("int32", (50,))
    got = s.value(f'ga_map("where(a > 0, a * 2, -a) + 1", {s.put(i)})')
    same(got, np.where(i > 0, i * 2, -i) + 1)
    got = s.value(f'ga_map("a ** 2 + 2.5", {s.put(i)})')
    same(got, i ** 2 + 2.5)


def test_scalars_are_weak(kernel):
    s = Session(kernel, "weak")
    f = values("float32", (5,))
    h = values("float16", (5,))
    i = values("int16", (5,))
    u = values("uint8", (5,), 1, 200)
    same(s.value(f"ga_mul({s.put(f)}, 2.5)"), f * 2.5)
    same(s.value(f"ga_mul({s.put(h)}, 3)"), h * 3)
    same(s.value(f"ga_add({s.put(i)}, 1.5)"), i + 1.5)
    same(s.value(f"ga_sub({s.put(u)}, 1)"), u - 1)
    bl = values("bool", (5,))
    same(s.value(f"ga_add({s.put(bl)}, 1)"), bl + 1)


@pytest.mark.parametrize("sa,sb", [((3, 1), (1, 4)), ((5,), (2, 5)), ((2, 1, 3), (4, 1)),
                                   ((), (3,)), ((1,), (6, 1))])
def test_broadcasting(kernel, sa, sb):
    s = Session(kernel, "bcast")
    a, b = values("float64", sa), values("int32", sb)
    same(s.value(f"ga_add({s.put(a)}, {s.put(b)})"), a + b)
    same(s.value(f'ga_map("a * b - a", {s.put(a)}, {s.put(b)})'), a * b - a)


def test_views(kernel):
    s = Session(kernel, "views")
    m = values("float32", (8, 6))
    src = s.put(m)
    same(s.value(f"ga_sqrt(ga_abs(ga_transpose({src})))"), np.sqrt(np.abs(m.T)))
    same(s.value(f"ga_mul(ga_slice({src}, 0, 1, 7, 2), 3)"), m[1:7:2] * 3)
    same(s.value(f"ga_add(ga_slice({src}, 1, GA_END, GA_END, -1), ga_row({src}, 2))"),
         m[:, ::-1] + m[2])
    same(s.value(f"ga_sub(ga_transpose({src}), ga_col({src}, 3))"), m.T - m[:, 3])
    same(s.value(f"ga_add(ga_transpose({src}), ga_transpose({src}))"), m.T + m.T)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "complex128"])
def test_copies_of_views_with_axes_of_one(kernel, dtype):
    """A view that is contiguous but for the stride of an axis of length 1
    (the transpose of a row, a column of a matrix's transpose) copies and
    saves its own elements, not every stride-th byte after them."""
    s = Session(kernel, f"ones_{dtype}")
    row, m = values(dtype, (1, 5)), values(dtype, (4, 1, 3))
    r, q = s.put(row), s.put(m)
    for expr, want in [(f"ga_copy(ga_transpose({r}))", row.T), (f"ga_transpose({r})", row.T),
                       (f"ga_copy(ga_transpose({q}))", m.T), (f"ga_transpose({q})", m.T)]:
        got = s.value(expr)
        assert got.shape == want.shape and np.array_equal(got, want), expr


def test_out(kernel):
    s = Session(kernel, "out")
    a = values("float32", (4, 5))
    b = values("float32", (5,))
    code = (f"ga_t o = ga_zeros(F64, 4, 5); ga_t x = {s.put(a)};"
            f" ga_add_out(o, x, {s.put(b)}); ga_map_out(o, \"o * 2\", o);")
    assert s.run(code).status == "ok"
    same(s.value("o"), ((a + b).astype(np.float64) * 2))
    # in place, overlapping in another layout: the input is read before it is written
    sq = values("float32", (4, 4))
    assert s.run(f"ga_t q = {s.put(sq)}; ga_map_out(q, \"a + 1\", ga_transpose(q));").status == "ok"
    same(s.value("q"), sq.T + 1)
    # numbers only fill the output, a strided view too (a diagonal): one kernel on a GPU
    assert s.run("ga_t f = ga_zeros(F64, 4, 5); ga_map_out(f, \"a * 2\", 1.25);"
                 "ga_t g = ga_zeros(F32, 4, 4);"
                 "ga_map_out(ga_slice(ga_reshape(g, 16), 0, 0, GA_END, 5), \"a\", 3);").status == "ok"
    same(s.value("f"), np.full((4, 5), 2.5))
    same(s.value("g"), np.eye(4, dtype=np.float32) * 3)
    ename, evalue = s.error("ga_add_out(ga_zeros(I32, 4, 5), x, 1.5);")
    assert ename == "DTypeError" and "float32" in evalue and "int32" in evalue
    ename, evalue = s.error("ga_add_out(ga_zeros(F32, 3), x, 1);")
    assert ename == "ShapeError" and "(3,)" in evalue


def test_empty_and_0d(kernel):
    s = Session(kernel, "empty")
    e = np.zeros((0, 3), np.float32)
    same(s.value(f"ga_exp({s.put(e)})"), np.exp(e))
    z = np.array(2.5, np.float64)
    v = values("float64", (3,))
    same(s.value(f"ga_mul({s.put(z)}, {s.put(v)})"), z * v)
    same(s.value(f"ga_mul({s.put(z)}, 2)"), np.asarray(z * 2))


def test_astype(kernel):
    s = Session(kernel, "astype")
    f = np.array([1.7, -2.2, 300.0, 0.0], np.float32)
    same(s.value(f"ga_astype({s.put(f)}, I16)"), f.astype(np.int16))
    same(s.value(f"ga_astype({s.put(f)}, F16)"), f.astype(np.float16))
    same(s.value(f"ga_astype({s.put(f)}, BOOL)"), f.astype(bool))


# ---- reductions -----------------------------------------------------------------

REDUCTIONS = ["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "any",
              "all", "count_nonzero"]


def numpy_reduce(op, a, axis=None, keepdims=False):
    if op == "count_nonzero":
        r = np.count_nonzero(a, axis=axis, keepdims=keepdims)
        return np.asarray(r, dtype=np.int64)
    if op in ("argmin", "argmax"):
        return np.asarray(getattr(np, op)(a, axis=axis, keepdims=keepdims), dtype=np.int64)
    return np.asarray(getattr(np, op)(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool", "float16"])
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions(kernel, op, dtype):
    if dtype == "bool" and op in ("var", "std", "prod"):
        pytest.skip("NumPy's bool var/std/prod are not what anyone asks for")
    s = Session(kernel, op)
    lo, hi = (1, 3) if op == "prod" else (-40, 40)
    a = values(dtype, (6, 7), lo, hi)
    src = s.put(a)
    ulps = 64 if dtype == "float16" else 16
    for axis in (None, 0, 1, -1):
        for keep in (0, 1):
            if axis is None:
                got = s.value(f"ga_{op}_axis({src}, GA_ALL, {keep})")
            else:
                got = s.value(f"ga_{op}_axis({src}, {axis}, {keep})")
            want = numpy_reduce(op, a, axis, bool(keep))
            same(got, want, ulps)
    # whole-array results as C doubles
    run = s.run(f'printf("%.17g\\n", ga_{op}({src}));')
    assert run.status == "ok", run.describe()
    want = float(numpy_reduce(op, a))
    assert math.isclose(float(run.stream("stdout").strip()), want, rel_tol=1e-3 if dtype == "float16" else 1e-6,
                        abs_tol=1e-6)


EVERY_DTYPE = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool",
               "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", EVERY_DTYPE)
def test_reductions_of_every_length(kernel, dtype):
    """Whole-array and per-row reductions of 1 to 70 elements and of a few
    thousand, where the CPU's 8 lanes, its blocks of 1024 and the compiler's
    vector loops have every remainder (an AVX-512 loop of GCC 12 once
    summed int32 wrongly from 16 elements on)."""
    s = Session(kernel, f"len_{dtype}")
    lengths = list(range(1, 71)) + [1000, 1023, 1024, 1025, 2112, 5000]
    ops = ["sum", "max", "min", "count_nonzero"] + (["mean"] if dtype != "bool" else [])
    for n in lengths:
        a = values(dtype, (n,), -40, 40)
        src = s.put(a)
        for op in ops:
            same_as(f"{op} of {n}", s.value(f"ga_{op}_axis({src}, GA_ALL, 0)"), numpy_reduce(op, a),
                    np.abs(a.astype(np.float64)).sum())
    m = values(dtype, (37, 61), -40, 40)
    src = s.put(m)
    for op in ops:
        for axis in (1, 0):
            same_as(f"{op} along axis {axis} of 37 x 61", s.value(f"ga_{op}_axis({src}, {axis}, 0)"),
                    numpy_reduce(op, m, axis, False), np.abs(m.astype(np.float64)).sum(axis))


@pytest.mark.parametrize("dtype", EVERY_DTYPE)
def test_scans_of_every_length(kernel, dtype):
    """cumsum of 1 to 70 elements and of a few thousand, and along each
    axis of a 37 x 61 matrix."""
    s = Session(kernel, f"scan_{dtype}")
    for n in list(range(1, 71)) + [1000, 1025, 2112]:
        a = values(dtype, (n,), -40, 40)
        want = np.cumsum(a)
        same_as(f"cumsum of {n}", s.value(f"ga_cumsum({s.put(a)}, GA_ALL)"), want,
                np.cumsum(np.abs(a.astype(np.float64))))
    m = values(dtype, (37, 61), -40, 40)
    src = s.put(m)
    for axis in (1, 0):
        same_as(f"cumsum along axis {axis} of 37 x 61", s.value(f"ga_cumsum({src}, {axis})"),
                np.cumsum(m, axis), np.cumsum(np.abs(m.astype(np.float64)), axis))


def test_reductions_of_views_and_expressions(kernel):
    s = Session(kernel, "rview")
    m = values("float32", (9, 5))
    src = s.put(m)
    # sums in another order than NumPy's: within n ulps of the inputs' magnitude
    same(s.value(f"ga_sum_axis(ga_transpose({src}), 1, 0)"), m.T.sum(axis=1), ulps=400)
    same(s.value(f"ga_max_axis(ga_slice({src}, 0, GA_END, GA_END, -2), 0, 0)"), m[::-2].max(axis=0))
    same(s.value(f"ga_sum_axis(ga_transpose({src}), GA_ALL, 0)"), np.asarray(m.T.sum()), ulps=16)
    x, y = values("float32", (1000,)), values("float32", (1000,))
    got = s.value(f'ga_map("sum((a - b) * (a - b))", {s.put(x)}, {s.put(y)})')
    same(got, np.asarray(((x - y) * (x - y)).sum()), ulps=16)
    got = s.value(f'ga_map("max(a * b, 0)", {s.put(m)}, {s.put(values("float32", (5,)))})')
    assert got.shape == (5,)


def test_nan_in_reductions(kernel):
    s = Session(kernel, "rnan")
    a = np.array([1.0, np.nan, 3.0, np.nan], np.float64)
    src = s.put(a)
    for op in ("sum", "max", "min", "argmax", "argmin", "mean"):
        same(s.value(f"ga_{op}_axis({src}, GA_ALL, 0)"), numpy_reduce(op, a))


def test_sum_is_accurate(kernel):
    """float32 sums in tree order: far closer to the float64 sum than a serial loop."""
    s = Session(kernel, "accurate")
    a = (RNG.random(2_000_000) + 0.5).astype(np.float32)
    exact = a.astype(np.float64).sum()
    got = float(s.value(f"ga_sum_axis({s.put(a)}, GA_ALL, 0)"))
    serial = np.float32(0)
    for chunk in np.array_split(a, 1):   # a serial float32 sum, as a naive loop would do
        serial = np.cumsum(chunk, dtype=np.float32)[-1]
    assert abs(got - exact) / exact < 1e-6
    assert abs(got - exact) < abs(float(serial) - exact) / 10


def test_empty_reductions(kernel):
    s = Session(kernel, "rempty")
    e = s.put(np.zeros((0, 4), np.float32))
    same(s.value(f"ga_sum_axis({e}, GA_ALL, 0)"), np.asarray(np.float32(0)))
    same(s.value(f"ga_sum_axis({e}, 0, 0)"), np.zeros(4, np.float32))
    same(s.value(f"ga_prod_axis({e}, 0, 0)"), np.ones(4, np.float32))
    same(s.value(f"ga_any_axis({e}, GA_ALL, 0)"), np.asarray(False))
    same(s.value(f"ga_all_axis({e}, GA_ALL, 0)"), np.asarray(True))
    ename, evalue = s.error(f"ga_max({e});")
    assert ename == "ShapeError" and "empty" in evalue


# ---- errors: clear, and the session and its arrays intact --------------------------

def test_errors(kernel):
    s = Session(kernel, "errors")
    assert s.run("ga_t keep = ga_arange(F32, 0, 5, 1);").status == "ok"
    cases = [
        ("ga_add(keep, ga_ones(F32, 4));", "ShapeError", "do not broadcast"),
        ('ga_map("(a - ", keep);', "ExpressionError", "column 6"),
        ('ga_map("a + b", keep);', "ExpressionError", "2 operands (a, b), given 1"),
        ('ga_map("frob(a)", keep);', "ExpressionError", "unknown function frob"),
        ("ga_sub(ga_gt(keep, 1), ga_gt(keep, 2));", "DTypeError", "bool"),
        ("ga_sum_axis(keep, 3, 0);", "ShapeError", "axis 3 is out of range"),
        ("ga_bitwise_and(keep, 1);", "DTypeError", "float32"),
        ("ga_t f = ga_ones(F32, 3); ga_free(f); ga_add(f, 1);", "FreedArrayError", ""),
    ]
    for code, ename, text in cases:
        got, evalue = s.error(code)
        assert got == ename, (code, got, evalue)
        assert text in evalue, (code, evalue)
    same(s.value("keep"), np.arange(5, dtype=np.float32))


# ---- %%elementwise and %%reduce -------------------------------------------------

def test_elementwise_magic(kernel):
    s = Session(kernel, "udf")
    run = s.run("%%elementwise sqdiff(T a, T b) -> T c\nc = (a - b) * (a - b);")
    assert run.status == "ok", run.describe()
    assert "sqdiff" in run.stream("stdout")
    a, b = values("float32", (4, 5)), values("float32", (5,))
    same(s.value(f"sqdiff({s.put(a)}, {s.put(b)})"), (a - b) * (a - b))
    i = values("int16", (7,))
    same(s.value(f"sqdiff({s.put(i)}, 3)"), (i - 3) * (i - 3))      # one instantiation per dtype
    same(s.value(f'ga_map("sqdiff(a, b) + 1", {s.put(a)}, {s.put(b)})'), (a - b) * (a - b) + 1)
    assert s.run(f"ga_t o = ga_zeros(F64, 4, 5); sqdiff_out(o, {s.put(a)}, {s.put(b)});").status == "ok"
    same(s.value("o"), ((a - b) * (a - b)).astype(np.float64))
    # statements, fixed types
    run = s.run("%%elementwise clampit(float a, float lo) -> float c\n"
                "if (a < lo)\n    c = lo;\nelse\n    c = a;")
    assert run.status == "ok", run.describe()
    x = values("int32", (9,))
    same(s.value(f"clampit({s.put(x)}, 2)"), np.maximum(x.astype(np.float32), np.float32(2)))


def test_reduce_magic(kernel):
    s = Session(kernel, "udr")
    run = s.run("%%reduce sumsq(T x) -> T s\nmap: x * x\nreduce: a + b\nidentity: 0")
    assert run.status == "ok", run.describe()
    m = values("float64", (6, 8))
    src = s.put(m)
    same(s.value(f"sumsq({src})"), np.asarray((m * m).sum()), ulps=16)
    same(s.value(f"sumsq_axis({src}, 0, 0)"), (m * m).sum(axis=0), ulps=16)
    same(s.value(f"sumsq_axis({src}, 1, 1)"), (m * m).sum(axis=1, keepdims=True), ulps=16)
    same(s.value(f'ga_map("sumsq(a - b)", {src}, 1.5)'), np.asarray(((m - 1.5) ** 2).sum()), ulps=16)
    run = s.run("%%reduce l1mean(T x) -> T s\nmap: x < 0 ? -x : x\nreduce: a + b\n"
                "identity: 0\npost: a / n")
    assert run.status == "ok", run.describe()
    same(s.value(f"l1mean({src})"), np.asarray(np.abs(m).mean()), ulps=16)
    same(s.value(f"l1mean(ga_transpose({src}))"), np.asarray(np.abs(m).mean()), ulps=16)


def test_udf_errors(kernel):
    s = Session(kernel, "udferr")
    # a body that does not compile: a CudaCompileError on the cell's line
    run = s.run("%%elementwise bad(T a) -> T c\nc = a;\nc = a +* ;")
    assert run.status == "error" and run.reply["content"]["ename"] == "CudaCompileError"
    assert "line 3" in run.reply["content"]["evalue"]
    ename, evalue = s.error("%%elementwise sqrt(T a) -> T c\nc = a;")
    assert ename == "UsageError" and "built-in" in evalue
    ename, evalue = s.error("%%elementwise f(T a) -> U c\nc = a;")
    assert ename == "UsageError" and "type variable" in evalue
    ename, evalue = s.error("%%reduce r(T x) -> T s\nmap: x\nreduce: a + b")
    assert ename == "UsageError" and "identity" in evalue
    assert s.run("%%elementwise twice(T a) -> T c\nc = 2 * a;").status == "ok"
    ename, evalue = s.error("twice(ga_ones(F32, 3), ga_ones(F32, 3));")
    assert ename == "ExpressionError" and "given 2" in evalue
    assert s.run("%%elementwise plus(T a, T b) -> T c\nc = a + b;").status == "ok"
    ename, evalue = s.error("plus(ga_ones(F32, 3), ga_ones(F32, 4));")
    assert ename == "ShapeError" and evalue.startswith("plus:")


# ---- scans ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool", "int8", "float16"])
def test_scans(kernel, dtype):
    s = Session(kernel, "scan")
    a = values(dtype, (5, 6, 7), -3, 3) if dtype != "uint8" else values(dtype, (5, 6, 7), 0, 3)
    src = s.put(a)
    ulps = 64 if dtype == "float16" else 16
    for fn, ref in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
        for axis in (0, 1, 2, -1):
            with np.errstate(all="ignore"):
                want = ref(a, axis=axis)
            same(s.value(f"ga_{fn}({src}, {axis})"), want, ulps)
        with np.errstate(all="ignore"):
            same(s.value(f"ga_{fn}({src}, GA_ALL)"), ref(a), ulps)
            same(s.value(f"ga_{fn}(ga_transpose({src}), 1)"), ref(a.T, axis=1), ulps)


def test_scan_edges(kernel):
    s = Session(kernel, "scanedge")
    e = np.zeros((0, 3), np.float32)
    same(s.value(f"ga_cumsum({s.put(e)}, 0)"), np.cumsum(e, axis=0))
    long = values("float64", (100_000,))
    same(s.value(f"ga_cumsum({s.put(long)}, GA_ALL)"), np.cumsum(long), ulps=4096)
    ename, evalue = s.error(f"ga_cumsum({s.put(long)}, 1);")
    assert ename == "ShapeError" and "axis 1" in evalue


# ---- %%speedup --devices ------------------------------------------------------

def displays(run):
    return [m["content"]["data"].get("text/plain", "") for m in run.iopub
            if m["msg_type"] in ("display_data", "update_display_data")]


def test_speedup_devices(kernel):
    """The same array cell on the CPU backend and the GPU over sizes: here
    (no GPU) the CPU column is filled and says why the other is not."""
    s = Session(kernel, "speedup")
    run = s.run('%%speedup --devices --check r --sizes 1e3,1e4 -r 2\n//%% setup\n'
                'ga_t x = ga_linspace(F32, 0, 1, N), r = ga_empty_like(x);\n//%% run\n'
                'ga_map_out(r, "x * x + 1", x);')
    assert run.status == "ok", run.describe()
    shown = displays(run)
    assert any("size 1/2: N = 1000" in d for d in shown)          # progress while it runs
    table = shown[-1]
    assert re.search(r"^1000 +[\d.]+ [nμm]?s ", table, re.M) and re.search(r"^1e4 +[\d.]+ ", table, re.M)
    if DEVICE == "GA_CPU":
        assert "No GPU here" in table
    else:
        assert "r on the CPU backend = on the GPU" in table
    assert s.run("ga_default_device()").status == "ok"
    ename, evalue = s.error("%%speedup --devices --check nothing\n//%% run\nint z = 1;")
    assert ename == "UsageError" and "nothing" in evalue
    ename, evalue = s.error("%%speedup --devices\n//%% cpu\nint a;\n//%% gpu\nint b;")
    assert ename == "UsageError" and "//%% run" in evalue
    ename, evalue = s.error("%%speedup --check r\n//%% cpu\nint a;\n//%% gpu\nint b;")
    assert ename == "UsageError" and "--devices" in evalue
