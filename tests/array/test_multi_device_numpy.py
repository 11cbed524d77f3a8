"""Several devices in one session, through the real kernel (jupyter_client),
on simulated devices (`%sim --devices 3`; GPUC_SIM_DEVICES for a fresh
kernel), NumPy the oracle: where arrays go, that every operation runs on
its operands' device whatever %device selects, peer copies, the
all-reduce, kernel cells per device, the errors of mixed devices and bad
device numbers, and that no sequence of %device, copies, frees,
`%memory free` and `%reset` leaves the session unable to go on.
tests/gpu/multi_gpu.py runs the same on two real GPUs (docs/arrays.md,
"Several devices")."""
import os
import re

import pytest

np = pytest.importorskip("numpy")

from jupyter_client import KernelManager

from gpuc_testing.kernel import execute, execute_ok, scaled, start_kernel, stop_kernel

RNG = np.random.default_rng(20261127)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    km, kc = start_kernel()
    execute_ok(kc, "%sim --devices 3")
    yield kc, tmp_path_factory.mktemp("multi")
    stop_kernel(km, kc)


class Session:
    """Inputs as .npy files, results saved and read back."""

    def __init__(self, kernel, name):
        self.kc, self.dir = kernel
        self.name = name
        self.n = 0

    def put(self, arr, device):
        self.n += 1
        path = self.dir / f"{self.name}_{self.n}.npy"
        np.save(path, arr)
        return f'ga_to_device(ga_load("{path}"), {device})'

    def run(self, code):
        return execute(self.kc, code, timeout=scaled(120))

    def ok(self, code):
        run = self.run(code)
        assert run.status == "ok", run.describe()
        return run

    def value(self, expr):
        out = self.dir / f"{self.name}_out.npy"
        out.unlink(missing_ok=True)
        self.ok(f'ga_save({expr}, "{out}");')
        return np.load(out)

    def error(self, code):
        run = self.run(code)
        assert run.status == "error", f"{code} should fail:\n{run.describe()}"
        return run.reply["content"]["ename"], run.reply["content"]["evalue"]


def values(dtype, shape):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return RNG.random(shape) < 0.5
    if dt.kind in "iu":
        return RNG.integers(0 if dt.kind == "u" else -50, 50, size=shape).astype(dt)
    if dt.kind == "c":
        return (RNG.random(shape) + 1j * RNG.random(shape)).astype(dt)
    return (RNG.random(shape) * 100 - 50).astype(dt)


def test_placement_and_listing(kernel):
    s = Session(kernel, "place")
    run = s.ok("%device")
    listing = run.stream()
    for label in ("cpu", "sim0", "sim1", "sim2"):
        assert re.search(rf"^[ *] {label} ", listing, re.M), listing
    assert "sim1 peer" in listing  # simulated devices copy to each other directly
    s.ok("%device gpu1")  # no GPU here: GPU numbers name the simulated devices
    run = s.ok("ga_t on1 = ga_arange(I32, 0, 6, 1);\non1")
    assert "device=sim1" in run.result
    run = s.ok("ga_t on2 = ga_to_device(on1, 2);\non2")
    assert "device=sim2" in run.result
    whos = s.ok("%whos").stream()
    assert re.search(r"^on1 .*sim1$", whos, re.M) and re.search(r"^on2 .*sim2$", whos, re.M), whos
    memory = s.ok("%memory").stream()
    assert re.search(r"^sim1 ", memory, re.M) and re.search(r"^sim2 ", memory, re.M), memory
    assert re.search(r"on2 .*sim2", memory), memory
    # a picture names the device of an array away from where new arrays go
    shown = [m["content"]["data"]["text/plain"] for m in
             s.ok("ga_heatmap(ga_reshape(on2, 2, 3));\nga_plot(on1);").of_type("display_data")]
    assert shown[0].startswith("<heatmap of int32 (2, 3) on sim2, min 0, max 5"), shown
    assert shown[1].startswith("<line chart of int32 (6,), 6 points"), shown
    s.ok("ga_free(on1); ga_free(on2);\n%device cpu")


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16", "complex128", "bool"])
def test_peer_copy(kernel, dtype):
    s = Session(kernel, f"peer_{dtype}")
    a = values(dtype, (33, 17))
    s.ok(f"ga_t p0 = {s.put(a, 0)};\nga_t p1 = ga_to_device(p0, 1);")
    got = s.value("p1")
    np.testing.assert_array_equal(got, a)
    assert got.dtype == a.dtype
    # a strided view copies too (through the host)
    s.ok("ga_t pv = ga_to_device(ga_slice(p0, 1, 1, 17, 3), 2);")
    np.testing.assert_array_equal(s.value("pv"), a[:, 1:17:3])
    s.ok("ga_free(p0); ga_free(p1); ga_free(pv);")


