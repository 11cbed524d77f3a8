"""Running cells through `gpuc run` for the GPU benchmarks (no Jupyter is
needed on the GPU machine): a notebook of code cells in, its executed
cells out."""
import json
import subprocess
from pathlib import Path


def run_cells(gpuc: Path, out_dir: Path, name: str, cells, timeout=500, allow_errors=False):
    """Executes cells (strings) as notebook out_dir/name.ipynb; returns the
    executed cells (their "outputs" lists as nbformat has them)."""
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": c, "id": f"c{i}"} for i, c in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
          "nbformat": 4, "nbformat_minor": 5}
    src, out = out_dir / f"{name}.ipynb", out_dir / f"{name}.out.ipynb"
    src.write_text(json.dumps(nb))
    cmd = [str(gpuc), "run", str(src), "-o", str(out), "--timeout", str(timeout)]
    if allow_errors:
        cmd.insert(2, "--allow-errors")
    subprocess.run(cmd, check=not allow_errors, cwd=out_dir)
    return json.loads(out.read_text())["cells"]
