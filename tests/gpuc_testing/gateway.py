"""Helpers for the Enterprise Gateway tests of tests/gateway/ (whose
conftest.py starts the sshd and the gateway): where things are, and the
processes a test run's remote kernels leave."""
from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from gpuc_testing.timing import scaled

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "enterprise-gateway"
SSHD = "/usr/sbin/sshd"
REMOTE_HOST = "127.0.0.2"
SPEC_NAME = "gpuc_distributed"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_for_port(host: str, port: int, proc: subprocess.Popen, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def stop(proc: subprocess.Popen | None, timeout: float = 10) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def eg_python() -> Path:
    venv = Path(os.environ.get("GPUC_EG_VENV", ROOT / "build" / "eg-venv"))
    return venv / "bin" / "python"


@dataclass
class Sshd:
    port: int
    home: Path  # HOME for the gateway: .ssh/ holds its key and known_hosts
    user: str


def gpuc_processes(marker: str) -> list[int]:
    """The pids of processes whose environment holds marker (the gateway
    exports its environment into each remote kernel's command)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            pass
    return pids


@dataclass
class Gateway:
    url: str
    marker: str          # in every kernel's environment (GPUC_TEST_GATEWAY)
    log: Path            # the gateway's own log
    kernel_logs: Path    # EG_KERNEL_LOG_DIR: kernel-ID.log per kernel

    def api(self, method: str, path: str, **kw) -> requests.Response:
        return requests.request(method, self.url + path, timeout=scaled(60), **kw)

    def kernel_log(self, kernel_id: str) -> str:
        p = self.kernel_logs / f"kernel-{kernel_id}.log"
        return p.read_text() if p.exists() else "(no kernel log)"

    def tail(self) -> str:
        return self.log.read_text()[-3000:] if self.log.exists() else ""


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def public_key(tmp_path) -> str:
    """An RSA public key as EG passes it: the PEM body of its
    SubjectPublicKeyInfo, without the BEGIN/END lines and newlines."""
    subprocess.run(["ssh-keygen", "-q", "-t", "rsa", "-b", "1024", "-N", "", "-f",
                    str(tmp_path / "rsa")], check=True, timeout=30)
    pem = subprocess.run(["ssh-keygen", "-e", "-m", "PKCS8", "-f", str(tmp_path / "rsa.pub")],
                         check=True, capture_output=True, text=True, timeout=30).stdout
    return "".join(line for line in pem.splitlines() if not line.startswith("-----"))
