"""Fixtures shared by the Python tests.

The binary under test is $GPUC_BIN (default build/gpuc). For the session it is
installed with `gpuc install --prefix TMP` and TMP/share/jupyter is put first
on JUPYTER_PATH, so the tests never read or write the user's kernelspecs and
`make asan` can point them at build-asan/gpuc. Besides "gpuc" (interrupt_mode
"signal", as installed) a copy "gpuc-msg" with interrupt_mode "message" is
written for the interrupt tests.

Kernels: `kernel` (km, kc) is shared by the tests of a module that leave
the session as they found it, `kc` is its client; `fresh_kernel` is a new
kernel for a test that crashes, interrupts, restarts or shuts it down. A
test never counts on what an earlier test left in a shared kernel: what it
needs that is costly to make (a kernel cell, `%device cpu`) is a module
fixture of its own.

`--reverse` runs the collected tests in reverse order (each module's
fixtures still made once), to show that no test depends on the ones before
it.

The helpers the tests import are the package gpuc_testing (this folder is
on the path: `pythonpath` in pytest.ini).
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gpuc_testing.kernel import start_kernel, stop_kernel

ROOT = Path(__file__).resolve().parent.parent


def gpuc_binary() -> Path:
    return Path(os.environ.get("GPUC_BIN", ROOT / "build" / "gpuc")).resolve()


@pytest.fixture(scope="session")
def gpuc_bin() -> Path:
    exe = gpuc_binary()
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        pytest.fail(f"no gpuc binary at {exe} (build it first, or set GPUC_BIN)")
    return exe


@pytest.fixture(scope="session", autouse=True)
def kernelspecs(tmp_path_factory, gpuc_bin):
    """Installs the kernelspecs under test; yields {"prefix", "dir", "spec"}."""
    prefix = tmp_path_factory.mktemp("jupyter-prefix")
    runtime = tmp_path_factory.mktemp("jupyter-runtime")
    proc = subprocess.run(
        [str(gpuc_bin), "install", "--prefix", str(prefix)],
        capture_output=True, text=True, timeout=30,
    )
    if proc.returncode != 0:
        pytest.fail(f"gpuc install --prefix failed ({proc.returncode}): {proc.stderr}")
    kdir = prefix / "share" / "jupyter" / "kernels" / "gpuc"
    spec = json.loads((kdir / "kernel.json").read_text())

    mdir = kdir.parent / "gpuc-msg"
    shutil.copytree(kdir, mdir)
    mspec = dict(spec, interrupt_mode="message",
                 display_name=spec.get("display_name", "gpuc") + " (interrupt by message)")
    (mdir / "kernel.json").write_text(json.dumps(mspec, indent=1))

    saved = {k: os.environ.get(k) for k in ("JUPYTER_PATH", "JUPYTER_RUNTIME_DIR")}
    os.environ["JUPYTER_PATH"] = str(prefix / "share" / "jupyter")
    os.environ["JUPYTER_RUNTIME_DIR"] = str(runtime)
    yield {"prefix": prefix, "dir": kdir, "spec": spec}
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_kernel("gpuc")
    yield km, kc
    stop_kernel(km, kc)


@pytest.fixture
def fresh_kernel():
    km, kc = start_kernel("gpuc")
    yield km, kc
    stop_kernel(km, kc)


@pytest.fixture
def kc(kernel):
    return kernel[1]


def pytest_addoption(parser):
    parser.addoption("--reverse", action="store_true",
                     help="run the tests in reverse order (no test may need an earlier one)")


@pytest.hookimpl(trylast=True)  # after pytest has grouped the tests by their fixtures
def pytest_collection_modifyitems(config, items):
    if config.getoption("--reverse"):
        items.reverse()
