"""%%profile on the GPU machine (issue 28's accuracy checks):

    PYTHONPATH=tests python3 tests/gpu/profile_gpu.py BIN_DIR OUT_DIR

BIN_DIR holds gpuc (a bundle's bin/); run from the repository's root with
PYTHONPATH=tests (for gpuc_testing.sources, plain strings). Runs one notebook with `gpuc run`
(no Jupyter needed) and checks, printing PASS/FAIL/SKIP per line and
exiting non-zero on a FAIL:

  - times-only mode: every launch has a row and a time; a cell of 1000
    small launches is at most 5% slower under %%profile than without
    (best of 5 alternated runs, timed inside the cell);
  - counter mode (--counters): a streaming copy's DRAM bytes within 5% of
    what it must move (and of ncu's dram__bytes where ncu is installed);
    saxpy's and a dfma kernel's FLOPs exact (2n); a gemm row with 2mnk;
    where counters are not permitted, the note says so and names
    NVreg_RestrictProfilingToAdminUsers (SKIP for the counts);
  - counter mode times every kernel (gpu__time_duration of a replayed
    pass), within 10% of ncu's for the same kernels;
  - per-kernel times (times-only mode) within 5% of nsys's medians and of
    ncu's gpu__time_duration (clocks not locked, caches not flushed) for
    the same kernels built by nvcc, where those tools are found (the
    toolkit's bin, its nsight-systems*/ and nsight-compute*/ folders,
    /opt/nvidia/nsight-{systems,compute}/*, PATH); a tool not found is one
    SKIP line naming where it was looked for.
Figures go to OUT_DIR/profile_gpu.json for docs/performance.md."""
import csv
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from gpuc_testing.cupti import cupti_flags
from gpuc_testing.sources import AXPY_KERNELS

BIN, OUT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
OUT.mkdir(parents=True, exist_ok=True)
N = 1 << 26          # floats a streaming kernel copies: 256 MiB each way
NF = 1 << 24         # elements of the FLOP kernels
if os.environ.get("PROFILE_GPU_DRY"):  # a dry run of the script on the simulator
    N, NF = 1 << 12, 1 << 12
failed = False
figures = {}


def report(ok, what):
    global failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    failed |= not ok


KERNELS = AXPY_KERNELS + r"""
__global__ void stream_copy(int n, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = x[i];
}
__global__ void tiny(int *p) { if (threadIdx.x == 0 && p) p[0] = 1; }
"""

M = 64 if os.environ.get("PROFILE_GPU_DRY") else 2048
SETUP = f"""
#include <time.h>
int n = {N}, nf = {NF};
float *x, *y, *fx, *fy; double *dx, *dy;
cudaMalloc((void **)&x, (size_t)n * 4); cudaMalloc((void **)&y, (size_t)n * 4);
cudaMalloc((void **)&fx, (size_t)nf * 4); cudaMalloc((void **)&fy, (size_t)nf * 4);
cudaMalloc((void **)&dx, (size_t)nf * 8); cudaMalloc((void **)&dy, (size_t)nf * 8);
cudaMemset(x, 0, (size_t)n * 4); cudaMemset(fx, 0, (size_t)nf * 4); cudaMemset(fy, 0, (size_t)nf * 4);
cudaMemset(dx, 0, (size_t)nf * 8); cudaMemset(dy, 0, (size_t)nf * 8);
for (int w = 0; w < 3; w++) {{ stream_copy<<<1320, 256>>>(n, x, y); saxpy<<<nf / 256, 256>>>(nf, 2.0f, fx, fy); daxpy<<<nf / 256, 256>>>(nf, 2.0, dx, dy); tiny<<<1, 32>>>((int *)0); }}
cudaDeviceSynchronize();
static double now(void) {{ struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }}
ga_t ma = ga_ones(GA_F32, {M}, {M}), mb = ga_ones(GA_F32, {M}, {M});
"""

LAUNCHES = """for (int r = 0; r < 5; r++) stream_copy<<<1320, 256>>>(n, x, y);
for (int r = 0; r < 5; r++) saxpy<<<nf / 256, 256>>>(nf, 2.0f, fx, fy);
for (int r = 0; r < 5; r++) daxpy<<<nf / 256, 256>>>(nf, 2.0, dx, dy);
ga_t mc = ga_matmul(ma, mb);
"""

