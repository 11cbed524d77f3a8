"""A JupyterHub on localhost for the tests and benchmarks of hosting
(tests/hosting/, bench/bench_hub.py), started from the repository's own
deploy/jupyterhub/ configuration with free ports and a temporary state
folder, and a user's view of it: logging in through the login form, a token,
the single-user server, kernels through its REST API and cells over its
kernel websocket (what JupyterLab does).

Needs jupyterhub (tests/requirements.txt) and Debian's
node-configurable-http-proxy (scripts/setup-deps.sh); why_not() says what
is missing."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import requests
import websocket

from gpuc_testing.kernel import Run
from gpuc_testing.timing import scaled

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "jupyterhub"
PASSWORD = "gpuc-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def why_not() -> str | None:
    missing = [m for m in ("jupyterhub", "jupyterhub_idle_culler")
               if importlib.util.find_spec(m) is None]
    if missing:
        return f"no {', '.join(missing)} in this Python (tests/requirements.txt)"
    if not shutil.which("configurable-http-proxy"):
        return "no configurable-http-proxy (Debian's node-configurable-http-proxy: scripts/setup-deps.sh)"
    return None


@dataclass
class Hub:
    """A running hub: url is where users connect (the proxy)."""
    state: Path
    url: str
    proc: subprocess.Popen
    log: Path
    env: dict = field(default_factory=dict)

    def logs(self, tail: int = 6000) -> str:
        return self.log.read_text(errors="replace")[-tail:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the hub stops its servers and proxy
            try:
                self.proc.wait(timeout=scaled(30))
            except subprocess.TimeoutExpired:
                pass
        # whatever is left of the group: proxy, services, servers, kernels
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        shutil.rmtree(self.state, ignore_errors=True)


def start_hub(config: Path = DEPLOY / "jupyterhub_config.py", **env_vars) -> Hub:
    """Starts jupyterhub -f config with free ports and a temporary state
    folder; env_vars (GPUC_HUB_*) override. Waits until it answers."""
    state = Path(tempfile.mkdtemp(prefix="gpuc-hub-"))
    state.chmod(0o755)  # the users' homes are in it (batchspawner: a real account)
    port = free_port()
    env = {**os.environ,
           "GPUC_HUB_IP": "127.0.0.1", "GPUC_HUB_PORT": str(port),
           "GPUC_HUB_API_PORT": str(free_port()), "GPUC_HUB_PROXY_API_PORT": str(free_port()),
           "GPUC_HUB_STATE": str(state), "GPUC_HUB_AUTHENTICATOR": "dummy",
           "GPUC_HUB_PASSWORD": PASSWORD, "GPUC_HUB_SPAWNER": "simple",
           **{k: str(v) for k, v in env_vars.items()}}
    log = state / "hub.log"
    proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=state,
                            env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    hub = Hub(state=state, url=f"http://127.0.0.1:{port}", proc=proc, log=log, env=env)
    deadline = time.monotonic() + scaled(60)
    while True:
        if proc.poll() is not None:
            text = hub.logs()
            hub.stop()
            raise AssertionError(f"jupyterhub exited ({proc.returncode}):\n{text}")
        try:
            if requests.get(f"{hub.url}/hub/api/", timeout=2).status_code == 200:
                return hub
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            text = hub.logs()
            hub.stop()
            raise AssertionError(f"jupyterhub did not answer in time:\n{text}")
        time.sleep(0.2)


@dataclass
class User:
    """A logged-in user: the browser's cookies and an API token."""
    hub: Hub
    name: str
    session: requests.Session
    token: str

    @property
    def headers(self) -> dict:
        return {"Authorization": f"token {self.token}"}

    @property
    def server(self) -> str:
        return f"{self.hub.url}/user/{self.name}"

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        """The hub's REST API (/hub/api/...) with the user's token."""
        return requests.request(method, f"{self.hub.url}/hub/api{path}", headers=self.headers,
                                timeout=scaled(30), **kwargs)

    def server_api(self, method: str, path: str, **kwargs) -> requests.Response:
        """The single-user server's REST API (/user/NAME/api/...)."""
        return requests.request(method, f"{self.server}/api{path}", headers=self.headers,
                                timeout=scaled(60), **kwargs)

    def start_server(self, timeout: float | None = None) -> float:
        """Starts the user's server; waits until it answers. Seconds taken."""
        started = time.monotonic()
        r = self.api("POST", f"/users/{self.name}/server")
        assert r.status_code in (201, 202), f"{r.status_code} {r.text}\n{self.hub.logs()}"
        deadline = started + (timeout or scaled(90))
        while time.monotonic() < deadline:
            info = self.api("GET", f"/users/{self.name}").json()
            server = info.get("servers", {}).get("")
            if server and server.get("ready"):
                if self.server_api("GET", "/status").status_code == 200:
                    return time.monotonic() - started
            time.sleep(0.2)
        raise AssertionError(f"{self.name}'s server did not start:\n{self.hub.logs()}")

    def server_running(self) -> bool:
        info = self.api("GET", f"/users/{self.name}").json()
        return bool(info.get("servers", {}).get(""))

    def stop_server(self) -> None:
        r = self.api("DELETE", f"/users/{self.name}/server")
        assert r.status_code in (202, 204), f"{r.status_code} {r.text}"

    def start_kernel(self, name: str = "gpuc") -> str:
        r = self.server_api("POST", "/kernels", json={"name": name})
        assert r.status_code == 201, f"{r.status_code} {r.text}\n{self.hub.logs()}"
        return r.json()["id"]

    def kernels(self) -> list[dict]:
        return self.server_api("GET", "/kernels").json()

    def connect(self, kernel_id: str) -> "KernelSocket":
        url = self.server.replace("http", "ws", 1) + f"/api/kernels/{kernel_id}/channels"
        return KernelSocket(url, self.headers)


