"""Helpers for talking to a gpuc kernel through the real jupyter_client.

Every wait has a deadline: a kernel that hangs fails the test with a
TimeoutError instead of hanging the run. The deadlines are scaled by
GPUC_TIME_SCALE (gpuc_testing.timing, whose names are here too).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import zmq
from jupyter_client import KernelManager
from jupyter_client.blocking.client import BlockingKernelClient

from gpuc_testing.timing import TIME_SCALE, TIMEOUT, scaled  # noqa: F401  (for the tests)


# --- starting and stopping ---------------------------------------------------

def start_kernel(name: str = "gpuc", **manager_args) -> tuple[KernelManager, BlockingKernelClient]:
    km = KernelManager(kernel_name=name, **manager_args)
    km.shutdown_wait_time = scaled(3)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=TIMEOUT)
    except Exception:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise
    return km, kc


def stop_kernel(km: KernelManager, kc: BlockingKernelClient) -> None:
    try:
        kc.stop_channels()
    finally:
        if km.has_kernel:
            km.shutdown_kernel(now=False)


def kernel_pid(km: KernelManager) -> int:
    return km.provisioner.process.pid


# --- executing -----------------------------------------------------------

@dataclass
class Run:
    """One request's shell reply and its IOPub messages (busy .. idle).
    Each message carries "_t", the time.monotonic() at which it was read."""

    msg_id: str
    sent: float
    reply: dict | None = None
    iopub: list = field(default_factory=list)
    others: list = field(default_factory=list)  # messages of other parents
    action_times: list = field(default_factory=list)

    @property
    def content(self) -> dict:
        return self.reply["content"]

    @property
    def status(self) -> str:
        return self.content["status"]

    @property
    def ename(self) -> str | None:
        return self.content.get("ename")

    def of_type(self, *types: str) -> list:
        return [m for m in self.iopub if m["msg_type"] in types]

    def stream(self, name: str = "stdout") -> str:
        return "".join(m["content"]["text"] for m in self.of_type("stream")
                       if m["content"]["name"] == name)

    @property
    def result(self) -> str | None:
        """text/plain of the execute_result, None when there is none."""
        res = self.of_type("execute_result")
        assert len(res) <= 1, f"more than one execute_result: {res}"
        return res[0]["content"]["data"].get("text/plain") if res else None

    def describe(self) -> str:
        """A short account for assertion messages."""
        lines = [f"reply: {str(self.reply['content'])[:2000] if self.reply else None}"]
        runs = 0  # consecutive stream messages are summed up, not listed
        for i, m in enumerate(self.iopub):
            c = m["content"]
            if m["msg_type"] == "stream":
                nxt = self.iopub[i + 1] if i + 1 < len(self.iopub) else None
                if nxt is not None and nxt["msg_type"] == "stream" and \
                        nxt["content"]["name"] == c["name"]:
                    runs += 1
                    continue
                if runs:
                    lines.append(f"  iopub stream x{runs} ({c['name']}) ...")
                    runs = 0
                c = {"name": c["name"], "text": c["text"][-200:]}
            lines.append(f"  iopub {m['msg_type']}: {str(c)[:300]}")
        return "\n".join(lines)


def collect_many(kc: BlockingKernelClient, msg_ids: list[str], timeout: float = TIMEOUT,
                 actions: list[tuple[float, Callable[[], None]]] | None = None,
                 sent: float | None = None, channel: str = "shell") -> list[Run]:
    """Reads the replies to msg_ids (on `channel`) and their IOPub messages
    up to status idle. `actions` are (seconds after `sent`, function) run
    once each while waiting, e.g. an interrupt."""
    sent = sent if sent is not None else time.monotonic()
    runs = {i: Run(msg_id=i, sent=sent) for i in msg_ids}
    idle: set[str] = set()
    others: list = []
    pending = sorted(actions or [], key=lambda a: a[0])
    action_times: list = []
    reply_chan = kc.shell_channel if channel == "shell" else kc.control_channel
    iopub = kc.iopub_channel
    poller = zmq.Poller()
    poller.register(iopub.socket, zmq.POLLIN)
    poller.register(reply_chan.socket, zmq.POLLIN)
    deadline = sent + timeout

    def done() -> bool:
        return all(r.reply is not None for r in runs.values()) and idle == set(runs)

    while not done():
        now = time.monotonic()
        while pending and now - sent >= pending[0][0]:
            pending.pop(0)[1]()
            action_times.append(time.monotonic())
        if now >= deadline:
            missing = [f"{i}: {'reply' if r.reply is None else ''} {'idle' if i not in idle else ''}"
                       for i, r in runs.items() if r.reply is None or i not in idle]
            raise TimeoutError(
                f"within {timeout:.1f} s, no {missing}\n"
                + "\n".join(r.describe() for r in runs.values()))
        wait = deadline - now
        if pending:
            wait = min(wait, max(0.0, sent + pending[0][0] - now))
        events = dict(poller.poll(max(1, int(wait * 1000))))
        if iopub.socket in events:
            while iopub.msg_ready():
                msg = iopub.get_msg(timeout=0)
                msg["_t"] = time.monotonic()
                parent = msg["parent_header"].get("msg_id")
                if parent in runs:
                    runs[parent].iopub.append(msg)
                    if (msg["msg_type"] == "status"
                            and msg["content"]["execution_state"] == "idle"):
                        idle.add(parent)
                else:
                    others.append(msg)
        if reply_chan.socket in events:
            while reply_chan.msg_ready():
                msg = reply_chan.get_msg(timeout=0)
                msg["_t"] = time.monotonic()
                parent = msg["parent_header"].get("msg_id")
                if parent in runs:
                    assert runs[parent].reply is None, \
                        f"second reply to {parent}: {msg['content']}"
                    runs[parent].reply = msg
                else:
                    others.append(msg)
    for r in runs.values():
        r.others = others
        r.action_times = action_times
    return [runs[i] for i in msg_ids]


def collect(kc: BlockingKernelClient, msg_id: str, **kwargs) -> Run:
    return collect_many(kc, [msg_id], **kwargs)[0]


def execute(kc: BlockingKernelClient, code: str, timeout: float = TIMEOUT,
            actions=None, **kwargs) -> Run:
    sent = time.monotonic()
    msg_id = kc.execute(code, **kwargs)
    return collect(kc, msg_id, timeout=timeout, actions=actions, sent=sent)


def execute_ok(kc: BlockingKernelClient, code: str, **kwargs) -> Run:
    run = execute(kc, code, **kwargs)
    assert run.status == "ok", f"cell failed: {code!r}\n{run.describe()}"
    return run


def value_of(kc: BlockingKernelClient, expr: str) -> str | None:
    """text/plain of the execute_result of expr (a last expression, no ';')."""
    return execute_ok(kc, expr).result


def request(kc: BlockingKernelClient, msg_type: str, content: dict | None = None,
            channel: str = "shell", timeout: float = TIMEOUT) -> Run:
    """Sends any request and collects its reply and IOPub busy..idle."""
    msg = kc.session.msg(msg_type, content or {})
    sent = time.monotonic()
    chan = kc.shell_channel if channel == "shell" else kc.control_channel
    chan.send(msg)
    return collect(kc, msg["header"]["msg_id"], timeout=timeout, sent=sent, channel=channel)


def drain(kc: BlockingKernelClient, seconds: float = 0.2) -> None:
    """Throws away whatever arrives on shell and IOPub for `seconds`."""
    end = time.monotonic() + seconds
    for chan in (kc.shell_channel, kc.iopub_channel):
        while True:
            left = end - time.monotonic()
            if not chan.msg_ready() and left <= 0:
                break
            if chan.socket.poll(max(0, int(left * 1000))):
                chan.get_msg(timeout=0)
            else:
                break


# --- raw sockets ---------------------------------------------------------

def recv_msg(sock: zmq.Socket, session, timeout: float) -> dict | None:
    """The next message on a raw socket, deserialized, or None after timeout."""
    if not sock.poll(int(timeout * 1000)):
        return None
    frames = sock.recv_multipart()
    _, msg_list = session.feed_identities(frames)
    return session.deserialize(msg_list)


def raw_frames(session, msg_type: str, content: dict | None = None) -> tuple[list[bytes], dict]:
    """([<IDS|MSG>, signature, header, parent, metadata, content], msg), signed."""
    msg = session.msg(msg_type, content or {})
    return [f if isinstance(f, bytes) else bytes(f) for f in session.serialize(msg)], msg


def sign(session, parts: list[bytes]) -> bytes:
    h = session.auth.copy()
    for p in parts:
        h.update(p)
    return h.hexdigest().encode("ascii")


# --- processes, from /proc ----------------------------------------------

def children(pid: int) -> list[int]:
    out = []
    task = Path(f"/proc/{pid}/task")
    try:
        tids = list(task.iterdir())
    except OSError:
        return out
    for t in tids:
        try:
            out += [int(c) for c in (t / "children").read_text().split()]
        except OSError:
            pass
    return out


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for c in children(todo.pop()):
            out.append(c)
            todo.append(c)
    return out


def alive(pid: int) -> bool:
    """True while pid exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat[stat.rindex(")") + 2:].split()[0]
    return state not in ("Z", "X")


def wait_gone(pids, timeout: float) -> list[int]:
    """Waits until none of pids is alive; returns those still alive."""
    end = time.monotonic() + timeout
    while True:
        left = [p for p in pids if alive(p)]
        if not left or time.monotonic() >= end:
            return left
        time.sleep(0.02)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
