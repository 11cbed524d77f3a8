#!/bin/bash
# The GPU suite, on the GPU machine: bash tests/gpu/run.sh BIN_DIR [OUT_DIR]
# BIN_DIR holds gpuc, gpu_smoke and gpu_randblas (built on the development
# machine): a bundle's bin/ (make bundle), whose RPATH finds its libraries.
set -u
bin=$1
out=${2:-/tmp/gpuc-gpu}
mkdir -p "$out"
fail=0
check() { if [ "$1" -eq 0 ]; then echo "PASS $2"; else echo "FAIL $2"; fail=1; fi; }

# Runs tests/gpu/NAME.ipynb and checks it (notebook_passes NAME [--error
# ENAME TEXT] PASS...): its PASS lines are, in order, the ones given (each
# compared up to a " (" that adds figures); no cell warned on stderr; and no
# cell failed, or with --error exactly one, of ename ENAME with TEXT in its
# text. Prints PASS/FAIL "NAME notebook".
notebook_passes() {
    local name=$1; shift
    local ename="" etext=""
    if [ "${1:-}" = --error ]; then ename=$2; etext=$3; shift 3; fi
    "$bin/gpuc" run --allow-errors "tests/gpu/$name.ipynb" -o "$out/$name.ipynb" 2> "$out/$name.log"
    local rc=$?; cat "$out/$name.log"
    python3 - "$out/$name.ipynb" "$ename" "$etext" "$@" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
ename, etext, want = sys.argv[2], sys.argv[3], sys.argv[4:]
def text(name):
    return "".join(o.get("text", "") for c in cells for o in c["outputs"]
                   if o["output_type"] == "stream" and o["name"] == name)
out, err = text("stdout"), text("stderr")
errors = [o for c in cells for o in c["outputs"] if o["output_type"] == "error"]
print(out, err, [e["ename"] + ": " + e["evalue"] for e in errors])
passes = [l.split(" (")[0] for l in out.splitlines() if l.startswith("PASS ")]
if ename:
    errors_ok = len(errors) == 1 and errors[0]["ename"] == ename and etext in errors[0]["evalue"]
else:
    errors_ok = not errors
sys.exit(0 if passes == want and errors_ok and "warning" not in err else 1)
PY
    check $? "$name notebook (gpuc run rc $rc)"
}

"$bin/gpu_smoke" > "$out/smoke.txt" 2>&1; check $? "gpu_smoke"; cat "$out/smoke.txt"

# random numbers against the CPU backend bit for bit, matmul against OpenBLAS
# (gpu_randblas, built beside gpu_smoke; --bench adds the timings)
if [ -x "$bin/gpu_randblas" ]; then
    "$bin/gpu_randblas" > "$out/randblas.txt" 2>&1; check $? "gpu_randblas"; cat "$out/randblas.txt"
fi

"$bin/gpuc" run tests/gpu/tutorial.ipynb -o "$out/tutorial.ipynb" 2> "$out/tutorial.log"
rc=$?; cat "$out/tutorial.log"; check $rc "tutorial notebook"
python3 - "$out/tutorial.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
text = "".join(o.get("text", "") for c in nb["cells"] for o in c["outputs"] if o["output_type"] == "stream")
print(text)
PY

"$bin/gpuc" run --allow-errors tests/gpu/errors.ipynb -o "$out/errors.ipynb" 2> "$out/errors.log"
cat "$out/errors.log"
python3 - "$out/errors.ipynb" <<'PY'
import json, re, sys
nb = json.load(open(sys.argv[1]))
want = [None, None, "LaunchError", "LaunchError", "CudaCompileError", None, "42", None,
        "CudaError", "42"]
bad = 0
for i, (c, w) in enumerate(zip(nb["cells"], want)):
    errs = [o for o in c["outputs"] if o["output_type"] == "error"]
    res = [o["data"]["text/plain"] for o in c["outputs"] if o["output_type"] == "execute_result"]
    text = "".join(o.get("text", "") for o in c["outputs"] if o["output_type"] == "stream")
    got = errs[0]["ename"] if errs else (res[0] if res else None)
    detail = errs[0]["evalue"] if errs else text.strip()
    ok = got == w
    stderr = "".join(o.get("text", "") for o in c["outputs"]
                     if o["output_type"] == "stream" and o["name"] == "stderr")
    if i == 5:  # out of memory: bytes asked and free, on stderr
        ok = ok and "GPU out of memory" in stderr and "asked for" in stderr
    if i == 8:  # the sticky error names the kernel, the line and what was lost
        ok = ok and "(in oob, launched at cell 9, line 1)" in detail and "d (cell 2, line 2)" in detail
        ok = ok and detail.count("The GPU context is lost") == 1
    bad |= not ok
    print(f"{'ok ' if ok else 'BAD'} cell {i}: want {w}, got {got}: {detail[:300]}")
sys.exit(1 if bad else 0)
PY
check $? "errors notebook"

# a kernel that never ends: the interrupt (from --timeout) must say that
# the GPU work cannot be stopped, and gpuc run must still end
timeout 60 "$bin/gpuc" run --timeout 3 tests/gpu/endless.ipynb -o "$out/endless.ipynb" \
    2> "$out/endless.log"
