"""notebooks/why-is-my-kernel-slow.ipynb run headless by `gpuc run` on the
simulator, and its %%profile tables read from the outputs' metadata: the
lessons the notebook teaches must hold in the numbers."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gpuc_testing.notebook import cell_with, errors
from gpuc_testing.timing import scaled

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "why-is-my-kernel-slow.ipynb"
N = 64


@pytest.fixture(scope="module")
def nb(gpuc_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("why")
    src = folder / "why.ipynb"
    shutil.copy(NOTEBOOK, src)
    out = folder / "why.out.ipynb"
    proc = subprocess.run([str(gpuc_bin), "run", "--timeout", str(round(scaled(300))), str(src),
                           "-o", str(out)], capture_output=True, text=True, cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def profile(nb, marker):
    cell = cell_with(nb, marker)
    assert cell is not None, marker
    metas = [o["metadata"]["gpuc.profile"] for o in cell["outputs"]
             if o["output_type"] == "display_data" and "gpuc.profile" in o.get("metadata", {})]
    assert len(metas) == 1, cell["outputs"]
    svgs = [o["data"]["image/svg+xml"] for o in cell["outputs"]
            if o["output_type"] == "display_data" and "image/svg+xml" in o["data"]]
    return metas[0], svgs


def row(meta, name):
    [r] = [r for r in meta["rows"] if r["name"] == name]
    return r


def test_runs_without_errors(nb):
    assert errors(nb) == []


def test_matmuls_same_flops_tiled_reads_less(nb):
    meta, svgs = profile(nb, "// profile: matmul")
    if not meta["simulated"]:
        pytest.skip("the exact counts below are the simulator's")
    naive, coal, tiled = (row(meta, k) for k in ("matmul_naive", "matmul_coalesced", "matmul_tiled"))
    for r in (naive, coal, tiled):
        assert r["flops"] == 2 * N ** 3, r
        assert r["bytes_written"] == 4 * N * N
    # every thread reads a row of A and a column of B: 2 n floats
    assert naive["bytes_read"] == coal["bytes_read"] == 2 * N * N * N * 4
    # a 16 x 16 tile is loaded once per block and step: 16 times fewer bytes
    assert tiled["bytes_read"] * 16 == naive["bytes_read"]
    # the same requests, but the naive warps touch far more 32-byte sectors
    assert naive["sector_bytes"] > 2 * coal["sector_bytes"]
    assert "memory-bound" in naive["verdict"]
    assert "compute-bound" in tiled["verdict"]
    assert len(svgs) == 2 and svgs[1].count('class="point"') == 3


def test_fused_reads_fewer_bytes_than_unfused(nb):
    unfused, _ = profile(nb, "// profile: unfused")
    fused, _ = profile(nb, "// profile: fused")
    n = 1 << 16
    read_unfused = sum(r["bytes_read"] for r in unfused["rows"] if r["kind"] == "array")
    read_fused = sum(r["bytes_read"] for r in fused["rows"] if r["kind"] == "array")
    assert len([r for r in unfused["rows"] if r["kind"] == "array"]) == 2
    assert read_fused == 2 * 4 * n and read_unfused == 4 * 4 * n
    assert read_fused < read_unfused
    assert row(fused, 'ga_map "(a - b) * (a - b)"')["flops"] == 3 * n


def test_saxpy_flops_exact(nb):
    meta, _ = profile(nb, "%profile saxpy")
    r = row(meta, "saxpy")
    assert r["flops"] == 2 * (1 << 16)
    if meta["simulated"]:
        assert r["bytes_read"] == 8 * (1 << 16) and r["bytes_written"] == 4 * (1 << 16)
