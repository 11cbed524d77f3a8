"""The simulator tests use the shared kernels of tests/conftest.py
(`kernel` shared by a module, `fresh_kernel` per test, `kc`), and
`kernel_with_env`: a fresh kernel's client, started with the environment
variables given as its parameter (`@pytest.mark.parametrize("kernel_with_env",
[{"NAME": "value"}], indirect=True)`)."""
import pytest

from gpuc_testing.kernel import execute_ok, start_kernel, stop_kernel


@pytest.fixture
def kernel_with_env(request, monkeypatch):
    for name, value in request.param.items():
        monkeypatch.setenv(name, value)
    km, kc = start_kernel("gpuc")
    yield kc
    stop_kernel(km, kc)


@pytest.fixture(scope="module")
def simulated(kernel):
    """The module's kernel after `%device cpu`: its kernel cells run on the
    simulator, also on a machine with a GPU. Returns its client."""
    kc = kernel[1]
    run = execute_ok(kc, "%device cpu")
    assert "cpu" in run.stream().lower(), run.describe()
    return kc
