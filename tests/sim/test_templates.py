"""Template kernels and the runtime functions that take a kernel (issue 12,
"CUDA as courses write it") through the real kernel on the CUDA simulator:
`scale<float><<<g, b>>>(...)` instantiates the template at its first launch
(NVRTC checks it, g++ compiles it for the simulator), with the launch's
argument checks on the instance's parameters; a bad instantiation is an
error naming the cell and line, and the session goes on. A kernel's name is
a value in host cells that cudaFuncGetAttributes, the occupancy functions
and cudaLaunchKernel take."""
import pytest

from gpuc_testing.kernel import execute, execute_ok

# on a machine with a GPU too, the module's kernel cells run simulated
pytestmark = pytest.mark.usefixtures("simulated")


@pytest.fixture(scope="module")
def scale(simulated):
    """The template kernel scale<T>, which several tests instantiate."""
    execute_ok(simulated, """%%kernel
template <typename T>
__global__ void scale(T *x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}""")


@pytest.fixture(scope="module")
def axpy(simulated):
    execute_ok(simulated, """%%kernel
__global__ void axpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}""")


def test_type_template_float_double_int(kc, scale):
    run = execute_ok(kc, """
int n = 1000;
float hf[1000]; double hd[1000]; int hi[1000];
for (int i = 0; i < n; i++) { hf[i] = i * 0.5f; hd[i] = i * 0.25; hi[i] = i; }
float *df; double *dd; int *di;
cudaMalloc(&df, sizeof hf); cudaMalloc(&dd, sizeof hd); cudaMalloc(&di, sizeof hi);
cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice);
cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice);
cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice);
scale<float><<<(n + 255) / 256, 256>>>(df, 2.0f, n);
scale<double><<<(n + 255) / 256, 256>>>(dd, 3, n);     /* 3 becomes a double, as in C++ */
scale< int ><<<(n + 255) / 256, 256>>>(di, 4, n);
scale<float><<<(n + 255) / 256, 256>>>(df, 2, n);      /* the instance made above */
cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost);
cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
int bad = 0;
for (int i = 0; i < n; i++)
    bad += hf[i] != i * 2.0f || hd[i] != i * 0.75 || hi[i] != 4 * i;
printf("bad=%d %g %g %d\\n", bad, hf[999], hd[999], hi[999]);
""")
    assert "bad=0 1998 749.25 3996" in run.stream()


def test_instance_argument_checks(kc, scale):
    run = execute(kc, "double *p = 0;\nscale<float><<<1, 1>>>(p, 2.0f, 1, 5);")
    assert run.ename == "LaunchError"
    assert "cell" in run.content["evalue"] and "line 2" in run.content["evalue"]
    assert "scale<float> expects 3 arguments (float *x, float a, int n), got 4" in run.content["evalue"]


def test_non_type_template_arguments(kc):
    execute_ok(kc, """%%kernel
template <int BLOCK>
__global__ void block_sum(const float *x, float *out, int n) {
    __shared__ float part[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    part[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
template <typename T, int K>
__global__ void times_k(T *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= K;
}""")
    run = execute_ok(kc, """
int m = 5000;
float *hx = malloc(m * sizeof(float)), *dx, *dsum, sum = 0;
for (int i = 0; i < m; i++) hx[i] = 1.0f;
cudaMalloc(&dx, m * sizeof(float)); cudaMalloc(&dsum, sizeof(float));
cudaMemcpy(dx, hx, m * sizeof(float), cudaMemcpyHostToDevice);
times_k<float, 3><<<(m + 127) / 128, 128>>>(dx, m);
cudaMemset(dsum, 0, sizeof(float));
block_sum<256><<<(m + 255) / 256, 256>>>(dx, dsum, m);
cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost);
printf("sum=%g\\n", sum);
""")
    assert "sum=15000" in run.stream()


