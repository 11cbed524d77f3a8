"""Several GPUs in one session, on a machine with two (or more) GPUs:
placement, errors, peer copies, the all-reduce, kernel cells on each GPU,
CUDA_VISIBLE_DEVICES, and the wrong-context regression of issue 27 (with
gpu0 selected, an array copied to gpu1 and summed there ended in
CUDA_ERROR_ILLEGAL_ADDRESS). NumPy is the oracle.

    python3 tests/gpu/multi_gpu.py BIN_DIR OUT_DIR [--sim]

Runs notebooks with `gpuc run` (no Jupyter needed) and prints PASS/FAIL per
check; exits 1 on a failure, 2 when the machine has fewer than two GPUs.
--sim runs the same checks on two simulated devices (GPUC_SIM_DEVICES=2,
no GPU needed): what tests/array/test_multi_device_numpy.py also covers,
here to try the script itself where there is no GPU."""
import os
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: gpuc_testing
from gpuc_testing.notebook import bin_out_args, run_cells  # noqa: E402

BIN, OUT, FLAGS = bin_out_args(sys.argv[1:], "usage: python3 tests/gpu/multi_gpu.py BIN_DIR "
                               "OUT_DIR [--sim]", ("--sim",))
SIM = "--sim" in FLAGS
OUT.mkdir(parents=True, exist_ok=True)
if SIM:  # gpuc run inherits these
    os.environ["GPUC_SIM_DEVICES"] = "2"
    os.environ.pop("CUDA_VISIBLE_DEVICES", None)
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else f": {str(detail)[:1500]}"))
    failed |= not ok


def run(name, cells, env=None):
    """Runs cells as the notebook OUT/name.ipynb, in OUT (with env's
    variables set); (result, stdout + stderr, (ename, evalue)) per cell."""
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        return run_cells(BIN / "gpuc", OUT, cells, timeout=900, name=name)
    except RuntimeError as e:
        check(False, f"{name}: gpuc run wrote its notebook", e)
        return [(None, "", None)] * len(cells)
    finally:
        os.environ.clear()
        os.environ.update(saved)


# 0. are there two devices? (the labels are gpuN on GPUs, simN on the simulator)
first = run("devices", ["%device", 'printf("count %d\\n", ga_device_count());'])
listing = first[0][1]
count = int(re.search(r"count (\d+)", first[1][1]).group(1)) if "count" in first[1][1] else 0
L = "sim" if SIM else "gpu"
print(listing)
if count < 2 or not re.search(rf"^[ *] {L}1 ", listing, re.M):
    print(f"FAIL two devices needed: ga_device_count() is {count}"
          + ("" if SIM else " (no second GPU: run on a 2-GPU machine, or --sim to try the "
                            "script on simulated devices)"))
    sys.exit(2)
check(re.search(rf"^[ *] {L}0 .*, [\d.]+ GiB", listing, re.M) is not None,
      "%device lists the devices with their names and memory", listing)
check(re.search(rf"^[ *] {L}0 .*; {L}1 (peer|through the host)", listing, re.M) is not None,
      "%device says how each device reaches the others", listing)
if not SIM:
    check("ga_allreduce:" in listing, "%device says how ga_allreduce reduces", listing)

# 1. the wrong-context regression, placement, and every operation on its
# operands' device whatever %device selects
rng = np.random.default_rng(27)
x = rng.standard_normal(1 << 20).astype(np.float32)
np.save(OUT / "x.npy", x)
A = rng.standard_normal((256, 128)).astype(np.float32)
B = rng.standard_normal((128, 64)).astype(np.float32)
np.save(OUT / "A.npy", A)
np.save(OUT / "B.npy", B)
cells = [
    "%device gpu0",
    'ga_t m0 = ga_load("x.npy");\nga_t m1 = ga_to_device(m0, 1);\n'
    'ga_device(m0) * 10 + ga_device(m1)',
    'printf("%.6f %.6f\\n", ga_sum(m1), ga_sum(m0));',
    'ga_t sq1 = ga_map("(a - 1) * (a - 1)", m1);\nga_save(sq1, "sq1.npy");\nga_t cs1 = ga_cumsum(ga_slice(m1, 0, 0, 1000, 1), 0);\nga_save(cs1, "cs1.npy");',
    'ga_t A1 = ga_to_device(ga_load("A.npy"), 1), B1 = ga_to_device(ga_load("B.npy"), 1);\nga_save(ga_matmul(A1, B1), "AB1.npy");',
    "ga_use_device(1);\nga_seed(3);\nga_t r1 = ga_random(F32, 1000);\nga_use_device(0);\nga_seed(3);\nga_t r0 = ga_random(F32, 1000);\nga_save(r1, \"r1.npy\"); ga_save(r0, \"r0.npy\");\nr1",
    "ga_add(m0, m1)",
    "ga_use_device(99);",
    "%device gpu7",
    "ga_to_device(m0, 9)",
    # the context gpu0's host cells use is still gpu0's after all that
    ("int dev = -1;\ncudaGetDevice(&dev);\nfloat *raw; cudaMalloc(&raw, 64);\n"
     "cudaPointerAttributes at; cudaPointerGetAttributes(&at, raw);\ncudaFree(raw);\n"
     "dev * 10 + at.device") if not SIM else "0",
    "%memory",
    'printf("%.6f %.6f\\n", ga_sum(m1), ga_sum(m0));',
]
r = run("placement", cells)
check(r[1][0] == "1" and r[1][2] is None, "ga_to_device(m0, 1) with gpu0 selected: "
      "ga_device says 0 and 1", r[1])