rc=$?; cat "$out/endless.log"
python3 - "$out/endless.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
errs = [o for o in nb["cells"][1]["outputs"] if o["output_type"] == "error"]
print(errs[0]["ename"] if errs else None, errs[0]["evalue"] if errs else "")
sys.exit(0 if errs and "cannot be stopped" in errs[0]["evalue"] else 1)
PY
check $? "endless kernel interrupted (gpuc run rc $rc)"

# an interrupt during cudaDeviceSynchronize or a blocking cudaMemcpy stops the
# cell there (no later statement runs); the session and the device stay usable
timeout 120 "$bin/gpuc" run --allow-errors tests/gpu/waits.ipynb \
    -o "$out/waits.ipynb" 2> "$out/waits.log"
rc=$?; cat "$out/waits.log"
python3 - "$out/waits.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
def out(i, kind):
    return [o for o in nb["cells"][i]["outputs"] if o["output_type"] == kind]
text = "".join(o.get("text", "") for c in nb["cells"] for o in c["outputs"]
               if o["output_type"] == "stream" and o["name"] == "stdout")
errs = {i: out(i, "error")[0] for i in (2, 5) if out(i, "error")}
for i, e in errs.items():
    print(f"cell {i}: {e['ename']}: {e['evalue']}")
print(text)
ok = (set(errs) == {2, 5}
      and "interrupted in cudaDeviceSynchronize(), called in the top-level code of cell 3, line 3"
          in errs[2]["evalue"]
      and "interrupted in cudaMemcpy(), called in the top-level code of cell 6, line 3"
          in errs[5]["evalue"]
      and all("is still running" in e["evalue"] for e in errs.values())
      and "after the" not in text and "kept 0" in text and "flag 1" in text
      and "device usable: cudaSuccess" in text)
sys.exit(0 if ok else 1)
PY
check $? "interrupts during GPU waits stop the cell; the device stays usable (gpuc run rc $rc)"

# a whole program in a %%cuda cell, as nvcc4jupyter runs them
notebook_passes program "PASS add program"

# C++ host code as courses write it (iostream, new/delete, std::vector, a
# class owning device memory), compiled by g++: a .cu-style cell with main()
# and kernels launched from C++ cells; C and C++ cells call each other
notebook_passes cpp_host "PASS add program" "PASS saxpy from C++, max 199" \
    "PASS sorted 100000 results" "PASS 2-D launch from a C++ class, corners 999398" \
    "PASS C function from C++: 41" "PASS C++ function from C" "PASS managed memory program"

# interactive cells as one .cu file: a host cell's constant and typedef in a
# kernel, cooperative groups through `using namespace` in a mixed cell
notebook_passes one_unit "PASS cooperative groups in a mixed cell, sum 8128"

# the operator's limits on a GPU (docs/hosting.md): the CUDA context and a
# kernel work under the executor's memory limit (RLIMIT_DATA), the pool's
# limit refuses the array past it
GPUC_LIMIT_MEMORY=2GiB GPUC_LIMIT_GPU_MEMORY=256MB notebook_passes limits \
    --error OutOfMemoryError "gpu0 out of memory (the pool's limit is 244.14 MiB)" \
    "PASS a kernel under the memory limit" "PASS an array within the pool limit" \
    "PASS 4 GiB of host memory refused"

# %timeit of a kernel launch shows a GPU line (CUDA events)
"$bin/gpuc" run tests/gpu/timing.ipynb -o "$out/timing.ipynb" 2> "$out/timing.log"
rc=$?
python3 - "$out/timing.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
text = "".join(o.get("text", "") for o in nb["cells"][-1]["outputs"] if o["output_type"] == "stream")
print(text)
sys.exit(0 if "per loop" in text and "GPU" in text else 1)
PY
check $? "%timeit of a launch shows host and GPU time (gpuc run rc $rc)"

# %%speedup on the classic tutorial cases against %%cc CPU code, with a sweep
timeout 400 "$bin/gpuc" run tests/gpu/speedup.ipynb -o "$out/speedup.ipynb" 2> "$out/speedup.log"
rc=$?; cat "$out/speedup.log"
python3 - "$out/speedup.ipynb" "$out" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
for i, c in enumerate(nb["cells"][2:], 2):
    for o in c["outputs"]:
        if o["output_type"] == "display_data" and "text/plain" in o["data"]:
            print(f"--- cell {i}\n" + o["data"]["text/plain"])
        if o["output_type"] == "display_data" and "image/svg+xml" in o["data"]:
            open(f"{sys.argv[2]}/speedup-cell{i}.svg", "w").write(o["data"]["image/svg+xml"])
        if o["output_type"] == "error":
            print(f"--- cell {i} error: {o['ename']}: {o['evalue']}")
PY
check $rc "%%speedup notebook"

# %device cpu and back: kernels compiled for the GPU run on the simulator
# (compiled there at their first launch) and new ones on both
notebook_passes switch "PASS gpu 20" "PASS simulated 20" "PASS simulated 60" "PASS gpu 120"

