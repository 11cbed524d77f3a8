"""Limits per kernel (docs/hosting.md): the operator sets GPUC_LIMIT_* in a
kernelspec's "env", as a hosted service would, and the real kernel started
from that kernelspec by jupyter_client keeps to them: the cells' memory, the
array pools, the output's volume and rate, the time per cell; %limits shows
them and the session survives each."""
import json
import shutil
import subprocess
import time

import pytest

from gpuc_testing.kernel import TIMEOUT, collect, execute, execute_ok, scaled, start_kernel, stop_kernel

LIMITS = {
    "GPUC_LIMIT_MEMORY": "512MiB",  # CUDA's libraries take ~200 MB of it as they load
    "GPUC_LIMIT_GPU_MEMORY": "64MB",
    "GPUC_LIMIT_OUTPUT": "1MiB",
    "GPUC_LIMIT_CELL_TIME": "3",
}
RATE = {"GPUC_LIMIT_OUTPUT_RATE": "100kB"}


def limited_spec(kernelspecs, name: str, env: dict) -> str:
    """A copy of the installed gpuc kernelspec with env, as an operator writes it."""
    src = kernelspecs["dir"]
    dst = src.parent / name
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    spec = dict(kernelspecs["spec"], env=env, display_name=f"gpuc ({name})")
    (dst / "kernel.json").write_text(json.dumps(spec, indent=1))
    return name


@pytest.fixture(scope="module")
def limited(kernelspecs):
    km, kc = start_kernel(limited_spec(kernelspecs, "gpuc-limited", LIMITS))
    yield km, kc
    stop_kernel(km, kc)
    shutil.rmtree(kernelspecs["dir"].parent / "gpuc-limited")


@pytest.fixture
def rate_limited(kernelspecs):
    km, kc = start_kernel(limited_spec(kernelspecs, "gpuc-rate", RATE))
    yield km, kc
    stop_kernel(km, kc)
    shutil.rmtree(kernelspecs["dir"].parent / "gpuc-rate")


def test_limits_magic_shows_what_the_operator_set(limited):
    out = execute_ok(limited[1], "%limits").stream()
    rows = {}
    for line in out.splitlines():
        var = next((w for w in line.split() if w.startswith("GPUC_LIMIT_")), None)
        if var:
            rows[var] = line.split(var, 1)[1].strip()
    assert len(rows) == 5, out
    print(out)
    assert rows["GPUC_LIMIT_MEMORY"] == "512.00 MiB (536870912 bytes)", out
    assert rows["GPUC_LIMIT_GPU_MEMORY"] == "61.04 MiB (64000000 bytes)", out
    assert rows["GPUC_LIMIT_OUTPUT"] == "1.00 MiB (1048576 bytes)", out
    assert rows["GPUC_LIMIT_OUTPUT_RATE"] == "none", out
    assert rows["GPUC_LIMIT_CELL_TIME"] == "3 s", out


def test_memory_past_the_limit_is_refused_and_the_session_kept(limited):
    kc = limited[1]
    execute_ok(kc, "#include <stdlib.h>\n#include <string.h>\nint kept = 42;")
    # within the limit: 100 MB, every page touched
    assert execute_ok(kc, "char *small = malloc(100 << 20); memset(small, 1, 100 << 20);"
                          "(int)small[12345]").result == "1"
    # past it: malloc says no, as C does
    assert execute_ok(kc, 'malloc((size_t)1 << 30) == NULL').result == "1"
    # a cell that uses what it did not get: a clear error naming the limit
    run = execute(kc, "size_t n = (size_t)1 << 30; char *big = malloc(n); memset(big, 1, n);")
    assert run.ename == "SegmentationFault", run.describe()
    assert "memory limit" in run.content["evalue"] and "%limits" in run.content["evalue"], run.describe()
    assert execute_ok(kc, "kept + (int)small[0]").result == "43"


def test_array_pool_limit_is_the_default_and_a_ceiling(limited):
    kc = limited[1]
    run = execute(kc, "ga_t too_big = ga_zeros(F32, 100000000);")  # 400 MB
    assert run.status == "error", run.describe()
    assert "the pool's limit is 61.04 MiB" in run.content["evalue"], run.describe()
    assert execute_ok(kc, "ga_t fits = ga_ones(F32, 1000000); ga_sum(fits)").result == "1000000"
    run = execute(kc, "%memory limit none")
    assert run.ename == "LimitError" and "GPUC_LIMIT_GPU_MEMORY" in run.content["evalue"], run.describe()
    assert execute(kc, "%memory limit 1GB").ename == "LimitError"
    assert "holds at most 30.52 MiB" in execute_ok(kc, "%memory limit 32MB").stream()
    assert execute(kc, "ga_t now_too_big = ga_zeros(F32, 10000000);").status == "error"


