"""Joining and splitting, indexing by data, sorting and searching, reductions
over several axes, ddof and integer fmod — through the real kernel, with
NumPy computing the expected answer from the same `.npy` inputs: dtypes,
views (transposes, steps, negative steps) as operands, empty arrays, and
the errors a user sees (the session lives on).

Runs on the CPU backend by default; GPUC_ARRAY_DEVICE=0 runs the same
cases on GPU 0 (tests/gpu/run.sh on the GPU machine)."""
import os

import pytest

np = pytest.importorskip("numpy")

from gpuc_testing.kernel import execute, scaled, start_kernel, stop_kernel

DEVICE = os.environ.get("GPUC_ARRAY_DEVICE", "GA_CPU")
RNG = np.random.default_rng(20261127)


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    km, kc = start_kernel()
    run = execute(kc, f"ga_use_device({DEVICE});")
    assert run.status == "ok", run.describe()
    yield Session(kc, tmp_path_factory.mktemp("rearrange"))
    stop_kernel(km, kc)


class Session:
    """Inputs saved as .npy and loaded into cell variables; results saved and read back."""

    def __init__(self, kc, folder):
        self.kc, self.dir, self.n = kc, folder, 0

    def load(self, **arrays):
        lines = []
        for name, arr in arrays.items():
            self.n += 1
            path = self.dir / f"in_{self.n}.npy"
            np.save(path, arr)
            lines.append(f'ga_t {name} = ga_load("{path}");')
        return "\n".join(lines) + "\n"

    def run(self, code):
        return execute(self.kc, code, timeout=scaled(180))

    def values(self, code, *exprs, **arrays):
        """Runs code after loading arrays, then saves each expression; returns them."""
        outs = []
        saves = []
        for k, e in enumerate(exprs):
            self.n += 1
            out = self.dir / f"out_{self.n}.npy"
            outs.append(out)
            saves.append(f'ga_save({e}, "{out}");')
        run = self.run(self.load(**arrays) + code + "\n" + "\n".join(saves))
        assert run.status == "ok", run.describe()
        return [np.load(o) for o in outs]

    def value(self, expr, **arrays):
        return self.values("", expr, **arrays)[0]

    def error(self, code, **arrays):
        run = self.run(self.load(**arrays) + code)
        assert run.status == "error", f"{code} should fail"
        return run.reply["content"]["ename"], run.reply["content"]["evalue"]


def values(dtype, shape, low=-50, high=50):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return RNG.random(shape) < 0.5
    if dt.kind in "iu":
        lo = max(low, np.iinfo(dt).min) if dt.kind == "i" else 0
        return RNG.integers(lo, min(high, np.iinfo(dt).max), size=shape, endpoint=True).astype(dt)
    return (RNG.random(shape) * (high - low) + low).astype(dt)


def same(got, want, rtol=None):
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"dtype {got.dtype}, NumPy {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape}, NumPy {want.shape}"
    if want.dtype.kind in "biu" or rtol == 0:
        np.testing.assert_array_equal(got, want)
    else:
        eps = np.finfo(want.dtype).eps if rtol is None else rtol
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=8 * eps, atol=8 * eps, equal_nan=True)


# ---- joining and splitting ---------------------------------------------------

def test_concatenate_stack_promote_and_views(s):
    a, b, c = values("int32", (3, 4)), values("float32", (2, 4)), values("uint8", (4, 3))
    got = s.values("", "ga_concatenate(0, a, b)", "ga_concatenate(1, a, ga_transpose(c))",
                   "ga_concatenate(-2, a, ga_slice(a, 0, GA_END, GA_END, -1), b)",
                   "ga_stack(0, a, ga_slice(a, 0, GA_END, GA_END, -1))", "ga_stack(2, a, a)",
                   "ga_concatenate(0, ga_zeros(F64, 0, 4), b)", a=a, b=b, c=c)
    same(got[0], np.concatenate((a, b), 0))
    same(got[1], np.concatenate((a, c.T), 1))
    same(got[2], np.concatenate((a, a[::-1], b), -2))
    same(got[3], np.stack((a, a[::-1]), 0))
    same(got[4], np.stack((a, a), 2))
    same(got[5], np.concatenate((np.zeros((0, 4)), b), 0))


