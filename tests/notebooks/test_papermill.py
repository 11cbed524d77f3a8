"""papermill with gpuc notebooks: the real papermill CLI, its -p values
translated to C by python/gpuc_papermill (installed into the venv by
scripts/setup-venv.sh), executed by the kernel; and the text it injects
compared with what `gpuc run -p` injects for the same values."""
from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from gpuc_testing.notebook import cell_with, errors, stream_text
from gpuc_testing.timing import scaled

DEFAULTS = ('int n = 10;\ndouble alpha = 0.5;\nconst char *name = "default";\n'
            'int verbose = 0;\n')
SHOW = 'printf("n=%d alpha/4=%.3f name=%s verbose=%d\\n", n, alpha / 4, name, verbose);'


@pytest.fixture(scope="module", autouse=True)
def translator_installed():
    names = [e.name for e in metadata.entry_points(group="papermill.engine")]
    if "gpuc" not in names:
        pytest.fail("the gpuc papermill translator is not installed in this venv: "
                    "scripts/setup-venv.sh installs it (pip install python/gpuc_papermill)")


def notebook(path: Path, *cells: str, parameters: str | None = DEFAULTS) -> Path:
    nb = new_notebook()
    nb.metadata.kernelspec = {"name": "gpuc", "display_name": "C + CUDA (gpuc)",
                              "language": "c"}
    if parameters is not None:
        p = new_code_cell(parameters)
        p.metadata["tags"] = ["parameters"]
        nb.cells.append(p)
    nb.cells += [new_code_cell(c) for c in cells]
    nbformat.write(nb, path)
    return path


def papermill(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "papermill", "--no-progress-bar", *args],
                          capture_output=True, text=True, timeout=scaled(120))


def injected(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, nb.cells
    return cells[0].source


def test_papermill_runs_a_gpuc_notebook_with_its_defaults(tmp_path):
    src = notebook(tmp_path / "in.ipynb", SHOW)
    proc = papermill(str(src), str(tmp_path / "out.ipynb"))
    assert proc.returncode == 0, proc.stderr
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert not errors(out)
    assert stream_text(cell_with(out, "printf")) == \
        "n=10 alpha/4=0.125 name=default verbose=0\n"


def test_papermill_p_overrides_int_float_string_bool(tmp_path):
    src = notebook(tmp_path / "in.ipynb", SHOW,
                   'printf("%lld %.2f %s %d\\n", count, ratio, label, flag);')
    # alpha given as an integer keeps the double the parameters cell
    # declared (2 / 4 is 0.5, not 0); names the cell does not declare are
    # declared with their value's type
    proc = papermill(str(src), str(tmp_path / "out.ipynb"),
                     "-p", "n", "1000", "-p", "alpha", "2", "-p", "name", "x y",
                     "-p", "verbose", "True", "-p", "count", "12345678901",
                     "-p", "ratio", "0.25", "-p", "label", 'say "hi"', "-p", "flag", "False")
    assert proc.returncode == 0, proc.stderr
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert not errors(out)
    assert injected(tmp_path / "out.ipynb") == (
        '// Parameters\nn = 1000;\nalpha = 2;\nname = "x y";\nverbose = 1;\n'
        'long long count = 12345678901;\ndouble ratio = 0.25;\n'
        'const char *label = "say \\"hi\\"";\nint flag = 0;\n')
    assert stream_text(cell_with(out, SHOW, exact=True)) == \
        "n=1000 alpha/4=0.500 name=x y verbose=1\n"
    assert stream_text(cell_with(out, "count, ratio")) == '12345678901 0.25 say "hi" 0\n'
    assert out.metadata.papermill.parameters["n"] == 1000


def test_papermill_rejects_a_list_with_a_clear_message(tmp_path):
    src = notebook(tmp_path / "in.ipynb", SHOW)
    proc = papermill(str(src), str(tmp_path / "out.ipynb"), "-y", "sizes: [1, 2, 3]")
    assert proc.returncode != 0
    assert "gpuc parameters are numbers, booleans, strings or None" in proc.stderr
    assert "[1, 2, 3] is a list" in proc.stderr


# The same command-line values through papermill -p and gpuc run -p: the
# injected cells must be the same text (declared names and new ones).
VALUES = ["0", "-7", "010", "+5", "9223372036854775807", "-9223372036854775808",
          "99999999999999999999", "2.5", "1e3", "0.1", "1.", ".5", "-0.0", "1e-300",
          "inf", "-inf", "nan", "True", "False", "true", "false", "None", "",
          "x", "0x10", "1e", "a b", 'q"uo\\te', "tab\there", "line\nbreak", "héllo", "1.5f"]


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "new"])
def test_papermill_and_gpuc_run_inject_the_same_c(tmp_path, gpuc_bin, declared):
    names = [f"v{i}" for i in range(len(VALUES))]
    defaults = "".join(f"int {n} = 0;\n" for n in names) if declared else "int unrelated = 0;\n"
    src = notebook(tmp_path / "in.ipynb", "1", parameters=defaults)
    args = [a for n, v in zip(names, VALUES) for a in ("-p", n, v)]

    proc = papermill(str(src), str(tmp_path / "pm.ipynb"), "--prepare-only", *args)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(gpuc_bin), "run", str(src), "-o", str(tmp_path / "gr.ipynb"),
                          "--allow-errors", *args], capture_output=True, text=True,
                          timeout=scaled(120))
    assert run.returncode == 0, run.stderr

    ours, theirs = injected(tmp_path / "gr.ipynb"), injected(tmp_path / "pm.ipynb")
    assert ours.splitlines() == theirs.splitlines()
    if not declared:
        # every new declaration compiles, and the values read back as given
        out = nbformat.read(tmp_path / "gr.ipynb", as_version=4)
        assert not errors(out), errors(out)


