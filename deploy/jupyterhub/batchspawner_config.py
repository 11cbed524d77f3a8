"""JupyterHub on a Slurm cluster (docs/hosting.md, docs/clusters.md): each
user's server runs as a Slurm job through batchspawner's SlurmSpawner, its
gpuc kernels on the job's node with the job's GPUs. Everything else is
jupyterhub_config.py's (loaded first), including the GPUC_HUB_* variables.

    jupyterhub -f deploy/jupyterhub/batchspawner_config.py

tests/cluster/test_batchspawner.py starts a hub with this file against the
test's one-node cluster. Per site:

    GPUC_HUB_SLURM_PARTITION   the partition of the jobs (the default one)
    GPUC_HUB_SLURM_RUNTIME     their time limit (8:00:00)
    GPUC_HUB_SLURM_GRES        their generic resources, e.g. gpu:1 (none)
    GPUC_HUB_CONNECT_IP        the hub's address as the nodes reach it (this
                               host's name)
    GPUC_HUB_NODE_PYTHON       the Python the jobs run the server with (the
                               hub's own), and GPUC_HUB_NODE_PYTHONPATH its
                               packages' folders if it is another one

What a site must have (docs/clusters.md): every hub user a real Unix account
known on the nodes; this Python (jupyterhub, batchspawner) and gpuc with its
kernelspec at the same paths on every node (a shared filesystem: `make
bundle`); the hub's host allowed to submit (sbatch, squeue, scancel).
"""
import os
import shutil
import socket
import sys
from pathlib import Path

c = get_config()  # noqa: F821
load_subconfig(str(Path(__file__).resolve().parent / "jupyterhub_config.py"))  # noqa: F821


def env(name, default):
    return os.environ.get(name) or default


c.JupyterHub.spawner_class = "batchspawner.SlurmSpawner"
# the job's servers call the hub back: it listens where the nodes reach it
c.JupyterHub.hub_ip = "0.0.0.0"
c.JupyterHub.hub_connect_ip = env("GPUC_HUB_CONNECT_IP", socket.gethostname())

# Slurm runs the job as the user: the hub submits as that user (sudo where
# the hub is not root; root may use runuser, which needs no sudoers entry)
if shutil.which("sudo") or os.geteuid() != 0:
    c.SlurmSpawner.exec_prefix = "sudo -E -u {username}"
else:
    c.SlurmSpawner.exec_prefix = "runuser -u {username} --"
c.SlurmSpawner.req_partition = env("GPUC_HUB_SLURM_PARTITION", "")
c.SlurmSpawner.req_runtime = env("GPUC_HUB_SLURM_RUNTIME", "8:00:00")
c.SlurmSpawner.req_gres = env("GPUC_HUB_SLURM_GRES", "")
# batchspawner's wrapper finds jupyterhub-singleuser on the job's PATH, run
# by this Python (where it is installed, on every node)
bindir = os.path.dirname(sys.executable)
c.Spawner.cmd = ["jupyterhub-singleuser"]
python = env("GPUC_HUB_NODE_PYTHON", sys.executable)
c.SlurmSpawner.batchspawner_singleuser_cmd = f"{python} -m batchspawner.singleuser"
c.Spawner.environment["PATH"] = ":".join([bindir, os.environ.get("PATH", "/usr/bin:/bin")])
if env("GPUC_HUB_NODE_PYTHONPATH", ""):
    c.Spawner.environment["PYTHONPATH"] = os.environ["GPUC_HUB_NODE_PYTHONPATH"]
# sbatch and the job need the cluster's configuration where it is not in
# /etc/slurm (the tests' cluster)
c.Spawner.env_keep = [*c.Spawner.env_keep, "SLURM_CONF"]
c.Spawner.start_timeout = 120  # a job may wait in the queue