def test_split_gives_views(s):
    x = values("float64", (6, 5))
    got = s.values("ga_t p[3]; int n3 = ga_split(x, 3, 0, p);\n"
                   "ga_t q[4]; int n4 = ga_split_at(x, 1, q, 1, 3, 9);\n"
                   "ga_set(p[1], -7.5, 0, 0);",
                   "p[0]", "p[1]", "p[2]", "q[0]", "q[1]", "q[2]", "q[3]", "x", x=x)
    want = x.copy()
    want[2, 0] = -7.5  # p[1] is a view of x
    for g, w in zip(got[:3], np.split(want, 3, 0)):
        same(g, w)
    for g, w in zip(got[3:7], np.split(want, [1, 3, 9], 1)):
        same(g, w)
    same(got[7], want)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_modes(s, mode):
    x = values("int16", (4, 5))
    kw = {"constant_values": 7} if mode == "constant" else {}
    got = s.values("", f'ga_pad(x, "{mode}", 7, 2)', f'ga_pad(x, "{mode}", 7, 1, 3)',
                   f'ga_pad(ga_transpose(x), "{mode}", 7, 0, 2, 3, 1)', x=x)
    same(got[0], np.pad(x, 2, mode, **kw))
    same(got[1], np.pad(x, (1, 3), mode, **kw))
    same(got[2], np.pad(x.T, ((0, 2), (3, 1)), mode, **kw))


def test_repeat_tile_flip_roll(s):
    x = values("float32", (3, 4))
    got = s.values("", "ga_repeat(x, 3, 1)", "ga_repeat(ga_transpose(x), 2, 0)",
                   "ga_repeat(x, 2, GA_ALL)", "ga_repeat(x, 0, 0)", "ga_tile(x, 2)",
                   "ga_tile(x, 2, 1, 3)", "ga_flip(x, 0)", "ga_flip(x, GA_ALL)",
                   "ga_roll(x, 2, 1)", "ga_roll(x, -5, GA_ALL)", "ga_roll(ga_transpose(x), 7, 0)",
                   x=x)
    want = [np.repeat(x, 3, 1), np.repeat(x.T, 2, 0), np.repeat(x, 2), np.repeat(x, 0, 0),
            np.tile(x, 2), np.tile(x, (2, 1, 3)), np.flip(x, 0), np.flip(x),
            np.roll(x, 2, 1), np.roll(x, -5), np.roll(x.T, 7, 0)]
    for g, w in zip(got, want):
        same(g, w, rtol=0)


def test_roll_flat_kernel(s):
    """Rolls that run as one flat roll (1-d, the flattened array, the first
    axis of a contiguous array): every element size, lengths that are and
    are not multiples of the 8 a GPU thread moves, shifts of 0, n and past
    n either way."""
    v = values("float32", (1003,))
    b = values("int8", (17,))
    h = values("float16", (5, 9))
    d = values("float64", (7, 3, 2))
    c = (values("float64", (13,)) + 1j * values("float64", (13,))).astype(np.complex128)
    got = s.values("", "ga_roll(v, 517, 0)", "ga_roll(v, -1, 0)", "ga_roll(v, 1003, 0)",
                   "ga_roll(v, 2 * 1003 + 5, 0)", "ga_roll(b, 3, 0)", "ga_roll(h, 2, 0)",
                   "ga_roll(h, -7, GA_ALL)", "ga_roll(d, 4, 0)", "ga_roll(c, 5, 0)",
                   v=v, b=b, h=h, d=d, c=c)
    want = [np.roll(v, 517), np.roll(v, -1), np.roll(v, 1003), np.roll(v, 2 * 1003 + 5),
            np.roll(b, 3), np.roll(h, 2, 0), np.roll(h, -7), np.roll(d, 4, 0), np.roll(c, 5, 0)]
    for g, w in zip(got, want):
        same(g, w, rtol=0)