# the same kernels one at a time, the device idle before each: as ncu runs
# them (kernel replay serialises), so that its times compare like with like;
# back to back, a kernel's interval also holds the wait for the previous
# one's last blocks, which nsys (the same activity records) would show too
ISOLATED = """for (int r = 0; r < 5; r++) { stream_copy<<<1320, 256>>>(n, x, y); cudaDeviceSynchronize(); }
for (int r = 0; r < 5; r++) { saxpy<<<nf / 256, 256>>>(nf, 2.0f, fx, fy); cudaDeviceSynchronize(); }
for (int r = 0; r < 5; r++) { daxpy<<<nf / 256, 256>>>(nf, 2.0, dx, dy); cudaDeviceSynchronize(); }
"""

SMALL = """{ double t0 = now(); for (int r = 0; r < 1000; r++) tiny<<<1, 32>>>((int *)0);
cudaDeviceSynchronize(); printf("SMALL %.9f\\n", now() - t0); }"""

cells = ["%%kernel\n" + KERNELS, SETUP, "%%profile\n// times\n" + LAUNCHES,
         "%%profile --counters\n// counters\n" + LAUNCHES, "%%profile\n// isolated\n" + ISOLATED]
for _ in range(5):
    cells += ["// plain\n" + SMALL, "%%profile\n// profiled\n" + SMALL]

nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                 "source": c, "id": f"p{i}"} for i, c in enumerate(cells)],
      "metadata": {"kernelspec": {"name": "gpuc", "display_name": "gpuc", "language": "c"}},
      "nbformat": 4, "nbformat_minor": 5}
src, out = OUT / "profile_gpu.ipynb", OUT / "profile_gpu.out.ipynb"
src.write_text(json.dumps(nb))
proc = subprocess.run([str(BIN / "gpuc"), "run", "--allow-errors", str(src), "-o", str(out)],
                      capture_output=True, text=True)
print(proc.stderr)
report(out.is_file(), "gpuc run wrote the notebook")
done = json.loads(out.read_text())["cells"]
errs = [o for c in done for o in c["outputs"] if o["output_type"] == "error"]
report(not errs, "no cell failed " + str([e["ename"] + ": " + e["evalue"][:300] for e in errs]))


def meta_of(marker):
    for c in done:
        if marker in c["source"]:
            for o in c["outputs"]:
                if o["output_type"] == "display_data" and "gpuc.profile" in o.get("metadata", {}):
                    return o["metadata"]["gpuc.profile"], o["data"]["text/plain"]
    return None, ""


times, times_text = meta_of("// times")
report(times is not None and not times["simulated"], "times-only profile of the GPU")
print(times_text)
rows = times["rows"] if times else []
by_name = {}
for r in rows:
    by_name.setdefault(r["name"], []).append(r)
for k in ("stream_copy", "saxpy", "daxpy"):
    report(len(by_name.get(k, [])) == 5 and all(r["seconds"] > 0 for r in by_name[k]),
           f"5 timed rows of {k}")
report(any(r["kind"] == "BLAS" and r["name"].startswith(f"gemm {M}x{M}x{M}") for r in rows),
       "the gemm is a BLAS row named by the floor")
gemm = [r for r in rows if r["name"].startswith(f"gemm {M}x{M}x{M}")]
report(bool(gemm) and gemm[0]["flops"] == 2 * M ** 3, "gemm row with 2mnk FLOPs")
gpuc_time = {k: statistics.median(r["seconds"] for r in by_name.get(k, [{"seconds": 0}]))
             for k in ("stream_copy", "saxpy", "daxpy")}
figures["gpuc_kernel_seconds"] = gpuc_time
isolated, _ = meta_of("// isolated")
gpuc_isolated = {k: statistics.median([r["seconds"] for r in (isolated or {"rows": []})["rows"]
                                       if r["name"] == k] or [0])
                 for k in ("stream_copy", "saxpy", "daxpy")}
figures["gpuc_isolated_kernel_seconds"] = gpuc_isolated

counters, counters_text = meta_of("// counters")
print(counters_text)
if counters is None:
    report(False, "counter-mode profile")
elif not counters["counted"]:
    note = counters["note"]
    report("NVreg_RestrictProfilingToAdminUsers" in note or "counters" in note,
           "no counters: the note says why: " + note)
    print("SKIP counts: counters not permitted or not available here")
