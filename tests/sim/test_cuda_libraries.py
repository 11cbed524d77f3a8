"""CUDA's libraries from host cells (issue 12) where there is no GPU, through
the real kernel: the course cells of tests/gpu/cuda_libraries.ipynb (cuBLAS
SGEMM, cuRAND, cuFFT, cuSPARSE, each checking every status) compile and
link, and stop at the library's own "no GPU" status as a program built with
nvcc would there, after one note per library; cuRAND's host generator works
on the CPU; a library that cannot be found is a CompileError naming it and
the places looked in, and the session goes on. The same notebook runs with
known answers on the GPU machine (tests/gpu/run.sh)."""
import json
from pathlib import Path

import pytest

from gpuc_testing.kernel import execute, execute_ok, start_kernel, stop_kernel

NOTEBOOK = Path(__file__).resolve().parent.parent / "gpu" / "cuda_libraries.ipynb"
CELLS = [c["source"] for c in json.loads(NOTEBOOK.read_text())["cells"]]

# what each library's first call returns without a GPU (its own enums)
NO_GPU = [
    ("cuBLAS", "cuBLAS error CUBLAS_STATUS_NOT_INITIALIZED at line 5"),
    ("cuRAND", "cuRAND error 203 at line 9"),  # CURAND_STATUS_INITIALIZATION_FAILED
    ("cuFFT", "cuFFT error 5 at line 12"),  # CUFFT_INTERNAL_ERROR
    ("cuSPARSE", "cuSPARSE error CUSPARSE_STATUS_NOT_INITIALIZED at line 16"),
]


@pytest.fixture(scope="module")
def course():
    """A kernel of its own (no other cell has called a library yet) that
    has run the four course cells, in order, where there is no GPU;
    yields (its client, the four runs)."""
    km, kc = start_kernel("gpuc")
    try:
        if "no GPU" not in execute_ok(kc, "%gpu").stream():
            pytest.skip("a GPU is here: tests/gpu/run.sh checks the answers")
        yield kc, [execute(kc, CELLS[1 + index]) for index in range(len(NO_GPU))]
    finally:
        stop_kernel(km, kc)


@pytest.mark.parametrize("index", range(len(NO_GPU)))
def test_course_cell_links_and_gets_the_no_gpu_status(course, index):
    name, status = NO_GPU[index]
    run = course[1][index]
    assert run.ename == "Abort", run.describe()  # compiled, linked, ran to the check
    assert run.stream().strip() == status
    assert run.stream("stderr").startswith(f"note: {name} needs a GPU; cells run on the CUDA "
                                           "simulator now")


def test_later_cells_call_without_a_second_note(course):
    kc = course[0]
    run = execute_ok(kc, 'printf("%s\\n", cublasGetStatusName(cublasCreate(&handle)));')
    assert run.stream() == "CUBLAS_STATUS_NOT_INITIALIZED\n"
    assert run.stream("stderr") == ""
    run = execute_ok(kc, CELLS[-1])  # the cleanup: every destroy call links
    assert "PASS cleanup" in run.stream()


def test_curand_host_generator_runs_on_the_cpu(kc):
    run = execute_ok(kc, """
#include <curand.h>
curandGenerator_t cpu_gen;
curandCreateGeneratorHost(&cpu_gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
curandSetPseudoRandomGeneratorSeed(cpu_gen, 42ULL);
double normal[10000];
curandGenerateNormalDouble(cpu_gen, normal, 10000, 1.0, 2.0);
double sum = 0;
for (int i = 0; i < 10000; i++) sum += normal[i];
printf("%d\\n", sum / 10000 > 0.9 && sum / 10000 < 1.1);
curandDestroyGenerator(cpu_gen);
""")
    assert run.stream() == "1\n"


@pytest.mark.parametrize("kernel_with_env", [{"GPUC_HIDE_LIBS": "libcufft"}], indirect=True)
def test_a_missing_library_is_named_and_the_session_kept(kernel_with_env):
    no_cufft = kernel_with_env
    execute_ok(no_cufft, "int kept = 7;")
    run = execute(no_cufft, CELLS[3])
    assert run.ename == "CompileError"
    evalue = run.reply["content"]["evalue"]
    assert "undefined symbol 'cufftPlan1d' (cuFFT not found: host cells cannot call cufft* " \
           "(looked for libcufft.so.12, libcufft.so.11 in the loader's path" in evalue, evalue
    assert execute_ok(no_cufft, "kept * 6").result == "42"
