"""ga_random, ga_normal, ga_integers and ga_seed through the real kernel
(CPU backend), checked with NumPy: statistics, ranges, dtypes and shapes,
same seed -> same numbers, consecutive calls differ, values computed here
from the Philox4x32-10 definition, and the errors (the session lives on).
Skipped when NumPy is not installed."""
import math

import pytest

from gpuc_testing.notebook import run_cells

np = pytest.importorskip("numpy")

M32 = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    """Random123's Philox4x32-10, written again here from the paper, in Python."""
    c, k = list(ctr), list(key)
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & M32]
        k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
    return c


def words(seed, start, nblocks):
    out = []
    for b in range(start, start + nblocks):
        out += philox4x32_10([b & M32, b >> 32, 0, 0], [seed & M32, seed >> 32])
    return out


@pytest.fixture(scope="module")
def session(gpuc_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("random")
    cells = [
        # 0: uniform of every float dtype, 1e6 elements, seeded
        "ga_seed(42);\nga_save(ga_random(F32, 1000, 1000), \"u32.npy\");\n"
        "ga_save(ga_random(F64, 1000000), \"u64.npy\");\nga_save(ga_random(F16, 1000000), \"u16.npy\");",
        # 1: normals and integers
        "ga_save(ga_normal(F32, 2.0, 3.0, 1000000), \"n32.npy\");\n"
        "ga_save(ga_normal(F64, -1.0, 0.5, 500, 2000), \"n64.npy\");\n"
        "ga_save(ga_normal(F16, 0.0, 1.0, 1000000), \"n16.npy\");\n"
        "ga_save(ga_integers(I32, -5, 7, 1000000), \"i32.npy\");\n"
        "ga_save(ga_integers(U8, 0, 256, 1000000), \"u8.npy\");\n"
        "ga_save(ga_integers(I64, -(1LL << 62), 1LL << 62, 100000), \"i64.npy\");",
        # 2: the same seed again, then two calls in a row
        "ga_seed(42);\nga_save(ga_random(F32, 1000, 1000), \"u32_again.npy\");\n"
        "ga_seed(7);\nga_save(ga_random(F32, 10), \"a.npy\");\nga_save(ga_random(F32, 10), \"b.npy\");",
        # 3: 0-d and empty
        "ga_t z = ga_random(F64);\nga_t e = ga_normal(F32, 0, 1, 0, 3);\n"
        "ga_ndim(z) * 100 + ga_ndim(e) * 10 + (int)ga_size(e)",
        # 4..8: errors, then the session still works
        "ga_integers(F32, 0, 10, 5)",
        "ga_random(I32, 5)",
        "ga_normal(F64, 0, -1, 5)",
        "ga_integers(I8, 0, 1000, 5)",
        "ga_integers(I32, 3, 3, 5)",
        "ga_size(ga_random(F32, 3, 4))",
        # 10: the standard normal (mean 0, std 1: its own path)
        "ga_seed(9);\nga_save(ga_normal(F64, 0.0, 1.0, 200), \"s64.npy\");",
    ]
    return folder, run_cells(gpuc_bin, folder, cells)


def load(session, name):
    return np.load(session[0] / name)


def test_cells_run(session):
    for i, (res, out, err) in enumerate(session[1][:4]):
        assert err is None, (i, err)


def test_uniform(session):
    for name, dtype, shape in [("u32.npy", np.float32, (1000, 1000)),
                               ("u64.npy", np.float64, (1000000,)),
                               ("u16.npy", np.float16, (1000000,))]:
        x = load(session, name)
        assert x.dtype == dtype and x.shape == shape
        x = x.astype(np.float64).ravel()
        assert x.min() >= 0 and x.max() < 1
        assert abs(x.mean() - 0.5) < 0.002 and abs(x.std() - math.sqrt(1 / 12)) < 0.002
        counts = np.bincount((x * 64).astype(int), minlength=64)
        expected = len(x) / 64
        assert ((counts - expected) ** 2 / expected).sum() < 113.6  # 63 dof, 99.99%
        # Kolmogorov-Smirnov against U(0, 1): 1.95 / sqrt(n) is the 99.9% point
        s = np.sort(x)
        assert np.abs(s - np.arange(len(s)) / len(s)).max() < 1.95 / math.sqrt(len(s)) + 2 ** -11


def test_uniform_is_philox(session):
    """The first elements after ga_seed(42), from the definition: (word >> 8) * 2^-24."""
    x = load(session, "u32.npy").ravel()[:12]
    w = words(42, 0, 3)
    assert x.tolist() == [np.float32((v >> 8) / 2.0 ** 24) for v in w]
    d = load(session, "u64.npy")[:2]
    # the float64 call comes after 250000 blocks of float32
    w = words(42, 250000, 1)
    assert d.tolist() == [((w[0] >> 5) * 67108864.0 + (w[1] >> 6)) / 2.0 ** 53,
                          ((w[2] >> 5) * 67108864.0 + (w[3] >> 6)) / 2.0 ** 53]


def test_normal(session):
    for name, dtype, mean, std, tol in [("n32.npy", np.float32, 2.0, 3.0, 0.01),
                                        ("n64.npy", np.float64, -1.0, 0.5, 0.003),
                                        ("n16.npy", np.float16, 0.0, 1.0, 0.004)]:
        x = load(session, name)
        assert x.dtype == dtype
        x = x.astype(np.float64).ravel()
        assert abs(x.mean() - mean) < tol and abs(x.std() - std) < tol
        z = (x - mean) / std
        # share within 1 and 2 std, and the tails
        assert abs(np.mean(np.abs(z) < 1) - 0.6827) < 0.003
        assert abs(np.mean(np.abs(z) < 2) - 0.9545) < 0.002
        assert np.abs(z).max() < 7
    assert load(session, "n64.npy").shape == (500, 2000)


def test_normal_is_box_muller(session):
    """The first float32 normals, from the definition (Box-Muller of the
    words; gpuc computes it in float: equal within a few float ulp)."""
    x = load(session, "n32.npy")[:1000].astype(np.float64)
    # after u32 (250000 blocks), u64 (500000) and u16 (250000)
    w = words(42, 1000000, 250)
    ref = []
    for a, b in zip(w[0::2], w[1::2]):
        r, t = math.sqrt(-2 * math.log((a + 1.0) / 2.0 ** 32)), 2 * math.pi * b / 2.0 ** 32
        ref += [2.0 + 3.0 * (r * math.cos(t)), 2.0 + 3.0 * (r * math.sin(t))]
    np.testing.assert_allclose(x, ref, rtol=0, atol=3.0 * 4e-6 * 8)


def test_normal_float64_is_box_muller(session):
    """The first float64 normals from the definition: 53-bit uniforms
    ((w0 >> 5) * 2^26 + (w1 >> 6), u1 in (0, 1]), one pair a block,
    Box-Muller in double (the C library's log, sin and cos: a few ulp)."""
    x = load(session, "n64.npy").ravel()[:200]
    w = words(42, 1250000, 100)  # after n32's 250000 blocks
    ref = []
    for k in range(0, len(w), 4):
        u1 = (((w[k] >> 5) << 26 | w[k + 1] >> 6) + 1) / 2.0 ** 53
        v = ((w[k + 2] >> 5) << 26 | w[k + 3] >> 6) / 2.0 ** 53
        r, t = math.sqrt(-2 * math.log(u1)), 2 * math.pi * v
        ref += [-1.0 + 0.5 * (r * math.cos(t)), -1.0 + 0.5 * (r * math.sin(t))]
    np.testing.assert_allclose(x, ref, rtol=0, atol=1e-14)


def test_standard_normal_float64_is_box_muller(session):
    """Mean 0 and std 1 skip the scaling: still r cos t and r sin t."""
    assert session[1][10][2] is None
    x = load(session, "s64.npy")
    w = words(9, 0, 100)
    ref = []
    for k in range(0, len(w), 4):
        u1 = (((w[k] >> 5) << 26 | w[k + 1] >> 6) + 1) / 2.0 ** 53
        v = ((w[k + 2] >> 5) << 26 | w[k + 3] >> 6) / 2.0 ** 53
        r, t = math.sqrt(-2 * math.log(u1)), 2 * math.pi * v
        ref += [r * math.cos(t), r * math.sin(t)]
    np.testing.assert_allclose(x, ref, rtol=0, atol=1e-14)


def test_integers(session):
    x = load(session, "i32.npy")
    assert x.dtype == np.int32 and x.min() == -5 and x.max() == 6
    counts = np.bincount(x + 5)
    assert ((counts - 1e6 / 12) ** 2 / (1e6 / 12)).sum() < 37.7  # 11 dof, 99.99%
    u = load(session, "u8.npy")
    assert u.dtype == np.uint8 and u.min() == 0 and u.max() == 255
    big = load(session, "i64.npy")
    assert big.min() >= -(2 ** 62) and big.max() < 2 ** 62
    assert abs(big.astype(np.float64).mean()) < 2 ** 62 * 0.02


def test_seed_repeats_and_calls_differ(session):
    assert np.array_equal(load(session, "u32.npy"), load(session, "u32_again.npy"))
    a, b = load(session, "a.npy"), load(session, "b.npy")
    assert not np.array_equal(a, b)
    # the second call continues the stream: block 3 on (10 float32 use 3 blocks)
    w = words(7, 3, 3)[:10]
    assert b.tolist() == [np.float32((v >> 8) / 2.0 ** 24) for v in w]


def test_zero_d_and_empty(session):
    assert session[1][3][0] == "20"  # z: 0-d; e: (0, 3), size 0


def test_errors(session):
    res = session[1]
    assert res[4][2][0] == "DTypeError" and "ga_integers: integers are made as int8" in res[4][2][1]
    assert res[5][2][0] == "DTypeError" and "use ga_integers" in res[5][2][1]
    assert res[6][2][0] == "ValueError" and "std must be >= 0" in res[6][2][1]
    assert res[7][2][0] == "ValueError" and "does not fit int8" in res[7][2][1]
    assert res[8][2][0] == "ValueError" and "low >= high" in res[8][2][1]
    assert res[9][0] == "12" and res[9][2] is None