@pytest.mark.parametrize("dtype", ["float32", "int8", "float16", "float64", "complex128"])
def test_roll_long(s, dtype):
    """Long flat rolls (a GPU block's chunks of 2048 go as aligned 16-byte
    vectors when their inputs do not wrap): shifts at every offset within a
    vector, the wrap inside a chunk and on its edge, and unaligned views
    (a slice from 1, a step)."""
    v = values(dtype, (20011,))
    shifts = [1, 2, 3, 5, 2048, 4096, 18432, 20010, -7]  # 18432: inputs that end at v's end
    views = dtype != "complex128"  # a complex view that needs a copy is not supported yet
    got = s.values("", *[f"ga_roll(v, {k}, 0)" for k in shifts],
                   *(["ga_roll(ga_slice(v, 0, 1, GA_END, 1), 9, 0)",
                      "ga_roll(ga_slice(v, 0, 0, GA_END, 2), 3, 0)"] if views else []),
                   v=v)
    want = [np.roll(v, k) for k in shifts] + ([np.roll(v[1:], 9), np.roll(v[::2], 3)] if views else [])
    for g, w in zip(got, want):
        same(g, w, rtol=0)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_joining_complex(s, dtype):
    """Complex arrays (an FFT's results) join, pad, repeat, tile and roll,
    views too: their elements move as bits, unchanged; mixing a complex
    array with a real one is a DTypeError (no conversion to complex)."""
    c = (RNG.random((3, 4)) + 1j * RNG.random((3, 4))).astype(dtype)
    c[0, 1] = complex(np.nan, -0.0)
    got = s.values("", "ga_concatenate(0, ga_transpose(c), ga_transpose(c))", "ga_stack(1, c, c)",
                   "ga_tile(ga_transpose(c), 2, 1)", 'ga_pad(c, "constant", 2, 1)',
                   'ga_pad(ga_transpose(c), "reflect", 0, 1)', 'ga_pad(c, "edge", 0, 2, 1, 0, 3)',
                   "ga_repeat(c, 2, 0)", "ga_roll(ga_transpose(c), 1, 0)", "ga_roll(c, -3, 1)",
                   "ga_copy(ga_flip(c, 1))", c=c)
    want = [np.concatenate([c.T, c.T], 0), np.stack([c, c], 1), np.tile(c.T, (2, 1)),
            np.pad(c, 1, constant_values=2), np.pad(c.T, 1, "reflect"),
            np.pad(c, ((2, 1), (0, 3)), "edge"), np.repeat(c, 2, 0), np.roll(c.T, 1, 0),
            np.roll(c, -3, 1), np.flip(c, 1)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g.view(np.uint8), np.ascontiguousarray(w).view(np.uint8))  # bit for bit
    kind, text = s.error("ga_concatenate(0, c, ga_zeros(F32, 3, 4));", c=c)
    assert kind == "DTypeError" and "complex" in text


def test_joining_errors(s):
    kind, text = s.error("ga_concatenate(0, ga_zeros(F32, 2, 3), ga_zeros(F32, 2, 4));")
    assert kind == "ShapeError" and "ga_concatenate" in text and "(2, 4)" in text
    kind, text = s.error("ga_stack(0, ga_zeros(F32, 2), ga_zeros(F32, 3));")
    assert kind == "ShapeError" and "one shape" in text
    kind, text = s.error("ga_t p[2]; ga_split(ga_zeros(F32, 5), 2, 0, p);")
    assert kind == "ValueError" and "equally" in text
    kind, text = s.error('ga_pad(ga_zeros(F32, 3), "reflect", 0, 3);')
    assert kind == "ValueError" and "reflect" in text
    kind, text = s.error('ga_pad(ga_zeros(F32, 3), "mirror", 0, 1);')
    assert kind == "ValueError" and "constant, edge" in text
    kind, text = s.error("ga_roll(ga_zeros(F32, 3), 1, 1);")
    assert kind == "ShapeError" and "axis 1" in text
    assert s.run("ga_zeros(F32, 2)").status == "ok"  # the session lives on


# ---- indexing by data ----------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "int8", "uint16", "bool", "float16", "int64"])
def test_take_put_nonzero(s, dtype):
    x = values(dtype, (5, 6))
    i = np.array([4, 0, -1, 2, 2], np.int64)
    j = np.array([[1, -6], [5, 3]], np.int32)
    got = s.values("ga_t nz[2]; int nd = ga_nonzero(x, nz);\nga_t w[2]; ga_where(x, w);",
                   "ga_take(x, i, 0)", "ga_take(x, j, 1)", "ga_take(ga_transpose(x), i, 1)",
                   "ga_take(x, j, GA_ALL)", "nz[0]", "nz[1]", "w[1]", "ga_argwhere(x)",
                   "ga_flatnonzero(ga_transpose(x))", x=x, i=i, j=j)
    same(got[0], np.take(x, i, 0))
    same(got[1], np.take(x, j, 1))
    same(got[2], np.take(x.T, i, 1))
    same(got[3], np.take(x, j))
    same(got[4], np.nonzero(x)[0])
    same(got[5], np.nonzero(x)[1])
    same(got[6], np.where(x)[1])
    same(got[7], np.argwhere(x))
    same(got[8], np.flatnonzero(x.T))


