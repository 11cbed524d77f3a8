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


class Started:
    """A kernel a test starts on its own connection file (conn), and what
    the test's end cleans up, passed or failed: the client's channels, the
    processes started by popen (killed if still running) and those in tree
    (the kernel and its executor, as the test found them)."""

    def __init__(self, tmp_path):
        self.conn = connection_file(tmp_path)
        self.procs: list[subprocess.Popen] = []
        self.tree: list[int] = []
        self.kc: BlockingKernelClient | None = None

    def popen(self, cmd, **kwargs) -> subprocess.Popen:
        proc = subprocess.Popen(cmd, **kwargs)
        self.procs.append(proc)
        return proc

    def connect(self) -> BlockingKernelClient:
        self.kc = client(self.conn)
        return self.kc

    def clean_up(self):
        if self.kc:
            self.kc.stop_channels()
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        kill_all(self.tree)


@pytest.fixture
def started(tmp_path):
    s = Started(tmp_path)
    yield s
    s.clean_up()


@pytest.mark.parametrize("how", ["env", "flag"])
def test_kernel_exits_when_watched_parent_dies(gpuc_bin, started, how):
    wrapper = started.popen([sys.executable, "-c", WRAPPER, how,
                             str(gpuc_bin), "kernel", "-f", str(started.conn)], env=clean_env())
    kc = started.connect()
    started.tree = children(wrapper.pid)  # for the clean-up, should the test fail
    execute_ok(kc, "int w = 1;")
    kernels = children(wrapper.pid)
    assert len(kernels) == 1
    started.tree = tree = kernels + descendants(kernels[0])
    assert len(tree) >= 2, "no executor under the kernel"
    wrapper.send_signal(signal.SIGKILL)
    wrapper.wait(timeout=scaled(5))
    left = wait_gone(tree, scaled(2))
    assert left == [], f"processes outlived their watched parent: {left}"


def test_nohup_launch_outlives_its_shell(gpuc_bin, tmp_path, started):
    """EG's DistributedProcessProxy runs `nohup KERNEL >> LOG 2>&1 & echo $!`
    over SSH. The shell lives on a second here (a slow SSH session), so the
    kernel has started under it; when it exits, the kernel keeps serving."""
    log = tmp_path / "kernel.log"
    shell = subprocess.run(
        ["sh", "-c", f"nohup '{gpuc_bin}' kernel -f '{started.conn}' >> '{log}' 2>&1 & echo $!; "
         "sleep 1"], capture_output=True, text=True, timeout=30, env=clean_env())
    pid = int(shell.stdout.split()[-1])
    started.tree = [pid]
    kc = started.connect()
    started.tree = tree = [pid] + descendants(pid)
    execute_ok(kc, "int kept = 41;")
    time.sleep(scaled(1.5))  # three of the shell loop's parent checks
    assert alive(pid), f"the kernel died with its shell:\n{log.read_text()}"
    assert value_of(kc, "kept + 1") == "42"
    assert "parent process" not in log.read_text()
    os.kill(pid, signal.SIGHUP)  # a hang-up under nohup is ignored
    assert value_of(kc, "kept") == "41"
    kc.shutdown()
    assert wait_gone(tree, scaled(3)) == [], "the kernel did not stop on shutdown_request"


def test_jpy_parent_pid_of_another_process(gpuc_bin, started):
    """A JPY_PARENT_PID that is not the kernel's parent (a wrapper script
    between Jupyter and the kernel) is watched for its existence."""
    watched = started.popen(["sleep", "600"])
    env = dict(clean_env(), JPY_PARENT_PID=str(watched.pid))
    kernel = started.popen([str(gpuc_bin), "kernel", "-f", str(started.conn)], env=env)
    started.tree = [kernel.pid]
    kc = started.connect()
    started.tree = tree = [kernel.pid] + descendants(kernel.pid)
    assert value_of(kc, "6 * 7") == "42"
    watched.kill()
    watched.wait()
    kernel.wait(timeout=scaled(3))
    assert wait_gone(tree, scaled(2)) == [], "the executor outlived the kernel"


def test_hangup_without_nohup_ends_the_kernel(gpuc_bin, started):
    kernel = started.popen([str(gpuc_bin), "kernel", "-f", str(started.conn)], env=clean_env())
    kc = started.connect()
    started.tree = tree = [kernel.pid] + descendants(kernel.pid)
    kernel.send_signal(signal.SIGHUP)
    assert kernel.wait(timeout=scaled(5)) == 0
    assert wait_gone(tree, scaled(2)) == []
