"""Device arrays on the GPU machine: every case of the CPU-backend tests on
the GPU, results checked against NumPy and against the CPU backend.

    python3 tests/gpu/arrays_gpu.py BIN_DIR OUT_DIR

Runs notebooks with `gpuc run` (no Jupyter needed) and checks their
outputs; prints PASS/FAIL per check and exits non-zero on a failure."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # gpuc_testing
from gpuc_testing.notebook import run_cells  # noqa: E402

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
OUT.mkdir(parents=True, exist_ok=True)
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))
    failed |= not ok


def run(name, cells):
    """Runs cells as a notebook (gpuc run's own time limit); (result, stdout
    and the <MIME types> of its pictures, error) per cell."""
    return run_cells(BIN / "gpuc", OUT, cells, timeout=None, name=name, displays=True)


def np_repr(value, device="gpu0"):
    text = "array(" + np.array2string(value, separator=", ", prefix="array(", suffix=",") + ","
    suffix = f"dtype={value.dtype}, shape={tuple(value.shape)!r}, device={device})"
    last = len(text) - (text.rfind("\n") + 1)
    return text + ("\n      " if last + len(suffix) + 1 > 75 else " ") + suffix


# 1. the arrays notebook on the GPU
p = subprocess.run([str(BIN / "gpuc"), "run", str(ROOT / "notebooks/arrays.ipynb"), "-o",
                    str(OUT / "arrays.out.ipynb")], capture_output=True, text=True, cwd=OUT)
check(p.returncode == 0, "notebooks/arrays.ipynb runs on the GPU", p.stderr[-500:])
nb = json.loads((OUT / "arrays.out.ipynb").read_text())
texts = {"".join(c["source"]): c for c in nb["cells"] if c["cell_type"] == "code"}
def out_of(marker):
    for src, c in texts.items():
        if marker in src:
            r = [o["data"]["text/plain"] for o in c["outputs"] if o["output_type"] == "execute_result"]
            t = "".join(o.get("text", "") for o in c["outputs"] if o["output_type"] == "stream")
            return (r[0] if r else None), t
    return None, ""
m = np.arange(12, dtype=np.float32).reshape(3, 4)
check(out_of("ga_t m = ga_reshape")[0] == np_repr(m), "a GPU array prints as NumPy", out_of("ga_t m = ga_reshape")[0])
m[1, 0] = 100
check(out_of("ga_t t = ga_transpose")[0] == np_repr(m), "a view writes through on the GPU")
big = np.arange(1_000_000, dtype=np.float32).reshape(1000, 1000)
check(out_of("ga_t big")[0] == np_repr(big), "1e6 elements print summarised")
check("x[11] = 22" in out_of("scale<<<")[1], "a kernel launched with an array", out_of("scale<<<")[1])

# 2. launches, devices, errors, leaks, OOM, GPU against the CPU backend
cells = [
    "%%kernel\n__global__ void fill(int n, float *v) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = i * 0.5f; }",
    "ga_t a = ga_empty(F32, 1000);\nfill<<<4, 256>>>(1000, a);\nga_item(a, 999)",
    "ga_t d = ga_zeros(F64, 10);\nfill<<<1, 32>>>(10, d);",
    "ga_t onhost = ga_to_device(a, GA_CPU);\nfill<<<4, 256>>>(1000, onhost);",
    "ga_t keep_me = ga_zeros(F32, 1 << 20);\n%memory",
    *["ga_t churn = ga_zeros(F32, 1 << 20);\nchurn = ga_ones(F32, 1 << 20);"] * 200,
    "%memory",
    "ga_zeros(F32, 1LL << 40)",
    "ga_size(keep_me)",
    # GPU and CPU backends give the same elements for views and copies
    "ga_t g = ga_reshape(ga_arange(F64, 0, 24, 1), 2, 3, 4);\n"
    "ga_t gv = ga_copy(ga_slice(ga_transpose(g), 1, 2, GA_END, -1));\n"
    "%device cpu\n"
    "ga_t c = ga_reshape(ga_arange(F64, 0, 24, 1), 2, 3, 4);\n"
    "ga_t cv = ga_copy(ga_slice(ga_transpose(c), 1, 2, GA_END, -1));\n"
    "double hg[24], hc[24];\nga_read(gv, hg); ga_read(cv, hc);\n"
    "memcmp(hg, hc, ga_nbytes(gv)) == 0 && ga_device(gv) == 0 && ga_device(cv) == GA_CPU",
    "%device gpu\nga_save(g, \"g.npy\");\nga_t gl = ga_load(\"g.npy\");\nga_device(gl) * 10 + (int)ga_item(gl, 1, 2, 3)",
    # large copies go through the pinned staging: every byte must arrive, tails too
    "#include <string.h>\nsize_t big_n = (25u << 20) + 12345;\n"
    "float *big_h = malloc(big_n * 4), *big_b = malloc(big_n * 4);\n"
    "for (size_t i = 0; i < big_n; i++) big_h[i] = (float)(i % 100003) * 0.5f;\n"
    "ga_t big = ga_empty(F32, big_n);\nga_write(big, big_h);\nga_read(big, big_b);\n"
    "memcmp(big_h, big_b, big_n * 4) == 0 && ga_item(big, big_n - 1) == big_h[big_n - 1]",
    # the CUDA runtime API on an array's data, and an array over cudaMalloc'd memory
    "float *raw; cudaMalloc(&raw, 64 * sizeof(float));\n"
    "ga_t over = ga_from_device(F32, raw, 8, 8);\nga_set(over, 3.5, 7, 7);\nfloat back[64];\n"
    "cudaMemcpy(back, ga_data(over), ga_nbytes(over), cudaMemcpyDeviceToHost);\nback[63]",
    "ga_write(big, (const float *)4096);",
    "ga_size(big)",
    # pictures of GPU arrays: a 4096 x 4096 heatmap reads a downsampled view
    "ga_t hm = ga_reshape(ga_arange(F32, 0, 4096 * 4096, 1), 4096, 4096);",
    "%%time\nga_heatmap(hm);\nga_plot(ga_row(hm, 7));\nga_hist(hm, 20);",
]
r = run("cases", cells)
check(r[1][0] == "499.5", "launch result read back", r[1])
check(r[2][2] and r[2][2][0] == "LaunchError" and "got a float64 array: the kernel reads float" in r[2][2][1], "dtype mismatch is a LaunchError", r[2][2])
check(r[3][2] and r[3][2][0] == "DeviceError", "a CPU array to a kernel is a DeviceError", r[3][2])
mem0, mem1 = r[4][1], r[205][1]
def used_mib(text):
    """The gpu0 line's "arrays" column of %memory, in MiB."""
    m = re.search(r"^gpu0 +([\d.]+) (bytes|KiB|MiB|GiB)", text, re.M)
    return float(m.group(1)) * {"bytes": 2**-20, "KiB": 2**-10, "MiB": 1, "GiB": 1024}[m.group(2)] if m else None