def test_put_mask_compress(s):
    x = values("float32", (4, 5))
    m = values("bool", (4, 5))
    r = values("bool", (4,))
    idx = np.array([3, -1, 7], np.int64)
    n = int(m.sum())
    vals = values("float64", (n,))
    got = s.values("double pv[] = {1.5, 2.5};\n"
                   "ga_t y = ga_copy(x); ga_put(y, idx, ga_from_host(F64, pv, 2));\n"
                   "ga_t z = ga_copy(x); ga_mask_assign(z, m, -1);\n"
                   "ga_t t = ga_copy(ga_transpose(x)); ga_mask_assign(ga_transpose(t), m, vals);\n"
                   "ga_t u = ga_copy(x); ga_mask_assign(u, r, 0.25);",
                   "y", "z", "t", "u", "ga_mask_select(x, m)", "ga_mask_select(ga_transpose(x), ga_transpose(m))",
                   "ga_mask_select(x, r)", "ga_compress(r, x, 0)", "ga_compress(ga_slice(r, 0, 0, 3, 1), x, 1)",
                   "ga_compress(r, x, GA_ALL)",
                   x=x, m=m, r=r, idx=idx, vals=vals)
    y = x.copy(); np.put(y, idx, [1.5, 2.5])
    z = x.copy(); z[m] = -1
    t = x.copy(); t[m] = vals
    u = x.copy(); u[r] = 0.25
    for g, w in zip(got, [y, z, t.T, u, x[m], x.T[m.T], x[r], np.compress(r, x, 0),
                         np.compress(r[:3], x, 1), np.compress(r, x)]):
        same(g, w)


def test_mask_assign_number_dtypes_and_views(s):
    """a[mask] = number in one pass: the number converted to a's dtype as
    NumPy does (a float into integers truncates), into views of any
    strides, with masks of a's leading axes and masks that are views."""
    i = values("int32", (6, 7))
    h = values("float16", (6, 7))
    b = values("bool", (6, 7))
    d = values("float64", (3, 4, 5))
    m = values("bool", (6, 7))
    r = values("bool", (3, 4))
    f = np.where(values("bool", (3, 4)), np.float32(np.nan), np.float32(0))  # a mask of another dtype
    f[0, 0] = 0.5
    got = s.values("ga_t i1 = ga_copy(i); ga_mask_assign(i1, m, 2.75);\n"
                   "ga_t i2 = ga_copy(i); ga_mask_assign(i2, m, -3.5);\n"
                   "ga_t h1 = ga_copy(h); ga_mask_assign(h1, m, 0.1);\n"
                   "ga_t b1 = ga_copy(b); ga_mask_assign(b1, m, 0);\n"
                   "ga_t d1 = ga_copy(d); ga_mask_assign(d1, r, 7);\n"
                   "ga_t it = ga_copy(ga_transpose(i)); ga_mask_assign(ga_transpose(it), m, 9);\n"
                   "ga_t i3 = ga_copy(i); ga_mask_assign(ga_slice(i3, 1, 0, GA_END, 2), ga_slice(m, 1, 0, GA_END, 2), -1);\n"
                   "ga_t i4 = ga_copy(i); ga_mask_assign(i4, ga_copy(ga_transpose(ga_transpose(m))), 5);\n"
                   "ga_t i5 = ga_copy(i); ga_mask_assign(i5, ga_sub(i, 3), 1);\n"
                   "ga_t d2 = ga_copy(d); ga_mask_assign(d2, f, -2);",
                   "i1", "i2", "h1", "b1", "d1", "it", "i3", "i4", "i5", "d2",
                   i=i, h=h, b=b, d=d, m=m, r=r, f=f)
    i1 = i.copy(); i1[m] = 2.75
    i2 = i.copy(); i2[m] = -3.5
    h1 = h.copy(); h1[m] = 0.1
    b1 = b.copy(); b1[m] = 0
    d1 = d.copy(); d1[r] = 7
    it = i.copy(); it[m] = 9
    i3 = i.copy(); i3[:, ::2][m[:, ::2]] = -1
    i4 = i.copy(); i4[m] = 5
    i5 = i.copy(); i5[(i - 3) != 0] = 1
    d2 = d.copy(); d2[f != 0] = -2
    for g, w in zip(got, [i1, i2, h1, b1, d1, it.T, i3, i4, i5, d2]):
        same(g, w)