def test_bad_instantiation_names_cell_and_line(kc, scale):
    run = execute(kc, """%%kernel
struct Pair { int a, b; };
__global__ void not_template(int *x) { x[0] = 1; }""")
    assert run.status == "ok"
    run = execute(kc, "int k = 1;\n\nscale<Pair><<<1, 1>>>(0, 0, k);")
    assert run.ename == "CudaCompileError", run.describe()
    evalue = run.content["evalue"]
    assert "line 3: scale<Pair> cannot be instantiated (the template is in cell" in evalue
    assert 'no operator "*" matches these operands' in evalue
    run = execute(kc, "\nscale<Nowhere><<<1, 1>>>(0, 0, 0);")
    assert run.ename == "CudaCompileError"
    assert "line 2: scale<Nowhere> cannot be instantiated" in run.content["evalue"]
    assert 'identifier "Nowhere" is undefined' in run.content["evalue"]
    run = execute(kc, "int *q = 0;\nnot_template<int><<<1, 1>>>(q);")
    assert run.ename == "LaunchError"
    assert "line 2: not_template is not a template kernel" in run.content["evalue"]
    run = execute(kc, "float *f = 0;\nscale<float, 3><<<1, 1>>>(f, 1.0f, 0);")
    assert run.ename == "LaunchError"
    assert "scale takes 1 template argument, got 2" in run.content["evalue"]
    run = execute(kc, "float *f = 0;\nnowhere<float><<<1, 1>>>(f);")
    assert run.ename == "LaunchError"
    assert "no template kernel named nowhere" in run.content["evalue"]
    # the session goes on, and the good instances still launch
    run = execute_ok(kc, """
float one = 1.5f, *d1; cudaMalloc(&d1, sizeof one);
cudaMemcpy(d1, &one, sizeof one, cudaMemcpyHostToDevice);
scale<float><<<1, 1>>>(d1, 2.0f, 1);
cudaMemcpy(&one, d1, sizeof one, cudaMemcpyDeviceToHost);
printf("one=%g\\n", one);""")
    assert "one=3" in run.stream()


def test_redefined_template_is_instantiated_again(kc):
    execute_ok(kc, """%%kernel
template <typename T>
__global__ void fill(T *x, T v) { x[threadIdx.x] = v; }""")
    execute_ok(kc, "int *dfill; cudaMalloc(&dfill, 4 * sizeof(int)); int hfill[4];")
    run = execute_ok(kc, """fill<int><<<1, 4>>>(dfill, 7);
cudaMemcpy(hfill, dfill, sizeof hfill, cudaMemcpyDeviceToHost); printf("%d\\n", hfill[3]);""")
    assert run.stream().strip() == "7"
    execute_ok(kc, "const void *fill_int = fill<int>;")
    execute_ok(kc, """%%kernel
template <typename T>
__global__ void fill(T *x, T v) { x[threadIdx.x] = v + (T)threadIdx.x; }""")
    run = execute_ok(kc, """fill<int><<<1, 4>>>(dfill, 7);
cudaMemcpy(hfill, dfill, sizeof hfill, cudaMemcpyDeviceToHost); printf("%d\\n", hfill[3]);""")
    assert run.stream().strip() == "10"
    # a handle taken before: the new definition's instance, made again
    run = execute_ok(kc, """int eight = 8;
void *fargs[] = {&dfill, &eight};
cudaError_t ef = cudaLaunchKernel(fill_int, 1, 4, fargs);
cudaMemcpy(hfill, dfill, sizeof hfill, cudaMemcpyDeviceToHost); printf("%d %d\\n", ef, hfill[3]);""")
    assert run.stream().strip() == "0 11"