sums = r[2][1].split()
want = float(x.astype(np.float64).sum())
check(r[2][2] is None and len(sums) == 2 and abs(float(sums[0]) - want) < 1e-2
      and sums[0] == sums[1], "ga_sum of the copy on gpu1 with gpu0 selected (issue 27's "
      "CUDA_ERROR_ILLEGAL_ADDRESS)", r[2])
if (OUT / "sq1.npy").exists():
    np_sq = (x - 1) * (x - 1)
    check(np.allclose(np.load(OUT / "sq1.npy"), np_sq, rtol=1e-6), "ga_map on gpu1", r[3])
    check(np.allclose(np.load(OUT / "cs1.npy"), np.cumsum(x[:1000]), rtol=1e-4, atol=1e-3),
          "ga_cumsum of a view on gpu1", r[3])
else:
    check(False, "ga_map and ga_cumsum on gpu1", r[3])
check((OUT / "AB1.npy").exists() and np.allclose(np.load(OUT / "AB1.npy"), A @ B, rtol=1e-4,
                                                  atol=1e-3), "cuBLAS matmul on gpu1", r[4])
check(r[5][2] is None and f"device={L}1" in (r[5][0] or "") and
      (OUT / "r1.npy").exists() and
      np.load(OUT / "r1.npy").tobytes() == np.load(OUT / "r0.npy").tobytes(),
      "ga_random on gpu1 gives gpu0's numbers for a seed", r[5])
check(r[6][2] is not None and r[6][2][0] == "DeviceError" and f"{L}0" in r[6][2][1]
      and f"{L}1" in r[6][2][1], "mixed devices: a DeviceError naming both", r[6])
check(r[7][2] is not None and r[7][2][0] == "DeviceError" and "99 is not a device" in r[7][2][1],
      "ga_use_device(99) is a DeviceError", r[7])
check(r[8][2] is not None and r[8][2][0] == "DeviceError" and f"{L}7" in r[8][2][1],
      "%device gpu7 is a DeviceError", r[8])
check(r[9][2] is not None and r[9][2][0] == "DeviceError", "ga_to_device(m0, 9) is a DeviceError",
      r[9])
check(r[10][0] == "0", "host cells' runtime API is still on gpu0 (cudaGetDevice, cudaMalloc)",
      r[10])
check(re.search(rf"^{L}0 ", r[11][1], re.M) and re.search(rf"^{L}1 ", r[11][1], re.M) and
      re.search(rf"m1 .*{L}1", r[11][1]), "%memory: a line per device, m1 on gpu1", r[11][1])
check(r[12][2] is None and r[12][1] == r[2][1], "both devices still work after the errors",
      r[12])

# 2. peer copies: 256 MiB there and back, byte for byte; a strided view
cells = [
    "%device gpu0",
    "size_t pn = 64u << 20;\nga_seed(11);\nga_t p0 = ga_random(F32, pn);\n"
    "ga_t p1 = ga_to_device(p0, 1);\nga_t back = ga_to_device(p1, 0);\n"
    "(int)ga_all(ga_eq(back, p0))",
    "ga_t v0 = ga_reshape(ga_arange(F64, 0, 4096, 1), 64, 64);\n"
    "ga_t v1 = ga_to_device(ga_slice(ga_transpose(v0), 1, 3, 60, 7), 1);\n"
    'ga_save(v1, "v1.npy");\nga_device(v1) - ga_device(p0)',
    "%device",
]
r = run("peer", cells)
check(r[1][0] == "1", "256 MiB gpu0 -> gpu1 -> gpu0 byte for byte", r[1])
v = np.arange(4096, dtype=np.float64).reshape(64, 64).T[:, 3:60:7]
check((OUT / "v1.npy").exists() and np.array_equal(np.load(OUT / "v1.npy"), v),
      "a strided view copied to gpu1", r[2])
if not SIM:
    print("peer links:", [l for l in r[3][1].splitlines() if "gpu" in l])

