"""The simulator tests use the protocol tests' helpers and fixtures
(`kernel` shared by a module, `fresh_kernel` per test, `kc`), and
`kernel_with_env`: a fresh kernel's client, started with the environment
variables given as its parameter (`@pytest.mark.parametrize("kernel_with_env",
[{"NAME": "value"}], indirect=True)`)."""
import importlib.util
import sys
from pathlib import Path

import pytest

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
sys.path.insert(0, str(PROTOCOL))

_spec = importlib.util.spec_from_file_location("protocol_conftest", PROTOCOL / "conftest.py")
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

from kernel_util import start_kernel, stop_kernel  # noqa: E402  (after the path)

kernel = _fixtures.kernel
fresh_kernel = _fixtures.fresh_kernel
kc = _fixtures.kc


@pytest.fixture
def kernel_with_env(request, monkeypatch):
    for name, value in request.param.items():
        monkeypatch.setenv(name, value)
    km, kc = start_kernel("gpuc")
    yield kc
    stop_kernel(km, kc)
