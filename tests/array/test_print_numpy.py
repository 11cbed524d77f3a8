"""ga_print against a live NumPy: random arrays (every dtype, 0 to 5 dims,
over the threshold, nan/inf/-0.0, random float bits) are written by
make_print_cases.py into a temporary folder and checked by the C test
binary test_ga_print, which prints each with ga_print_repr/ga_print_str.
The committed golden cases (tests/array/print) are checked by ctest alone.

Skipped when NumPy is not importable. The binary is $GA_PRINT_TEST, else
tests/test_ga_print beside $GPUC_BIN's build folder (default build/).
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpuc_testing.timing import scaled

np = pytest.importorskip("numpy")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def binary_under_test() -> Path:
    if "GA_PRINT_TEST" in os.environ:
        return Path(os.environ["GA_PRINT_TEST"])
    gpuc = Path(os.environ.get("GPUC_BIN", ROOT / "build" / "gpuc")).resolve()
    return gpuc.parent / "tests" / "test_ga_print"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_arrays_print_as_numpy(tmp_path, seed):
    exe = binary_under_test()
    if not exe.is_file():
        pytest.fail(f"no test_ga_print at {exe} (build it, or set GA_PRINT_TEST)")
    subprocess.run([sys.executable, str(HERE / "make_print_cases.py"), "--out", str(tmp_path),
                    "--random", "100", "--seed", str(seed)], check=True, timeout=scaled(120))
    proc = subprocess.run([str(exe), str(tmp_path)], capture_output=True, text=True,
                          timeout=scaled(120))
    assert proc.returncode == 0, proc.stdout + proc.stderr[-6000:]
    assert "100 cases" in proc.stdout