def test_operations_run_on_their_operands_device(kernel):
    """sim0 selected, the operands on sim2: the result is on sim2 and right."""
    s = Session(kernel, "where")
    x, y = values("float32", 1000), values("float32", 1000)
    s.ok(f"%device gpu0\nga_t wx = {s.put(x, 2)}, wy = {s.put(y, 2)};")
    run = s.ok('ga_t wr = ga_map("(a - b) * (a - b)", wx, wy);\nga_device(wr) == ga_device(wx)')
    assert run.result == "1"
    np.testing.assert_allclose(s.value("wr"), (x - y) ** 2, rtol=1e-6)
    run = s.ok('printf("%.6f\\n", ga_sum(wr));')
    assert float(run.stream()) == pytest.approx(float(((x - y) ** 2).astype(np.float64).sum()),
                                                rel=1e-5)
    m = values("float32", (40, 30)), values("float32", (30, 20))
    s.ok(f"ga_t ma = {s.put(m[0], 2)}, mb = {s.put(m[1], 2)};\nga_t mc = ga_matmul(ma, mb);")
    np.testing.assert_allclose(s.value("mc"), m[0] @ m[1], rtol=1e-4, atol=1e-3)
    assert "device=sim2" in s.ok("mc").result
    s.ok("ga_free(wx); ga_free(wy); ga_free(wr); ga_free(ma); ga_free(mb); ga_free(mc);")


def test_mixed_devices_and_bad_numbers_are_errors(kernel):
    s = Session(kernel, "errors")
    s.ok("%device gpu0\nga_t e0 = ga_ones(F32, 4);\nga_t e1 = ga_to_device(e0, 1);")
    ename, evalue = s.error("ga_add(e0, e1)")
    assert ename == "DeviceError" and "sim1" in evalue and "sim0" in evalue, evalue
    ename, evalue = s.error("ga_matmul(ga_reshape(e0, 2, 2), ga_reshape(e1, 2, 2))")
    assert ename == "DeviceError" and "sim0" in evalue and "sim1" in evalue, evalue
    ename, evalue = s.error("ga_use_device(99);")
    assert ename == "DeviceError" and "99 is not a device" in evalue, evalue
    ename, evalue = s.error("%device gpu7")
    assert ename == "DeviceError" and "sim7" in evalue and "sim0..sim2" in evalue, evalue
    ename, evalue = s.error("ga_to_device(e0, 5)")
    assert ename == "DeviceError" and "sim5" in evalue, evalue
    # nothing was changed by the failures: new arrays still go to sim0
    assert "device=sim0" in s.ok("ga_zeros(F32, 2)").result
    s.ok("ga_free(e0); ga_free(e1);")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int16", "uint8", "bool"])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_allreduce(kernel, dtype, op):
    s = Session(kernel, f"ar_{dtype}_{op}")
    parts = [values(dtype, (7, 9)) for _ in range(3)]
    if dtype == "bool" and op == "sum":
        want = parts[0] | parts[1] | parts[2]  # NumPy: True + True is True
    else:
        fn = {"sum": np.add, "max": np.maximum, "min": np.minimum}[op]
        want = fn(fn(parts[0], parts[1]), parts[2]).astype(dtype)
    puts = ", ".join(s.put(p, d) for d, p in enumerate(parts))
    s.ok(f'ga_t ar[3] = {{{puts}}};\nga_allreduce(ar, 3, "{op}");')
    for d in range(3):
        got = s.value(f"ar[{d}]")
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6) if want.dtype.kind == "f" else \
            np.testing.assert_array_equal(got, want)
    s.ok("for (int d = 0; d < 3; d++) ga_free(ar[d]);")


