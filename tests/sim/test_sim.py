"""The CUDA simulator through the real kernel: kernel cells and launches on
a machine with no GPU (or after %device cpu) run on the CPU, with GPU
results (docs/simulator.md). Each test's kernels have names of their own,
since the module's tests share one session; a kernel that several tests
launch is a module fixture."""
import re
import time

import numpy as np
import pytest

from gpuc_testing.kernel import execute, execute_ok, scaled, value_of
from gpuc_testing.sources import TILED_MATMUL

# on a machine with a GPU too, the module's kernel cells run simulated
pytestmark = pytest.mark.usefixtures("simulated")


def floats(text: str) -> np.ndarray:
    return np.array([float(x) for x in text.split()], dtype=np.float64)


@pytest.fixture(scope="module")
def vadd(simulated):
    execute_ok(simulated, """%%kernel
__global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}""")


@pytest.fixture(scope="module")
def hello(simulated):
    execute_ok(simulated, """%%kernel
__global__ void hello() {
    printf("block %d thread %d\\n", blockIdx.x, threadIdx.x);
}""")


@pytest.fixture(scope="module")
def dyn_rev(simulated):
    execute_ok(simulated, """%%kernel
#include <cuda_fp16.h>
__global__ void dyn_rev(float *x, int n) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[t] = x[t];
    __syncthreads();
    x[t] = buf[n - 1 - t] + __expf(0.0f) + rsqrtf(4.0f) + fmaf(1.0f, 2.0f, 3.0f) - 6.5f
         + __half2float(__float2half(0.25f)) - 0.25f + __fdividef(1.0f, 1.0f) - 1.0f;
}""")


def test_vector_add(kc, vadd):
    run = execute_ok(kc, """
int n = 1000000;
float *a, *b, *c;
cudaMalloc(&a, n * sizeof(float)); cudaMalloc(&b, n * sizeof(float)); cudaMalloc(&c, n * sizeof(float));
float *h = malloc(n * sizeof(float));
for (int i = 0; i < n; i++) h[i] = i;
cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
for (int i = 0; i < n; i++) h[i] = 2 * i;
cudaMemcpy(b, h, n * sizeof(float), cudaMemcpyHostToDevice);
vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
cudaDeviceSynchronize();
cudaMemcpy(h, c, n * sizeof(float), cudaMemcpyDeviceToHost);
int bad = 0;
for (int i = 0; i < n; i++) bad += h[i] != 3.0f * i;
printf("bad=%d last=%.0f\\n", bad, h[n - 1]);
cudaFree(a); cudaFree(b); cudaFree(c); free(h);
""")
    assert "bad=0 last=2999997" in run.stream()


def test_2d_grid(kc):
    execute_ok(kc, """%%kernel
__global__ void fill2d(int *m, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) m[y * w + x] = y * 1000 + x + gridDim.x * 0;
}""")
    run = execute_ok(kc, """
int w = 37, hh = 21;
int *m; cudaMalloc(&m, w * hh * sizeof(int));
dim3 block(8, 4);
dim3 grid((w + 7) / 8, (hh + 3) / 4);
fill2d<<<grid, block>>>(m, w, hh);
int *hm = malloc(w * hh * sizeof(int));
cudaMemcpy(hm, m, w * hh * sizeof(int), cudaMemcpyDeviceToHost);
int bad = 0;
for (int y = 0; y < hh; y++) for (int x = 0; x < w; x++) bad += hm[y * w + x] != y * 1000 + x;
printf("bad=%d\\n", bad);
""")
    assert "bad=0" in run.stream()


REDUCE = """%%kernel
__global__ void {name}(const float *x, float *out, int n) {{
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    {barrier}
    for (int k = blockDim.x / 2; k > 0; k /= 2) {{
        if (t < k) s[t] += s[t + k];
        {barrier}
    }}
    if (t == 0) atomicAdd(out, s[0]);
}}"""

REDUCE_HOST = """
{{
int n = 100000;
float *x, *out, *h = malloc(n * sizeof(float)), r = 0;
for (int i = 0; i < n; i++) h[i] = 1.0f;
cudaMalloc(&x, n * sizeof(float)); cudaMalloc(&out, sizeof(float));
cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
cudaMemset(out, 0, sizeof(float));
{name}<<<(n + 255) / 256, 256>>>(x, out, n);
cudaMemcpy(&r, out, sizeof(float), cudaMemcpyDeviceToHost);
printf("sum=%.1f\\n", r);
cudaFree(x); cudaFree(out); free(h);
}}"""


