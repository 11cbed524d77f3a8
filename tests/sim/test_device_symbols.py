"""Device variables of kernel cells (issue 12) through the real kernel on the
CUDA simulator: __constant__ and __device__ variables are known to host cells
by name, cudaMemcpyToSymbol and friends work as in nvcc programs, a variable
has one storage for the session (a later kernel cell's kernels use the same
memory), and cells of only __device__ code compile without launch
warnings."""
import numpy as np
import pytest

from gpuc_testing.kernel import execute, execute_ok

# on a machine with a GPU too, the module's kernel cells run simulated
pytestmark = pytest.mark.usefixtures("simulated")


def test_constant_from_host_and_back(kc):
    run = execute_ok(kc, """%%kernel
__constant__ float coef[4];
__global__ void poly(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = coef[0] + x[i] * (coef[1] + x[i] * (coef[2] + x[i] * coef[3]));
}""")
    assert "no GPU here" not in run.stream()
    run = execute_ok(kc, """
float h[4] = {1.0f, 2.0f, 0.5f, -0.25f};
cudaError_t e = cudaMemcpyToSymbol(coef, h, sizeof h);
int n = 1000;
float *x, *y, hx[1000], hy[1000];
for (int i = 0; i < n; i++) hx[i] = i * 0.01f;
cudaMalloc(&x, n * sizeof(float)); cudaMalloc(&y, n * sizeof(float));
cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
poly<<<(n + 255) / 256, 256>>>(x, y, n);
cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
float back[4] = {0};
cudaMemcpyFromSymbol(back, coef, sizeof back);
size_t size = 0;
cudaGetSymbolSize(&size, coef);
printf("e=%d size=%zu sizeof=%zu back=%g,%g,%g,%g\\n", e, size, sizeof coef, back[0], back[1], back[2], back[3]);
for (int i = 0; i < n; i++) printf("%.6f\\n", hy[i]);
""")
    lines = run.stream().split("\n")
    assert lines[0] == "e=0 size=16 sizeof=16 back=1,2,0.5,-0.25"
    got = np.array([float(v) for v in lines[1:1001]])
    x = np.arange(1000, dtype=np.float32) * np.float32(0.01)
    want = 1 + x * (2 + x * (0.5 + x * -0.25))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_device_variable_one_storage_across_cells(kc):
    execute_ok(kc, """%%kernel
__device__ int hits = 5;
__device__ int bump_by(int k) { return atomicAdd(&hits, k); }""")
    execute_ok(kc, """%%kernel
__global__ void count_hits(int k) { bump_by(k); }""")
    execute_ok(kc, """%%kernel
__global__ void count_more(int k) { atomicAdd(&hits, k * 100); }""")
    run = execute_ok(kc, """
count_hits<<<2, 32>>>(1);
count_more<<<1, 1>>>(3);
cudaDeviceSynchronize();
int h = -1;
cudaMemcpyFromSymbol(&h, hits, sizeof h);
int *p = 0;
cudaGetSymbolAddress((void **)&p, hits);
int direct = -1;
cudaMemcpy(&direct, p, sizeof direct, cudaMemcpyDeviceToHost);
printf("hits=%d direct=%d\\n", h, direct);
""")
    # 5 (initializer) + 64 threads of count_hits + 300 from count_more
    assert "hits=369 direct=369" in run.stream()


def test_redefinition_gives_fresh_storage(kc):
    cell = """%%kernel
__device__ float level = 1.5f;"""
    execute_ok(kc, cell)
    execute_ok(kc, """%%kernel
__global__ void raise_level(void) { level += 1.0f; }""")
    execute_ok(kc, "raise_level<<<1, 1>>>(); cudaDeviceSynchronize();")
    run = execute_ok(kc, 'float v; cudaMemcpyFromSymbol(&v, level, sizeof v); printf("%g\\n", v);')
    assert run.stream().strip() == "2.5"
    execute_ok(kc, cell)  # the same cell again: a new definition, its initial value
    execute_ok(kc, "raise_level<<<1, 1>>>(); cudaDeviceSynchronize();")
    run = execute_ok(kc, 'cudaMemcpyFromSymbol(&v, level, sizeof v); printf("%g\\n", v);')
    assert run.stream().strip() == "2.5"


def test_device_only_cell_and_later_caller(kc):
    run = execute_ok(kc, """%%kernel
__device__ float cube(float v) { return v * v * v; }""")
    assert "no GPU here" not in run.stream() and "launch" not in run.stream()
    execute_ok(kc, """%%kernel
__global__ void cubes(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = cube(v[i]);
}""")
    run = execute_ok(kc, """
float hv[3] = {1, 2, 3}, *dv;
cudaMalloc(&dv, sizeof hv);
cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice);
cubes<<<1, 32>>>(dv, 3);
cudaMemcpy(hv, dv, sizeof hv, cudaMemcpyDeviceToHost);
printf("%g %g %g\\n", hv[0], hv[1], hv[2]);
""")
    assert run.stream().strip() == "1 8 27"


def test_symbol_errors_keep_the_session(kc):
    execute_ok(kc, "float not_device[4] = {0}; int kept = 42;")
    run = execute_ok(kc, 'cudaError_t e = cudaMemcpyToSymbol(not_device, not_device, 16); printf("%d %s\\n", e, cudaGetErrorName(e));')
    assert "13 cudaErrorInvalidSymbol" in run.stream()
    assert "not_device is not a __device__ or __constant__ variable" in run.stream("stderr")
    execute_ok(kc, """%%kernel
__constant__ int small[2];""")
    run = execute_ok(kc, 'int big[8] = {0}; printf("%d\\n", cudaMemcpyToSymbol(small, big, sizeof big));')
    assert run.stream().strip() == "1"
    assert "do not fit in small (8 bytes)" in run.stream("stderr")
    run = execute(kc, "cudaMemcpyToSymbol(no_such_name, big, 4);")
    assert run.status == "error" and "no_such_name" in run.describe()
    assert execute_ok(kc, "kept").result == "42"