def test_functions_that_take_a_kernel(kc, axpy):
    run = execute_ok(kc, """
struct cudaFuncAttributes attr;
cudaError_t e1 = cudaFuncGetAttributes(&attr, axpy);
int blocks = -1, min_grid = -1, block = -1, cores = 0;
cudaError_t e2 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 256, 0);
cudaError_t e3 = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, axpy, 0, 0);
cudaError_t e4 = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, (const void *)axpy);
cudaError_t e5 = cudaFuncSetAttribute(axpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
cudaError_t e6 = cudaFuncSetCacheConfig(axpy, cudaFuncCachePreferL1);
cudaDeviceProp prop;
cudaGetDeviceProperties(&prop, 0);
cores = prop.multiProcessorCount;
printf("%d %d %d %d %d %d\\n", e1, e2, e3, e4, e5, e6);
printf("threads=%d ptx=%d blocks=%d block=%d grid_ok=%d\\n", attr.maxThreadsPerBlock,
       attr.ptxVersion, blocks, block, min_grid == cores);
""")
    out = run.stream()
    assert "0 0 0 0 0 0" in out
    assert "threads=1024 ptx=80 blocks=4 block=1024 grid_ok=1" in out


def test_cuda_launch_kernel(kc, axpy):
    run = execute_ok(kc, """
int n = 300;
float a = 2.0f, hx[300], hy[300], *x, *y;
for (int i = 0; i < n; i++) { hx[i] = i; hy[i] = 1; }
cudaMalloc(&x, sizeof hx); cudaMalloc(&y, sizeof hy);
cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice);
void *args[] = {&n, &a, &x, &y};
cudaError_t e = cudaLaunchKernel((const void *)axpy, dim3((n + 127) / 128), dim3(128), args, 0, 0);
cudaError_t e2 = cudaLaunchKernel(axpy, (n + 127) / 128, 128, args);   /* defaults, ints */
cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
printf("e=%d e2=%d y[10]=%g y[299]=%g\\n", e, e2, hy[10], hy[299]);
""")
    assert "e=0 e2=0 y[10]=41 y[299]=1197" in run.stream()


def test_not_a_kernel(kc):
    run = execute_ok(kc, """
int not_kernel = 3;
struct cudaFuncAttributes attr2;
int nb = -1;
void *none[1];
cudaError_t e1 = cudaFuncGetAttributes(&attr2, &not_kernel);
cudaError_t e2 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, (void *)printf, 128, 0);
cudaError_t e3 = cudaLaunchKernel((void *)&not_kernel, 1, 1, none);
printf("%d %d %d %s\\n", e1, e2, e3, cudaGetErrorName(e1));
""")
    assert "98 98 98 cudaErrorInvalidDeviceFunction" in run.stream()
    assert "is not a kernel of a kernel cell" in run.stream("stderr")


def test_kernel_name_as_value(kc, axpy):
    run = execute_ok(kc, "axpy")
    assert run.result == '"axpy"' or "axpy" in (run.result or "")


def test_template_instance_as_value(kc, scale):
    run = execute_ok(kc, """
struct cudaFuncAttributes ta;
cudaError_t et = cudaFuncGetAttributes(&ta, scale<float>);
float v = 4.0f, two = 2.0f, *dv;
int one_n = 1, below = 0;
for (int i = 0; i < 3; i++) below += i < one_n;   /* comparisons stay comparisons */
cudaMalloc(&dv, sizeof v);
cudaMemcpy(dv, &v, sizeof v, cudaMemcpyHostToDevice);
void *sargs[] = {&dv, &two, &one_n};
cudaError_t el = cudaLaunchKernel((const void *)scale<float>, 1, 1, sargs);
int nb = 0;
cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, scale< double >, 128, 0);
cudaMemcpy(&v, dv, sizeof v, cudaMemcpyDeviceToHost);
printf("et=%d el=%d v=%g below=%d nb=%d threads=%d\\n", et, el, v, below, nb, ta.maxThreadsPerBlock);
""")
    assert "et=0 el=0 v=8 below=1 nb=8 threads=1024" in run.stream()
    run = execute(kc, "struct cudaFuncAttributes tb;\n\ncudaFuncGetAttributes(&tb, scale<Nowhere>);")
    assert run.ename == "CudaCompileError"
    assert "line 3: scale<Nowhere> cannot be instantiated" in run.content["evalue"]
