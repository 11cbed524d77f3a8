"""`gpuc run` ended by a signal loses no finished work (docs/commands.md,
docs/clusters.md): SIGINT, SIGTERM and SIGHUP (Ctrl-C, scancel, a Slurm
job's time limit, a closed terminal) interrupt the running cell, keep what
it printed, write the notebook and exit with 128 + the signal; a SIGKILL
leaves the notebook as it was after the last finished cell, written whole."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import nbformat
import pytest

from gpuc_testing.notebook import code_cells, stream_text
from gpuc_testing.timing import scaled

# A cell that says it started (its text, then a file the test waits for)
# and then runs far longer than any test waits.
SLOW = ('#include <stdio.h>\n#include <unistd.h>\n'
        'printf("before the wait\\n"); fflush(stdout);\n'
        'fclose(fopen("started", "w"));\n'
        'for (int i = 0; i < 3000; i++) usleep(100000);\n'
        'printf("after the wait\\n");')


def errors(nb) -> list[tuple[str, str]]:
    return [(o["ename"], o["evalue"]) for c in code_cells(nb) for o in c["outputs"]
            if o["output_type"] == "error"]


def write_nb(path: Path, sources: list[str]) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "gpuc", "display_name": "gpuc", "language": "c"}
    nbformat.write(nb, path)
    return path


def start_run(gpuc_bin, folder: Path, sources: list[str]):
    """Starts `gpuc run` on a notebook of sources in folder and waits until
    its slow cell has started. Returns the process and the output path."""
    src = write_nb(folder / "nb.ipynb", sources)
    out = folder / "nb.out.ipynb"
    proc = subprocess.Popen([str(gpuc_bin), "run", str(src), "-o", str(out)], cwd=folder,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + scaled(60)
    while not (folder / "started").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the slow cell never started:\n{proc.communicate()[1]}")
        time.sleep(0.05)
    return proc, out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=lambda s: s.name)
def test_a_signal_writes_the_notebook_run_so_far(gpuc_bin, tmp_path, sig):
    proc, out = start_run(gpuc_bin, tmp_path,
                          ['printf("first\\n");', "6 * 7", SLOW, 'printf("never\\n");'])
    time.sleep(scaled(0.3))  # what the cell printed reaches gpuc run
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=scaled(30))
    assert proc.returncode == 128 + sig, stderr
    assert f"stopped by {sig.name}" in stderr

    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    first, answer, slow, never = code_cells(nb)
    assert stream_text(first) == "first\n"
    assert answer.outputs[0]["data"]["text/plain"] == "42"
    assert stream_text(slow) == "before the wait\n"
    assert [e[0] for e in errors(nb)] == ["Interrupted"], errors(nb)
    assert slow.execution_count == 3
    assert never.outputs == [] and never.execution_count is None


def ended_by_sigterm(proc, out: Path, timeout: float):
    """The notebook of a two-cell run (a print, SLOW) that a SIGTERM ended,
    checked for what both runs keep."""
    _, stderr = proc.communicate(timeout=timeout)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    nb = nbformat.read(out, as_version=4)
    first, slow = code_cells(nb)
    assert stream_text(first) == "first\n"
    assert stream_text(slow) == "before the wait\n"
    return nb


def test_a_second_signal_ends_a_cell_that_ignores_the_interrupt(gpuc_bin, tmp_path):
    deaf = SLOW.replace("#include <unistd.h>\n", "#include <unistd.h>\n#include <signal.h>\n"
                        "signal(SIGINT, SIG_IGN);\n")
    proc, out = start_run(gpuc_bin, tmp_path, ['printf("first\\n");', deaf])
    proc.send_signal(signal.SIGTERM)
    time.sleep(scaled(0.5))
    assert proc.poll() is None, "the first SIGTERM gave the cell no grace"
    proc.send_signal(signal.SIGTERM)
    nb = ended_by_sigterm(proc, out, scaled(10))
    (ename, evalue), = errors(nb)
    assert ename == "Interrupted" and "stopped by SIGTERM" in evalue and "second signal" in evalue


def children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def test_sigterm_to_every_process_of_the_run(gpuc_bin, tmp_path):
    """As Slurm ends a job: SIGTERM to gpuc run and to its executor alike."""
    proc, out = start_run(gpuc_bin, tmp_path, ['printf("first\\n");', SLOW])
    time.sleep(scaled(0.3))
    executors = children(proc.pid)
    assert executors, "gpuc run has no executor process"
    for pid in [proc.pid, *executors]:
        os.kill(pid, signal.SIGTERM)
    nb = ended_by_sigterm(proc, out, scaled(30))
    assert [e[0] for e in errors(nb)] == ["Interrupted"], errors(nb)


def test_sigkill_leaves_the_finished_cells_on_disk(gpuc_bin, tmp_path):
    proc, out = start_run(gpuc_bin, tmp_path,
                          ['printf("first\\n");', "6 * 7", SLOW, 'printf("never\\n");'])
    proc.kill()
    proc.communicate(timeout=scaled(30))
    nb = nbformat.read(out, as_version=4)  # whole: it was renamed into place
    nbformat.validate(nb)
    first, answer, slow, never = code_cells(nb)
    assert stream_text(first) == "first\n"
    assert answer.outputs[0]["data"]["text/plain"] == "42"
    assert slow.outputs == [] and never.outputs == []
    assert nb.metadata["kernelspec"]["name"] == "gpuc"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nb.ipynb", "nb.out.ipynb", "started"]
    json.loads(out.read_text())


def test_a_wrong_output_folder_fails_before_any_cell_runs(gpuc_bin, tmp_path):
    src = write_nb(tmp_path / "nb.ipynb", ['fclose(fopen("ran", "w"));'])
    proc = subprocess.run([str(gpuc_bin), "run", str(src), "-o", str(tmp_path / "no/such.ipynb")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=scaled(60))
    assert proc.returncode == 1
    assert "nothing run" in proc.stderr and "no/such.ipynb" in proc.stderr
    assert not (tmp_path / "ran").exists()