def test_allreduce_errors(kernel):
    s = Session(kernel, "arerr")
    s.ok("ga_use_device(0); ga_t q0 = ga_ones(F32, 4);\nga_use_device(1); "
         "ga_t q1 = ga_ones(F32, 5), q2 = ga_ones(F64, 4), q3 = ga_ones(F32, 4);\nga_use_device(0);")
    for code, kind, words in [
        ('ga_t l[2] = {q0, q1}; ga_allreduce(l, 2, "sum");', "ShapeError", "shape"),
        ('ga_t l[2] = {q0, q2}; ga_allreduce(l, 2, "sum");', "DTypeError", "float64"),
        ('ga_t l[2] = {q0, q0}; ga_allreduce(l, 2, "sum");', "DeviceError", "both on sim0"),
        ('ga_t l[2] = {q0, q3}; ga_allreduce(l, 2, "prod");', "ValueError", "\"prod\""),
    ]:
        ename, evalue = s.error(code)
        assert ename == kind and words in evalue, (code, evalue)
    s.ok("ga_free(q0); ga_free(q1); ga_free(q2); ga_free(q3);")


KERNEL = """%%kernel
__global__ void add_index(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += i;
}"""


def test_kernel_cells_run_on_the_selected_device(kernel):
    """One compile; launched on sim1 with sim1's array, refused with sim0's."""
    s = Session(kernel, "kern")
    s.ok(KERNEL)
    s.ok("%device gpu1\nga_t k1 = ga_zeros(F32, 100);\nadd_index<<<1, 128>>>(k1, 100);")
    np.testing.assert_array_equal(s.value("k1"), np.arange(100, dtype=np.float32))
    s.ok("%device gpu0\nga_t k0 = ga_zeros(F32, 100);\nadd_index<<<1, 128>>>(k0, 100);")
    np.testing.assert_array_equal(s.value("k0"), np.arange(100, dtype=np.float32))
    ename, evalue = s.error("add_index<<<1, 128>>>(k1, 100);")
    assert ename == "DeviceError" and "on sim1" in evalue and "run on sim0" in evalue, evalue
    assert "%device sim1" in evalue, evalue
    # the array on sim1 was not touched by the refused launch
    np.testing.assert_array_equal(s.value("k1"), np.arange(100, dtype=np.float32))
    s.ok("ga_free(k0); ga_free(k1);\n%device cpu")


def test_no_sequence_leaves_the_session_broken(kernel):
    """Switches, copies, frees, %memory free and %reset, then work on each
    device still gives NumPy's answers."""
    s = Session(kernel, "seq")
    a = values("float64", 257)
    s.ok(f"%device gpu2\nga_t s2 = {s.put(a, 2)};\nga_t s0 = ga_to_device(s2, 0);\n%device gpu1")
    s.ok("ga_free(s2);\n%memory free")
    s.ok("%device gpu0\nga_t s1 = ga_to_device(s0, 1);\n%memory free")
    np.testing.assert_allclose(s.value("ga_mul(s1, 2)"), a * 2)
    memory = s.ok("%memory").stream()
    assert re.search(r"s1 .*sim1", memory) and re.search(r"s0 .*sim0", memory), memory
    s.ok("%reset -f")
    s.ok("%device gpu2")
    b = values("float32", 64)
    s.ok(f"ga_t t2 = {s.put(b, 2)};")
    np.testing.assert_allclose(s.value("ga_to_device(ga_exp(t2), 1)"), np.exp(b), rtol=1e-6)
    s.ok("ga_free(t2);\n%device cpu")


