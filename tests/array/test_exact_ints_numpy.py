"""Integer reductions and elements are exact (docs/arrays.md, Reductions):
ga_sum_i64, ga_prod_i64, ga_min_i64, ga_max_i64 and ga_item_i64 of int64
arrays past 2^53, read from .npy files NumPy wrote, against NumPy; the
double variants round where a double cannot hold the value; a float array
is a DTypeError. Skipped when NumPy is not installed."""
import pytest

from gpuc_testing.notebook import run_cells

np = pytest.importorskip("numpy")


def test_int64_reductions_past_2_53_match_numpy(gpuc_bin, tmp_path):
    big = np.array([2**53 + 1, 2**53 + 3, -5, 7, 2**40 + 1], dtype=np.int64)
    small = np.array([3, -2, 5, 7, 11, 13, -17, 19], dtype=np.int64)  # prod past 2^53? no: exact
    wide = np.array([2**31 + 11, 2**31 + 13], dtype=np.int64)         # prod 2^62 + ...: past 2^53
    u = np.array([2**60 + 1, 2**60 + 3], dtype=np.uint64)
    for name, a in [("big", big), ("small", small), ("wide", wide), ("u", u)]:
        np.save(tmp_path / f"{name}.npy", a)
    cells = ['ga_t big = ga_load("big.npy"), small = ga_load("small.npy"), '
             'wide = ga_load("wide.npy"), u = ga_load("u.npy");',
             "ga_sum_i64(big)", "ga_min_i64(big)", "ga_max_i64(big)", "ga_prod_i64(small)",
             "ga_prod_i64(wide)", "ga_item_i64(big, 1)", "ga_sum_i64(u)",
             "ga_sum(big) == (double)ga_sum_i64(big)", "(long long)ga_sum(big) == ga_sum_i64(big)",
             "ga_sum_i64(ga_ones(F32, 3))", "ga_item_i64(ga_ones(F64, 2), 0)"]
    res = run_cells(gpuc_bin, tmp_path, cells)
    assert all(r[2] is None for r in res[:10]), res
    want = [big.sum(), big.min(), big.max(), small.prod(), wide.prod(), big[1], u.sum()]
    assert [int(r[0]) for r in res[1:8]] == [int(w) for w in want]
    # the double reads the sum rounded to a multiple of 4 (doubles past 2^54)
    assert res[8][0] == "1" and res[9][0] == "0"
    for r in res[10:]:
        assert r[2][0] == "DTypeError" and "not an integer" in r[2][1], r