u0, u1 = used_mib(mem0), used_mib(mem1)
check(u0 is not None and u1 is not None and abs((u1 - u0) - 4.0) < 0.01,
      "200 re-runs hold one array's memory, no more", f"{u0} MiB -> {u1} MiB\n{mem1}")
e = r[206][2]
check(e and e[0] == "OutOfMemoryError" and "asked for 4096.00 GiB" in e[1] and "nothing was lost" in e[1], "OOM says what was asked and lost nothing", e)
check(r[207][0] == "1048576", "the session survives OOM", r[207])
check(r[208][0] == "1", "GPU and CPU backends agree on a strided copy", r[208])
check(r[209][0] == "23", ".npy round trip on the GPU", r[209])
check(r[210][0] == "1", "100 MiB through the pinned staging, both ways, byte for byte", r[210])
check(r[211][0] == "3.5", "cudaMemcpy of ga_data, and an array over cudaMalloc memory", r[211])
check(r[212][2] and "is not all mapped" in r[212][2][1], "a bad host pointer is the cell's error", r[212])
check(r[213][0] == str((25 << 20) + 12345), "the session lives on after it", r[213])
pic = r[215][1]
check(not r[215][2] and pic.count("<image/png>") == 1 and pic.count("<image/svg+xml>") == 2,
      "heatmap (PNG), plot and histogram (SVG) of a GPU array", r[215])
print("pictures of a 4096x4096 GPU array:", re.findall(r"Wall time: .*", pic))
# 3. random numbers and matmul (runtime/array/ga_random, ga_blas): the same
# seed gives the same numbers on the GPU and the CPU backend; GPU matmul
# (cuBLAS) against NumPy for each dtype, TF32, transposed views, batches
rng = np.random.default_rng(16)
mm_in = {"a32": rng.standard_normal((300, 200)).astype(np.float32),
         "b32": rng.standard_normal((200, 100)).astype(np.float32),
         "a64": rng.standard_normal((300, 200)), "b64": rng.standard_normal((200, 100)),
         "a16": rng.standard_normal((64, 48)).astype(np.float16),
         "b16": rng.standard_normal((48, 32)).astype(np.float16),
         "p64": rng.standard_normal((3, 1, 40, 50)), "q64": rng.standard_normal((2, 50, 60)),
         "v32": rng.standard_normal(200).astype(np.float32)}
