"""Several GPUs, on a machine with two, in one run against CuPy and PyTorch:

1. peer copy of 1 GiB gpu0 -> gpu1: gpuc's ga_to_device against CuPy's
   (cupy.cuda.runtime.memcpyPeer, and cp.asarray under another device),
   GB/s; goal gpuc >= 90% of CuPy's best;
2. a bandwidth-bound map-reduce, sum((x - y)^2) over 2 x 1 GiB and 2 x 4 GiB float32,
   on one GPU against split over two (each GPU reduces its half; the
   launches go out before either result is read), goal >= 1.8x;
3. ga_allreduce (sum, 256 MiB float32 on each GPU) against PyTorch's NCCL
   all-reduce (torch.distributed, one process per GPU, when torch imports;
   else the line says so): algorithm bandwidth (bytes / time) and bus
   bandwidth (x 2(n-1)/n, nccl-tests' convention).

    PYTHONPATH=tests python3 bench/bench_multigpu.py BIN_DIR OUT_DIR [--sim]

gpuc's times come from a notebook run by `gpuc run` (host clock around
calls that wait for their result: best of the repetitions); CuPy's and
PyTorch's from this process (host clock, synchronised). --sim runs gpuc's
cells with small sizes on two simulated devices (no GPU, no CuPy, no
PyTorch): a check of the benchmark itself, its figures mean nothing.
Without two GPUs (and without --sim) it says so and exits 1."""
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from gpuc_testing.notebook import bin_out_args, run_notebook  # noqa: E402

BIN, OUT, FLAGS = bin_out_args(sys.argv[1:], "usage: PYTHONPATH=tests python3 "
                               "bench/bench_multigpu.py BIN_DIR OUT_DIR [--sim]", ("--sim",))
SIM = "--sim" in FLAGS
OUT.mkdir(parents=True, exist_ok=True)

COPY_BYTES = (1 << 20) if SIM else (1 << 30)
MAPRED_NS = [1 << 20] if SIM else [1 << 28, 1 << 30]  # float32 elements of x (and of y)
ALLRED_N = (1 << 18) if SIM else (64 << 20)      # float32 elements per GPU
REPS = 3 if SIM else 10


def mapred_cell(n, k):
    """The map-reduce of n float32 elements on one GPU and split over two
    (names suffixed by k, so that each size is a cell of its own; its
    arrays freed at the end)."""
    return (
        f"size_t mr_n{k} = {n}u;\nga_seed(2);\n"
        f"ga_t x{k} = ga_random(F32, mr_n{k}), y{k} = ga_random(F32, mr_n{k});\n"
        f"ga_t xa{k} = ga_copy(ga_slice(x{k}, 0, 0, mr_n{k} / 2, 1)), "
        f"ya{k} = ga_copy(ga_slice(y{k}, 0, 0, mr_n{k} / 2, 1));\n"
        f"ga_t xb{k} = ga_to_device(ga_slice(x{k}, 0, mr_n{k} / 2, mr_n{k}, 1), 1);\n"
        f"ga_t yb{k} = ga_to_device(ga_slice(y{k}, 0, mr_n{k} / 2, mr_n{k}, 1), 1);\n"
        f"double one{k}(void)\n{{\n"
        f'    ga_t r = ga_map("sum((a - b) * (a - b))", x{k}, y{k});\n'
        "    double s = ga_item(r);\n    ga_free(r);\n    return s;\n}\n"
        f"double two{k}(void)\n{{\n"
        f'    ga_t r0 = ga_map("sum((a - b) * (a - b))", xa{k}, ya{k});   /* queued on gpu0 */\n'
        f'    ga_t r1 = ga_map("sum((a - b) * (a - b))", xb{k}, yb{k});   /* queued on gpu1 */\n'
        "    double s = ga_item(r0) + ga_item(r1);\n    ga_free(r0);\n    ga_free(r1);\n    return s;\n}\n"
        f"double s1{k} = one{k}(), s2{k} = two{k}(), one_best{k} = 1e30, two_best{k} = 1e30;\n"
        f"for (int r = 0; r < {REPS}; r++) {{\n"
        f"    double t0 = now();\n    s1{k} = one{k}();\n    double t = now() - t0;\n"
        f"    if (t < one_best{k}) one_best{k} = t;\n"
        f"    t0 = now();\n    s2{k} = two{k}();\n    t = now() - t0;\n"
        f"    if (t < two_best{k}) two_best{k} = t;\n}}\n"
        f'printf("map-reduce %zu float32 one %.6f s two %.6f s sums %.6e %.6e\\n", mr_n{k}, '
        f"one_best{k}, two_best{k}, s1{k}, s2{k});\n"
        f"ga_free(x{k}); ga_free(y{k}); ga_free(xa{k}); ga_free(ya{k}); ga_free(xb{k}); ga_free(yb{k});")

NOW = """#include <time.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}"""