else:
    crow = {}
    for r in counters["rows"]:
        crow.setdefault(r["name"], r)
    sc = crow.get("stream_copy")
    want = 4.0 * N
    ok = sc and abs(sc["bytes_read"] - want) / want < 0.05 and abs(sc["bytes_written"] - want) / want < 0.05
    report(bool(ok), f"stream_copy DRAM bytes within 5% of {want:.0f} each way "
           f"({sc and sc['bytes_read']}, {sc and sc['bytes_written']})")
    figures["stream_copy_dram"] = sc and [sc["bytes_read"], sc["bytes_written"]]
    s = crow.get("saxpy")
    report(bool(s) and s["ops"]["fp32"]["flops"] == 2 * NF and s["ops"]["fp32"]["fma"] == NF,
           f"saxpy FLOPs exact: {s and s['ops']['fp32']}")
    d = crow.get("daxpy")
    report(bool(d) and d["ops"]["fp64"]["flops"] == 2 * NF, f"daxpy FP64 FLOPs exact: {d and d['ops']['fp64']}")
    report(bool(s) and s["occupancy_achieved"] is not None and 0 < s["occupancy_achieved"] <= 1,
           "achieved occupancy measured")
    report("replayed" in counters["note"], "counter mode says it replays kernels")
    untimed = [r["name"] for r in counters["rows"] if r["kind"] != "copy" and not (r["seconds"] or 0) > 0]
    report(not untimed and "times under replay" in counters["note"],
           f"counter mode times every kernel under replay (untimed: {untimed[:5]})")

# times-only overhead: 1000 small launches, plain against profiled, alternated
small = {"plain": [], "profiled": []}
for c in done:
    for key in small:
        if c["source"].startswith(f"// {key}") or f"// {key}\n" in c["source"]:
            for o in c["outputs"]:
                if o["output_type"] == "stream":
                    for line in o["text"].splitlines():
                        if line.startswith("SMALL "):
                            small[key].append(float(line.split()[1]))
if small["plain"] and small["profiled"]:
    ratio = min(small["profiled"]) / min(small["plain"])
    figures["small_launches"] = {k: min(v) for k, v in small.items()} | {"ratio": ratio}
    report(ratio <= 1.05, f"1000 small launches under %%profile: {ratio:.3f}x the plain cell's time")
else:
    report(False, "small-launch timings found")

# the same kernels under nsys and ncu, built by nvcc
TOOL_DIRS = ["/usr/local/cuda/bin", "/usr/local/cuda/nsight-systems*/bin",
             "/usr/local/cuda/nsight-systems*/target-linux-x64", "/opt/nvidia/nsight-systems/*/bin",
             "/opt/nvidia/nsight-systems/*/target-linux-x64", "/usr/local/cuda/nsight-compute*",
             "/opt/nvidia/nsight-compute/*"]


def tool(name):
    """name's path: the toolkit's and Nsight's usual folders (newest first), then PATH."""
    for pattern in TOOL_DIRS:
        for d in sorted(glob.glob(pattern), reverse=True):
            p = Path(d) / name
            if p.is_file() and os.access(p, os.X_OK):
                return str(p)
    return shutil.which(name)


def ncu_values(res):
    """{(kernel, metric): [values in seconds or bytes]} from ncu --csv's output."""
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
             "GB": 1e9, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1,
             "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
    lines = [l for l in res.splitlines() if l.startswith('"')]
    out, head = {}, None
    for cols in csv.reader(lines):
        if "Metric Name" in cols and "Kernel Name" in cols:
            head = cols
            continue
        if not head or len(cols) != len(head):
            continue
        try:
            v = float(cols[head.index("Metric Value")].replace(",", ""))
        except ValueError:
            continue
        kernel = cols[head.index("Kernel Name")].split("(")[0].strip()
        unit = cols[head.index("Metric Unit")]
        out.setdefault((kernel, cols[head.index("Metric Name")]), []).append(v * scale.get(unit, 1))
    return out


def within(what, gpuc, ref, tol, unit=1e6, label="us"):
    if ref and ref > 0 and gpuc and gpuc > 0:
        report(abs(gpuc - ref) / ref <= tol, f"{what}: gpuc {gpuc * unit:.1f} {label}, "
               f"{ref * unit:.1f} {label} (within {tol:.0%})")
    else:
        report(False, f"{what}: gpuc {gpuc}, reference {ref}")


