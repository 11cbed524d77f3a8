"""notebooks/multi-gpu.ipynb, the worked notebook of several devices, run
through the kernel by nbclient and headless by `gpuc run`, on two
simulated devices (its first cell, `%sim --devices 2`): every cell runs,
and what it shows is right — the arrays' devices, the map-reduce split over
the devices equal to the one on one device, the all-reduce's sums, one
kernel cell on each device, %whos naming the devices."""
import re
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from gpuc_testing.notebook import cell_with, errors, result_text, stream_text
from gpuc_testing.timing import scaled

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "multi-gpu.ipynb"


def by_nbclient(tmp_path):
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    NotebookClient(nb, kernel_name="gpuc", timeout=int(scaled(120)),
                   startup_timeout=int(scaled(30)),
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def by_gpuc_run(gpuc_bin, tmp_path):
    out = tmp_path / "multi-gpu.out.ipynb"
    proc = subprocess.run([str(gpuc_bin), "run", str(NOTEBOOK), "-o", str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=scaled(300))
    assert proc.returncode == 0, proc.stderr
    return nbformat.read(str(out), as_version=4)


@pytest.mark.parametrize("how", ["nbclient", "gpuc run"])
def test_multi_gpu_notebook(how, gpuc_bin, tmp_path):
    nb = by_nbclient(tmp_path) if how == "nbclient" else by_gpuc_run(gpuc_bin, tmp_path)
    assert errors(nb) == []
    listing = stream_text(cell_with(nb, "%device", exact=True))
    assert re.search(r"^  sim1 .*sim0 peer$", listing, re.M), listing
    placed = cell_with(nb, "ga_t x1 = ga_to_device(x, 1);")
    assert stream_text(placed).endswith("2 devices\n")
    assert "device=sim1)" in result_text(placed)  # run on x1's device, gpu0 selected
    split = stream_text(cell_with(nb, "split +="))
    m = re.fullmatch(r"split over 2 devices: ([\d.]+), on one: ([\d.]+)\n", split)
    assert m and abs(float(m.group(1)) - float(m.group(2))) <= 1e-5 * float(m.group(2)), split
    # uniform x, y: E[(x - y)^2] = 1/6, n = 2^22
    assert abs(float(m.group(2)) / (1 << 22) - 1 / 6) < 0.01, split
    assert result_text(cell_with(nb, 'ga_allreduce(grad, ndev, "sum");')) == \
        "array([3., 3., 3., 3., 3., 3.], dtype=float32, shape=(6,), device=sim1)"
    assert result_text(cell_with(nb, "%device gpu1\nadd_index")) == \
        "array([3., 4., 5., 6., 7., 8.], dtype=float32, shape=(6,), device=sim1)"
    assert result_text(cell_with(nb, "%device gpu0\nadd_index")) == \
        "array([3., 4., 5., 6., 7., 8.], dtype=float32, shape=(6,), device=sim0)"
    whos = stream_text(cell_with(nb, "%whos ga_t"))
    assert re.search(r"^x1 +ga_t +float32 \(4194304,\), 16\.00 MiB, sim1$", whos, re.M), whos
    assert re.search(r"^x +ga_t +float32 \(4194304,\), 16\.00 MiB, sim0$", whos, re.M), whos
