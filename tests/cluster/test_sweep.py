"""scripts/gpuc-sweep on the one-node cluster of conftest.py: a parameter
swept as a job array, the executed notebooks' results gathered into one
table (docs/clusters.md)."""
from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from gpuc_testing.timing import scaled

SWEEP = Path(__file__).resolve().parents[2] / "scripts" / "gpuc-sweep"


def sweep_notebook(path: Path) -> Path:
    nb = new_notebook(cells=[
        new_code_cell("long n = 10;\nlong scale = 1;", metadata={"tags": ["parameters"]}),
        new_code_cell("if (n < 0) { int *nowhere = 0; *nowhere = 1; }  /* a fault */\n"
                      "long sum = 0;\nfor (long i = 1; i <= n; i++) sum += i;\n"
                      'printf("summed %ld numbers\\n", n);', metadata={"tags": ["results"]}),
        new_code_cell("sum * scale", metadata={"tags": ["results"]}),
        new_code_cell('printf("not a result\\n");'),
    ])
    nb.metadata["kernelspec"] = {"name": "gpuc", "display_name": "gpuc", "language": "c"}
    nbformat.write(nb, path)
    return path


def sweep(cluster, gpuc_bin, folder: Path, *args: str):
    return subprocess.run([sys.executable, str(SWEEP), str(sweep_notebook(folder / "sum.ipynb")),
                           "--gpuc", str(gpuc_bin), *args], env=cluster.env, cwd=folder,
                          capture_output=True, text=True, timeout=scaled(180))


def test_a_sweep_gathers_one_row_per_value(cluster, gpuc_bin, tmp_path):
    res = sweep(cluster, gpuc_bin, tmp_path, "n", "10", "100", "1000", "-p", "scale", "2")
    assert res.returncode == 0, res.stderr + cluster.logs()
    out = tmp_path / "sum-sweep"
    rows = list(csv.reader((out / "results.csv").open()))
    assert rows[0][:2] == ["n", "status"] and len(rows[0]) == 4
    assert rows[1:] == [[str(n), "ok", f"summed {n} numbers", str(n * (n + 1))]
                        for n in (10, 100, 1000)]
    assert "summed 1000 numbers" in res.stdout  # the table, printed
    for task in range(3):
        assert (out / f"task-{task}.ipynb").is_file()


def test_a_failing_task_is_a_row_and_fails_the_sweep(cluster, gpuc_bin, tmp_path):
    res = sweep(cluster, gpuc_bin, tmp_path, "n", "3", "-1", "--out", "runs")
    assert res.returncode == 1, res.stderr
    rows = list(csv.reader((tmp_path / "runs" / "results.csv").open()))
    assert rows[1] == ["3", "ok", "summed 3 numbers", "6"]
    assert rows[2][:2] == ["-1", rows[2][1]] and rows[2][1].startswith("error: "), rows
    # gathered again later, from the folder alone
    again = subprocess.run([sys.executable, str(SWEEP), "--gather", str(tmp_path / "runs")],
                           capture_output=True, text=True, timeout=scaled(30))
    assert again.returncode == 1
    assert list(csv.reader((tmp_path / "runs" / "results.csv").open())) == rows
