"""The two sides of the GPU benchmarks against CuPy (bench/bench_math.py,
bench_linalg.py, bench_arrays2.py), timed alike: gpuc's per-call times as
its cells printed them (sources.timed_case), and CuPy's, taken in this
process as sources.per_call_ms takes gpuc's."""


def output_lines(cells):
    """The lines of text that executed cells (json.load's) printed, in order;
    prints "gpuc error: ENAME EVALUE" for an error output on the way."""
    for cell in cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                print("gpuc error:", o.get("ename"), o.get("evalue"))
            yield from o.get("text", "").splitlines()


def case_times(lines, n):
    """Cases 0..n-1's ms per call from the "T k MS" lines among lines (NaN
    for a case that printed none)."""
    times = {}
    for line in lines:
        if line.startswith("T "):
            _, k, ms = line.split()
            times[int(k)] = float(ms)
    return [times.get(k, float("nan")) for k in range(n)]


def cupy_per_call_ms(env, cases):
    """CuPy's GPU time per call in ms of each (statement, reps) in cases, a
    statement being a Python expression over env: CUDA events around reps
    back-to-back calls after two warm-up calls, on the current stream."""
    import cupy as cp

    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    t = []
    for stmt, reps in cases:
        f = eval("lambda: " + stmt, env)
        f(), f()
        cp.cuda.Device().synchronize()
        e0.record()
        for _ in range(reps):
            f()
        e1.record()
        e1.synchronize()
        t.append(cp.cuda.get_elapsed_time(e0, e1) / reps)
    return t
