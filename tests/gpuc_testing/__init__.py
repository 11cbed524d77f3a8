"""gpuc_testing: the helpers the Python tests and the benchmarks share.

    timing    GPUC_TIME_SCALE and scaled(): every deadline and timing margin
              of the tests is a figure measured on an idle machine times
              this factor (`make asan` sets 3), so they hold under load and
              under sanitizers
    kernel    a gpuc kernel through the real jupyter_client: start, execute,
              collect replies and IOPub messages, raw signed frames, processes
              from /proc
    notebook  cells run by `gpuc run` as a notebook (no Jupyter needed), and
              readers of an executed notebook's cells
    sources   CUDA source text that tests and benchmarks both run, and the
              host C that times the GPU benchmarks' cells (per_call_ms)
    bench     the GPU benchmarks' two sides against CuPy: gpuc's times as
              its timed cells printed them, and CuPy's timed the same way
    numpy_cases  the GPU scripts' array cases against NumPy: random
              inputs, cells that load them and save each case's result on a
              device, the results read back and compared

How it is found: the package lives in tests/, and tests/ is the one folder
put on the import path. pytest does it (`pythonpath = .` in
tests/pytest.ini); scripts run by plain python (bench/, tests/soak/) are
started from the repository's root with PYTHONPATH=tests:

    PYTHONPATH=tests python3 bench/bench_math.py BIN OUT

(`make bench` sets it). The tests/gpu scripts run without it, as
`python3 tests/gpu/NAME.py BIN OUT` (arrays_gpu, arrays2_gpu, linalg_gpu,
math_gpu, multi_gpu), put tests/ on sys.path themselves.
"""