# kernel cells run again (a memory hit keeps the loaded module): launches,
# an edit and its undoing, a device variable starting again
notebook_passes rerun "PASS a kernel cell run again launches" \
    "PASS an edited kernel and its edit undone each run their own code" \
    "PASS a device variable starts again when its cell runs again"

# cuRAND's device API in a kernel cell, on the GPU and then on the simulator:
# the same XORWOW numbers, so the same count of hits
notebook_passes curand "PASS equal hits on the GPU and the simulator"

# device variables: __constant__/__device__ from host cells, one storage
# across kernel cells, cudaMemcpyToSymbol and friends (issue 12)
notebook_passes symbols "PASS constant memory set from the host" \
    "PASS one __device__ storage across kernel cells, symbol address and size" \
    "PASS async symbol copies with an offset" "PASS a host variable is not a symbol"

# any kernel parameter type (issue 12): structs, vector types, __half; the
# by-value struct's size checked against the driver's (cuFuncGetParamInfo)
notebook_passes params --error LaunchError "argument 1 of apply is Params q (80 bytes), got a 48-byte value" \
    "PASS struct by value" "PASS vector types" "PASS __half"

# template kernels launched by instance, and the runtime functions that take
# a kernel: attributes, occupancy, cudaLaunchKernel (issue 12)
notebook_passes templates --error CudaCompileError "line 2: scale<Pair> cannot be instantiated" \
    "PASS template instances float, double, int" "PASS non-type template arguments" \
    "PASS instance launch cost" "PASS cudaFuncGetAttributes" "PASS occupancy" \
    "PASS cudaFuncSetAttribute" "PASS cudaLaunchKernel and cudaLaunchCooperativeKernel" \
    "PASS not a kernel"

# NVIDIA's runtime API in host cells (issue 12): defaults, void ** casts,
# the real cudaDeviceProp, functions beyond gpuc's subset, the tutorials'
# error-check macro whose exit() ends the cell only; no warnings
notebook_passes runtime --error SystemExit "exit(1) called in the top-level code of cell 6, line 5" \
    "PASS managed memory, events, streams with defaults" \
    "PASS pitched memory and cudaMemcpy2DAsync without a stream" "PASS the real cudaDeviceProp" \
    "PASS an error-check macro that calls exit keeps the session" "PASS cleanup"

# CUDA's libraries from host cells as courses write them (issue 12): cuBLAS
# SGEMM with a known answer, cuRAND uniform and normal statistics, a cuFFT
# round trip, a cuSPARSE SpMV; each cell aborts on a wrong answer
notebook_passes cuda_libraries "PASS cublasSgemm 2x2 and 64x48x32" \
    "PASS curandGenerateUniform and curandGenerateNormal statistics" \
    "PASS cufftExecC2C forward and inverse round trip" "PASS cusparseSpMV with a CSR matrix" \
    "PASS cleanup"

# %%profile (issue 28): the "Why is my kernel slow?" notebook on the GPU (no
# error; every %%profile cell a GPU profile, not a simulated one), then the
# accuracy checks of tests/gpu/profile_gpu.py
"$bin/gpuc" run notebooks/why-is-my-kernel-slow.ipynb -o "$out/why.ipynb" 2> "$out/why.log"
rc=$?; cat "$out/why.log"
python3 - "$out/why.ipynb" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
metas = [o["metadata"]["gpuc.profile"] for c in cells for o in c.get("outputs", [])
         if o["output_type"] == "display_data" and "gpuc.profile" in o.get("metadata", {})]
errors = [o for c in cells for o in c.get("outputs", []) if o["output_type"] == "error"]
for m in metas:
    print(m["device"], [(r["name"], r["seconds"]) for r in m["rows"]][:6])
sys.exit(0 if len(metas) == 4 and not errors and not any(m["simulated"] for m in metas) else 1)
PY
check $? "why-is-my-kernel-slow notebook on the GPU (gpuc run rc $rc)"
PYTHONPATH=tests python3 tests/gpu/profile_gpu.py "$bin" "$out/profile"; check $? "profile_gpu"

# several GPUs (issue 27): on a machine with two or more; exit 2 is "fewer
# than two GPUs here", not a failure
python3 tests/gpu/multi_gpu.py "$bin" "$out/multi_gpu" > "$out/multi_gpu.txt" 2>&1
rc=$?; cat "$out/multi_gpu.txt"
if [ $rc -ne 2 ]; then check $rc "several GPUs (tests/gpu/multi_gpu.py)"; fi

if [ "${GPUC_NO_MEMCHECK:-0}" != 1 ] && command -v compute-sanitizer >/dev/null; then
    compute-sanitizer --tool memcheck --target-processes all --print-limit 20 \
        "$bin/gpuc" run tests/gpu/tutorial.ipynb -o "$out/tutorial-memcheck.ipynb" \
        > "$out/memcheck.txt" 2>&1
    rc=$?; tail -5 "$out/memcheck.txt"
    grep -q "ERROR SUMMARY: 0 errors" "$out/memcheck.txt"; check $? "compute-sanitizer memcheck (rc $rc)"
fi
exit $fail