def test_shared_memory_reduction(kc):
    execute_ok(kc, REDUCE.format(name="reduce_ok", barrier="__syncthreads();"))
    run = execute_ok(kc, REDUCE_HOST.format(name="reduce_ok"))
    assert "sum=100000.0" in run.stream()


def test_missing_barrier_shows_the_bug_every_time(kc):
    execute_ok(kc, REDUCE.format(name="reduce_bug", barrier=""))
    sums = {execute_ok(kc, REDUCE_HOST.format(name="reduce_bug")).stream() for _ in range(3)}
    assert len(sums) == 1, sums           # deterministic
    assert "sum=100000.0" not in sums.pop()  # and wrong, as on a GPU


def test_tiled_matmul_matches_numpy(kc):
    execute_ok(kc, "%%kernel" + TILED_MATMUL)  # the benchmark's kernel, bench_matmul
    n = 64
    run = execute_ok(kc, f"""
{{
int n = {n};
float *hA = malloc(n * n * 4), *hB = malloc(n * n * 4), *hC = malloc(n * n * 4);
for (int i = 0; i < n * n; i++) {{ hA[i] = (i % 7) * 0.5f; hB[i] = (i % 5) - 2.0f; }}
float *A, *B, *C;
cudaMalloc(&A, n * n * 4); cudaMalloc(&B, n * n * 4); cudaMalloc(&C, n * n * 4);
cudaMemcpy(A, hA, n * n * 4, cudaMemcpyHostToDevice);
cudaMemcpy(B, hB, n * n * 4, cudaMemcpyHostToDevice);
dim3 block(16, 16); dim3 grid(n / 16, n / 16);
bench_matmul<<<grid, block>>>(A, B, C, n);
cudaMemcpy(hC, C, n * n * 4, cudaMemcpyDeviceToHost);
for (int i = 0; i < n * n; i++) printf("%g ", hC[i]);
}}""")
    got = floats(run.stream()).reshape(n, n)
    i = np.arange(n * n)
    A = ((i % 7) * 0.5).reshape(n, n)
    B = ((i % 5) - 2.0).reshape(n, n)
    assert np.allclose(got, A @ B, rtol=1e-5)


def test_atomics_histogram(kc):
    execute_ok(kc, """%%kernel
__global__ void histo(const int *x, int n, unsigned int *bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[x[i] % 10], 1u);
    if (i == 0) { atomicMax((int *)&bins[10], 7); atomicCAS(&bins[11], 0u, 42u); }
}""")
    run = execute_ok(kc, """
{
int n = 10007;
int *hx = malloc(n * sizeof(int)); unsigned hb[12];
for (int i = 0; i < n; i++) hx[i] = i * 3;
int *x; unsigned *bins;
cudaMalloc(&x, n * sizeof(int)); cudaMalloc(&bins, sizeof hb);
cudaMemcpy(x, hx, n * sizeof(int), cudaMemcpyHostToDevice);
cudaMemset(bins, 0, sizeof hb);
histo<<<(n + 127) / 128, 128>>>(x, n, bins);
cudaMemcpy(hb, bins, sizeof hb, cudaMemcpyDeviceToHost);
for (int b = 0; b < 12; b++) printf("%u ", hb[b]);
}""")
    got = [int(v) for v in run.stream().split()]
    want = np.bincount((np.arange(10007) * 3) % 10, minlength=10).tolist()
    assert got[:10] == want
    assert got[10:] == [7, 42]


def test_warp_shuffle_reduction(kc):
    execute_ok(kc, """%%kernel
__device__ float warp_sum(float v) {
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}
__global__ void shfl_sum(const float *x, float *out) {
    float v = warp_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
    unsigned odd = __ballot_sync(0xffffffff, threadIdx.x % 2);
    int all = __all_sync(0xffffffff, 1), any = __any_sync(0xffffffff, threadIdx.x == 5);
    int lane0 = __shfl_sync(0xffffffff, (int)threadIdx.x * 10, 3);
    if (threadIdx.x % 32 == 0) {
        out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
        if (blockIdx.x == 0 && threadIdx.x == 0) printf("ballot=%x all=%d any=%d idx=%d\\n", odd, all, any, lane0);
    }
}""")
    run = execute_ok(kc, """
{
float h[256], o[8];
for (int i = 0; i < 256; i++) h[i] = i;
float *x, *out;
cudaMalloc(&x, sizeof h); cudaMalloc(&out, sizeof o);
cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
shfl_sum<<<2, 128>>>(x, out);
cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
for (int w = 0; w < 8; w++) printf("%.0f ", o[w]);
printf("\\n");
}""")
    out = run.stream()
    assert "ballot=aaaaaaaa all=1 any=1 idx=30" in out
    sums = [int(v) for v in out.strip().splitlines()[-1].split()]
    assert sums == [sum(range(32 * w, 32 * w + 32)) for w in range(8)]