# 3. the all-reduce: sum, max, min; float32, float64, int32, float16
cells = ["%device gpu0"]
parts = {}
for dt in ("float32", "float64", "int32", "float16"):
    for d in range(2):
        a = (rng.standard_normal(100003) * 50).astype(dt)
        parts[dt, d] = a
        np.save(OUT / f"ar_{dt}_{d}.npy", a)
for dt in ("float32", "float64", "int32", "float16"):
    for op in ("sum", "max", "min"):
        cells.append(
            f'ga_t l_{dt}_{op}[2] = {{ga_load("ar_{dt}_0.npy"), '
            f'ga_to_device(ga_load("ar_{dt}_1.npy"), 1)}};\n'
            f'ga_allreduce(l_{dt}_{op}, 2, "{op}");\n'
            f'ga_save(l_{dt}_{op}[0], "ar_out_{dt}_{op}_0.npy");\n'
            f'ga_save(l_{dt}_{op}[1], "ar_out_{dt}_{op}_1.npy");\n'
            f'ga_free(l_{dt}_{op}[0]); ga_free(l_{dt}_{op}[1]);')
r = run("allreduce", cells)
k = 1
for dt in ("float32", "float64", "int32", "float16"):
    for op in ("sum", "max", "min"):
        fn = {"sum": np.add, "max": np.maximum, "min": np.minimum}[op]
        want = fn(parts[dt, 0], parts[dt, 1])
        ok = r[k][2] is None
        for d in range(2):
            f = OUT / f"ar_out_{dt}_{op}_{d}.npy"
            ok = ok and f.exists() and np.allclose(np.load(f).astype(np.float64),
                                                  want.astype(np.float64), rtol=1e-3 if
                                                  dt == "float16" else 1e-6)
        check(ok, f"ga_allreduce {op} {dt} on both devices", r[k])
        k += 1

# 4. kernel cells: one compile, loaded on each GPU at its first use there
cells = [
    "%device gpu0",
    "%%kernel\n__global__ void add_i(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += i; }",
    "ga_t k0 = ga_zeros(F32, 1000);\nadd_i<<<4, 256>>>(k0, 1000);\nga_item(k0, 999)",
    "%device gpu1\nga_t k1 = ga_zeros(F32, 1000);\nadd_i<<<4, 256>>>(k1, 1000);\nga_item(k1, 999)",
    "add_i<<<4, 256>>>(k0, 1000);",
    "%device gpu0\nadd_i<<<4, 256>>>(k0, 1000);\nga_item(k0, 999)",
    "%device gpu1\nadd_i<<<4, 256>>>(k1, 1000);\nga_item(k1, 999)",
    "%memory free\n%device gpu0\nga_free(k1);\n%memory free\nga_item(k0, 10)",
    "%reset -f",
    "%device gpu1\nga_t z = ga_ones(F64, 10);\nga_sum(z)",
]
r = run("kernels", cells)
check(r[2][0] == "999", "a kernel cell on gpu0", r[2])
check(r[3][0] == "999", "the same kernel on gpu1 (loaded there at its first use)", r[3])
check(r[4][2] is not None and r[4][2][0] == "DeviceError" and f"{L}0" in r[4][2][1],
      "a launch on gpu1 with gpu0's array is a DeviceError", r[4])
check(r[5][0] == "1998", "back on gpu0: the module loaded there before runs", r[5])
check(r[6][0] == "1998", "and on gpu1 again", r[6])
check(r[7][0] == "20", "%memory free on both devices keeps live arrays", r[7])
check(r[9][0] == "10", "after %reset the devices still work", r[9])

# 5. CUDA_VISIBLE_DEVICES: gpuc numbers the GPUs it is given; and a session
# whose first GPU work is on gpu1 leaves the host cells on gpu0 (real GPUs only)
if not SIM:
    r = run("first_on_gpu1", [
        "ga_use_device(1);\nga_t f1 = ga_ones(F32, 1000);\nga_use_device(0);\n(int)ga_sum(f1)",
        "float *raw; cudaMalloc(&raw, 64);\ncudaPointerAttributes at;\n"
        "cudaPointerGetAttributes(&at, raw);\ncudaFree(raw);\nint dev = -1; cudaGetDevice(&dev);\n"
        "dev * 10 + at.device"])
    check(r[0][0] == "1000" and r[1][0] == "0",
          "first work on gpu1: host cells' cudaMalloc still lands on gpu0", r)
    r = run("visible", ['printf("count %d\\n", ga_device_count());', "%device"],
            env={"CUDA_VISIBLE_DEVICES": "1"})
    check("count 1" in r[0][1] and re.search(r"^\* gpu0 ", r[1][1], re.M)
          and " gpu1 " not in r[1][1], "CUDA_VISIBLE_DEVICES=1: one GPU, gpu0", r)

print("multi_gpu:", "FAILED" if failed else "all passed", "(simulated devices)" if SIM else "")
sys.exit(1 if failed else 0)