for name, value in mm_in.items():
    np.save(OUT / f"mm_{name}.npy", value)
draw = ("ga_seed(7);\nga_save(ga_random(F32, 1000003), \"{d}_u32.npy\");\n"
        "ga_save(ga_random(F64, 100001), \"{d}_u64.npy\");\n"
        "ga_save(ga_normal(F32, 1.0, 2.0, 1000003), \"{d}_n32.npy\");\n"
        "ga_save(ga_normal(F16, 0.0, 1.0, 100001), \"{d}_n16.npy\");\n"
        "ga_save(ga_normal(F64, 0.0, 1.0, 100001), \"{d}_n64.npy\");\n"
        "ga_save(ga_integers(I64, -5, 1000000007, 100001), \"{d}_i64.npy\");\n"
        "ga_save(ga_integers(U8, 0, 256, 100001), \"{d}_u8.npy\");")
mm_cases = {"mm32": ("ga_matmul(a32, b32)", lambda i: i["a32"] @ i["b32"], 1e-5),
            "mm64": ("ga_matmul(a64, b64)", lambda i: i["a64"] @ i["b64"], 1e-12),
            "mm16": ("ga_matmul(a16, b16)", lambda i: i["a16"] @ i["b16"], 3e-3),
            "tt32": ("ga_matmul(ga_transpose(b32), ga_transpose(a32))",
                     lambda i: i["b32"].T @ i["a32"].T, 1e-5),
            "batch": ("ga_matmul(p64, ga_permute(q64, 0, 2, 1))",
                      lambda i: i["p64"] @ i["q64"].transpose(0, 2, 1), 1e-12),
            "mv": ("ga_matmul(a32, v32)", lambda i: i["a32"] @ i["v32"], 1e-5),
            "tf32": ("ga_matmul(a32, b32)", lambda i: i["a32"] @ i["b32"], 5e-3)}
mm_in["q64"] = mm_in["q64"].transpose(0, 2, 1).copy()  # saved as (2, 50, 60): the cell permutes it
np.save(OUT / "mm_q64.npy", mm_in["q64"])
mm_cell = "".join(f'ga_t {n} = ga_load("mm_{n}.npy");\n' for n in mm_in)
mm_cell += "".join(("ga_set_tf32(1);\n" if k == "tf32" else "") +
                   f'ga_save({expr}, "mm_out_{k}.npy");\n' for k, (expr, _, _) in mm_cases.items())
mm_cell += "ga_set_tf32(0);\nga_device(a32) * 10 + (int)ga_dot(ga_ones(F64, 3), ga_ones(F64, 3))"
r = run("randblas", ["%device gpu\n" + draw.format(d="gpu"), "%device cpu\n" + draw.format(d="cpu"),
                     "%device gpu\n" + mm_cell,
                     "%device gpu\nga_matmul(ga_zeros(F32, 3, 4), ga_zeros(F32, 5, 2))"])
check(all(x[2] is None for x in r[:3]), "random and matmul cells run on the GPU", r[:3])
for name in ("u32", "u64", "n32", "n16", "i64", "u8"):
    g, c = np.load(OUT / f"gpu_{name}.npy"), np.load(OUT / f"cpu_{name}.npy")
    check(g.dtype == c.dtype and g.tobytes() == c.tobytes(),
          f"random {name}: the GPU's numbers are the CPU backend's, bit for bit",
          f"{np.count_nonzero(g != c)} differ")
g, c = np.load(OUT / "gpu_n64.npy"), np.load(OUT / "cpu_n64.npy")
check(np.abs(g - c).max() < 1e-13, "random normal float64: GPU and CPU within 1e-13 std",
      np.abs(g - c).max())
u = np.load(OUT / "gpu_u32.npy")
check(abs(u.mean() - 0.5) < 0.002 and u.min() >= 0 and u.max() < 1, "GPU uniform statistics")
for k, (_, ref, tol) in mm_cases.items():
    got = np.load(OUT / f"mm_out_{k}.npy")
    want = ref(mm_in)
    err = np.abs(got.astype(np.float64) - want.astype(np.float64)).max() / np.abs(want).max()
    check(got.dtype == want.dtype and got.shape == want.shape and err < tol,
          f"GPU matmul {k} matches NumPy", f"{got.dtype} {got.shape} vs {want.dtype} "
          f"{want.shape}, relative error {err:.3g}")
check(r[2][0] == "3", "GPU arrays (device 0) and ga_dot", r[2])
check(r[3][2] and r[3][2][0] == "ShapeError" and "4 != 5" in r[3][2][1],
      "a GPU shape mismatch is a ShapeError", r[3])

