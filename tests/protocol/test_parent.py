"""The parent-process watch (kernel/jk_parent.h), as ipykernel's: the kernel
follows the process that started it only when asked (JPY_PARENT_PID, which
jupyter_client sets, or --parent PID), so `nohup gpuc kernel ... &` from a
shell that exits -- what Enterprise Gateway runs over SSH -- keeps serving."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file

from gpuc_testing.kernel import (
    TIMEOUT, alive, children, descendants, execute_ok, scaled, value_of, wait_gone,
)

# A Python parent that starts the kernel and waits for it; argv[1] says how
# the kernel is told to watch it: "env" (JPY_PARENT_PID), "flag" (--parent).
WRAPPER = """
import os, subprocess, sys
how, cmd = sys.argv[1], sys.argv[2:]
env = dict(os.environ)
if how == "env":
    env["JPY_PARENT_PID"] = str(os.getpid())
elif how == "flag":
    cmd += ["--parent", str(os.getpid())]
subprocess.Popen(cmd, env=env).wait()
"""


def connection_file(tmp_path):
    conn = tmp_path / "kernel.json"
    write_connection_file(str(conn), ip="127.0.0.1", key=uuid.uuid4().hex.encode(),
                          signature_scheme="hmac-sha256")
    return conn


def client(conn) -> BlockingKernelClient:
    kc = BlockingKernelClient(connection_file=str(conn))
    kc.load_connection_file()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    return kc


def kill_all(pids):
    for p in pids:
        if alive(p):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def clean_env() -> dict:
    env = dict(os.environ)
    env.pop("JPY_PARENT_PID", None)
    return env


@pytest.mark.parametrize("how", ["env", "flag"])
def test_kernel_exits_when_watched_parent_dies(gpuc_bin, tmp_path, how):
    conn = connection_file(tmp_path)
    wrapper = subprocess.Popen([sys.executable, "-c", WRAPPER, how,
                                str(gpuc_bin), "kernel", "-f", str(conn)], env=clean_env())
    tree = []
    kc = None
    try:
        kc = client(conn)
        tree = children(wrapper.pid)  # for the clean-up, should the test fail
        execute_ok(kc, "int w = 1;")
        kernels = children(wrapper.pid)
        assert len(kernels) == 1
        tree = kernels + descendants(kernels[0])
        assert len(tree) >= 2, "no executor under the kernel"
        wrapper.send_signal(signal.SIGKILL)
        wrapper.wait(timeout=scaled(5))
        left = wait_gone(tree, scaled(2))
        assert left == [], f"processes outlived their watched parent: {left}"
    finally:
        if kc:
            kc.stop_channels()
        if wrapper.poll() is None:
            wrapper.kill()
            wrapper.wait()
        kill_all(tree)


def test_nohup_launch_outlives_its_shell(gpuc_bin, tmp_path):
    """EG's DistributedProcessProxy runs `nohup KERNEL >> LOG 2>&1 & echo $!`
    over SSH. The shell lives on a second here (a slow SSH session), so the
    kernel has started under it; when it exits, the kernel keeps serving."""
    conn = connection_file(tmp_path)
    log = tmp_path / "kernel.log"
    shell = subprocess.run(
        ["sh", "-c", f"nohup '{gpuc_bin}' kernel -f '{conn}' >> '{log}' 2>&1 & echo $!; sleep 1"],
        capture_output=True, text=True, timeout=30, env=clean_env())
    pid = int(shell.stdout.split()[-1])
    tree = [pid]
    kc = None
    try:
        kc = client(conn)
        tree = [pid] + descendants(pid)
        execute_ok(kc, "int kept = 41;")
        time.sleep(scaled(1.5))  # three of the shell loop's parent checks
        assert alive(pid), f"the kernel died with its shell:\n{log.read_text()}"
        assert value_of(kc, "kept + 1") == "42"
        assert "parent process" not in log.read_text()
        os.kill(pid, signal.SIGHUP)  # a hang-up under nohup is ignored
        assert value_of(kc, "kept") == "41"
        kc.shutdown()
        assert wait_gone(tree, scaled(3)) == [], "the kernel did not stop on shutdown_request"
    finally:
        if kc:
            kc.stop_channels()
        kill_all(tree)


def test_jpy_parent_pid_of_another_process(gpuc_bin, tmp_path):
    """A JPY_PARENT_PID that is not the kernel's parent (a wrapper script
    between Jupyter and the kernel) is watched for its existence."""
    conn = connection_file(tmp_path)
    watched = subprocess.Popen(["sleep", "600"])
    env = dict(clean_env(), JPY_PARENT_PID=str(watched.pid))
    kernel = subprocess.Popen([str(gpuc_bin), "kernel", "-f", str(conn)], env=env)
    tree = [kernel.pid]
    kc = None
    try:
        kc = client(conn)
        tree = [kernel.pid] + descendants(kernel.pid)
        assert value_of(kc, "6 * 7") == "42"
        watched.kill()
        watched.wait()
        kernel.wait(timeout=scaled(3))
        assert wait_gone(tree, scaled(2)) == [], "the executor outlived the kernel"
    finally:
        if kc:
            kc.stop_channels()
        if kernel.poll() is None:
            kernel.kill()
            kernel.wait()
        if watched.poll() is None:
            watched.kill()
        kill_all(tree)


def test_hangup_without_nohup_ends_the_kernel(gpuc_bin, tmp_path):
    conn = connection_file(tmp_path)
    kernel = subprocess.Popen([str(gpuc_bin), "kernel", "-f", str(conn)], env=clean_env())
    kc = None
    try:
        kc = client(conn)
        tree = [kernel.pid] + descendants(kernel.pid)
        kernel.send_signal(signal.SIGHUP)
        assert kernel.wait(timeout=scaled(5)) == 0
        assert wait_gone(tree, scaled(2)) == []
    finally:
        if kc:
            kc.stop_channels()
        if kernel.poll() is None:
            kernel.kill()
            kernel.wait()
