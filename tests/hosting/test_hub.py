"""gpuc under JupyterHub (docs/hosting.md), the real parts on localhost: a
hub started from deploy/jupyterhub/jupyterhub_config.py with the proxy of
Debian's node-configurable-http-proxy, a user logged in through the login
form, the single-user server, a gpuc kernel started through the server's
REST API and cells over its websocket as JupyterLab sends them; the idle
culler ending an idle kernel and server."""
import time

import pytest

from gpuc_testing.hub import login, start_hub, why_not
from gpuc_testing.timing import scaled


@pytest.fixture(scope="module")
def hub():
    reason = why_not()
    if reason:
        pytest.skip(reason)
    h = start_hub()
    yield h
    h.stop()


@pytest.fixture(scope="module")
def alice(hub):
    user = login(hub, "alice")
    took = user.start_server()
    print(f"alice's server started in {took:.2f} s")
    yield user
    user.stop_server()


@pytest.fixture
def kernel(alice):
    kid = alice.start_kernel("gpuc")
    ws = alice.connect(kid)
    ws.wait_ready()
    yield kid, ws
    ws.close()
    alice.server_api("DELETE", f"/kernels/{kid}")


def test_a_gpuc_kernel_starts_through_the_server_api(alice, kernel):
    kid, ws = kernel
    assert any(k["id"] == kid and k["name"] == "gpuc" for k in alice.kernels())
    specs = alice.server_api("GET", "/kernelspecs").json()["kernelspecs"]
    assert specs["gpuc"]["spec"]["language"] == "c"
    info = ws.request("kernel_info_request", {})
    assert info.content["implementation"] == "gpuc"


def test_output_streams_while_the_cell_runs(kernel):
    _, ws = kernel
    r = ws.execute_ok('#include <stdio.h>\n#include <unistd.h>\n'
                      'for (int i = 0; i < 3; i++) { printf("tick %d\\n", i); fflush(stdout); '
                      'usleep(400000); }')
    streams = r.of_type("stream")
    assert "".join(m["content"]["text"] for m in streams) == "tick 0\ntick 1\ntick 2\n"
    assert len(streams) == 3 and streams[-1]["_t"] - streams[0]["_t"] > 0.6, r.describe()
    assert r.reply["_t"] - streams[0]["_t"] > 0.3  # the first tick came long before the end


def test_a_rich_display_and_a_result(kernel):
    _, ws = kernel
    r = ws.execute_ok('gpuc_display_html("<b>bold</b> from C");\n6 * 7')
    shown = r.of_type("display_data")
    assert shown and shown[0]["content"]["data"]["text/html"] == "<b>bold</b> from C", r.describe()
    assert r.result == "42"


def test_scanf_asks_the_browser(kernel):
    _, ws = kernel
    prompts = []
    r = ws.execute_ok('#include <stdio.h>\nint n = 0;\nscanf("%d", &n);\nprintf("twice %d\\n", 2 * n);',
                      stdin=lambda prompt: prompts.append(prompt) or "21")
    assert len(r.input_requests) == 1
    assert r.stream() == "twice 42\n"


def test_a_segfault_keeps_the_session(kernel):
    _, ws = kernel
    ws.execute_ok("int kept = 1234;")
    r = ws.execute("int *p = 0; *p = 1;")
    assert r.ename == "SegmentationFault", r.describe()
    assert ws.execute_ok("kept").result == "1234"


def test_an_interrupt_through_the_rest_api_stops_an_endless_loop(alice, kernel):
    kid, ws = kernel
    ws.execute_ok("int before = 5;")
    interrupt = lambda: alice.server_api("POST", f"/kernels/{kid}/interrupt")  # noqa: E731
    started = time.monotonic()
    r = ws.execute("while (1) {}", actions=[(1.0, interrupt)], timeout=scaled(30))
    assert r.ename == "Interrupted", r.describe()
    assert time.monotonic() - started < scaled(10)
    assert ws.execute_ok("before + 1").result == "6"


def test_a_restart_through_the_rest_api_gives_a_fresh_session(alice, kernel):
    kid, ws = kernel
    ws.execute_ok("int gone_after_restart = 1;")
    r = alice.server_api("POST", f"/kernels/{kid}/restart")
    assert r.status_code == 200, r.text
    ws.wait_ready()
    r = ws.execute("gone_after_restart")
    assert r.status == "error" and "gone_after_restart" in r.content["evalue"], r.describe()
    assert ws.execute_ok("2 + 3").result == "5"


def test_the_hubs_limits_reach_the_kernel(kernel):
    _, ws = kernel
    out = ws.execute_ok("%limits").stream()
    lines = {next(w for w in line.split() if w.startswith("GPUC_")):
             line for line in out.splitlines() if "GPUC_" in line}
    assert "4.00 GiB" in lines["GPUC_LIMIT_MEMORY"], out
    assert "1000000 bytes/s" in lines["GPUC_LIMIT_OUTPUT_RATE"], out
    assert "3600 s" in lines["GPUC_LIMIT_CELL_TIME"], out


def test_the_idle_culler_ends_an_idle_kernel_then_the_server():
    reason = why_not()
    if reason:
        pytest.skip(reason)
    idle = 4  # seconds: the deploy configuration's GPUC_HUB_CULL_IDLE, shortened
    h = start_hub(GPUC_HUB_CULL_IDLE=idle)
    try:
        bob = login(h, "bob")
        bob.start_server()
        kid = bob.start_kernel("gpuc")
        ws = bob.connect(kid)
        ws.wait_ready()
        ws.execute_ok("int x = 1;")
        ws.close()
        started = time.monotonic()
        # /api/status counts the kernels and, unlike other API calls, is no activity
        kernel_gone = server_gone = None
        while time.monotonic() - started < scaled(60):
            if kernel_gone is None:
                status = bob.server_api("GET", "/status")
                if status.status_code == 200 and status.json()["kernels"] == 0:
                    kernel_gone = time.monotonic() - started
            if not bob.server_running():
                server_gone = time.monotonic() - started
                break
            time.sleep(0.5)
        assert kernel_gone is not None and kernel_gone >= idle - 1, (kernel_gone, h.logs())
        assert server_gone is not None and server_gone >= 2 * idle - 1, (server_gone, h.logs())
        assert "Culling server bob" in h.logs(100000), h.logs()
        print(f"kernel culled after {kernel_gone:.1f} s, server after {server_gone:.1f} s idle")
    finally:
        h.stop()
