"""`gpuc kernel --RemoteProcessProxy.*` against Enterprise Gateway's own
response listener (eg_listen.py, in EG's venv), without SSH: the ports it
reports are in the range asked for and serve the session, and its
communication port does what EG's launchers do with each request
(kernel/jk_gateway.h)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import uuid

import pytest
from jupyter_client import BlockingKernelClient

from gpuc_testing.gateway import closed_port, eg_python, public_key
from gpuc_testing.kernel import TIMEOUT, alive, execute, kernel_pid, scaled, value_of, wait_gone

HELPER = os.path.join(os.path.dirname(__file__), "eg_listen.py")
EG_ARGS = ["--RemoteProcessProxy.kernel-id", "{kernel_id}",
           "--RemoteProcessProxy.response-address", "{response_address}",
           "--RemoteProcessProxy.public-key", "{public_key}"]


def launch(gpuc_bin, *extra, env=None) -> tuple[dict, int, int | None]:
    python = eg_python()
    if not python.exists():
        pytest.fail(f"no Enterprise Gateway venv at {python.parent.parent} (make venv makes it)")
    proc = subprocess.run([str(python), HELPER, str(uuid.uuid4()), str(scaled(30)),
                           str(gpuc_bin), "kernel", *EG_ARGS, *extra],
                          capture_output=True, text=True, timeout=scaled(90), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out["info"], out["pid"], out["exit"]


def comm_request(info: dict, request: dict) -> None:
    with socket.create_connection(("127.0.0.1", info["comm_port"]), timeout=5) as s:
        s.sendall(json.dumps(request).encode())


def client(info: dict) -> BlockingKernelClient:
    kc = BlockingKernelClient()
    kc.load_connection_info(dict(info, ip="127.0.0.1"))
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    return kc


@pytest.fixture
def remote(gpuc_bin, tmp_path):
    """A gpuc started as EG starts it, with ports in 42000..43999 and its
    connection file in tmp_path."""
    info, pid, code = launch(gpuc_bin, "--RemoteProcessProxy.port-range", "42000..43999",
                             "--RemoteProcessProxy.spark-context-initialization-mode", "none",
                             env=dict(os.environ, TMPDIR=str(tmp_path)))
    assert info is not None, f"no connection information came (kernel exit {code})"
    kc = client(info)
    yield info, pid, kc
    kc.stop_channels()
    if alive(pid):
        os.kill(pid, signal.SIGTERM)
        if wait_gone([pid], scaled(5)):
            os.kill(pid, signal.SIGKILL)
    assert not list(tmp_path.glob("kernel-*.json")), "the connection file was left behind"


def test_reported_ports_are_in_the_range_and_serve(remote):
    info, pid, kc = remote
    ports = [info[k] for k in ("shell_port", "iopub_port", "stdin_port", "hb_port",
                               "control_port", "comm_port")]
    assert all(42000 <= p <= 43999 for p in ports), ports
    assert len(set(ports)) == 6, ports
    assert info["pid"] == pid and info["pgid"] == os.getpgid(pid)
    assert value_of(kc, "6 * 7") == "42"


def test_comm_port_signals_and_shutdown(remote):
    info, pid, kc = remote
    comm_request(info, {"signum": 0})  # EG's liveness poll: nothing happens
    assert value_of(kc, "1 + 1") == "2"
    msg_id = kc.execute("while (1) {}")
    time.sleep(scaled(1))
    comm_request(info, {"signum": int(signal.SIGINT)})
    reply = kc.get_shell_msg(timeout=scaled(10))
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["ename"] == "Interrupted"
    comm_request(info, {"shutdown": 1})  # the listener stops; the kernel serves on
    time.sleep(scaled(0.5))
    with pytest.raises(ConnectionRefusedError):
        comm_request(info, {"signum": 0})
    assert value_of(kc, "3 + 4") == "7"
    os.kill(pid, signal.SIGTERM)
    assert wait_gone([pid], scaled(5)) == []


def test_sigterm_through_the_comm_port_ends_the_kernel(remote):
    info, pid, kc = remote
    run = execute(kc, "int x = 1;")
    assert run.status == "ok"
    comm_request(info, {"signum": int(signal.SIGTERM)})
    assert wait_gone([pid], scaled(5)) == [], "the kernel did not stop on SIGTERM"


@pytest.mark.parametrize("args, message", [
    (["--RemoteProcessProxy.port-range", "5000..5100"], "at least 1000 ports"),
    (["--RemoteProcessProxy.port-range", "lots"], "is not LOW..HIGH"),
    (["--RemoteProcessProxy.kernel-id"], "needs a value"),
    (["--RemoteProcessProxy.response-address="], "needs --RemoteProcessProxy.kernel-id, "
     "--RemoteProcessProxy.response-address and --RemoteProcessProxy.public-key"),
])
def test_bad_launch_arguments_are_named(gpuc_bin, args, message):
    proc = subprocess.run([str(gpuc_bin), "kernel", "--RemoteProcessProxy.kernel-id", "k",
                           "--RemoteProcessProxy.public-key", "AAAA",
                           "--RemoteProcessProxy.response-address", "127.0.0.1:1", *args],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode in (1, 2), proc
    assert message in proc.stderr, proc.stderr


@pytest.mark.parametrize("case", ["unreachable", "bad key"])
def test_failed_report_ends_the_launch(gpuc_bin, tmp_path, case):
    """A gateway that cannot be told, or a key that cannot seal, ends the
    launch at once with the reason, instead of leaving a kernel nobody will
    connect to (or its connection file)."""
    port = closed_port()
    key = public_key(tmp_path) if case == "unreachable" else "not base64!"
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    proc = subprocess.run([str(gpuc_bin), "kernel", "--RemoteProcessProxy.kernel-id", "k",
                           "--RemoteProcessProxy.public-key", key,
                           "--RemoteProcessProxy.response-address", f"127.0.0.1:{port}"],
                          capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, TMPDIR=str(run_dir)))
    assert proc.returncode == 1
    expected = {"unreachable": f"cannot send the connection information to 127.0.0.1:{port}",
                "bad key": "the gateway's public key is not base64"}[case]
    assert expected in proc.stderr, proc.stderr
    assert list(run_dir.iterdir()) == [], "the connection file was left behind"


def mapped(pid: int, name: str) -> bool:
    with open(f"/proc/{pid}/maps") as f:
        return any(name in line for line in f)


def test_libcrypto_is_loaded_only_for_the_gateway(kernel, remote):
    """A kernel Jupyter starts never loads libcrypto (a node without libssl3
    runs gpuc as before); one the gateway starts has it mapped."""
    km, kc = kernel
    assert value_of(kc, "1") == "1"
    assert not mapped(kernel_pid(km), "libcrypto.so"), "a plain kernel loaded libcrypto"
    info, pid, _ = remote
    assert mapped(pid, "libcrypto.so.3")
