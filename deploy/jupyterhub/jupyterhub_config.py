"""JupyterHub for gpuc kernels (docs/hosting.md): a hub on one machine with a
local spawner, the proxy from Debian's node-configurable-http-proxy, the
idle culler as a hub service, and the limits every gpuc kernel gets.

    jupyterhub -f deploy/jupyterhub/jupyterhub_config.py

The tests (tests/hosting/test_hub.py) and bench/bench_hub.py start their hubs
with this very file; what differs per run comes from these variables (each
has a default for a real hub):

    GPUC_HUB_IP, GPUC_HUB_PORT     where users connect (127.0.0.1, 8000)
    GPUC_HUB_API_PORT              the hub's own port, behind the proxy (8081)
    GPUC_HUB_PROXY_API_PORT        the proxy's REST port (8001)
    GPUC_HUB_STATE                 folder of the database, cookie secret and
                                   the users' home folders (the working folder)
    GPUC_HUB_AUTHENTICATOR         "dummy" (any name, the one shared password
                                   GPUC_HUB_PASSWORD: for tests only), else a
                                   JupyterHub authenticator ("pam", "oauthenticator...")
    GPUC_HUB_SPAWNER               "simple" (every user's server runs as the hub's
                                   own Unix user, in STATE/home/NAME: tests, a
                                   single-person machine), "localprocess" (one
                                   real Unix account per user), or a class
    GPUC_HUB_CULL_IDLE             seconds before an idle kernel is shut down
                                   (3600); a server is stopped when idle twice
                                   as long (its kernels gone that long)
    GPUC_HUB_POLL                  seconds between the hub's checks that a
                                   server still runs (30; a Slurm job ended by
                                   scancel or its time limit is seen then)
    GPUC_HUB_NODELAY               1: the single-user servers send websocket
                                   frames at once (TCP_NODELAY; see
                                   singleuser_nodelay.py and docs/hosting.md)

Batch clusters: deploy/jupyterhub/batchspawner_config.py builds on this file.
"""
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub's config loader defines it)
HERE = Path(__file__).resolve().parent


def env(name, default):
    return os.environ.get(name) or default


state = Path(env("GPUC_HUB_STATE", os.getcwd())).resolve()
cull = int(env("GPUC_HUB_CULL_IDLE", "3600"))

# --- where it listens --------------------------------------------------------
c.JupyterHub.ip = env("GPUC_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(env("GPUC_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("GPUC_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{env('GPUC_HUB_PROXY_API_PORT', '8001')}"
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = str(state / "jupyterhub-proxy.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops the servers

# --- the proxy ---------------------------------------------------------------
# Debian's configurable-http-proxy finds its Node modules in /usr/share/nodejs;
# a Node from elsewhere (NodeSource's, in /usr/bin too) does not look there.
if Path("/usr/share/nodejs").is_dir():
    os.environ["NODE_PATH"] = ":".join(
        p for p in ("/usr/share/nodejs", os.environ.get("NODE_PATH")) if p)
c.ConfigurableHTTPProxy.command = ["configurable-http-proxy"]

# --- who logs in ---------------------------------------------------------------
auth = env("GPUC_HUB_AUTHENTICATOR", "pam")
c.JupyterHub.authenticator_class = auth
if auth == "dummy":
    c.DummyAuthenticator.password = env("GPUC_HUB_PASSWORD", "gpuc-test")
c.Authenticator.allow_all = True  # a real hub lists its users or groups instead

# --- their servers -----------------------------------------------------------
spawner = env("GPUC_HUB_SPAWNER", "localprocess")
c.JupyterHub.spawner_class = spawner
if spawner == "simple":
    c.SimpleLocalProcessSpawner.home_dir_template = str(state / "home" / "{username}")
# the hub's Python runs the single-user servers: jupyter_server and gpuc's
# kernelspec come from where the hub was installed
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
args = [
    # kernels idle this long are shut down by the server itself; the culler
    # service below then stops the idle server
    f"--MappingKernelManager.cull_idle_timeout={cull}",
    f"--MappingKernelManager.cull_interval={max(1, min(300, cull // 4))}",
    "--MappingKernelManager.cull_connected=True",
]
if os.geteuid() == 0:
    args.append("--ServerApp.allow_root=True")  # a server run as root refuses to start without it
if env("GPUC_HUB_NODELAY", "0") == "1":
    args.append(f"--config={HERE / 'singleuser_nodelay.py'}")
c.Spawner.args = args
c.Spawner.poll_interval = int(env("GPUC_HUB_POLL", "30"))
c.Spawner.start_timeout = 60
c.Spawner.http_timeout = 60
# JUPYTER_PATH: where the gpuc kernelspec was installed, if not in the
# server's own prefix (gpuc install --sys-prefix puts it there)
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "JUPYTER_PATH", "LD_LIBRARY_PATH",
                      "CUDA_VISIBLE_DEVICES", "GPUC_TIME_SCALE"]

# What every gpuc kernel of this hub may take (docs/hosting.md, "Limits per
# kernel"): kernels inherit their server's environment. A kernelspec's own
# "env" sets them for that kernel alone.
c.Spawner.environment = {
    "GPUC_LIMIT_MEMORY": "4GiB",       # what the cells may allocate
    "GPUC_LIMIT_GPU_MEMORY": "8GiB",   # each device's array pool
    "GPUC_LIMIT_OUTPUT": "10MiB",      # stream output per cell
    "GPUC_LIMIT_OUTPUT_RATE": "1MB",   # stream output per second (iopub_data_rate_limit's default)
    "GPUC_LIMIT_CELL_TIME": "3600",    # seconds per cell
}

# --- the idle culler ------------------------------------------------------------
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={2 * cull}",
                f"--cull-every={max(1, min(600, cull // 4))}"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
# servers tell the hub of their activity this often (seconds); the culler
# judges by it
c.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"] = str(max(1, min(300, cull // 4)))
