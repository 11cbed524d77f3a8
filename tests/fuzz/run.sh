#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) in their own build
# folder and runs each for a while on its seed corpus; writes a JUnit file
# (one test case per target) for scripts/summary.py. Without clang and
# libFuzzer every target is reported skipped, with a note.
#
#   usage: tests/fuzz/run.sh BUILD_DIR SECONDS JUNIT.xml [TARGET...]
#
# Inputs found are kept in BUILD_DIR/corpus/<target> (the seeds in
# tests/fuzz/corpus/<target> are read, never written); a crash, hang
# (-timeout) or leak leaves its input in BUILD_DIR/artifacts/<target>/ and
# fails the target. Exit status 1 when any target failed.
set -uo pipefail

build=${1:?build dir}
seconds=${2:?seconds}
junit=${3:?junit file}
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
targets=("$@")
if ((${#targets[@]} == 0)); then
    for f in "$here"/fuzz_*.c; do
        t=$(basename "$f" .c)
        targets+=("${t#fuzz_}")
    done
fi
mkdir -p "$(dirname "$junit")"

xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }

write_junit() { # cases file -> junit
    local n failures skipped
    n=$(grep -c '<testcase' "$1" || true)
    failures=$(grep -c '<failure' "$1" || true)
    skipped=$(grep -c '<skipped' "$1" || true)
    {
        echo '<?xml version="1.0" encoding="UTF-8"?>'
        echo "<testsuite name=\"fuzz\" tests=\"$n\" failures=\"$failures\" skipped=\"$skipped\">"
        cat "$1"
        echo '</testsuite>'
    } > "$junit"
}

cases=$(mktemp)
trap 'rm -f "$cases"' EXIT

# clang that can link a libFuzzer target with ASan and UBSan?
probe=$(mktemp -d)
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' > "$probe/p.c"
if ! command -v clang >/dev/null ||
   ! clang -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "fuzz: skipped: clang with libFuzzer is not available (Debian: apt-get install clang libclang-rt-14-dev)"
    for t in "${targets[@]}"; do
        echo "  <testcase classname=\"fuzz\" name=\"fuzz_$t\"><skipped message=\"clang with libFuzzer is not available\"/></testcase>" >> "$cases"
    done
    write_junit "$cases"
    exit 0
fi
rm -rf "$probe"

echo "fuzz: building in $build"
if ! { CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUC_FUZZ=ON >/dev/null &&
       cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target fuzz_all >/dev/null; }; then
    echo "fuzz: the build failed"
    for t in "${targets[@]}"; do
        echo "  <testcase classname=\"fuzz\" name=\"fuzz_$t\"><failure message=\"the fuzz build failed\"/></testcase>" >> "$cases"
    done
    write_junit "$cases"
    exit 1
fi

status=0
for t in "${targets[@]}"; do
    exe="$build/tests/fuzz/fuzz_$t"
    corpus="$build/corpus/$t"
    artifacts="$build/artifacts/$t"
    log="$build/logs/$t.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    start=$(date +%s)
    # -timeout: an input running 10 s is a hang; leaks fail the run (ASan's
    # leak check is on); UBSan stops at the first report.
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$corpus" "$here/corpus/$t" > "$log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    line="fuzz_$t: ${execs:-?} inputs in ${elapsed}s (${rate:-?}/s)"
    if ((rc == 0)); then
        echo "fuzz: $line, no crash, hang or leak"
        echo "  <testcase classname=\"fuzz\" name=\"fuzz_$t\" time=\"$elapsed\"><system-out>$line</system-out></testcase>" >> "$cases"
    else
        status=1
        echo "fuzz: FAILED $line, exit status $rc; log $log, input in $artifacts/"
        tail -n 40 "$log"
        msg=$(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$log" | xml_escape)
        {
            echo "  <testcase classname=\"fuzz\" name=\"fuzz_$t\" time=\"$elapsed\"><failure message=\"${msg:-exit status $rc}\">"
            tail -n 40 "$log" | xml_escape
            echo "</failure></testcase>"
        } >> "$cases"
    fi
done
write_junit "$cases"
exit $status