# 5. frees ordered for the user's streams: an array freed while a kernel on
# a non-blocking stream still writes it is not handed out again until that
# kernel is done (without the marks, y would get x's block, be zeroed at
# once and then be overwritten with 7s)
r = run("streams", [
    "%%kernel\n__global__ void slow_fill(float *v, int n, long long spin) {\n"
    "    long long t0 = clock64(); while (clock64() - t0 < spin) {}\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = 7.0f;\n}",
    "cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
    "ga_t x = ga_empty(F32, 1 << 20);\nvoid *old = ga_data(x);\n"
    "slow_fill<<<4096, 256, 0, s>>>(x, 1 << 20, 200000000LL);\n"
    "ga_free(x);\nga_t y = ga_zeros(F32, 1 << 20);\nint fresh = ga_data(y) != old;\n"
    "cudaStreamSynchronize(s);\nprintf(\"fresh %d sum %g\\n\", fresh, ga_sum(y));",
    "ga_free(y);\nga_t z = ga_empty(F32, 1 << 20), w = ga_empty(F32, 1 << 20);\n"
    "ga_data(z) == old || ga_data(w) == old",
    "void *old2;\n{ ga_t t = ga_empty(F32, 1 << 20); old2 = ga_data(t);\n"
    "  slow_fill<<<4096, 256, 0, s>>>(t, 1 << 20, 200000000LL); }",
    "ga_t v = ga_zeros(F32, 1 << 20);\ncudaStreamSynchronize(s);\nga_sum(v) == 0",
    "{ ga_t t = ga_empty(F32, 1 << 20); slow_fill<<<4096, 256, 0, s>>>(t, 1 << 20, 200000000LL); }",
    "%memory free",
    "(int)cudaStreamQuery(s)",
])
check(all(x[2] is None for x in r), "user-stream cells run", r)
check("fresh 1 sum 0" in r[1][1], "an array freed while a kernel on the user's stream uses it is not reused", r[1])
check(r[2][0] == "1", "its block is reused once the stream's work is done", r[2])
check(r[4][0] == "1", "a temporary swept at the cell's end (the cell's end waits for its launches)", r[4])
check(r[7][0] == "0", "%memory free waits for the stream's work before giving a block back", r[7])

# 6. transposed views copied by tiles (runtime/array/ga_transpose): C-contiguous
# copies of transposes and of stacks with the last two axes swapped, every
# element size, edges cut at both sides of a 32 x 32 tile; and a transposed
# view saved (read back to the host through the same copy)
TRANSPOSES = [("i8", "I8", (9, 14)), ("i16", "I16", (70, 37)), ("f32", "F32", (1000, 33)),
              ("f64", "F64", (64, 96)), ("u8", "U8", (1, 5)), ("f32big", "F32", (2000, 5000))]
cells = []
for name, dt, (r0, c0) in TRANSPOSES:
    cells.append(f"{{ ga_t x = ga_reshape(ga_arange({dt}, 0, {r0 * c0}, 1), {r0}, {c0});\n"
                 f"  ga_save(ga_copy(ga_transpose(x)), \"t_{name}.npy\");\n"
                 f"  ga_save(ga_transpose(x), \"v_{name}.npy\"); }}")
cells.append("{ ga_t s = ga_reshape(ga_arange(F32, 0, 3 * 45 * 77, 1), 3, 45, 77);\n"
             "  ga_save(ga_copy(ga_permute_n(s, 3, (long long[]){0, 2, 1})), \"t_stack.npy\"); }")
r = run("transposes", cells)
check(all(x[2] is None for x in r), "transposed copies run", [x[2] for x in r if x[2]])
npdt = {"I8": np.int8, "I16": np.int16, "F32": np.float32, "F64": np.float64, "U8": np.uint8}
for name, dt, (r0, c0) in TRANSPOSES:
    want = np.arange(r0 * c0).astype(npdt[dt]).reshape(r0, c0).T
    for kind in ("t", "v"):
        f = OUT / f"{kind}_{name}.npy"
        got = np.load(f) if f.exists() else None
        check(got is not None and got.dtype == want.dtype and np.array_equal(got, want),
              f"{'copy' if kind == 't' else 'saved view'} of the transpose of {dt} {r0}x{c0}")
f = OUT / "t_stack.npy"
want = np.arange(3 * 45 * 77, dtype=np.float32).reshape(3, 45, 77).transpose(0, 2, 1)
check(f.exists() and np.array_equal(np.load(f), want), "copy of a stack with its last two axes swapped")
sys.exit(1 if failed else 0)