CELLS = [
    "%device gpu0",
    NOW + '\nprintf("devices %d\\n", ga_device_count());',
    # 1. peer copy: the copy is waited for by reading one element of it
    f"size_t copy_n = {COPY_BYTES // 4}u;\nga_seed(1);\nga_t c0 = ga_random(F32, copy_n);\n"
    "ga_t warm = ga_to_device(c0, 1);\nga_item(warm, 0);\nga_free(warm);\n"
    "double copy_best = 1e30;\n"
    f"for (int r = 0; r < {REPS}; r++) {{\n"
    "    double t0 = now();\n    ga_t c1 = ga_to_device(c0, 1);\n    ga_item(c1, copy_n - 1);\n"
    "    double t = now() - t0;\n    if (t < copy_best) copy_best = t;\n"
    "    if (r == 0 && ga_item(c1, 12345 % copy_n) != ga_item(c0, 12345 % copy_n)) printf(\"COPY WRONG\\n\");\n"
    "    ga_free(c1);\n}\n"
    'printf("peer copy %zu bytes best %.6f s\\n", copy_n * 4, copy_best);',
    # 2. map-reduce on one GPU against two halves, at each size
    *[mapred_cell(n, f"_s{k}") for k, n in enumerate(MAPRED_NS)],
    # 3. the all-reduce
    f"size_t ar_n = {ALLRED_N}u;\nga_use_device(0);\nga_t ar[2];\nar[0] = ga_full(F32, 1.0, ar_n);\n"
    "ga_use_device(1);\nar[1] = ga_full(F32, 2.0, ar_n);\nga_use_device(0);\n"
    'ga_allreduce(ar, 2, "sum");\nga_item(ar[0], 0);\nga_item(ar[1], 0);\n'
    "double ar_best = 1e30;\n"
    f"for (int r = 0; r < {REPS}; r++) {{\n"
    "    double t0 = now();\n"
    '    ga_allreduce(ar, 2, "sum");\n'
    "    ga_item(ar[0], ar_n - 1);\n    ga_item(ar[1], ar_n - 1);\n"
    "    double t = now() - t0;\n    if (t < ar_best) ar_best = t;\n}\n"
    'printf("allreduce %zu bytes best %.6f s value %g %g\\n", ar_n * 4, ar_best, '
    "ga_item(ar[0], 7), ga_item(ar[1], ar_n - 1));",
    "%device",
]


def gpuc_figures():
    env_before = os.environ.get("GPUC_SIM_DEVICES")
    if SIM:
        os.environ["GPUC_SIM_DEVICES"] = "2"
    try:
        cells = run_notebook(BIN / "gpuc", OUT, CELLS, name="bench_multigpu", timeout=900,
                             allow_errors=True)
    finally:
        if SIM and env_before is None:
            os.environ.pop("GPUC_SIM_DEVICES", None)
    text = "".join(o["text"] for c in cells for o in c["outputs"] if o["output_type"] == "stream")
    m = re.search(r"devices (\d+)", text)
    if not m or int(m.group(1)) < 2:
        print(text)
        sys.exit("bench_multigpu: two devices needed, ga_device_count() is "
                 f"{m.group(1) if m else '?'}" + ("" if SIM else " (run on a 2-GPU machine; --sim "
                                                  "tries the benchmark on simulated devices)"))
    for i, c in enumerate(cells):
        for o in c["outputs"]:
            if o["output_type"] == "error":
                sys.exit(f"gpuc's cell {i} failed: {o['ename']}: {o['evalue']}")
    return text


def figure(pattern, text):
    m = re.search(pattern, text)
    if not m:
        sys.exit(f"gpuc's notebook did not print /{pattern}/:\n{text}")
    return [float(g) for g in m.groups()]


