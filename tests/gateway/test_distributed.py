"""gpuc as a remote kernel of Enterprise Gateway 3.3 (docs/gateway.md):
DistributedProcessProxy starts `gpuc kernel --RemoteProcessProxy.*` over
SSH with nohup, gpuc answers EG's launcher protocol itself (kernel/
jk_gateway.c), and a client drives the kernel through EG's REST API and
websocket as JupyterLab or jupyter_server's GatewayClient would."""
from __future__ import annotations

import json
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
import websocket

from gpuc_testing.timing import scaled

from gpuc_testing.gateway import SPEC_NAME, gpuc_processes


class RemoteKernel:
    """One kernel started through the gateway, spoken to over its websocket."""

    def __init__(self, gateway):
        self.gw = gateway
        r = gateway.api("POST", "/api/kernels", json={"name": SPEC_NAME})
        assert r.status_code == 201, f"start failed ({r.status_code}): {r.text}\n{gateway.tail()}"
        self.id = r.json()["id"]
        self.session = uuid.uuid4().hex
        self.ws = None
        self.connect()

    def connect(self):
        if self.ws:
            self.ws.close()
        url = self.gw.url.replace("http://", "ws://") + f"/api/kernels/{self.id}/channels"
        self.ws = websocket.create_connection(url, timeout=scaled(30))

    def send(self, msg_type: str, content: dict, channel: str = "shell") -> str:
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": msg_type, "session": self.session,
                       "username": "test", "version": "5.3",
                       "date": datetime.now(timezone.utc).isoformat()},
            "parent_header": {}, "metadata": {}, "content": content, "buffers": [],
            "channel": channel}))
        return msg_id

    def wait(self, msg_id: str, timeout: float) -> dict:
        """The reply to msg_id and its output: {"reply", "stdout", "result",
        "error"}, once the reply and the idle status have both come."""
        out = {"reply": None, "stdout": "", "result": None, "error": None}
        idle = False
        end = time.monotonic() + timeout
        while out["reply"] is None or not idle:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no reply to {msg_id} in {timeout:.0f} s: {out}\n"
                                   f"{self.gw.kernel_log(self.id)}")
            self.ws.settimeout(left)
            m = json.loads(self.ws.recv())
            if m.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            t, c = m["msg_type"], m["content"]
            if t.endswith("_reply"):
                out["reply"] = c
            elif t == "status" and c["execution_state"] == "idle":
                idle = True
            elif t == "stream" and c["name"] == "stdout":
                out["stdout"] += c["text"]
            elif t == "execute_result":
                out["result"] = c["data"]["text/plain"]
            elif t == "error":
                out["error"] = c
        return out

    def execute(self, code: str, timeout: float = scaled(60)) -> dict:
        return self.wait(self.send("execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": True}), timeout)

    def value(self, expr: str) -> str:
        out = self.execute(expr)
        assert out["reply"]["status"] == "ok", out
        return out["result"]

    def pids(self) -> list[int]:
        """The kernel's processes (gpuc kernel and its executor) on the host."""
        return [p for p in gpuc_processes(self.gw.marker) if self.id.encode() in
                Path(f"/proc/{p}/cmdline").read_bytes() or self.owner_of(p)]

    def owner_of(self, pid: int) -> bool:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            return self.id.encode() in Path(f"/proc/{ppid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return False

    def shutdown(self):
        if self.ws:
            self.ws.close()
            self.ws = None
        return self.gw.api("DELETE", f"/api/kernels/{self.id}")


def wait_gone(pids, timeout: float) -> list[int]:
    end = time.monotonic() + timeout
    left = list(pids)
    while left and time.monotonic() < end:
        left = [p for p in left if Path(f"/proc/{p}").exists() and
                "Z" not in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[:1]]
        time.sleep(0.1)
    return left


@pytest.fixture
def kernel(gateway):
    k = RemoteKernel(gateway)
    yield k
    k.shutdown()


def test_remote_kernel_runs_cells_over_ssh(gateway, kernel):
    log = gateway.tail()
    assert "DistributedProcessProxy" in log or "Kernel launched on" in log, log
    assert "127.0.0.2" in log, "the kernel was not launched on the SSH host"
    out = kernel.execute('int n = 21;\nprintf("remote %d\\n", n * 2);')
    assert out["reply"]["status"] == "ok", out
    assert out["stdout"] == "remote 42\n"
    assert kernel.value("n + 1") == "22"
    pids = kernel.pids()
    assert len(pids) >= 2, f"no kernel and executor found: {pids}"
    # launched with nohup by a shell that has exited: not a child of sshd's session
    klog = gateway.kernel_log(kernel.id)
    assert "connection information sent" in klog, klog


def test_interrupt_stops_an_endless_loop(gateway, kernel):
    kernel.execute("int before = 7;")
    msg_id = kernel.send("execute_request", {"code": "while (1) {}", "silent": False,
                                             "store_history": True, "user_expressions": {},
                                             "allow_stdin": False, "stop_on_error": True})
    time.sleep(scaled(1))
    t0 = time.monotonic()
    r = gateway.api("POST", f"/api/kernels/{kernel.id}/interrupt")
    assert r.status_code == 204, r.text
    out = kernel.wait(msg_id, scaled(15))
    assert out["reply"]["status"] == "error" and out["reply"]["ename"] == "Interrupted", out
    assert time.monotonic() - t0 < scaled(5)
    assert "gateway asks for signal 2" in gateway.kernel_log(kernel.id)
    assert kernel.value("before") == "7", "the interrupt lost the session"


def test_segfault_keeps_the_session(kernel):
    kernel.execute("int kept = 5;")
    out = kernel.execute("int *nowhere = 0;\n*nowhere = 1;")
    assert out["reply"]["status"] == "error", out
    assert out["reply"]["ename"] == "SegmentationFault", out
    assert kernel.value("kept * 2") == "10"


def test_restart_gives_a_fresh_remote_kernel(gateway, kernel):
    kernel.execute("int before_restart = 1;")
    old = kernel.pids()
    r = gateway.api("POST", f"/api/kernels/{kernel.id}/restart")
    assert r.status_code == 200, f"{r.status_code} {r.text}\n{gateway.tail()}"
    assert wait_gone(old, scaled(10)) == [], "the old kernel outlived the restart"
    kernel.connect()
    assert kernel.value("6 * 7") == "42"
    out = kernel.execute("before_restart")
    assert out["reply"]["status"] == "error", "state survived a restart"
    assert set(kernel.pids()).isdisjoint(old)


def test_shutdown_leaves_no_process(gateway):
    k = RemoteKernel(gateway)
    assert k.value("1 + 1") == "2"
    pids = k.pids()
    assert len(pids) >= 2, pids
    r = k.shutdown()
    assert r.status_code == 204, r.text
    assert wait_gone(pids, scaled(10)) == [], f"processes left after shutdown: {pids}"
    assert gateway.api("GET", f"/api/kernels/{k.id}").status_code == 404


def test_kernel_cell_and_launch_in_the_remote_kernel(kernel):
    """GPU work in the remote kernel: on the GPU machine its GPU, here the
    simulator (whichever the node's gpuc finds, docs/gpu.md)."""
    out = kernel.execute("%%kernel\n__global__ void twice(int n, float *x) {\n"
                         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    if (i < n) x[i] *= 2;\n}")
    assert out["reply"]["status"] == "ok", out
    out = kernel.execute(
        "float h[4] = {1, 2, 3, 4};\nfloat *d;\ncudaMalloc((void **)&d, sizeof h);\n"
        "cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);\ntwice<<<1, 4>>>(4, d);\n"
        "cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
        'printf("%g %g %g %g\\n", h[0], h[1], h[2], h[3]);')
    assert out["reply"]["status"] == "ok", out
    assert out["stdout"] == "2 4 6 8\n"