# papermill's -f: the same file through papermill and gpuc run -f, with -p
# winning over the file in both
PARAMS_YAML = """# parameters for one run
---
n: 2000
alpha: 0.75
name: run one   # a comment
label: "say \\"hi\\"\\n"
quoted_number: '42'
verbose: true
nothing: null
"""
PARAMS_JSON = '{"n": 2000, "alpha": 0.75, "name": "run one", "verbose": false, "nothing": null}'


@pytest.mark.parametrize("text,suffix", [(PARAMS_YAML, "yaml"), (PARAMS_JSON, "json")])
def test_params_file_same_through_papermill_and_gpuc_run(tmp_path, gpuc_bin, text, suffix):
    params = tmp_path / f"params.{suffix}"
    params.write_text(text)
    src = notebook(tmp_path / "in.ipynb", SHOW)
    proc = papermill(str(src), str(tmp_path / "pm.ipynb"), "-f", str(params), "-p", "alpha", "1")
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(gpuc_bin), "run", str(src), "-o", str(tmp_path / "gr.ipynb"),
                          "-f", str(params), "-p", "alpha", "1"],
                         capture_output=True, text=True, timeout=scaled(120))
    assert run.returncode == 0, run.stderr
    assert injected(tmp_path / "gr.ipynb") == injected(tmp_path / "pm.ipynb")
    out = nbformat.read(tmp_path / "gr.ipynb", as_version=4)
    assert not errors(out)
    assert stream_text(cell_with(out, SHOW, exact=True)).startswith(
        "n=2000 alpha/4=0.250 name=run one verbose=")


def test_gpuc_run_params_file_errors_are_clear(tmp_path, gpuc_bin):
    src = notebook(tmp_path / "in.ipynb", SHOW)
    for text, message in [("sizes: [1, 2]\n", "line 1: 'sizes' is a list or a mapping"),
                          ("n 5\n", "line 1: expected 'name: value'"),
                          ("2n: 5\n", "line 1: '2n' is not a C name"),
                          ("s: 'open\n", "line 1: a quoted value must end with its quote")]:
        params = tmp_path / "bad.yaml"
        params.write_text(text)
        run = subprocess.run([str(gpuc_bin), "run", str(src), "-f", str(params)],
                             capture_output=True, text=True, timeout=scaled(60))
        assert run.returncode == 1
        assert message in run.stderr, run.stderr
        assert not (tmp_path / "in.out.ipynb").exists()
    run = subprocess.run([str(gpuc_bin), "run", str(src), "-f", str(tmp_path / "none.yaml")],
                         capture_output=True, text=True, timeout=scaled(60))
    assert run.returncode == 1 and "none.yaml: No such file or directory" in run.stderr
