"""Enterprise Gateway 3.3 with remote gpuc kernels on this machine, for the
tests of tests/gateway/ (docs/gateway.md): a real sshd on a loopback
address, EG from its own venv (build/eg-venv, tests/requirements-gateway.txt)
with DistributedProcessProxy over that sshd, and the kernelspec of
deploy/enterprise-gateway/ pointed at the gpuc under test. Every file of
theirs is in one temporary folder; all processes are stopped after the
module.

The remote host is 127.0.0.2, not localhost: EG starts a kernel for a host
it counts as its own (127.0.0.1, the machine's addresses) with a local
Popen, without SSH. 127.0.0.2 is loopback too, but not in jupyter_client's
list of local addresses, so EG goes through SSH as for another machine.

Debian's openssh-server (scripts/setup-deps.sh installs it as root). The
tests are skipped, saying why, only when sshd cannot start here (not
installed, or refused to run as this user)."""
from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import subprocess
import uuid

import pytest

from gpuc_testing.gateway import (
    DEPLOY, REMOTE_HOST, SPEC_NAME, SSHD, Gateway, Sshd, eg_python, free_port, gpuc_processes,
    stop, wait_for_port,
)
from gpuc_testing.timing import scaled


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    if not os.access(SSHD, os.X_OK):
        pytest.skip("no sshd (Debian's openssh-server; scripts/setup-deps.sh installs it as root)")
    d = tmp_path_factory.mktemp("sshd")
    home = d / "home"
    (home / ".ssh").mkdir(parents=True, mode=0o700)
    keygen = ["ssh-keygen", "-q", "-t", "ed25519", "-N", ""]
    subprocess.run(keygen + ["-f", str(d / "host_key")], check=True, timeout=30)
    subprocess.run(keygen + ["-f", str(home / ".ssh" / "id_ed25519")], check=True, timeout=30)
    shutil.copy(home / ".ssh" / "id_ed25519.pub", d / "authorized_keys")
    port = free_port(REMOTE_HOST)
    host_pub = (d / "host_key.pub").read_text().split()
    (home / ".ssh" / "known_hosts").write_text(f"[{REMOTE_HOST}]:{port} {host_pub[0]} {host_pub[1]}\n")
    (d / "sshd_config").write_text(f"""\
ListenAddress {REMOTE_HOST}
Port {port}
HostKey {d}/host_key
AuthorizedKeysFile {d}/authorized_keys
PidFile {d}/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
""")
    if os.geteuid() == 0:
        # sshd's privilege separation folder, which systemd would make
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    log = d / "sshd.log"
    proc = subprocess.Popen([SSHD, "-D", "-f", str(d / "sshd_config"), "-E", str(log)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        if not wait_for_port(REMOTE_HOST, port, proc, scaled(10)):
            stop(proc)
            text = log.read_text() if log.exists() else ""
            pytest.skip(f"sshd cannot start here as {getpass.getuser()}: {text.strip()[-300:]}")
        yield Sshd(port=port, home=home, user=getpass.getuser())
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def gateway(sshd, gpuc_bin, tmp_path_factory):
    python = eg_python()
    if not python.exists():
        pytest.fail(f"no Enterprise Gateway venv at {python.parent.parent} (make venv makes it)")
    d = tmp_path_factory.mktemp("gateway")
    kernels = d / "share" / "jupyter" / "kernels"
    spec = json.loads((DEPLOY / "kernelspecs" / SPEC_NAME / "kernel.json").read_text())
    spec["argv"][0] = str(gpuc_bin)
    (kernels / SPEC_NAME).mkdir(parents=True)
    (kernels / SPEC_NAME / "kernel.json").write_text(json.dumps(spec, indent=1))
    (d / "runtime").mkdir()
    (d / "kernel-logs").mkdir()
    (d / "tmp").mkdir()
    marker = f"GPUC_TEST_GATEWAY={uuid.uuid4().hex}"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    env.update({
        "HOME": str(sshd.home),  # paramiko's key and known_hosts
        "JUPYTER_PATH": str(d / "share" / "jupyter"),
        "JUPYTER_DATA_DIR": str(d / "share" / "jupyter"),
        "JUPYTER_RUNTIME_DIR": str(d / "runtime"),
        "JUPYTER_CONFIG_DIR": str(d / "config"),
        "EG_REMOTE_HOSTS": REMOTE_HOST,
        "EG_SSH_PORT": str(sshd.port),
        "EG_REMOTE_USER": sshd.user,
        "EG_RESPONSE_IP": "127.0.0.1",
        "EG_RESPONSE_PORT": str(free_port()),
        # EG refuses kernels for root by default; CI runs the tests as root
        "EG_UNAUTHORIZED_USERS": "nobody",
        "EG_KERNEL_LOG_DIR": str(d / "kernel-logs"),
        "EG_KERNEL_LAUNCH_TIMEOUT": str(int(scaled(60))),
        "GPUC_LOG": "info",
        "TMPDIR": str(d / "tmp"),  # exported to the kernels: their connection files
        marker.split("=")[0]: marker.split("=")[1],
    })
    log = d / "gateway.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(python), "-m", "enterprise_gateway", "--ip=127.0.0.1", f"--port={port}",
             "--port_retries=0", "--EnterpriseGatewayApp.default_kernel_name=" + SPEC_NAME],
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=d, start_new_session=True)
    gw = Gateway(url=f"http://127.0.0.1:{port}", marker=marker, log=log,
                 kernel_logs=d / "kernel-logs")
    try:
        if not wait_for_port("127.0.0.1", port, proc, scaled(60)):
            pytest.fail(f"Enterprise Gateway did not start:\n{gw.tail()}")
        yield gw
    finally:
        os.killpg(proc.pid, signal.SIGTERM) if proc.poll() is None else None
        try:
            proc.wait(timeout=scaled(15))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pid in gpuc_processes(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
