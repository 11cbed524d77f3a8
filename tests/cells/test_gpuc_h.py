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


def test_gcc_rejects_an_int_for_a_dtype(gpuc_bin, tmp_path):
    """ga_zeros(4, 4) made a 1-d uint16 array when a dtype was an int."""
    proc = gcc(include_dir(gpuc_bin), "#include <gpuc.h>\n"
               "ga_t f(void) { return ga_zeros(4, 4); }\n", tmp_path)
    assert proc.returncode != 0 and "ga_dtype" in proc.stderr, proc.stderr


def test_a_c_file_may_leave_the_short_dtype_names_out(gpuc_bin, tmp_path):
    own = "typedef unsigned char U8;\ntypedef float F32;\nU8 u; F32 f;\n"
    folder = include_dir(gpuc_bin)
    assert gcc(folder, "#include <gpuc.h>\n" + own, tmp_path).returncode != 0
    proc = gcc(folder, "#define GPUC_NO_SHORT_DTYPES\n#include <gpuc.h>\n" + own +
               "ga_t g(void) { return ga_ones(GA_U8, 3); }\n", tmp_path)
    assert proc.returncode == 0, proc.stderr


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