def test_dynamic_shared_and_math(kc, dyn_rev):
    run = execute_ok(kc, """
{
float h[64];
for (int i = 0; i < 64; i++) h[i] = i;
float *x; cudaMalloc(&x, sizeof h);
cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
dyn_rev<<<1, 64, 64 * sizeof(float)>>>(x, 64);
cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
printf("%g %g\\n", h[0], h[63]);
}""")
    assert "63 0" in run.stream()


def test_device_printf_in_order(kc, hello):
    run = execute_ok(kc, "hello<<<3, 4>>>(); cudaDeviceSynchronize();")
    want = "".join(f"block {b} thread {t}\n" for b in range(3) for t in range(4))
    assert want in run.stream()
    execute_ok(kc, "%sim --seed 7")
    shuffled = execute_ok(kc, "hello<<<3, 4>>>(); cudaDeviceSynchronize();")
    execute_ok(kc, "%sim --seed off")
    assert want in shuffled.stream()  # output stays in block, thread order


def test_launch_configuration_error(kc, hello, dyn_rev):
    run = execute(kc, "hello<<<1, 2048>>>();")
    assert run.status == "error"
    text = run.content["evalue"]
    assert "CUDA_ERROR_INVALID_VALUE (1)" in text
    assert "2048 threads per block" in text
    assert "line 1" in text and "hello" in text
    run = execute(kc, "dyn_rev<<<1, 32, 100000>>>((float *)0, 1);")
    assert run.status == "error"
    assert "shared memory" in run.content["evalue"]


def test_static_shared_over_48_kib_does_not_compile(kc):
    """A kernel's static __shared__ arrays may total 48 KiB, as on a GPU, where
    ptxas refuses more; other kernels of the cell do not count against it."""
    run = execute(kc, """%%kernel
__global__ void sh_big(float *x) {
    __shared__ float a[8192], b[4097];
    a[threadIdx.x] = x[threadIdx.x]; b[threadIdx.x] = 1; __syncthreads();
    x[threadIdx.x] = a[0] + b[1];
}
__global__ void sh_other(float *x) {
    __shared__ float t[8192];
    t[threadIdx.x] = 1; __syncthreads(); x[0] = t[0];
}""")
    assert run.ename == "CudaCompileError", run.describe()
    assert ("Entry function 'sh_big' uses too much shared data (0xc004 bytes, 0xc000 max)"
            in run.content["evalue"])
    execute_ok(kc, """%%kernel
__global__ void sh_full(float *x) {
    __shared__ float a[8192], b[4096];
    a[threadIdx.x] = 1; b[threadIdx.x] = 2; __syncthreads(); x[0] = a[0] + b[0];
}""")
    run = execute_ok(kc, "float *shf; cudaMallocManaged(&shf, 4);\nsh_full<<<1, 32>>>(shf);\n"
                         "cudaDeviceSynchronize();\nprintf(\"%g\\n\", shf[0]);")
    assert run.stream() == "3\n"


def test_compile_error_maps_to_cell_line(kc):
    run = execute(kc, """%%kernel
__global__ void broken(float *x) {
    int i = threadIdx.x;
    x[i] = undefined_name * 2;
}""")
    assert run.status == "error"
    assert run.ename == "CudaCompileError"
    text = run.content["evalue"] + "".join(run.content["traceback"])
    assert "undefined_name" in text
    assert "line 4" in text or "line 3" in text


def test_device_assert(kc):
    execute_ok(kc, """%%kernel
__global__ void checked(int *x) {
    assert(x[threadIdx.x] >= 0);
}""")
    run = execute(kc, """
int hv[4] = {1, 2, -3, 4}; int *dv; cudaMalloc(&dv, sizeof hv);
cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice);
checked<<<1, 4>>>(dv);""")
    assert run.status == "error"
    text = run.content["evalue"]
    assert "CUDA_ERROR_ASSERT (710)" in text
    assert "thread [2,0,0]" in text
    # the session goes on
    assert value_of(kc, "6 * 7") == "42"


