"""Interactive notebooks on Slurm (docs/clusters.md): JupyterHub started from
deploy/jupyterhub/batchspawner_config.py runs a user's single-user server as
a Slurm job of the test's one-node cluster (batchspawner's SlurmSpawner); a
gpuc kernel starts in that job, cells run through the hub (REST API and
websocket), and stopping the server ends the job; a job ended by scancel
ends the server and its kernels (the hub polls every second here:
GPUC_HUB_POLL).

batchspawner submits as the user, who must be a real Unix account: as root
the test makes one (useradd) and removes it after; otherwise it is skipped.
The cluster and the user's kernelspec must be readable by that user, so the
kernelspec is installed into the hub's state folder."""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from gpuc_testing.hub import DEPLOY, login, start_hub, why_not
from gpuc_testing.timing import scaled


# before the cluster and the account are made for nothing
pytestmark = pytest.mark.skipif(why_not() is not None, reason=str(why_not()))


@pytest.fixture(scope="module")
def unix_user():
    if os.geteuid() != 0:
        pytest.skip("batchspawner needs a real Unix account per hub user: the test makes one as root")
    name = f"gpuc{uuid.uuid4().hex[:6]}"
    res = subprocess.run(["useradd", "--create-home", "--home-dir", f"/tmp/{name}",
                          "--shell", "/bin/bash", name], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"useradd: {res.stderr.strip()}")
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        subprocess.run(["userdel", "--remove", name], capture_output=True)


def reachable(user: str, path, test: str = "-r") -> bool:
    return subprocess.run(["runuser", "-u", user, "--", "test", test, str(path)]).returncode == 0


