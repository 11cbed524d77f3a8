"""Notebooks for the tests and the benchmarks: cells run by `gpuc run` (a
notebook executed headless: no Jupyter needed, so this works on the GPU
machine too), and readers of an executed notebook's code cells. The readers
take nbformat's notebooks or the plain dicts of json.load alike."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from gpuc_testing.timing import scaled


def write_notebook(folder, cells, name="cells"):
    """Writes cells (strings) as the gpuc notebook folder/NAME.ipynb, not
    yet run; returns its path."""
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": c, "id": f"c{i}"} for i, c in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
          "nbformat": 4, "nbformat_minor": 5}
    src = Path(folder) / f"{name}.ipynb"
    src.write_text(json.dumps(nb))
    return src


def run_notebook(gpuc, folder, cells, name="cells", timeout=300, allow_errors=True,
                 progress=False):
    """Executes cells (strings) as the notebook folder/NAME.ipynb with `gpuc
    run`, in folder (the files its cells write land there), each cell within
    timeout seconds (None: no --timeout, gpuc run's own limit); returns the
    executed cells as json.load gives them. RuntimeError, with gpuc's
    stderr, when no notebook came out or, unless allow_errors, a cell
    failed; with allow_errors, a run that gpuc stopped (a signal, a crash:
    an exit status beyond 1) prints gpuc's stderr and goes on. progress:
    gpuc's output (its "[3/9] ok" lines) goes to this process's as it runs,
    not into the error."""
    src = write_notebook(folder, cells, name)
    out = src.with_suffix(".out.ipynb")
    out.unlink(missing_ok=True)
    cmd = [str(gpuc), "run", str(src), "-o", str(out)]
    if timeout is not None:
        cmd[2:2] = ["--timeout", str(round(scaled(timeout)))]
    if allow_errors:
        cmd.insert(2, "--allow-errors")
    proc = subprocess.run(cmd, capture_output=not progress, text=True, cwd=folder)
    if not out.is_file() or (proc.returncode != 0 and not allow_errors):
        raise RuntimeError(f"gpuc run {src} failed ({proc.returncode}):\n{proc.stderr or ''}")
    if proc.returncode not in (0, 1) and not progress:
        print(proc.stderr)
    return json.loads(out.read_text())["cells"]


def bin_out_args(argv, usage, flags=()):
    """The BIN_DIR OUT_DIR arguments of a GPU script or benchmark (resolved
    paths) and the set of flags among argv; exits with usage otherwise."""
    import sys

    args = [a for a in argv if a not in flags]
    if len(args) != 2:
        sys.exit(usage)
    return Path(args[0]).resolve(), Path(args[1]).resolve(), {f for f in flags if f in argv}


def run_cells(gpuc, folder, cells, timeout=300, name="cells", displays=False):
    """Runs cells as the notebook folder/NAME.ipynb (run_notebook, errors
    allowed); one (result text or None, stdout and stderr, (ename, evalue)
    or None) per cell. displays: the MIME types of each display output
    follow the text, as <image/png>."""
    res = []
    for c in run_notebook(gpuc, folder, cells, name=name, timeout=timeout):
        r = [o["data"]["text/plain"] for o in c["outputs"] if o["output_type"] == "execute_result"]
        t = "".join(o.get("text", "") for o in c["outputs"] if o["output_type"] == "stream")
        e = [(o["ename"], o["evalue"]) for o in c["outputs"] if o["output_type"] == "error"]
        if displays:
            t += "".join(f"<{k}>" for o in c["outputs"] if o["output_type"] == "display_data"
                         for k in o["data"])
        res.append((r[0] if r else None, t, e[0] if e else None))
    return res


# --- reading an executed notebook ----------------------------------------

def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def cell_with(nb, marker: str, exact: bool = False):
    """The code cell whose source contains (or, exact, is) marker."""
    for c in code_cells(nb):
        if (c["source"].strip() == marker) if exact else (marker in c["source"]):
            return c
    return None


def stream_text(cell, name: str = "stdout") -> str:
    return "".join(o["text"] for o in cell["outputs"]
                   if o["output_type"] == "stream" and o["name"] == name)


def result_text(cell) -> str | None:
    res = [o for o in cell["outputs"] if o["output_type"] == "execute_result"]
    assert len(res) <= 1
    return res[0]["data"].get("text/plain") if res else None


def errors(nb):
    """(index among the code cells, the error output) of every error."""
    return [(i, o) for i, c in enumerate(code_cells(nb)) for o in c["outputs"]
            if o["output_type"] == "error"]
