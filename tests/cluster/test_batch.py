"""Notebooks as Slurm batch jobs on the one-node cluster of conftest.py
(docs/clusters.md): `gpuc run` with parameters under sbatch, a job array
that sweeps a parameter, a failing cell failing the job, and scancel and a
job's time limit ending a job with the notebook written up to the cell
they stopped."""
from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from gpuc_testing.notebook import code_cells, result_text, stream_text
from gpuc_testing.timing import scaled

SUM = "long sum = 0;\nfor (long i = 1; i <= n; i++) sum += i;\nprintf(\"n=%ld\\n\", n);"

# A cell that says it started (its text, then a file the test waits for)
# and then runs far longer than any test waits.
SLOW = ('#include <stdio.h>\n#include <unistd.h>\n'
        'printf("before the wait\\n"); fflush(stdout);\n'
        'fclose(fopen("started", "w"));\n'
        'for (int i = 0; i < 6000; i++) usleep(100000);\n')


def notebook(path: Path, *sources: str, parameters: str | None = None) -> Path:
    cells = [new_code_cell(parameters, metadata={"tags": ["parameters"]})] if parameters else []
    cells += [new_code_cell(s) for s in sources]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "gpuc", "display_name": "gpuc", "language": "c"}
    nbformat.write(nb, path)
    return path


def errors(nb) -> list[tuple[str, str]]:
    return [(o["ename"], o["evalue"]) for c in code_cells(nb) for o in c["outputs"]
            if o["output_type"] == "error"]


def exit_code(cluster, job: int) -> str:
    """scontrol's ExitCode=STATUS:SIGNAL of a job."""
    out = cluster.cmd("scontrol", "show", "job", str(job))
    return next(w.split("=", 1)[1] for w in out.split() if w.startswith("ExitCode="))


def run_job(cluster, folder: Path, command: str, *sbatch_args: str) -> int:
    """Submits command (a shell line, as people write it: no exec, so Slurm
    signals the shell and gpuc run alike) from folder; its output goes to
    folder/job-JOB_TASK.log."""
    return cluster.sbatch("-o", str(folder / "job-%A_%a.log"), "--chdir", str(folder),
                          *sbatch_args, "--wrap", command, cwd=folder)