nvcc, nsys, ncu = tool("nvcc"), tool("nsys"), tool("ncu")
print(f"tools: nvcc {nvcc}, nsys {nsys}, ncu {ncu}")
prog = OUT / "profile_ref.cu"
# with -DREF_CUPTI the program records its kernels' CONCURRENT_KERNEL
# activity itself, as nsys does (nsys reads the same CUPTI records): where
# nsys is not installed, these records of the same kernels stand in for it
CUPTI_HARNESS = r"""
#ifdef REF_CUPTI
#include <cupti.h>
#include <cstdlib>
static void CUPTIAPI requested(uint8_t **b, size_t *size, size_t *most)
{
    *b = (uint8_t *)aligned_alloc(8, 8 << 20);
    *size = 8 << 20;
    *most = 0;
}
static void CUPTIAPI completed(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid)
{
    CUpti_Activity *a = NULL;
    while (cuptiActivityGetNextRecord(b, valid, &a) == CUPTI_SUCCESS)
        if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)a;
            printf("CUPTI %s %.9e\n", k->name, (k->end - k->start) * 1e-9);
        }
    free(b);
}
#define TRACE_BEGIN() (cuptiActivityRegisterCallbacks(requested, completed), \
                       cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
#define TRACE_END() cuptiActivityFlushAll(1)
#else
#define TRACE_BEGIN() ((void)0)
#define TRACE_END() ((void)0)
#endif
"""
prog.write_text("#include <cstdio>\n" + CUPTI_HARNESS + KERNELS + f"""
int main() {{
    TRACE_BEGIN();
    int n = {N}, nf = {NF};
    float *x, *y, *fx, *fy; double *dx, *dy;
    cudaMalloc(&x, (size_t)n * 4); cudaMalloc(&y, (size_t)n * 4);
    cudaMalloc(&fx, (size_t)nf * 4); cudaMalloc(&fy, (size_t)nf * 4);
    cudaMalloc(&dx, (size_t)nf * 8); cudaMalloc(&dy, (size_t)nf * 8);
    cudaMemset(x, 0, (size_t)n * 4); cudaMemset(fx, 0, (size_t)nf * 4); cudaMemset(fy, 0, (size_t)nf * 4);
    cudaMemset(dx, 0, (size_t)nf * 8); cudaMemset(dy, 0, (size_t)nf * 8);
    for (int r = 0; r < 8; r++) stream_copy<<<1320, 256>>>(n, x, y);
    for (int r = 0; r < 8; r++) saxpy<<<nf / 256, 256>>>(nf, 2.0f, fx, fy);
    for (int r = 0; r < 8; r++) daxpy<<<nf / 256, 256>>>(nf, 2.0, dx, dy);
    cudaDeviceSynchronize();
    TRACE_END();
    return 0;
}}
""")
exe = OUT / "profile_ref"
built = bool(nvcc) and subprocess.run([nvcc, "-O3", "-o", str(exe), str(prog)]).returncode == 0
if not built:
    print(f"SKIP nsys and ncu comparisons: no nvcc ({nvcc}) or it failed")
elif not nsys:
    print("times against nsys: nsys not found in " + ", ".join(TOOL_DIRS) + " or PATH; "
          "against the CUPTI records nsys would read instead (the same program, tracing itself)")
    traced = OUT / "profile_ref_cupti"
    flags = cupti_flags(nvcc, OUT)
    ok = flags and subprocess.run([nvcc, "-O3", "-DREF_CUPTI", *flags, "-o", str(traced),
                                   str(prog)]).returncode == 0
    res = subprocess.run([str(traced)], capture_output=True, text=True) if ok else None
    ref = {}
    for line in (res.stdout if res else "").splitlines():
        if line.startswith("CUPTI "):
            _, k, t = line.split()
            m = re.match(r"_Z(\d+)", k)  # nvcc's records name kernels mangled: _Z5saxpyifPKfPf
            k = k[m.end():m.end() + int(m.group(1))] if m else k
            ref.setdefault(k, []).append(float(t))
    ref = {k: statistics.median(v) for k, v in ref.items()}
    figures["cupti_record_kernel_seconds"] = ref
    if not ref:
        print("SKIP times against CUPTI's records: the traced program was not built or gave none")
    for k, t in gpuc_time.items() if ref else ():
        within(f"{k} time against CUPTI's records of the same kernel (nsys's source)", t,
               ref.get(k), 0.05)
