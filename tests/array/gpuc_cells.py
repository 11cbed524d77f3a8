"""Running cells through the real kernel, headless: `gpuc run` of a
notebook made from the cells (no Jupyter needed), in a folder where the
cells' ga_save files land, so that NumPy can read them."""
import json
import subprocess
from pathlib import Path


def run_cells(gpuc_bin, folder, cells, timeout=300):
    """Runs cells in folder; one (result text, stdout, (ename, evalue) or None) per cell."""
    folder = Path(folder)
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                     "outputs": [], "source": c, "id": f"c{i}"} for i, c in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
          "nbformat": 4, "nbformat_minor": 5}
    src, out = folder / "cells.ipynb", folder / "cells.out.ipynb"
    src.write_text(json.dumps(nb))
    proc = subprocess.run([str(gpuc_bin), "run", "--allow-errors", str(src), "-o", str(out)],
                          capture_output=True, text=True, cwd=folder, timeout=timeout)
    assert out.is_file(), proc.stderr
    res = []
    for c in json.loads(out.read_text())["cells"]:
        r = [o["data"]["text/plain"] for o in c["outputs"] if o["output_type"] == "execute_result"]
        t = "".join(o.get("text", "") for o in c["outputs"] if o["output_type"] == "stream")
        e = [(o["ename"], o["evalue"]) for o in c["outputs"] if o["output_type"] == "error"]
        res.append((r[0] if r else None, t, e[0] if e else None))
    return res