@pytest.mark.parametrize("n", [1, 2047, 2048, 2049, 8191, 8192, 8193, 20001])
def test_compaction_across_tiles(s, n):
    """nonzero, argwhere, mask select and compress where the count is made
    tile by tile (8192 mask elements a tile on a GPU, ranked 2048 at once):
    sizes at those edges, runs and scattered elements, masks that are views
    (a step, a transpose), masks of another dtype, rows of several elements."""
    m = (RNG.random(n) < 0.3) | ((np.arange(n) // 1500) % 3 == 1)
    m2 = np.stack([m, ~m, m[::-1]])  # (3, n)
    x = values("float32", (n,))
    x2 = values("int16", (n, 3))
    f = np.where(m, values("float64", (n,)), 0.0)
    got = s.values("", "ga_flatnonzero(m)", "ga_mask_select(x, m)", "ga_argwhere(m2)",
                   "ga_argwhere(ga_slice(m2, 1, 0, GA_END, 3))", "ga_argwhere(ga_transpose(m2))",
                   "ga_flatnonzero(f)", "ga_mask_select(x2, m)",
                   "ga_mask_select(ga_transpose(x2), ga_transpose(ga_stack(1, m, m, ga_logical_not(m))))",
                   "ga_compress(m, x2, 0)", "ga_compress(ga_slice(m, 0, 0, 2, 1), x2, 1)",
                   m=m, m2=m2, x=x, x2=x2, f=f)
    mt = np.stack([m, m, ~m], 1)
    want = [np.flatnonzero(m), x[m], np.argwhere(m2), np.argwhere(m2[:, ::3]), np.argwhere(m2.T),
            np.flatnonzero(f), x2[m], x2.T[mt.T], np.compress(m, x2, 0), np.compress(m[:2], x2, 1)]
    for g, w in zip(got, want):
        same(g, w)


@pytest.mark.parametrize("j", [1, 1023, 1024, 1025, 5001])
def test_take_put_turns(s, j):
    """take and put of j indices (a GPU thread moves 4 a turn of 1024 a
    block): negative ones, repeats, indices that are a view (a step), an
    index out of range at the very end named and nothing put."""
    x = values("float32", (3000,))
    i = RNG.integers(-3000, 3000, size=2 * j).astype(np.int64)
    got = s.values("ga_t y = ga_copy(x); ga_put(y, ga_slice(i, 0, 0, GA_END, 2), -7.5);\n"
                   "ga_t z = ga_copy(x); ga_put(z, i, ga_arange(F32, 0, 3, 1));",
                   "ga_take(x, i, 0)", "ga_take(x, ga_slice(i, 0, 1, GA_END, 2), 0)", "y", "z",
                   x=x, i=i)
    y = x.copy(); np.put(y, i[::2], -7.5)
    same(got[0], np.take(x, i))
    same(got[1], np.take(x, i[1::2]))
    same(got[2], y)
    # repeated indices: the value put is one of those written there
    z = got[3]
    put = {}
    for k, v in zip(i, np.resize(np.arange(3, dtype=np.float32), i.size)):
        put.setdefault(int(k) % 3000, set()).add(float(v))
    for k in range(3000):
        assert (float(z[k]) in put[k]) if k in put else z[k] == x[k]
    bad = i.copy(); bad[-1] = 3000
    kind, text = s.error("ga_take(x, bad, 0);", x=x, bad=bad)
    assert kind == "ShapeError" and "index 3000 is out of bounds for an axis of size 3000" in text
    kind, text = s.error("ga_t kept2 = ga_copy(x); ga_put(kept2, bad, 1);", x=x, bad=bad)
    assert kind == "ShapeError" and "index 3000" in text
    same(s.value("kept2"), x)


@pytest.mark.parametrize("mode", ["wrap", "clip"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "float16"])
def test_take_put_modes(s, mode, dtype):
    """NumPy's take and put modes: indices past either end wrap or clip (a
    negative one clips to 0), along an axis, flattened, of a view, in
    place of a view; nothing is checked and no error is raised."""
    x = values(dtype, (5, 6))
    i = np.array([-13, -6, -1, 0, 5, 6, 11, 40, -41], np.int64)
    j = np.array([[7, -8], [2, 100]], np.int32)
    v = values(dtype, (4,))
    got = s.values(f'ga_t y = ga_copy(x); ga_put_mode(y, i, v, "{mode}");\n'
                   f'ga_t z = ga_copy(x); ga_put_mode(ga_transpose(z), j, 3, "{mode}");',
                   f'ga_take_mode(x, i, 0, "{mode}")', f'ga_take_mode(x, j, 1, "{mode}")',
                   f'ga_take_mode(ga_transpose(x), i, 1, "{mode}")',
                   f'ga_take_mode(x, i, GA_ALL, "{mode}")', "y", "z", x=x, i=i, j=j, v=v)
    same(got[0], np.take(x, i, 0, mode=mode))
    same(got[1], np.take(x, j, 1, mode=mode))
    same(got[2], np.take(x.T, i, 1, mode=mode))
    same(got[3], np.take(x, i, mode=mode))
    y = x.copy()
    np.put(y, i, v, mode=mode)
    same(got[4], y)
    zt = x.copy().T.copy()
    np.put(zt, j, np.array(3).astype(x.dtype), mode=mode)
    same(got[5], zt.T)


def test_take_put_mode_errors(s):
    """raise is the checked mode; an unknown mode and a non-empty take from
    an empty axis are errors; the session lives on."""
    kind, text = s.error('ga_take_mode(ga_zeros(F32, 5), ga_arange(I64, 3, 7, 1), 0, "raise");')
    assert kind == "ShapeError" and "index 6 is out of bounds" in text
    kind, text = s.error('ga_take_mode(ga_zeros(F32, 5), ga_zeros(I64, 2), 0, "nearest");')
    assert kind == "ValueError" and '"raise", "wrap", "clip"' in text
    kind, text = s.error('ga_take_mode(ga_zeros(F32, 0), ga_zeros(I64, 2), 0, "wrap");')
    assert kind == "ShapeError" and "empty axis" in text
    kind, text = s.error('ga_put_mode(ga_zeros(F32, 0), ga_zeros(I64, 2), 1, "clip");')
    assert kind == "ShapeError" and "empty array" in text
    same(s.value('ga_take_mode(ga_zeros(F32, 0), ga_zeros(I64, 0), 0, "wrap")'), np.zeros(0, np.float32))


def test_indexing_empty_and_errors(s):
    e = np.zeros((0, 3), np.float32)
    got = s.values("", "ga_argwhere(e)", "ga_flatnonzero(ga_zeros(I32, 4))",
                   "ga_take(ga_arange(F32, 0, 5, 1), ga_zeros(I64, 0), 0)",
                   "ga_mask_select(ga_arange(I32, 0, 4, 1), ga_zeros(BOOL, 4))", e=e)
    same(got[0], np.argwhere(e))
    same(got[1], np.flatnonzero(np.zeros(4, np.int32)))
    same(got[2], np.zeros(0, np.float32))
    same(got[3], np.zeros(0, np.int32))
    kind, text = s.error("ga_take(ga_zeros(F32, 5), ga_arange(I64, 3, 7, 1), 0);")
    assert kind == "ShapeError" and "index 6 is out of bounds for an axis of size 5" in text
    kind, text = s.error("ga_t kept = ga_arange(F32, 0, 5, 1);\n"
                         "ga_put(kept, ga_arange(I32, -6, 0, 2), 9);")
    assert kind == "ShapeError" and "index -6 is out of bounds for an axis of size 5" in text
    same(s.value("kept"), np.arange(5, dtype=np.float32))  # nothing was written
    kind, text = s.error("ga_take(ga_zeros(F32, 5), ga_zeros(F32, 2), 0);")
    assert kind == "DTypeError" and "integers" in text
    kind, text = s.error("ga_mask_select(ga_zeros(F32, 5), ga_zeros(BOOL, 4));")
    assert kind == "ShapeError" and "mask of shape (4,)" in text
    kind, text = s.error("ga_compress(ga_ones(BOOL, 6), ga_zeros(F32, 5), 0);")
    assert kind == "ShapeError" and "index 5 is out of bounds for an axis of size 5" in text
    same(s.value("ga_compress(ga_zeros(BOOL, 0), ga_zeros(F32, 2, 3), 1)"), np.zeros((2, 0), np.float32))
    same(s.value("ga_mask_select(ga_zeros(F32, 0, 3), ga_zeros(BOOL, 0))"), np.zeros((0, 3), np.float32))


# ---- sorting and searching ---------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "int64", "float16",
                                   "bool", "int16"])
