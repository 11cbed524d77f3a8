"""The simulator tests use the protocol tests' helpers and fixtures
(`kernel` shared by a module, `fresh_kernel` per test, `kc`)."""
import importlib.util
import sys
from pathlib import Path

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
sys.path.insert(0, str(PROTOCOL))

_spec = importlib.util.spec_from_file_location("protocol_conftest", PROTOCOL / "conftest.py")
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

kernel = _fixtures.kernel
fresh_kernel = _fixtures.fresh_kernel
kc = _fixtures.kc
