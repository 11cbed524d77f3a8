"""What gpuc writes as .npy, NumPy reads back unchanged.

test_ga_npy --write DIR loads every golden file of tests/array/npy (any
dtype, byte order and memory order, as NumPy wrote them) and saves it with
ga_npy_save; here np.load reads each and compares it with the golden file.
The binary is $GPUC_TEST_GA_NPY, else tests/test_ga_npy beside $GPUC_BIN's
build. Skipped when NumPy is not installed.
"""
import os
import subprocess
from pathlib import Path

import pytest

from gpuc_testing.timing import scaled

np = pytest.importorskip("numpy")

NPY = Path(__file__).resolve().parent / "npy"
GOLDEN = [line.split() for line in (NPY / "MANIFEST").read_text().splitlines()
          if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def written(gpuc_bin, tmp_path_factory):
    exe = Path(os.environ.get("GPUC_TEST_GA_NPY", gpuc_bin.parent / "tests" / "test_ga_npy"))
    if not exe.is_file():
        pytest.fail(f"no test_ga_npy at {exe} (build it, or set GPUC_TEST_GA_NPY)")
    out = tmp_path_factory.mktemp("ga_npy")
    proc = subprocess.run([str(exe), "--write", str(out)], capture_output=True, text=True,
                          timeout=scaled(60))
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.parametrize("file,dtype,shape,raw,twin", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_numpy_reads_gpuc(written, file, dtype, shape, raw, twin):
    mine = np.load(written / file, allow_pickle=False)
    golden = np.load(NPY / file, allow_pickle=False)
    assert mine.dtype == np.dtype(dtype) and mine.dtype.byteorder in "=|"
    assert mine.shape == golden.shape
    assert mine.flags.c_contiguous
    assert mine.tobytes() == (NPY / raw).read_bytes()
    if mine.dtype != bool:   # bool_bytes.npy holds bytes NumPy compares as they are
        assert np.array_equal(mine, golden, equal_nan=True)
    assert (written / file).read_bytes() == (NPY / twin).read_bytes()