def login(hub: Hub, name: str) -> User:
    """Logs name in through the login form, as a browser does, then asks the
    hub for a token with the login's cookies."""
    s = requests.Session()
    s.get(f"{hub.url}/hub/login", timeout=scaled(30))
    xsrf = s.cookies.get("_xsrf")
    r = s.post(f"{hub.url}/hub/login?next=", data={"username": name, "password": PASSWORD,
                                                   "_xsrf": xsrf},
               allow_redirects=False, timeout=scaled(30))
    assert r.status_code == 302, f"login: {r.status_code}\n{hub.logs()}"
    assert any(c.name.startswith("jupyterhub-session") or c.name == "jupyterhub-hub-login"
               for c in s.cookies), s.cookies
    r = s.post(f"{hub.url}/hub/api/users/{name}/tokens", json={"note": "test", "expires_in": 3600},
               headers={"X-XSRFToken": s.cookies.get("_xsrf", path="/hub/") or xsrf,
                        "Referer": f"{hub.url}/hub/token"},
               timeout=scaled(30))
    assert r.status_code == 201, f"token: {r.status_code} {r.text}\n{hub.logs()}"
    return User(hub=hub, name=name, session=s, token=r.json()["token"])


@dataclass
class Reply(Run):
    """A request's reply and IOPub (kernel.Run), as the websocket brought
    them, with the input_requests the cell made and its round trip."""
    input_requests: list = field(default_factory=list)
    seconds: float = 0.0


class KernelSocket:
    """A kernel's websocket (/api/kernels/ID/channels), JSON messages with
    their channel, as JupyterLab speaks it."""

    def __init__(self, url: str, headers: dict):
        self.session = uuid.uuid4().hex
        self.ws = websocket.create_connection(
            f"{url}?session_id={self.session}",
            header=[f"{k}: {v}" for k, v in headers.items()], timeout=scaled(60))

    def close(self) -> None:
        self.ws.close()

    def send(self, channel: str, msg_type: str, content: dict) -> str:
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": msg_type, "session": self.session,
                       "username": "test", "version": "5.3",
                       "date": datetime.now(timezone.utc).isoformat()},
            "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
            "buffers": []}))
        return msg_id

    def recv(self, timeout: float) -> dict | None:
        self.ws.settimeout(timeout)
        try:
            return json.loads(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            return None

    def request(self, msg_type: str, content: dict, timeout: float | None = None,
                stdin=None, actions=None) -> Reply:
        """Sends a shell request; collects its reply and IOPub up to idle.
        stdin(prompt) answers an input_request; actions: [(seconds, fn)]
        run once that long after sending."""
        timeout = timeout or scaled(60)
        started = time.monotonic()
        msg_id = self.send("shell", msg_type, content)
        out = Reply(msg_id=msg_id, sent=started)
        idle = False
        pending = sorted(actions or [], key=lambda a: a[0])
        while out.reply is None or not idle:
            now = time.monotonic()
            if pending and now - started >= pending[0][0]:
                pending.pop(0)[1]()
                continue
            left = started + timeout - now
            if left <= 0:
                raise TimeoutError(f"{msg_type}: no reply/idle in {timeout:.0f} s\n{out.describe()}")
            wait = min(left, pending[0][0] - (now - started)) if pending else left
            msg = self.recv(max(0.01, wait))
            if msg is None or msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            msg["_t"] = time.monotonic()
            if msg["channel"] == "shell":
                out.reply = msg
                out.seconds = time.monotonic() - started
            elif msg["channel"] == "stdin" and msg["msg_type"] == "input_request":
                out.input_requests.append(msg)
                self.send("stdin", "input_reply", {"value": stdin(msg["content"]["prompt"])})
            elif msg["channel"] == "iopub":
                out.iopub.append(msg)
                if (msg["msg_type"] == "status"
                        and msg["content"]["execution_state"] == "idle"):
                    idle = True
        return out

    def execute(self, code: str, **kwargs) -> Reply:
        return self.request("execute_request", {"code": code, "silent": False,
                                                "store_history": True, "user_expressions": {},
                                                "allow_stdin": True, "stop_on_error": True},
                            **kwargs)

    def execute_ok(self, code: str, **kwargs) -> Reply:
        r = self.execute(code, **kwargs)
        assert r.status == "ok", f"cell failed: {code!r}\n{r.describe()}"
        return r

    def wait_ready(self, timeout: float | None = None) -> None:
        """Until the kernel answers kernel_info (after a start or restart)."""
        deadline = time.monotonic() + (timeout or scaled(60))
        while time.monotonic() < deadline:
            try:
                self.request("kernel_info_request", {}, timeout=scaled(5))
                return
            except TimeoutError:
                continue
        raise TimeoutError("the kernel did not answer kernel_info")
