"""Kernel fixtures for the protocol tests: `kernel` is shared by the tests
of a module that leave the session as they found it; `fresh_kernel` is a
new kernel for a test that crashes, interrupts, restarts or shuts it down."""
import pytest

from kernel_util import start_kernel, stop_kernel


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