def test_sort_argsort(s, dtype):
    x = values(dtype, (7, 300), -20, 20)  # many ties
    if x.dtype.kind == "f":
        x[1, ::7] = np.nan
        x[2, 3] = -0.0
    got = s.values("", "ga_sort(x, -1)", "ga_sort(x, 0)", "ga_argsort(x, 1)", "ga_argsort(x, 0)",
                   "ga_sort(ga_transpose(x), 0)", "ga_sort(x, GA_ALL)", "ga_argsort(x, GA_ALL)",
                   "ga_sort(ga_slice(x, 1, GA_END, GA_END, -3), 1)", x=x)
    same(got[0], np.sort(x, -1), rtol=0)
    same(got[1], np.sort(x, 0), rtol=0)
    same(got[2], np.argsort(x, 1, kind="stable"))
    same(got[3], np.argsort(x, 0, kind="stable"))
    same(got[4], np.sort(x.T, 0), rtol=0)
    same(got[5], np.sort(x, None), rtol=0)
    same(got[6], np.argsort(x, None, kind="stable"))
    same(got[7], np.sort(x[:, ::-3], 1), rtol=0)


def test_sort_long_line_and_partition(s):
    x = values("float64", (100003,), -1e6, 1e6)
    got = s.values("", "ga_sort(x, 0)", "ga_argsort(x, 0)", "ga_partition(x, 500, 0)",
                   "ga_argpartition(x, -3, 0)", x=x)
    same(got[0], np.sort(x), rtol=0)
    same(got[1], np.argsort(x, kind="stable"))
    p = got[2]
    assert p[500] == np.sort(x)[500] and (p[:500] <= p[500]).all() and (p[501:] >= p[500]).all()
    ap = got[3]
    assert x[ap[-3]] == np.sort(x)[-3] and sorted(ap.tolist()) == list(range(x.size))