def cupy_copy(nbytes):
    """CuPy's best seconds for a peer copy of nbytes gpu0 -> gpu1 (memcpyPeer, and
    cp.asarray under device 1), or None without CuPy."""
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        print(f"CuPy not importable ({e}): no CuPy reference")
        return None
    with cp.cuda.Device(0):
        a = cp.random.random(nbytes // 4, dtype=cp.float32)
        cp.cuda.Device(0).synchronize()
    with cp.cuda.Device(1):
        b = cp.empty_like(a)
    for dev, peer in ((0, 1), (1, 0)):  # direct where the GPUs can, as gpuc does
        with cp.cuda.Device(dev):
            try:
                if cp.cuda.runtime.deviceCanAccessPeer(dev, peer):
                    cp.cuda.runtime.deviceEnablePeerAccess(peer)
            except cp.cuda.runtime.CUDARuntimeError:
                pass  # already enabled
    best = {}
    for name, copy in (
            ("memcpyPeer", lambda: cp.cuda.runtime.memcpyPeer(b.data.ptr, 1, a.data.ptr, 0, nbytes)),
            ("asarray", lambda: cp.asarray(a))):
        times = []
        for r in range(REPS + 1):
            with cp.cuda.Device(1):
                cp.cuda.Device(1).synchronize()
                t0 = time.perf_counter()
                out = copy()
                cp.cuda.Device(1).synchronize()
                times.append(time.perf_counter() - t0)
                del out
        best[name] = min(times[1:])
    return best


def torch_allreduce(n):
    """torch.distributed NCCL all-reduce of n float32 per GPU, two processes:
    best seconds, or a sentence saying why not."""
    try:
        import torch
        import torch.distributed  # noqa: F401
        import torch.multiprocessing as mp
    except Exception as e:  # noqa: BLE001
        return f"PyTorch not importable ({e})"
    if torch.cuda.device_count() < 2 or not torch.distributed.is_nccl_available():
        return "PyTorch sees fewer than 2 GPUs or has no NCCL"
    result = mp.get_context("spawn").Queue()
    procs = [mp.get_context("spawn").Process(target=_torch_rank, args=(r, n, str(OUT), result))
             for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(600)
    times = [result.get() for _ in range(result.qsize())] if not result.empty() else []
    return max(times) if len(times) == 2 else "torch.distributed ranks did not report"


def _torch_rank(rank, n, out, result):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{out}/torch_rendezvous_{os.getppid()}",
                            rank=rank, world_size=2)
    t = torch.full((n,), float(rank + 1), device=f"cuda:{rank}")
    dist.all_reduce(t)
    torch.cuda.synchronize()
    best = 1e30
    for _ in range(REPS):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        dist.all_reduce(t)
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    result.put(best)
    dist.destroy_process_group()


def main():
    text = gpuc_figures()
    copy_bytes, copy_s = figure(r"peer copy (\d+) bytes best ([\d.]+) s", text)
    mapred = [tuple(float(v) for v in m) for m in re.findall(
        r"map-reduce (\d+) float32 one ([\d.]+) s two ([\d.]+) s sums ([\d.e+-]+) ([\d.e+-]+)", text)]
    if len(mapred) != len(MAPRED_NS):
        sys.exit(f"bench_multigpu: {len(mapred)} map-reduce figures of {len(MAPRED_NS)}:\n{text}")
    ar_bytes, ar_s, v0, v1 = figure(r"allreduce (\d+) bytes best ([\d.]+) s value ([\d.]+) ([\d.]+)",
                                    text)
    ok = ("COPY WRONG" not in text and v0 == v1
          and all(abs(s1 - s2) <= 1e-3 * abs(s1) for _, _, _, s1, s2 in mapred))
    print("devices:\n" + "\n".join(l for l in text.splitlines() if re.match(r"^[ *] (gpu|sim)", l)
                                   or l.startswith("ga_allreduce:")))
    print(f"results agree (copy, map-reduce sums, all-reduce {v0:g} / {v1:g}): {ok}")
    gpuc_copy = copy_bytes / copy_s / 1e9
    line = f"peer copy {copy_bytes / 2**30:.2f} GiB gpu0->gpu1: gpuc {gpuc_copy:.1f} GB/s"
    ref = None if SIM else cupy_copy(int(copy_bytes))
    if ref:
        best = min(ref.values())
        line += "; CuPy " + ", ".join(f"{k} {copy_bytes / v / 1e9:.1f} GB/s" for k, v in ref.items())
        line += f"; gpuc = {100 * best / copy_s:.0f}% of CuPy's best (goal >= 90%)"
    print(line)
    for n, one_s, two_s, _, _ in mapred:
        gb = 2 * n * 4 / 1e9
        print(f"map-reduce sum((x-y)^2), {n:.0f} float32 each of x, y: one GPU {one_s * 1e3:.2f} ms "
              f"({gb / one_s:.0f} GB/s), two GPUs {two_s * 1e3:.2f} ms ({gb / two_s:.0f} GB/s): "
              f"{one_s / two_s:.2f}x (goal >= 1.8x)")
    alg = ar_bytes / ar_s / 1e9
    line = (f"all-reduce sum {ar_bytes / 2**20:.0f} MiB float32 on 2 devices: gpuc {ar_s * 1e3:.2f} ms, "
            f"{alg:.1f} GB/s algorithm, {alg:.1f} GB/s bus")  # 2(n-1)/n = 1 for n = 2
    if not SIM:
        t = torch_allreduce(int(ar_bytes // 4))
        if isinstance(t, float):
            line += (f"; torch.distributed NCCL {t * 1e3:.2f} ms, {ar_bytes / t / 1e9:.1f} GB/s: "
                     f"gpuc = {100 * t / ar_s:.0f}% of PyTorch's")
        else:
            line += f"; no PyTorch reference: {t}"
    print(line)
    if SIM:
        print("(simulated devices: the figures say nothing of a GPU; this checked the benchmark)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