def test_sim_devices_from_the_environment():
    """GPUC_SIM_DEVICES sets the count at the start; %sim --devices changes it."""
    env = dict(os.environ, GPUC_SIM_DEVICES="2")
    km = KernelManager(kernel_name="gpuc")
    km.start_kernel(env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=scaled(60))
        assert "devices: 2 (sim0..sim1" in execute_ok(kc, "%sim").stream()
        assert "ga_device_count() 2" in execute_ok(
            kc, 'printf("ga_device_count() %d\\n", ga_device_count());').stream()
        run = execute(kc, "%device gpu2")
        assert run.status == "error" and "sim0..sim1" in run.reply["content"]["evalue"]
        assert "devices: 4 (sim0..sim3" in execute_ok(kc, "%sim --devices 4").stream()
        assert "device=sim3" in execute_ok(kc, "ga_to_device(ga_ones(F32, 2), 3)").result
        execute_ok(kc, "%device gpu1\nga_t kept = ga_ones(F32, 3);")
        run = execute(kc, "%sim --devices 1")
        assert run.status == "error" and "sim1 still holds arrays" in run.reply["content"]["evalue"]
        execute_ok(kc, "ga_free(kept);\n%sim --devices 1")
        assert "New arrays go to sim0." in execute_ok(kc, "%device").stream()
    finally:
        stop_kernel(km, kc)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def script(args, tmp_path, **env):
    import subprocess
    import sys

    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=scaled(600), env=dict(os.environ, **env))


def test_gpu_check_script_on_simulated_devices(gpuc_bin, tmp_path):
    """tests/gpu/multi_gpu.py, the lead's check on two GPUs: every check
    passes on two simulated devices (--sim), and without two devices it
    fails saying so, not with a traceback."""
    check = os.path.join(ROOT, "tests", "gpu", "multi_gpu.py")
    bin_dir = str(gpuc_bin.parent)
    p = script([check, bin_dir, str(tmp_path / "sim"), "--sim"], tmp_path)
    assert p.returncode == 0 and "FAIL" not in p.stdout, p.stdout + p.stderr
    assert p.stdout.count("PASS ") >= 30, p.stdout
    p = script([check, bin_dir, str(tmp_path / "gpu")], tmp_path, GPUC_SIM_DEVICES="1")
    if "count 1" in p.stdout or "ga_device_count() is 1" in p.stdout:  # no second GPU here
        assert p.returncode == 2 and "two devices needed" in p.stdout, p.stdout + p.stderr
    p = script([check, bin_dir], tmp_path)
    assert p.returncode != 0 and "usage:" in p.stderr


def test_benchmark_on_simulated_devices(gpuc_bin, tmp_path):
    """bench/bench_multigpu.py runs its gpuc cells on two simulated devices
    (--sim) and prints each figure; without two devices it says so."""
    bench = os.path.join(ROOT, "bench", "bench_multigpu.py")
    bin_dir = str(gpuc_bin.parent)
    p = script([bench, bin_dir, str(tmp_path / "sim"), "--sim"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    for line in ("results agree", "peer copy", "map-reduce sum((x-y)^2)", "all-reduce sum"):
        assert line in p.stdout, p.stdout
    assert "results agree (copy" in p.stdout and ": True" in p.stdout, p.stdout
    p = script([bench, bin_dir, str(tmp_path / "gpu")], tmp_path, GPUC_SIM_DEVICES="1")
    if "ga_device_count() is 1" in p.stderr:  # no second GPU here
        assert p.returncode == 1 and "two devices needed" in p.stderr, p.stdout + p.stderr
