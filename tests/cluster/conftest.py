"""A one-node Slurm cluster on localhost for the tests of tests/cluster/
(docs/clusters.md): munged with a key made for the run, slurmctld and
slurmd with a slurm.conf written for the run, every file of theirs in one
temporary folder, all stopped and removed after the module.

Debian's slurm-wlm and munge (scripts/setup-deps.sh installs them when run
as root); without them, or not as root (the daemons run as root, as the
jobs do), the tests are skipped saying why. The node has two GPUs as a
generic resource (GRES), backed by stand-in device files. The configuration runs in a
container without systemd or a writable cgroup tree: processes tracked
through /proc (proctrack/linuxproc), no task binding (task/none), no
accounting, and auth/munge through the run's own socket."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gpuc_testing.timing import scaled

DAEMONS = ("munged", "slurmctld", "slurmd")
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
         "BOOT_FAIL", "DEADLINE"}  # the states of a job that has ended
KILL_WAIT = 5  # s: Slurm's KillWait, between a job's SIGTERM and its SIGKILL

# The node's GRES: two "GPUs" whose device files are stand-ins (with
# task/none Slurm constrains no device; it gives each job its GPUs' indices
# in CUDA_VISIBLE_DEVICES), so that a test can see the scheduler hand each
# job its own GPU where there is none.
GPUS = 2
GRES_CONF = "".join(f"Name=gpu File={f}\n" for f in ("/dev/null", "/dev/zero"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(d: Path, host: str, cpus: int) -> str:
    return f"""\
ClusterName=gpuctest
GresTypes=gpu
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge/munge.socket
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
KillWait={KILL_WAIT}
OverTimeLimit=0
MinJobAge=600
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} Gres=gpu:{GPUS} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


@dataclass
class Cluster:
    """The running cluster: env has SLURM_CONF for sbatch, squeue, scancel."""
    root: Path
    env: dict = field(default_factory=dict)
    procs: list = field(default_factory=list)

    def cmd(self, *args, check=True, timeout=None) -> str:
        res = subprocess.run(list(args), env=self.env, capture_output=True, text=True,
                             timeout=timeout or scaled(30))
        if check and res.returncode != 0:
            raise AssertionError(f"{' '.join(args)}: {res.returncode}\n{res.stderr}")
        return res.stdout

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}:\n{p.read_text(errors='replace')[-4000:]}"
                         for p in sorted(self.root.glob("*.log")))

    def sbatch(self, *args, cwd: Path) -> int:
        out = subprocess.run(["sbatch", "--parsable", *args], env=self.env, cwd=cwd,
                             capture_output=True, text=True, timeout=scaled(30))
        assert out.returncode == 0, f"sbatch: {out.stderr}\n{self.logs()}"
        return int(out.stdout.strip().split(";")[0])

    def state(self, job: int) -> list[tuple[str, str]]:
        """(job id, state) of the job, or of each task of an array; [] once
        slurmctld forgot it (MinJobAge keeps finished jobs 10 minutes)."""
        out = self.cmd("squeue", "-h", "-t", "all", "-j", str(job), "-o", "%i %T", check=False)
        return [tuple(line.split()) for line in out.splitlines() if line.strip()]

    def wait(self, job: int, timeout: float) -> dict[str, str]:
        """Waits until every task of job has ended; their final states."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = dict(self.state(job))
            if states and all(s in ENDED for s in states.values()):
                return states
            time.sleep(0.2)
        raise AssertionError(f"job {job} did not end in {timeout:.0f} s: {self.state(job)}\n"
                             f"{self.logs()}")

    def ended(self, job: int) -> bool:
        """Whether the job (not an array) has ended; False while squeue
        does not answer."""
        return dict(self.state(job)).get(str(job)) in ENDED


def why_not() -> str | None:
    missing = [d for d in (*DAEMONS, "sbatch") if not shutil.which(d)]
    if missing:
        return f"no {', '.join(missing)} (Debian's slurm-wlm and munge: scripts/setup-deps.sh)"
    if os.geteuid() != 0:
        return "the Slurm daemons of the test cluster run as root"
    return None


def start(cmd: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)


@pytest.fixture(scope="module")
def cluster():
    reason = why_not()
    if reason:
        pytest.skip(reason)
    # in /tmp, not pytest's folder (--basetemp may be deep): the munge
    # socket's path must fit in sockaddr_un's 108 bytes
    d = Path(tempfile.mkdtemp(prefix="gpuc-slurm-", dir="/tmp"))
    for sub in ("munge", "state", "spool"):
        (d / sub).mkdir(mode=0o700)
    key = d / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    host = socket.gethostname().split(".")[0]
    conf = d / "slurm.conf"
    conf.write_text(slurm_conf(d, host, os.cpu_count() or 1))
    (d / "gres.conf").write_text(GRES_CONF)  # read from slurm.conf's folder
    env = {**os.environ, "SLURM_CONF": str(conf)}
    c = Cluster(root=d, env=env)
    try:
        c.procs.append(start(["munged", "--foreground", "--force", f"--key-file={key}",
                              f"--socket={d}/munge/munge.socket",
                              f"--pid-file={d}/munge/munged.pid",
                              f"--seed-file={d}/munge/munged.seed",
                              f"--log-file={d}/munged.log"], d / "munged.out"))
        deadline = time.monotonic() + scaled(20)
        while not (d / "munge" / "munge.socket").exists():
            assert c.procs[0].poll() is None, f"munged exited:\n{c.logs()}"
            assert time.monotonic() < deadline, f"munged did not start:\n{c.logs()}"
            time.sleep(0.05)
        c.procs.append(start(["slurmctld", "-D", "-i", "-f", str(conf)], d / "slurmctld.out"))
        c.procs.append(start(["slurmd", "-D", "-f", str(conf), "-N", host], d / "slurmd.out"))
        deadline = time.monotonic() + scaled(60)
        while True:
            for p in c.procs:
                assert p.poll() is None, f"{p.args[0]} exited ({p.returncode}):\n{c.logs()}"
            out = c.cmd("sinfo", "-h", "-N", "-o", "%T", check=False).split()
            if out and out[0] in ("idle", "mixed", "allocated"):
                break
            assert time.monotonic() < deadline, f"the node is not up ({out}):\n{c.logs()}"
            time.sleep(0.3)
        yield c
    finally:
        for p in reversed(c.procs):
            p.terminate()
        for p in reversed(c.procs):
            try:
                p.wait(timeout=scaled(20))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()
        shutil.rmtree(d, ignore_errors=True)