def test_sort_one_line_of_a_matrix(s):
    # one column along axis 0, one row along axis 1: the line is the whole
    # array (a GPU's one-line sort); the column's answer is copied back from
    # a transposed view whose last axis has length 1
    x = values("float32", (4097, 1), -1e3, 1e3)
    x[::100, 0] = np.nan
    got = s.values("", "ga_sort(x, 0)", "ga_argsort(x, 0)", "ga_sort(ga_transpose(x), 1)", x=x)
    same(got[0], np.sort(x, 0), rtol=0)
    same(got[1], np.argsort(x, 0, kind="stable"))
    same(got[2], np.sort(x.T, 1), rtol=0)


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8", "float64"])
def test_unique_searchsorted_histogram(s, dtype):
    x = values(dtype, (40, 30), 0, 25)
    if x.dtype.kind == "f":
        x[3, :4] = np.nan
    a = np.sort(values(dtype, (50,), 0, 30))
    v = values(dtype, (6, 7), -2, 32)
    got = s.values("ga_t cnt; ga_t u = ga_unique_counts(x, &cnt);\n"
                   "ga_t edges; ga_t h = ga_histogram(x, 10, 0, 0, &edges);",
                   "ga_unique(ga_transpose(x))", "u", "cnt", 'ga_searchsorted(a, v, "left")',
                   'ga_searchsorted(a, ga_transpose(v), "right")', "h", "edges",
                   "ga_histogram(x, 7, 2.5, 20, 0)", x=x, a=a, v=v)
    uu, cc = np.unique(x, return_counts=True)
    same(got[0], np.unique(x.T), rtol=0)
    same(got[1], uu, rtol=0)
    same(got[2], cc)
    same(got[3], np.searchsorted(a, v, "left"))
    same(got[4], np.searchsorted(a, v.T, "right"))
    hx = x[~np.isnan(x)] if x.dtype.kind == "f" else x
    hh, he = np.histogram(hx, 10)
    same(got[5], hh)
    same(got[6], he)
    same(got[7], np.histogram(hx, 7, (2.5, 20))[0])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 8, 9, 1000])