def test_a_gigabyte_of_output_reaches_the_client_as_the_volume_limit(limited):
    kc = limited[1]
    started = time.monotonic()
    run = execute(kc, "#include <stdio.h>\n#include <string.h>\n"
                      "static char block[1 << 20]; memset(block, 'x', sizeof block);\n"
                      "for (int i = 0; i < 1024; i++) fwrite(block, 1, sizeof block, stdout);\n"
                      'printf("done\\n");', timeout=scaled(120))
    assert run.status == "ok", run.describe()
    out, err = run.stream("stdout"), run.stream("stderr")
    assert 2**20 - 65536 <= len(out) <= 2**20, len(out)
    assert "done" not in out
    assert err.count("[gpuc]") == 1 and "passed 1 MB (GPUC_LIMIT_OUTPUT)" in err, err
    print(f"1 GiB printed, {len(out)} bytes delivered in {time.monotonic() - started:.1f} s")
    assert execute_ok(kc, 'printf("after\\n");').stream() == "after\n"


def test_a_cell_past_its_time_is_stopped_with_a_clear_error(limited):
    kc = limited[1]
    execute_ok(kc, "int before = 7;")
    assert execute_ok(kc, "#include <unistd.h>\nsleep(1); before").result == "7"
    started = time.monotonic()
    run = execute(kc, "while (1) {}", timeout=scaled(30))
    took = time.monotonic() - started
    assert run.ename == "CellTimeoutError", run.describe()
    assert "time limit of 3 s (GPUC_LIMIT_CELL_TIME)" in run.content["evalue"], run.describe()
    assert 2.9 <= took < scaled(10), took
    assert execute_ok(kc, "before * 6").result == "42"


def test_time_waiting_for_input_is_not_the_cells(limited):
    kc = limited[1]
    sent = time.monotonic()
    msg_id = kc.execute('#include <stdio.h>\nint typed = 0;\nscanf("%d", &typed);\n'
                        'printf("twice %d\\n", 2 * typed);', allow_stdin=True)
    msg = kc.stdin_channel.get_msg(timeout=TIMEOUT)
    assert msg["msg_type"] == "input_request"
    time.sleep(4)  # a person typing, past the 3 s limit
    kc.input("21")
    run = collect(kc, msg_id, sent=sent)
    assert run.status == "ok" and run.stream() == "twice 42\n", run.describe()


def test_output_faster_than_the_rate_is_dropped_with_one_notice(rate_limited):
    kc = rate_limited[1]
    # 20 kB every 10 ms for 2 s: 2 MB/s against a limit of 100 kB/s
    run = execute(kc, "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n"
                      "static char line[20001]; memset(line, 'r', 20000);\n"
                      "for (int i = 0; i < 200; i++) { fputs(line, stdout); fflush(stdout); "
                      "usleep(10000); }\n"
                      'printf("\\nlast\\n");', timeout=scaled(60))
    assert run.status == "ok", run.describe()
    out, err = run.stream("stdout"), run.stream("stderr")
    assert 100_000 <= out.count("r") <= 400_000, out.count("r")  # 2-3 one-second windows
    assert err.count("[gpuc]") == 1 and "faster than 100000 bytes/s" in err, err
    # slower output, in a later cell, gets through whole
    slow = execute_ok(kc, 'for (int i = 0; i < 5; i++) { printf("%d\\n", i); usleep(100000); }')
    assert slow.stream() == "0\n1\n2\n3\n4\n" and not slow.stream("stderr")


def test_gpuc_run_takes_the_time_limit_from_the_environment(gpuc_bin, tmp_path):
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
          "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "outputs": [],
                     "execution_count": None, "source": src}
                    for i, src in enumerate(['printf("first\\n");', "while (1) {}"])]}
    path = tmp_path / "spin.ipynb"
    path.write_text(json.dumps(nb))
    env = {**__import__("os").environ, "GPUC_LIMIT_CELL_TIME": "1.5"}
    started = time.monotonic()
    res = subprocess.run([str(gpuc_bin), "run", str(path), "-o", str(tmp_path / "out.ipynb")],
                         env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert res.returncode != 0 and time.monotonic() - started < scaled(20), res.stderr
    out = json.loads((tmp_path / "out.ipynb").read_text())
    assert out["cells"][0]["outputs"][0]["text"] == "first\n"
    err = out["cells"][1]["outputs"][-1]
    assert err["ename"] == "CellTimeoutError" and "1.5 seconds" in err["evalue"], err


def test_a_limit_that_is_not_a_size_is_an_error_not_no_limit(kernelspecs):
    km, kc = start_kernel(limited_spec(kernelspecs, "gpuc-typo", {"GPUC_LIMIT_MEMORY": "4X"}))
    try:
        run = execute(kc, "1 + 1")
        assert run.ename == "ExecutorDied", run.describe()
        assert "GPUC_LIMIT_MEMORY='4X' is not a size" in run.content["evalue"], run.describe()
        assert "there is no session" in run.content["evalue"], run.describe()
    finally:
        stop_kernel(km, kc)
        shutil.rmtree(kernelspecs["dir"].parent / "gpuc-typo")