def test_runtime_api(kc, vadd):
    run = execute_ok(kc, """
{
cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
int count = 0; cudaGetDeviceCount(&count);
cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
cudaEventRecord(a, 0);
vadd<<<4, 256>>>((float *)0, (float *)0, (float *)0, 0);
cudaEventRecord(b, 0); cudaEventSynchronize(b);
float ms = -1; cudaEventElapsedTime(&ms, a, b);
cudaStream_t s; cudaStreamCreate(&s); cudaStreamSynchronize(s); cudaStreamDestroy(s);
float *m; cudaMallocManaged(&m, 16, cudaMemAttachGlobal); m[0] = 1; cudaFree(m);
printf("%s|%d|%d|%d|%s|%s|%d\\n", p.name, p.warpSize, p.maxThreadsPerBlock, count,
       ms >= 0 ? "ms" : "no", cudaGetErrorString(cudaGetLastError()),
       cudaMemcpy((void *)0, (void *)0, 0, (enum cudaMemcpyKind)9));
}""")
    out = run.stream()
    assert "gpuc simulator (CPU" in out
    assert "|32|1024|1|ms|no error|21" in out


def test_percent_gpu_and_sim(kc):
    out = execute_ok(kc, "%gpu").stream()
    # the devices as the backend floor lists them: no GPU here, so the
    # simulated device is the one kernels run on
    assert "* sim0: gpuc simulator (CPU" in out and "compute capability 8.0 (sm_80)" in out
    # where host cells' CUDA declarations come from (NVIDIA's header here,
    # where the toolkit is installed; gpuc's subset elsewhere)
    assert "host cells declare the runtime API from " in out
    out = execute_ok(kc, "%sim").stream()
    assert "index order" in out and "memcheck: on, the default" in out and "racecheck: off" in out


@pytest.mark.parametrize("threads, blocks", [(1, 1), (3, 64)])
def test_interrupt_endless_kernel(fresh_kernel, threads, blocks):
    """Also with its blocks on several workers (%sim --threads, memcheck off:
    a checked launch runs on one), all stopped; on one, checked (the
    default), the interrupt leaves the executor's own share of the blocks."""
    km, kc = fresh_kernel
    execute_ok(kc, "%device cpu")
    execute_ok(kc, f"%sim --threads {threads}" + (" --no-memcheck" if threads > 1 else ""))
    # (checked, the line is the checker's last access's: the loop's load)
    execute_ok(kc, """%%kernel
__global__ void forever(volatile int *flag) {
    while (*flag == 0) { }
}""")
    execute_ok(kc, "int *flag; cudaMalloc(&flag, 4); cudaMemset(flag, 0, 4); int kept = 1;")
    t0 = time.monotonic()
    run = execute(kc, f"forever<<<{blocks}, 32>>>(flag);\nkept = 2;\ncudaDeviceSynchronize();"
                  "\nkept = 3;", actions=[(scaled(1.0), km.interrupt_kernel)], timeout=scaled(30))
    assert run.status == "error"
    assert run.ename == "Interrupted"
    assert value_of(kc, "kept") == "1"  # no later statement of the cell ran
    assert time.monotonic() - t0 < scaled(10)
    trace = "\n".join(run.content["traceback"])
    assert re.search(r"the simulated kernel forever \(launched at cell \d+, line 1\) stopped at "
                     r"cell \d+, line 3, in block \[\d+,0,0\], thread \[0,0,0\]", trace), trace
    # a fault in host code right after is the cell's own, not the left launch's
    run = execute(kc, "int *ie_null = 0;\n*ie_null = 1;")
    assert run.ename == "SegmentationFault", run.describe()
    assert "simulated kernel" not in "\n".join(run.content["traceback"])
    # the session is kept: variables and kernels are still there
    execute_ok(kc, "%%kernel\n__global__ void setone(volatile int *f) { *f = 1; }")
    run = execute_ok(kc, f"setone<<<1, 1>>>(flag); forever<<<{blocks}, 32>>>(flag); "
                         "printf(\"done\\n\");")
    assert "done" in run.stream()