def test_searchsorted_lengths_ties_nan(s, n):
    """Sorted arrays of every small length (the search's steps: powers of
    two and around them), runs of equal values and NaNs at the end, and
    queries below, above, between and on the values, infinities and NaN,
    on both sides."""
    a = np.sort(np.concatenate([RNG.integers(0, 5, n - n // 4), np.full(n // 4, np.nan)])).astype(np.float32)
    q = np.array([-np.inf, -1, 0, 0.5, 1, 2, 3, 4, 4.5, 9, np.inf, np.nan], np.float32)
    got = s.values("", 'ga_searchsorted(a, q, "left")', 'ga_searchsorted(a, q, "right")', a=a, q=q)
    same(got[0], np.searchsorted(a, q, "left"))
    same(got[1], np.searchsorted(a, q, "right"))


def test_sorting_errors(s):
    kind, text = s.error("ga_sort(ga_zeros(F32, 3), 1);")
    assert kind == "ShapeError" and "axis 1" in text
    kind, text = s.error("ga_sort(ga_zeros(C64, 3), 0);")
    assert kind == "DTypeError" and "complex64" in text
    kind, text = s.error('ga_searchsorted(ga_zeros(F32, 2, 2), ga_zeros(F32, 3), "left");')
    assert kind == "ShapeError" and "1-d" in text
    kind, text = s.error('ga_searchsorted(ga_zeros(F32, 2), ga_zeros(F32, 3), "middle");')
    assert kind == "ValueError" and "left" in text
    kind, text = s.error("ga_partition(ga_zeros(F32, 4), 4, 0);")
    assert kind == "ShapeError" and "kth 4" in text
    kind, text = s.error("ga_histogram(ga_zeros(F32, 4), 0, 0, 0, 0);")
    assert kind == "ValueError" and "bins" in text


# ---- reductions over several axes, ddof ---------------------------------------------

@pytest.mark.parametrize("op", ["sum", "mean", "max", "var", "std", "prod", "any", "count_nonzero"])
def test_reduce_axes(s, op):
    x = values("float64", (3, 4, 5, 2), -2, 2)
    t = x.transpose(2, 0, 3, 1)
    f = {"count_nonzero": np.count_nonzero}.get(op, getattr(np, op))
    got = s.values("", f"ga_{op}_axes(x, 0, 0, 2)", f"ga_{op}_axes(x, 1, -1, 1)",
                   f"ga_{op}_axes(ga_permute(x, 2, 0, 3, 1), 0, 1, 2, 3)",
                   f"ga_{op}_axes(x, 0, GA_ALL)", x=x)
    kw = lambda keep: {"keepdims": keep} if op != "count_nonzero" else {"keepdims": keep}
    same(got[0], f(x, axis=(0, 2), **kw(False)))
    same(got[1], f(x, axis=(-1, 1), **kw(True)))
    same(got[2], f(t, axis=(1, 2, 3), **kw(False)))
    same(got[3], np.asarray(f(x, axis=None)))


def test_ddof(s):
    x = values("float32", (6, 5, 4))
    i = values("int32", (6, 5))
    got = s.values("", "ga_var_ddof(x, 1, 1, 0)", "ga_std_ddof(x, -1, 2, 1)",
                   "ga_var_ddof(x, GA_ALL, 1, 0)", "ga_std_axes_ddof(x, 1.5, 0, 0, 2)",
                   "ga_var_ddof(i, 0, 1, 0)", "ga_var_ddof(ga_zeros(F64, 1, 3), 0, 1, 0)", x=x, i=i)
    same(got[0], np.var(x, 1, ddof=1), rtol=1e-6)
    same(got[1], np.std(x, -1, ddof=2, keepdims=True), rtol=1e-6)
    same(got[2], np.asarray(np.var(x, ddof=1)), rtol=1e-6)
    same(got[3], np.std(x, (0, 2), ddof=1.5), rtol=1e-6)
    same(got[4], np.var(i, 0, ddof=1))
    with np.errstate(all="ignore"):
        same(got[5], np.var(np.zeros((1, 3)), 0, ddof=1))
    kind, text = s.error("ga_sum_axes(ga_zeros(F32, 2, 3), 0, 1, -1);")
    assert kind == "ShapeError" and "twice" in text
    kind, text = s.error("ga_argmax_axes(ga_zeros(F32, 2, 3), 0, 0, 1);")
    assert kind == "ValueError" and "one axis" in text


# ---- integer fmod ---------------------------------------------------------------------

@pytest.mark.parametrize("da,db", [("int32", "int32"), ("int8", "int8"), ("uint16", "uint16"),
                                   ("int64", "int32"), ("bool", "bool"), ("int32", "float32"),
                                   ("float16", "float16")])
def test_fmod_keeps_integers(s, da, db):
    a, b = values(da, (50,), -30, 30), values(db, (50,), -6, 6)
    if np.dtype(da).kind == "i":
        a[:2] = np.iinfo(da).min
        b[:2] = -1 if np.dtype(db).kind == "i" else b[:2]
    b[5] = 0
    with np.errstate(all="ignore"):
        want = np.fmod(a, b)
    if want.dtype.kind in "iu":  # NumPy gives 0 for a zero divisor (with a warning)
        want = np.where(b == 0, 0, want).astype(want.dtype)
    same(s.value("ga_fmod(a, b)", a=a, b=b), want)


def test_empty_arrays(s):
    e = np.zeros(0, np.float32)
    m = np.zeros((3, 0), np.int16)
    got = s.values("ga_t edges, cnt, h = ga_histogram(e, 3, 0, 0, &edges);\n"
                   "ga_t u = ga_unique_counts(e, &cnt);",
                   "ga_sort(e, 0)", "ga_argsort(m, 1)", "u", "cnt", "h", "edges",
                   'ga_searchsorted(e, ga_ones(F32, 2), "left")', 'ga_pad(e, "constant", 1, 2)',
                   "ga_roll(m, 3, 1)", "ga_repeat(m, 3, 0)", "ga_tile(e, 2)",
                   "ga_sum_axes(ga_zeros(F32, 3, 0, 2), 0, 1, 2)", "ga_argwhere(m)",
                   "ga_concatenate(1, m, m)", e=e, m=m)
    uu, cc = np.unique(e, return_counts=True)
    hh, he = np.histogram(e, 3)
    want = [np.sort(e), np.argsort(m, 1), uu, cc, hh, he, np.searchsorted(e, np.ones(2, np.float32)),
            np.pad(e, 2, constant_values=1), np.roll(m, 3, 1), np.repeat(m, 3, 0), np.tile(e, 2),
            np.zeros((3, 0, 2), np.float32).sum(axis=(1, 2)), np.argwhere(m), np.concatenate((m, m), 1)]
    for g, w in zip(got, want):
        same(g, w)