def node_python(user: str) -> dict:
    """The Python the job runs: the tests' own where the user may run it;
    else (a pyenv Python under /root, as on the dev machines and in CI)
    Debian's python3 of the same version with the tests' packages."""
    exe = os.path.realpath(sys.executable)
    if reachable(user, exe, "-x"):
        return {}
    debian = "/usr/bin/python3"
    version = subprocess.run([debian, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()
    if version != str(sys.version_info[:2]):
        pytest.skip(f"{exe} is out of {user}'s reach and {debian} is not Python "
                    f"{sys.version_info[0]}.{sys.version_info[1]}")
    packages = [p for p in sys.path if p.endswith("site-packages")]
    hidden = [p for p in packages if not reachable(user, p, "-r")]
    if hidden:
        pytest.skip(f"the tests' packages ({', '.join(hidden)}) are out of {user}'s reach")
    return {"GPUC_HUB_NODE_PYTHON": debian, "GPUC_HUB_NODE_PYTHONPATH": ":".join(packages)}


@pytest.fixture(scope="module")
def slurm_hub(cluster, unix_user, gpuc_bin):
    for path, test in ((gpuc_bin, "-x"), (Path(sys.executable).parent / "jupyterhub-singleuser", "-r")):
        if not reachable(unix_user.pw_name, path, test):
            pytest.skip(f"{path} is out of the test user's reach (a checkout in a private home?): "
                        "the job runs as that user")
    # the user's sbatch reaches munged and reads slurm.conf
    for d in (cluster.root, cluster.root / "munge"):
        d.chmod(0o755)
    prefix = Path(tempfile.mkdtemp(prefix="gpuc-spec-"))
    prefix.chmod(0o755)
    subprocess.run([str(gpuc_bin), "install", "--prefix", str(prefix)], check=True,
                   capture_output=True, timeout=30)
    hub = start_hub(DEPLOY / "batchspawner_config.py", GPUC_HUB_CONNECT_IP="127.0.0.1",
                    SLURM_CONF=cluster.env["SLURM_CONF"], GPUC_HUB_POLL=1,
                    JUPYTER_PATH=prefix / "share" / "jupyter",
                    **node_python(unix_user.pw_name))
    yield hub
    hub.stop()
    shutil.rmtree(prefix, ignore_errors=True)


def jobs_of(cluster, user: str) -> list[tuple[str, str, str]]:
    """(job id, name, state) of the user's jobs that squeue still lists as not ended."""
    out = cluster.cmd("squeue", "-h", "-u", user, "-o", "%i %j %T", check=False)
    return [tuple(line.split()) for line in out.splitlines() if line.strip()]


def user_processes(name: str, pattern: str) -> list[str]:
    return subprocess.run(["pgrep", "-u", name, "-f", pattern], capture_output=True,
                          text=True).stdout.split()


def test_a_gpuc_kernel_runs_in_the_users_slurm_job(cluster, slurm_hub, unix_user):
    name = unix_user.pw_name
    user = login(slurm_hub, name)
    try:
        took = user.start_server(timeout=scaled(120))
    except AssertionError as e:
        logs = "\n".join(f"--- {p}:\n{p.read_text(errors='replace')[-3000:]}"
                         for p in Path(unix_user.pw_dir).glob("jupyterhub_slurmspawner_*.log"))
        raise AssertionError(f"{e}\n{logs}\n{cluster.logs()}") from None
    jobs = jobs_of(cluster, name)
    assert len(jobs) == 1 and jobs[0][1] == "spawner-jupyterhub" and jobs[0][2] == "RUNNING", \
        (jobs, slurm_hub.logs())
    job = jobs[0][0]
    print(f"server started as Slurm job {job} in {took:.2f} s")

    kid = user.start_kernel("gpuc")
    ws = user.connect(kid)
    try:
        ws.wait_ready()
        r = ws.execute_ok('#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n'
                          'printf("%s %s %d\\n", getenv("SLURM_JOB_ID"), getenv("USER"), '
                          '(int)(getuid() != 0));')
        assert r.stream() == f"{job} {name} 1\n", r.describe()
        ws.execute_ok("int kept = 6;")
        assert ws.execute("int *p = 0; *p = 1;").ename == "SegmentationFault"
        assert ws.execute_ok("kept * 7").result == "42"
        interrupt = lambda: user.server_api("POST", f"/kernels/{kid}/interrupt")  # noqa: E731
        assert ws.execute("while (1) {}", actions=[(1.0, interrupt)],
                          timeout=scaled(30)).ename == "Interrupted"
        # the kernel is a process of the job, run as the user
        assert user_processes(name, "gpuc kernel"), "no gpuc kernel of the user"
    finally:
        ws.close()

    user.stop_server()
    deadline = time.monotonic() + scaled(60)
    while jobs_of(cluster, name) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not jobs_of(cluster, name), (jobs_of(cluster, name), slurm_hub.logs())
    state = dict(cluster.state(int(job))).get(job)
    assert state in (None, "CANCELLED", "COMPLETED"), state
    deadline = time.monotonic() + scaled(30)
    while user_processes(name, "gpuc"):
        assert time.monotonic() < deadline, "the user's gpuc processes outlived the job"
        time.sleep(0.5)


def test_scancel_ends_the_server_and_its_kernel(cluster, slurm_hub, unix_user):
    name = unix_user.pw_name
    user = login(slurm_hub, name)
    user.start_server(timeout=scaled(120))
    [(job, _, _)] = jobs_of(cluster, name)
    kid = user.start_kernel("gpuc")
    ws = user.connect(kid)
    ws.wait_ready()
    assert ws.execute_ok("40 + 2").result == "42"
    assert user_processes(name, "gpuc kernel")
    cluster.cmd("scancel", job)
    deadline = time.monotonic() + scaled(60)
    while user_processes(name, "gpuc") or user.server_running():
        assert time.monotonic() < deadline, (user_processes(name, "gpuc"), slurm_hub.logs())
        time.sleep(0.5)
    ws.close()
    assert dict(cluster.state(int(job))).get(job) in (None, "CANCELLED")