def test_seed_shuffles_reproducibly(kc):
    execute_ok(kc, """%%kernel
__global__ void order_probe(int *counter, int *order) {
    if (threadIdx.x % 32 == 0)
        order[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = atomicAdd(counter, 1);
}""")
    probe = """{
int *counter, *order, h[64];
cudaMalloc(&counter, 4); cudaMalloc(&order, sizeof h); cudaMemset(counter, 0, 4);
order_probe<<<16, 128>>>(counter, order);
cudaMemcpy(h, order, sizeof h, cudaMemcpyDeviceToHost);
for (int i = 0; i < 64; i++) printf("%d ", h[i]);
}"""
    identity = " ".join(str(i) for i in range(64)) + " "
    execute_ok(kc, "%sim --threads 1")  # several workers take tickets in any order
    assert execute_ok(kc, probe).stream() == identity
    execute_ok(kc, "%sim --seed 3")
    first = execute_ok(kc, probe).stream()
    execute_ok(kc, "%sim --seed 3")
    again = execute_ok(kc, probe).stream()
    execute_ok(kc, "%sim --seed 4")
    other = execute_ok(kc, probe).stream()
    execute_ok(kc, "%sim --seed off")
    assert first == again != identity
    assert other != first
    assert sorted(map(int, first.split())) == list(range(64))
    assert execute_ok(kc, probe).stream() == identity
    execute_ok(kc, "%sim --threads auto")


def test_syncthreads_count(kc):
    execute_ok(kc, """%%kernel
__global__ void votes(int *out) {
    int c = __syncthreads_count(threadIdx.x % 4 == 0);
    int a = __syncthreads_and(threadIdx.x < 1024);
    int o = __syncthreads_or(threadIdx.x == 99);
    if (threadIdx.x == 0) { out[0] = c; out[1] = a; out[2] = o; }
}""")
    run = execute_ok(kc, """{
int *o, h[3]; cudaMalloc(&o, sizeof h);
votes<<<1, 128>>>(o);
cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
printf("%d %d %d\\n", h[0], h[1], h[2]);
}""")
    assert run.stream() == "32 1 1\n"


def test_timeit_shows_simulated_kernel_time(kc, vadd):
    execute_ok(kc, "float *tv; cudaMalloc(&tv, 1024 * sizeof(float));")
    out = execute_ok(kc, "%timeit -n 3 -r 2 vadd<<<4, 256>>>(tv, tv, tv, 1024);").stream()
    assert "per loop" in out
    assert "GPU (simulated on the CPU, unchecked): " in out


def test_fault_in_kernel_names_the_thread(kc):
    """A fault other than a bad memory access (those are CUDA's illegal
    address: test_sim_safety.py) - an integer division by zero traps on the
    CPU - ends the cell as a fault in host code does, naming the kernel, its
    launch, the thread and the line; the session is kept."""
    execute_ok(kc, """%%kernel
__global__ void wild(int *v, int d) {
    if (blockIdx.x == 1) v[threadIdx.x] = 100 / ((int)threadIdx.x - d);
}""")
    run = execute(kc, "int *wv; cudaMalloc(&wv, 256);\nwild<<<3, 32>>>(wv, 5);")
    assert run.ename == "FloatingPointError", run.describe()
    trace = "\n".join(run.content["traceback"])
    assert "the simulated kernel wild (launched at cell" in trace
    assert re.search(r"line 2\) stopped at cell \d+, line 3, in block \[1,0,0\], thread \[5,0,0\]",
                     trace), trace
    assert value_of(kc, "6 * 7") == "42"  # the session is kept


def test_cpu_arrays_as_kernel_arguments(kc):
    execute_ok(kc, """%%kernel
__global__ void ga_scale(int n, float a, float *v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= a;
}""")
    run = execute_ok(kc, """{
ga_t ax = ga_arange(F32, 0, 100, 1);
ga_scale<<<4, 32>>>((int)ga_size(ax), 2.0f, ax);
printf("%d %g %g\\n", ga_device(ax) == GA_CPU, ga_item(ax, 11), ga_item(ax, 99));
}""")
    assert run.stream() == "1 22 198\n"
    run = execute(kc, "{ ga_t ai = ga_arange(I32, 0, 10, 1); ga_scale<<<1, 32>>>(10, 2.0f, ai); }")
    assert run.status == "error" and "int32" in run.content["evalue"]


def test_threads_at_different_barriers_end_the_kernel(kc):
    execute_ok(kc, """%%kernel
__global__ void split_barriers(int *x) {
    if (threadIdx.x < 16) __syncwarp();
    else __syncthreads();
    x[threadIdx.x] = 1;
}""")
    run = execute(kc, "{ int *sx; cudaMalloc(&sx, 64 * sizeof(int)); split_barriers<<<1, 64>>>(sx); }")
    assert run.status == "error"
    text = run.content["evalue"]
    assert "CUDA_ERROR_LAUNCH_FAILED (719)" in text
    assert "wait at __syncthreads()" in text and "split_barriers" in text
    assert value_of(kc, "6 * 7") == "42"


