#!/usr/bin/env bash
# The course programs on a GPU machine: each tests/course/NN_name.cu is
# built by nvcc and run, then run through `gpuc run` (one %%cuda cell),
# and both outputs are compared with NN_name.expect. Prints one line per
# program and per route, then the counts; exits non-zero if any differs.
#
#   tests/course/run_gpu.sh [GPUC_BINARY] [PROGRAM.cu ...]
#
# GPUC_BINARY defaults to build/gpuc; NVCC to nvcc on PATH, else
# /usr/local/cuda/bin/nvcc. Needs python3 (no Jupyter) to write the
# notebooks and read their outputs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
gpuc=${1:-build/gpuc}
shift || true
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=("$here"/*.cu)

pass_nvcc=0 pass_gpuc=0 total=0
for cu in "${programs[@]}"; do
    name=$(basename "$cu" .cu)
    expect="$here/$name.expect"
    total=$((total + 1))
    libs=""
    grep -q "cublas" "$cu" && libs="-lcublas"
    # nvcc's own build and run
    if "$nvcc" -O2 -std=c++17 -arch=native -o "$work/$name" "$cu" $libs 2>"$work/$name.nvcc.log" &&
        "$work/$name" >"$work/$name.nvcc.out" 2>"$work/$name.nvcc.err" &&
        cmp -s "$work/$name.nvcc.out" "$expect"; then
        echo "PASS nvcc $name"
        pass_nvcc=$((pass_nvcc + 1))
    else
        echo "FAIL nvcc $name"
        diff "$expect" "$work/$name.nvcc.out" 2>/dev/null | head -5
        head -5 "$work/$name.nvcc.log" "$work/$name.nvcc.err" 2>/dev/null
    fi
    # the same file in one %%cuda cell, headless
    python3 - "$cu" "$work/$name.ipynb" <<'EOF'
import json, sys
src = open(sys.argv[1]).read()
nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "%%cuda\n" + src,
                 "outputs": [], "execution_count": None}],
      "metadata": {"kernelspec": {"name": "gpuc", "language": "c", "display_name": "gpuc"}},
      "nbformat": 4, "nbformat_minor": 5}
json.dump(nb, open(sys.argv[2], "w"))
EOF
    start=$(date +%s.%N)
    "$gpuc" run --allow-errors "$work/$name.ipynb" -o "$work/$name.out.ipynb" \
        >"$work/$name.run.log" 2>&1
    end=$(date +%s.%N)
    python3 - "$work/$name.out.ipynb" "$work/$name.gpuc.out" "$work/$name.gpuc.err" <<'EOF'
import json, sys
cell = json.load(open(sys.argv[1]))["cells"][0]
out = "".join(o.get("text", "") for o in cell["outputs"] if o.get("name") == "stdout")
err = "".join(o.get("text", "") for o in cell["outputs"] if o.get("name") == "stderr")
err += "".join(o["ename"] + ": " + o["evalue"] + "\n" for o in cell["outputs"]
               if o["output_type"] == "error")
open(sys.argv[2], "w").write(out)
open(sys.argv[3], "w").write(err)
EOF
    secs=$(awk "BEGIN { printf \"%.2f\", $end - $start }")
    if cmp -s "$work/$name.gpuc.out" "$expect"; then
        echo "PASS gpuc $name (${secs} s with gpuc run's start)"
        pass_gpuc=$((pass_gpuc + 1))
    else
        echo "FAIL gpuc $name"
        diff "$expect" "$work/$name.gpuc.out" | head -5
        head -5 "$work/$name.gpuc.err"
    fi
done
# a cell run again unchanged compiles nothing: the Thrust program twice,
# its notes on (stderr) say how long each took
python3 - "$here/10_thrust.cu" "$work/again.ipynb" <<'EOF'
import json, sys
src = open(sys.argv[1]).read()
cell = {"cell_type": "code", "metadata": {}, "source": "%%cuda --verbose\n" + src,
        "outputs": [], "execution_count": None}
nb = {"cells": [cell, dict(cell)],
      "metadata": {"kernelspec": {"name": "gpuc", "language": "c", "display_name": "gpuc"}},
      "nbformat": 4, "nbformat_minor": 5}
json.dump(nb, open(sys.argv[2], "w"))
EOF
"$gpuc" run "$work/again.ipynb" -o "$work/again.out.ipynb" >/dev/null 2>&1
python3 - "$work/again.out.ipynb" <<'EOF'
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    for o in c["outputs"]:
        if o.get("name") == "stderr":
            print("10_thrust:", o["text"].strip())
EOF
echo "nvcc: $pass_nvcc of $total give the recorded output; gpuc %%cuda: $pass_gpuc of $total"
[ "$pass_nvcc" -eq "$total" ] && [ "$pass_gpuc" -eq "$total" ]