else:
    rep = OUT / "profile_ref_nsys"
    subprocess.run([nsys, "profile", "--trace=cuda", "--force-overwrite=true", "-o", str(rep),
                    str(exe)], capture_output=True, text=True)
    res = subprocess.run([nsys, "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv",
                          str(rep) + ".nsys-rep"], capture_output=True, text=True)
    ref, head = {}, None
    for cols in csv.reader(res.stdout.splitlines()):
        if "Name" in cols and "Med (ns)" in cols:
            head = cols
        elif head and len(cols) == len(head):
            try:
                ref[cols[head.index("Name")].split("(")[0].strip()] = \
                    float(cols[head.index("Med (ns)")]) / 1e9
            except ValueError:
                pass
    figures["nsys_kernel_seconds"] = ref
    if not ref:
        print("nsys stats gave no kernels:\n" + res.stdout[-1500:] + res.stderr[-1500:])
    for k, t in gpuc_time.items():
        within(f"{k} time against nsys's median", t, ref.get(k), 0.05)
if built and ncu:
    res = subprocess.run([ncu, "--metrics", "dram__bytes_read.sum,dram__bytes_write.sum,"
                          "gpu__time_duration.sum", "--csv", "-k", "stream_copy", "-c", "1", str(exe)],
                         capture_output=True, text=True)
    figures["ncu_stream_copy"] = res.stdout[-2000:]
    vals = ncu_values(res.stdout)
    dram = vals.get(("stream_copy", "dram__bytes_read.sum"))
    if counters and counters["counted"] and dram:
        sc = [r for r in counters["rows"] if r["name"] == "stream_copy"][0]
        ref = dram[0]
        report(abs(sc["bytes_read"] - ref) / ref <= 0.05,
               f"stream_copy DRAM read: gpuc {sc['bytes_read']:.4g}, ncu {ref:.4g} (within 5%)")
    elif not (counters and counters["counted"]):
        print("SKIP ncu DRAM comparison: gpuc had no counters")
    else:
        print("SKIP ncu DRAM comparison: ncu gave no dram__bytes (permissions?)\n" + res.stderr[-800:])
    # kernel times: ncu's gpu__time_duration at the clocks the GPU runs at
    # (no locking to base) and no cache flushes, as the kernels run in a cell
    res = subprocess.run([ncu, "--metrics", "gpu__time_duration.sum", "--clock-control", "none",
                          "--cache-control", "none", "--csv", "-k", "regex:^(stream_copy|saxpy|daxpy)$",
                          str(exe)], capture_output=True, text=True)
    vals = ncu_values(res.stdout)
    ncu_time = {k: statistics.median(vals[(k, "gpu__time_duration.sum")])
                for k in gpuc_time if (k, "gpu__time_duration.sum") in vals}
    figures["ncu_kernel_seconds"] = ncu_time
    if not ncu_time:
        print("SKIP ncu times: ncu gave no gpu__time_duration (permissions?)\n" + res.stderr[-800:])
    else:
        for k, t in gpuc_isolated.items():
            within(f"{k} time (launched alone) against ncu's gpu__time_duration", t,
                   ncu_time.get(k), 0.05)
        # what CUPTI's own records (no gpuc) say against ncu: where gpuc misses,
        # whether the activity records themselves differ from the range profiler
        for k, t in figures.get("cupti_record_kernel_seconds", {}).items():
            if ncu_time.get(k):
                print(f"INFO {k}: CUPTI's records in the bare program {t * 1e6:.1f} us, "
                      f"ncu {ncu_time[k] * 1e6:.1f} us ({t / ncu_time[k] - 1:+.1%})")
        if counters and counters["counted"]:
            # counter mode's times are gpu__time_duration of a replayed pass too
            ct = {r["name"]: r["seconds"] for r in counters["rows"] if r["name"] in ncu_time}
            figures["gpuc_counter_mode_seconds"] = ct
            for k in ncu_time:
                within(f"{k} counter-mode time against ncu's", ct.get(k), ncu_time[k], 0.10)
elif built:
    print("SKIP ncu comparisons: ncu not found in " + ", ".join(TOOL_DIRS) + " or PATH")

(OUT / "profile_gpu.json").write_text(json.dumps(figures, indent=1))
sys.exit(1 if failed else 0)