def test_a_notebook_with_parameters(cluster, gpuc_bin, tmp_path):
    notebook(tmp_path / "sweep.ipynb", SUM, "sum", parameters="long n = 10;")
    (tmp_path / "out").mkdir()
    job = run_job(cluster, tmp_path,
                  f"{gpuc_bin} run sweep.ipynb -p n 1000000 -o out/sweep.ipynb")
    assert cluster.wait(job, scaled(60)) == {str(job): "COMPLETED"}, cluster.logs()
    assert exit_code(cluster, job) == "0:0"
    nb = nbformat.read(tmp_path / "out" / "sweep.ipynb", as_version=4)
    cells = code_cells(nb)
    assert cells[1].metadata.tags == ["injected-parameters"]
    assert stream_text(cells[2]) == "n=1000000\n"
    assert result_text(cells[3]) == str(1000000 * 1000001 // 2)


def test_a_job_array_sweeps_a_parameter(cluster, gpuc_bin, tmp_path):
    notebook(tmp_path / "sweep.ipynb", SUM, "sum", parameters="long n = 10;")
    (tmp_path / "out").mkdir()
    job = run_job(cluster, tmp_path,
                  f"{gpuc_bin} run sweep.ipynb -p n $((SLURM_ARRAY_TASK_ID * 1000)) "
                  "-o out/sweep-$SLURM_ARRAY_TASK_ID.ipynb", "--array=1-4")
    states = cluster.wait(job, scaled(120))
    assert sorted(states.values()) == ["COMPLETED"] * 4, (states, cluster.logs())
    for task in range(1, 5):
        nb = nbformat.read(tmp_path / "out" / f"sweep-{task}.ipynb", as_version=4)
        n = task * 1000
        assert result_text(code_cells(nb)[-1]) == str(n * (n + 1) // 2)
        assert stream_text(code_cells(nb)[2]) == f"n={n}\n"


def test_a_failing_cell_fails_the_job(cluster, gpuc_bin, tmp_path):
    notebook(tmp_path / "bad.ipynb", 'printf("first\\n");', "int y = undeclared_x;",
             'printf("never\\n");')
    job = run_job(cluster, tmp_path, f"{gpuc_bin} run bad.ipynb -o bad.out.ipynb")
    assert cluster.wait(job, scaled(60)) == {str(job): "FAILED"}, cluster.logs()
    assert exit_code(cluster, job) == "1:0"
    nb = nbformat.read(tmp_path / "bad.out.ipynb", as_version=4)
    first, bad, never = code_cells(nb)
    assert stream_text(first) == "first\n"
    assert [e[0] for e in errors(nb)] == ["CompileError"]
    assert never.outputs == []


def start_slow_job(cluster, gpuc_bin, folder: Path, *sbatch_args: str) -> int:
    notebook(folder / "slow.ipynb", 'printf("first\\n");', SLOW, 'printf("never\\n");')
    job = run_job(cluster, folder, f"{gpuc_bin} run slow.ipynb -o slow.out.ipynb", *sbatch_args)
    deadline = time.monotonic() + scaled(60)
    while not (folder / "started").exists():
        assert time.monotonic() < deadline, f"the slow cell never started:\n{cluster.logs()}"
        assert not cluster.ended(job), (cluster.state(job), cluster.logs())
        time.sleep(0.1)
    return job


def check_stopped(folder: Path) -> None:
    """The slow job's notebook, as the SIGTERM that ended it left it."""
    nb = nbformat.read(folder / "slow.out.ipynb", as_version=4)
    nbformat.validate(nb)
    first, slow, never = code_cells(nb)
    assert stream_text(first) == "first\n"
    assert stream_text(slow) == "before the wait\n"
    assert [e[0] for e in errors(nb)] == ["Interrupted"], errors(nb)
    assert never.outputs == [] and never.execution_count is None
    log = "".join(p.read_text() for p in folder.glob("job-*.log"))
    assert "stopped by SIGTERM" in log and "wrote slow.out.ipynb" in log, log


def test_scancel_ends_the_job_with_the_notebook_written(cluster, gpuc_bin, tmp_path):
    job = start_slow_job(cluster, gpuc_bin, tmp_path)
    time.sleep(scaled(0.3))  # what the cell printed reaches gpuc run
    cluster.cmd("scancel", str(job))
    assert cluster.wait(job, scaled(60)) == {str(job): "CANCELLED"}, cluster.logs()
    check_stopped(tmp_path)


def test_a_job_time_limit_ends_the_job_with_the_notebook_written(cluster, gpuc_bin, tmp_path):
    """Slurm's limits are whole minutes, checked every 30 s: about 90 s."""
    job = start_slow_job(cluster, gpuc_bin, tmp_path, "--time=1")
    assert cluster.wait(job, scaled(240)) == {str(job): "TIMEOUT"}, cluster.logs()
    check_stopped(tmp_path)


def test_a_cell_time_limit_fails_the_job_with_the_notebook_written(cluster, gpuc_bin, tmp_path):
    notebook(tmp_path / "slow.ipynb", 'printf("first\\n");', SLOW, 'printf("never\\n");')
    job = run_job(cluster, tmp_path,
                  f"{gpuc_bin} run --timeout {scaled(3):g} slow.ipynb -o slow.out.ipynb")
    assert cluster.wait(job, scaled(60)) == {str(job): "FAILED"}, cluster.logs()
    assert exit_code(cluster, job) == "1:0"
    nb = nbformat.read(tmp_path / "slow.out.ipynb", as_version=4)
    first, slow, never = code_cells(nb)
    assert stream_text(first) == "first\n"
    assert stream_text(slow) == "before the wait\n"
    assert [e[0] for e in errors(nb)] == ["CellTimeoutError"]
    assert never.outputs == []


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two tasks at once need two CPUs")
def test_each_task_gets_its_own_gpu_from_the_scheduler(cluster, gpuc_bin, tmp_path):
    """--gres=gpu:1: Slurm names the task's GPU in CUDA_VISIBLE_DEVICES, which
    is what makes it gpu0 for the CUDA driver (docs/clusters.md; the device
    count itself is checked on a GPU machine). The two tasks run at once
    (each waits for the other), so each gets a different GPU of the node."""
    wait = (f'for (int i = 0; i < {round(scaled(60) * 10)} && (access("started-0", F_OK) || '
            'access("started-1", F_OK)); i++) usleep(100000);')
    notebook(tmp_path / "gpu.ipynb", "#include <stdlib.h>\n#include <unistd.h>\n"
             'char *mine = getenv("CUDA_VISIBLE_DEVICES");\n'
             "char name[32];\n"
             'snprintf(name, sizeof name, "started-%s", getenv("SLURM_ARRAY_TASK_ID"));\n'
             'fclose(fopen(name, "w"));\n' + wait, 'printf("%s\\n", mine);')
    job = run_job(cluster, tmp_path,
                  f"{gpuc_bin} run gpu.ipynb -o gpu-$SLURM_ARRAY_TASK_ID.ipynb",
                  "--array=0-1", "--gres=gpu:1")
    states = cluster.wait(job, scaled(120))
    assert sorted(states.values()) == ["COMPLETED"] * 2, (states, cluster.logs())
    seen = [stream_text(code_cells(nbformat.read(tmp_path / f"gpu-{t}.ipynb", as_version=4))[1])
            for t in (0, 1)]
    assert sorted(seen) == ["0\n", "1\n"]