def test_gxx_error_for_what_the_simulator_lacks(kc):
    # NVRTC accepts the cell; the simulator's g++ does not know the intrinsic,
    # and says so on the cell's own line
    run = execute(kc, """%%kernel
__global__ void funnel(unsigned *x) {
    x[0] = __funnelshift_l(x[0], x[1], 3);
}""")
    assert run.status == "error" and run.ename == "CudaCompileError"
    assert re.match(r"cell \d+, line 3: error: '__funnelshift_l' was not declared in this scope",
                    run.content["evalue"]), run.content["evalue"]
    trace = run.content["traceback"]
    assert any("x[0] = __funnelshift_l(x[0], x[1], 3);" in t for t in trace)


def test_runtime_api_default_arguments(kc):
    """NVIDIA's default arguments work in C: the last argument may be left
    out, as tutorials write it (issue "CUDA as courses write it")."""
    execute_ok(kc, "%%kernel\n__global__ void fill_index(float *x, int n)\n"
                   "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = i; }")
    run = execute_ok(kc, """
{
cudaGetLastError(); /* an earlier test's error, cleared */
cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
cudaEventRecord(a);
float *m; cudaMallocManaged(&m, 64 * sizeof(float));
fill_index<<<1, 64>>>(m, 64);
cudaEventRecord(b); cudaEventSynchronize(b);
float h[64]; cudaMemcpyAsync(h, m, sizeof h, cudaMemcpyDeviceToHost);
cudaDeviceSynchronize();
printf("%g %g %s\\n", h[1], h[63], cudaGetErrorString(cudaGetLastError()));
cudaFree(m);
}""")
    assert run.stream().strip() == "1 63 no error"


def test_scalar_arguments_convert_to_the_parameters_type(kc):
    """A number passes to a scalar parameter of another arithmetic type as
    C++ converts it: an int literal to size_t / unsigned long long / float,
    a float to double."""
    execute_ok(kc, "%%kernel\n__global__ void conv(float *out, size_t n, unsigned long long seed,\n"
                   "                     float scale, double offset, bool flag, short s)\n"
                   "{ if (threadIdx.x == 0) out[0] = n + seed + scale + (float)offset + flag + s; }")
    run = execute_ok(kc, """
{
float *d; cudaMalloc(&d, sizeof(float));
int n = 10; float off = 0.5f;
conv<<<1, 1>>>(d, n, 42, 2, off, 1, 7);
float h = 0; cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%g\\n", h);
cudaFree(d);
}""")
    assert run.stream().strip() == "62.5"
    # a pointer where a number is expected is still an error
    run = execute(kc, "{ float *d = 0; conv<<<1, 1>>>(d, d, 1, 1, 1, 1, 1); }")
    assert run.status == "error" and run.reply["content"]["ename"] == "LaunchError"


NVIDIA_BLOG_PROGRAM = """%%cuda
#include <stdio.h>
#include <math.h>

__global__ void blog_add(int n, float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + y[i];
}

int main(void) {
    int N = 1 << 12;
    float *x, *y;
    cudaMallocManaged(&x, N * sizeof(float));
    cudaMallocManaged(&y, N * sizeof(float));
    for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }
    blog_add<<<(N + 255) / 256, 256>>>(N, x, y);
    cudaDeviceSynchronize();
    float maxError = 0.0f;
    for (int i = 0; i < N; i++) maxError = fmaxf(maxError, fabsf(y[i] - 3.0f));
    printf("Max error: %f\\n", maxError);
    cudaFree(x);
    cudaFree(y);
    return 0;
}"""


def test_cuda_cell_runs_a_whole_program(kc):
    """A %%cuda cell holding a whole program (kernels and main), as
    nvcc4jupyter runs them in Colab courses: compiled and run."""
    run = execute_ok(kc, NVIDIA_BLOG_PROGRAM)
    assert "Max error: 0.000000\n" in run.stream(), run.describe()
    # an error in the program's host code names the cell's own line
    run = execute(kc, "%%cuda\n__global__ void blog_k(int *p) { *p = 1; }\n"
                      "int main(void) {\n    int *p;\n    p = undeclared_thing;\n    return 0;\n}")
    assert run.status == "error"
    assert "line 5" in run.content["evalue"] + "".join(run.content["traceback"]), run.describe()
