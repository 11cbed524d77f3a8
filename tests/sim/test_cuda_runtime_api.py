"""NVIDIA's own runtime API in host cells (issue 12), through the real
kernel on the CUDA simulator: host cells see the toolkit's
cuda_runtime_api.h (the version of the libcudart found), so course code
that leaves NVIDIA's default arguments out, names structs and enums as C++
does, passes `float **` where `void **` is declared and reads cudaDeviceProp
fields compiles without a warning and runs; a wrong call is still a clear
compile error; where no toolkit header is found (GPUC_CUDA_INCLUDE=none)
gpuc's own subset serves the same course code."""
import os

import numpy as np
import pytest

from gpuc_testing.kernel import execute, execute_ok

# on a machine with a GPU too, the module's kernel cells run simulated
pytestmark = pytest.mark.usefixtures("simulated")

COURSE = """
cudaEvent_t start, stop;
cudaEventCreate(&start); cudaEventCreate(&stop);
int n = 1 << 12;
float *x, *y, *pinned;
cudaMallocManaged(&x, n * sizeof(float));
cudaMallocManaged(&y, n * sizeof(float));
cudaMallocHost(&pinned, n * sizeof(float));
for (int i = 0; i < n; i++) { x[i] = i * 0.5f; y[i] = 1.0f; }
cudaStream_t stream;
cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
cudaEventRecord(start);
axpy<<<(n + 255) / 256, 256>>>(n, 3.0f, x, y);
cudaMemcpyAsync(pinned, y, n * sizeof(float), cudaMemcpyDeviceToHost);
cudaEventRecord(stop);
cudaEventSynchronize(stop);
float ms = -1;
cudaEventElapsedTime(&ms, start, stop);
cudaDeviceProp prop;
cudaGetDeviceProperties(&prop, 0);
printf("device %s: warp %d, %d SMs, cc %d.%d, ms>=0 %d\\n", prop.name, prop.warpSize,
       prop.multiProcessorCount, prop.major, prop.minor, ms >= 0);
for (int i = 0; i < n; i++) printf("%g ", pinned[i]);
printf("\\n");
cudaFree(x); cudaFree(y); cudaFreeHost(pinned);
cudaStreamDestroy(stream);
"""

KERNEL = """%%kernel
__global__ void axpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}"""


def check_course_output(run):
    assert run.stream("stderr") == ""  # not one warning
    lines = run.stream().strip().split("\n")
    assert lines[0].startswith("device gpuc simulator") and "warp 32" in lines[0]
    assert lines[0].endswith("ms>=0 1")
    got = np.array([float(v) for v in lines[1].split()])
    x = np.arange(1 << 12, dtype=np.float32) * np.float32(0.5)
    np.testing.assert_allclose(got, np.float32(3) * x + 1, rtol=1e-6)


def test_course_code_with_default_arguments(kc):
    execute_ok(kc, KERNEL)
    check_course_output(execute_ok(kc, COURSE))


def test_the_real_declarations(kc):
    # NVIDIA's structs and enums by their C++ names, the real cudaDeviceProp
    # (CUDA 13 dropped clockRate: as with nvcc, it is not there), and
    # functions gpuc's subset never had, with their defaults, compile
    run = execute_ok(kc, """
cudaMemcpyKind kind = cudaMemcpyHostToDevice;
cudaPointerAttributes attributes;
cudaFuncAttributes fattr;
cudaDeviceProp prop;
int version = 0;
cudaRuntimeGetVersion(&version);
printf("%d %d %zu\\n", kind, version, sizeof prop);
void never_called(float *d, size_t pitch, cudaStream_t s) {
    float **p = 0;
    cudaHostAlloc(p, 64, cudaHostAllocDefault);
    cudaMallocPitch(p, &pitch, 64, 4);
    cudaMemcpy2DAsync(d, pitch, d, pitch, 64, 4, cudaMemcpyDeviceToDevice);
    cudaStreamAttachMemAsync(s, d);
    cudaStreamWaitEvent(s, (cudaEvent_t)0);
    cudaLaunchHostFunc(s, 0, 0);
    cudaMemLocation where = {cudaMemLocationTypeDevice, 0};
    cudaMemPrefetchAsync(d, 64, where, 0);
}
""")
    assert run.stream("stderr") == ""
    kind, version, size = run.stream().split()
    assert kind == "1" and int(version) >= 12000
    assert int(size) > 700  # NVIDIA's struct, not gpuc's 360-byte one


def test_wrong_calls_are_compile_errors_and_keep_the_session(kc):
    execute_ok(kc, "int kept_value = 5;")
    run = execute(kc, "cudaEvent_t e; cudaEventCreate(&e); cudaEventRecord();")
    assert run.reply["content"]["ename"] == "CompileError"
    run = execute(kc, "cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); int c = p.clockRate;")
    assert run.reply["content"]["ename"] == "CompileError"
    assert "clockRate" in run.reply["content"]["evalue"]
    run = execute_ok(kc, 'printf("%d\\n", kept_value);')
    assert run.stream().strip() == "5"


@pytest.mark.parametrize("kernel_with_env", [{"GPUC_CUDA_INCLUDE": "none"}], indirect=True)
def test_without_the_toolkit_header_the_subset_serves_course_code(kernel_with_env):
    kc = kernel_with_env
    execute_ok(kc, "%device cpu")
    execute_ok(kc, KERNEL)
    check_course_output(execute_ok(kc, COURSE))


