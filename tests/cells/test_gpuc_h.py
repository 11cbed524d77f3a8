"""gpuc.h as a file: `gpuc --include-dir` prints the folder of this gpuc's
copy, a plain .c file compiles against it with gcc, and `gpuc install`
writes the same bytes beside kernel.json (tests/conftest.py installs the
kernelspec under test with --prefix)."""
import subprocess
from pathlib import Path

import pytest

USES_THE_API = r"""
#include <gpuc.h>
/* what a program would write against the cells' API */
double mean_of_squares(long long n)
{
    ga_t x = ga_arange(GA_F64, 0, (double)n, 1);
    ga_t sq = ga_mul(x, x);
    double s = ga_sum(sq);
    gpuc_display_text("done");
    return s / (double)n + ga_item(x, 0);
}
"""


def include_dir(gpuc_bin):
    proc = subprocess.run([str(gpuc_bin), "--include-dir"], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    return Path(proc.stdout.strip())


def gcc(folder, source, tmp_path):
    """gcc -fsyntax-only of source against folder/gpuc.h (warnings are errors)."""
    c = tmp_path / "x.c"
    c.write_text(source)
    return subprocess.run(["gcc", "-std=gnu11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           f"-I{folder}", str(c)], capture_output=True, text=True, timeout=60)


def test_include_dir_holds_the_header_gcc_compiles(gpuc_bin, tmp_path):
    folder = include_dir(gpuc_bin)
    assert (folder / "gpuc.h").is_file()
    proc = gcc(folder, USES_THE_API, tmp_path)
    assert proc.returncode == 0, proc.stderr
    # it declares, so a misspelt function is gcc's error too
    proc = gcc(folder, USES_THE_API.replace("ga_mul(x, x)", "ga_mull(x, x)"), tmp_path)
    assert proc.returncode != 0 and "ga_mull" in proc.stderr


def test_install_writes_the_same_header(gpuc_bin, kernelspecs, tmp_path):
    installed = kernelspecs["dir"] / "gpuc.h"
    assert installed.read_bytes() == (include_dir(gpuc_bin) / "gpuc.h").read_bytes()
    proc = gcc(kernelspecs["dir"], USES_THE_API, tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_install_says_where_the_header_went(gpuc_bin, tmp_path):
    proc = subprocess.run([str(gpuc_bin), "install", "--prefix", str(tmp_path)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    where = tmp_path.resolve() / "share" / "jupyter" / "kernels" / "gpuc"
    assert f"{where}/gpuc.h" in proc.stdout and (where / "gpuc.h").is_file()


def test_include_dir_passes_over_another_gpucs_header(gpuc_bin, tmp_path):
    """A copied binary beside an include/ of another version does not name it."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "gpuc.h").write_text("/* some other gpuc.h */\n")
    exe = tmp_path / "bin" / "gpuc"
    exe.write_bytes(gpuc_bin.read_bytes())
    exe.chmod(0o755)
    proc = subprocess.run([str(exe), "--include-dir"], capture_output=True, text=True, timeout=30)
    assert Path(proc.stdout.strip()) != tmp_path / "include"
    assert proc.returncode == 0 and (Path(proc.stdout.strip()) / "gpuc.h").is_file()