def _cuda12_runtime():
    """The folder of CUDA 12.9's libcudart and headers, from the PyPI wheel
    nvidia-cuda-runtime-cu12 (tests/requirements.txt), or None."""
    try:
        import nvidia.cuda_runtime as wheel
    except ImportError:
        return None
    root = os.path.dirname(wheel.__file__) if wheel.__file__ else list(wheel.__path__)[0]
    return root if os.path.exists(os.path.join(root, "lib", "libcudart.so.12")) else None


CUDA12 = _cuda12_runtime()


@pytest.mark.skipif(CUDA12 is None, reason="nvidia-cuda-runtime-cu12 is not installed")
@pytest.mark.parametrize("kernel_with_env", [
    {"GPUC_HIDE_LIBS": "libcudart.so.13",
     "LD_LIBRARY_PATH": os.path.join(CUDA12 or "", "lib")}], indirect=True)
def test_cuda_12_headers(kernel_with_env):
    # a CUDA 12 runtime: its own header (beside its libcudart, as in the pip
    # wheels) is the one host cells see, its default-argument macros work
    # (its per-thread-stream _ptsz forms, declared only under an #if, get
    # none), and its cudaDeviceProp is CUDA 12's, with clockRate
    kc = kernel_with_env
    said = execute_ok(kc, "%gpu").stream()
    assert "CUDA 12.9's cuda_runtime_api.h" in said, said
    execute_ok(kc, "%device cpu")
    execute_ok(kc, KERNEL)
    check_course_output(execute_ok(kc, COURSE))
    run = execute_ok(kc, "cudaDeviceProp p12;\ncudaGetDeviceProperties(&p12, 0);\n"
                         "printf(\"%zu %d\\n\", sizeof p12, p12.clockRate >= 0);")
    assert run.stream("stderr") == ""
    assert run.stream().split() == ["1032", "1"]


OVERLOADS = """
cudaGraph_t graph;
cudaGraphExec_t instance;
cudaGraphNode_t error_node;
cudaGraphExecUpdateResult update_result;
cudaStream_t capture;
float *staged;
void run_graph(int steps) {
    cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal);
    cudaStreamEndCapture(capture, &graph);
    cudaGraphInstantiate(&instance, graph, NULL, NULL, 0);
    cudaGraphExecUpdate(instance, graph, &error_node, &update_result);
    for (int i = 0; i < steps; i++) cudaGraphLaunch(instance, capture);
    cudaMallocHost(&staged, 64, cudaHostAllocDefault);
}
cudaEvent_t quiet;
cudaError_t made = cudaEventCreate(&quiet, cudaEventDisableTiming);
printf("%s\\n", cudaGetErrorName(made));
"""


def test_the_cpp_overloads_of_cuda_runtime_h_in_c_and_cpp_cells(kc):
    # nvcc's cuda_runtime.h overloads some functions with another argument
    # count (CUDA 11's cudaGraphInstantiate, cudaEventCreate with flags):
    # host cells accept those forms as course code writes them, in C and
    # in C++ cells alike
    run = execute_ok(kc, OVERLOADS)
    assert run.stream("stderr") == ""
    assert run.stream() == "cudaSuccess\n"
    run = execute_ok(kc, "%%cpp\n" + OVERLOADS.replace("void run_graph", "void run_graph_cpp")
                     .replace("cudaEvent_t quiet", "cudaEvent_t quiet_cpp")
                     .replace("(&quiet,", "(&quiet_cpp,"))
    assert run.stream().endswith("cudaSuccess\n")


def test_cache_hinted_loads_and_stores(kc):
    """__ldg, __ldcs, __ldcg, __ldca, __ldlu, __ldcv and __stcs, __stcg,
    __stwb, __stwt, as tuned course kernels write them, compile and move
    the same values on the simulator (where they are plain loads and
    stores)."""
    execute_ok(kc, """%%kernel
__global__ void hinted(int n, const float *x, float *y, double2 *z) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __ldg(x + i) + __ldcs(x + i) + __ldcg(x + i) + __ldca(x + i) + __ldlu(x + i)
              + __ldcv(x + i);
    if (i % 4 == 0) __stcs(y + i, v);
    else if (i % 4 == 1) __stcg(y + i, v);
    else if (i % 4 == 2) __stwb(y + i, v);
    else __stwt(y + i, v);
    double2 w; w.x = i; w.y = -i;
    __stcs(z + i, w);
}""")
    run = execute_ok(kc, """
int n = 1000;
float *x, *y; double2 *z;
cudaMallocManaged(&x, n * sizeof(float)); cudaMallocManaged(&y, n * sizeof(float));
cudaMallocManaged(&z, n * sizeof(double2));
for (int i = 0; i < n; i++) x[i] = i * 0.25f;
hinted<<<(n + 127) / 128, 128>>>(n, x, y, z);
cudaDeviceSynchronize();
int bad = 0;
for (int i = 0; i < n; i++) bad += y[i] != 6 * (i * 0.25f) || z[i].x != i || z[i].y != -i;
printf("bad %d\\n", bad);
cudaFree(x); cudaFree(y); cudaFree(z);
""")
    assert run.stream().strip() == "bad 0"
