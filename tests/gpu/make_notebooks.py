#!/usr/bin/env python3
"""Writes the GPU test notebooks (tests/gpu/*.ipynb) from the cells below.

Run `python3 tests/gpu/make_notebooks.py` after editing; the notebooks are
committed so that the GPU machine needs no Python Jupyter to run them
(`gpuc run`). Each check cell calls abort() on a wrong answer, so a failed
check fails the run."""
import json
import pathlib

HERE = pathlib.Path(__file__).parent

TUTORIAL = [
    "%gpu",
    # 1. vector add, the classic first tutorial, host code as written there
    "%%kernel\n__global__ void add(int n, float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = x[i] + y[i];\n}",
    "#include <math.h>\nint N = 1 << 20;\n"
    "float *x = (float *)malloc(N * sizeof(float));\nfloat *y = (float *)malloc(N * sizeof(float));\n"
    "for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }\n"
    "float *d_x, *d_y;\ncudaMalloc(&d_x, N * sizeof(float));\ncudaMalloc(&d_y, N * sizeof(float));\n"
    "cudaMemcpy(d_x, x, N * sizeof(float), cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(d_y, y, N * sizeof(float), cudaMemcpyHostToDevice);\n"
    "int blockSize = 256;\nint numBlocks = (N + blockSize - 1) / blockSize;\n"
    "add<<<numBlocks, blockSize>>>(N, d_x, d_y);\ncudaDeviceSynchronize();\n"
    "cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "float maxError = 0.0f;\nfor (int i = 0; i < N; i++) maxError = fmaxf(maxError, fabsf(y[i] - 3.0f));\n"
    "printf(\"vector add: max error %g\\n\", maxError);",
    "if (maxError > 1e-6f) abort();\nprintf(\"PASS vector add\\n\");",
    # 2. the device arrays are still there in the next cell
    "float first[4];\ncudaMemcpy(first, d_y, sizeof first, cudaMemcpyDeviceToHost);\n"
    "if (first[0] != 3.0f || first[3] != 3.0f) abort();\nprintf(\"PASS arrays persist\\n\");",
    # 3. SAXPY as a .cu-style mixed cell
    "__global__ void saxpy(int n, float a, float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = a * x[i] + y[i];\n}\n"
    "saxpy<<<(N + 255) / 256, 256>>>(N, 2.0f, d_x, d_y);\n"
    "cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < N; i++) if (y[i] != 5.0f) abort();\nprintf(\"PASS saxpy\\n\");",
    # 4. grid-stride loop
    "%%kernel\n__global__ void scale(int n, float s, float *v) {\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        v[i] *= s;\n}",
    "scale<<<32, 256>>>(N, 0.5f, d_y);\n"
    "cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < N; i++) if (y[i] != 2.5f) abort();\nprintf(\"PASS grid-stride loop\\n\");",
    # launches in a loop, a dim3 variable and an integer mixed
    "dim3 blocks1d = {32, 1, 1};\nfor (int i = 0; i < 1000; i++) scale<<<blocks1d, 256>>>(N, 1.0f, d_y);\n"
    "cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < N; i++) if (y[i] != 2.5f) abort();\nprintf(\"PASS 1000 launches in a loop\\n\");",
    # 5. a 2-D kernel with dim3, C++ constructor syntax as tutorials write it
    "%%kernel\n__global__ void matadd(const float *A, const float *B, float *C, int w, int h) {\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (r < h && c < w) C[r * w + c] = A[r * w + c] + B[r * w + c];\n}",
    "int w = 1000, h = 700;\nsize_t bytes = (size_t)w * h * sizeof(float);\n"
    "float *A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes);\n"
    "for (int i = 0; i < w * h; i++) { A[i] = i % 97; B[i] = (i % 13) * 0.5f; }\n"
    "float *dA, *dB, *dC;\ncudaMalloc(&dA, bytes); cudaMalloc(&dB, bytes); cudaMalloc(&dC, bytes);\n"
    "cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);\ncudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);\n"
    "dim3 threadsPerBlock(16, 16);\ndim3 numBlocks2((w + 15) / 16, (h + 15) / 16);\n"
    "matadd<<<numBlocks2, threadsPerBlock>>>(dA, dB, dC, w, h);\n"
    "cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < w * h; i++) if (fabsf(C[i] - (A[i] + B[i])) > 1e-6f) abort();\n"
    "printf(\"PASS 2-D kernel with dim3\\n\");",
    # 6. shared-memory reduction with __syncthreads and atomicAdd
    "%%kernel\n__global__ void block_sum(const float *in, float *out, int n) {\n"
    "    __shared__ float s[256];\n    int t = threadIdx.x;\n    int i = blockIdx.x * blockDim.x + t;\n"
    "    s[t] = i < n ? in[i] : 0.0f;\n    __syncthreads();\n"
    "    for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "        if (t < k) s[t] += s[t + k];\n        __syncthreads();\n    }\n"
    "    if (t == 0) atomicAdd(out, s[0]);\n}",
    "float *d_sum;\ncudaMalloc(&d_sum, sizeof(float));\ncudaMemset(d_sum, 0, sizeof(float));\n"
    "block_sum<<<(w * h + 255) / 256, 256>>>(dA, d_sum, w * h);\n"
    "float gpu_sum;\ncudaMemcpy(&gpu_sum, d_sum, sizeof gpu_sum, cudaMemcpyDeviceToHost);\n"
    "double cpu_sum = 0;\nfor (int i = 0; i < w * h; i++) cpu_sum += A[i];\n"
    "printf(\"reduction: gpu %.1f cpu %.1f\\n\", gpu_sum, cpu_sum);\n"
    "if (fabs(gpu_sum - cpu_sum) > 1e-5 * cpu_sum) abort();\nprintf(\"PASS shared-memory reduction\\n\");",
    # 7. a later kernel cell calls an earlier cell's __device__ function
    "%%kernel\n__device__ float twice(float v) { return 2.0f * v; }",
    "%%kernel\n__global__ void doubler(int n, float *v) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) v[i] = twice(v[i]);\n}",
    "doubler<<<(N + 255) / 256, 256>>>(N, d_y);\n"
    "cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < N; i++) if (y[i] != 5.0f) abort();\nprintf(\"PASS __device__ function of an earlier cell\\n\");",
    # 8. errors the runtime API reports as tutorials expect
    "cudaError_t e = cudaGetLastError();\nif (e != cudaSuccess) abort();\n"
    "cudaFree(d_x); cudaFree(d_y); cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(d_sum);\n"
    "printf(\"PASS cleanup\\n\");",
]

ERRORS = [
    "%%kernel\n__global__ void fill(int n, float *v) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) v[i] = 1.0f;\n}",
    "float *d;\ncudaMalloc(&d, 1024 * sizeof(float));\nint kept = 42;",
    # wrong argument count / kind: a LaunchError naming the cell and line
    "fill<<<4, 256>>>(1024);",
    "fill<<<4, 256>>>(1024, 2.0);",
    # an NVRTC error mapped to the cell's own line
    "%%kernel\n__global__ void broken(float *v) {\n    v[0] = undefined_name;\n}",
    # out of memory: a clear error, nothing lost
    "float *huge;\ncudaError_t oom = cudaMalloc(&huge, (size_t)1 << 50);\n"
    "printf(\"%s\\n\", cudaGetErrorName(oom));",
    "kept",
    # an out-of-bounds write: a sticky error; the executor is replaced
    "%%kernel\n__global__ void oob(float *v) { v[(size_t)1 << 40] = 1.0f; }",
    "oob<<<1, 1>>>(d);",
    "int after = 7;\nafter * 6",
]


# a cell whose source starts so is tagged "parameters" (papermill's
# convention, which `gpuc run -p` follows)
PARAMETERS = "\0parameters\0"

# a kernel that never ends: run with --timeout, which interrupts the cell
ENDLESS = [
    "%%kernel\n__global__ void spin(volatile int *flag) { while (*flag == 0) { } }",
    "int *d_flag;\ncudaMalloc(&d_flag, sizeof(int));\ncudaMemset(d_flag, 0, sizeof(int));\n"
    "spin<<<1, 1>>>(d_flag);\ncudaDeviceSynchronize();",
]


# waits for the GPU that an interrupt ends (run with --allow-errors): a
# thread of the cell interrupts it 1.5 s after starting a kernel busy for
# ~2.5 s and waiting for it in cudaDeviceSynchronize; the statement after the
# wait must not run; the session and the device stay usable (a copy waits for
# the kernel to finish and reads its flag); the same for a blocking
# cudaMemcpy queued behind the kernel
WAITS = [
    "%%kernel\n__global__ void busy(long long cycles, int *flag) {\n"
    "    long long t = clock64();\n    while (clock64() - t < cycles) { }\n"
    "    if (flag) *flag = 1;\n}",
    "#include <pthread.h>\n#include <signal.h>\n#include <unistd.h>\n"
    "void *poke(void *arg) { usleep(1500000); kill(getpid(), SIGINT); return NULL; }\n"
    "void interrupt_soon(void) { pthread_t t; pthread_create(&t, NULL, poke, NULL); "
    "pthread_detach(t); }\n"
    "int *d_flag;\ncudaMalloc(&d_flag, sizeof(int));\ncudaMemset(d_flag, 0, sizeof(int));\n"
    "int after = 0, h = 0;",
    "interrupt_soon();\nbusy<<<1, 1>>>(5000000000LL, d_flag);\ncudaDeviceSynchronize();\n"
    "after = 1;\nprintf(\"after the wait\\n\");",
    "printf(\"kept %d\\n\", after);",
    "cudaMemcpy(&h, d_flag, sizeof(int), cudaMemcpyDeviceToHost);\nprintf(\"flag %d\\n\", h);",
    "interrupt_soon();\nbusy<<<1, 1>>>(5000000000LL, NULL);\n"
    "cudaMemcpy(&h, d_flag, sizeof(int), cudaMemcpyDeviceToHost);\nprintf(\"after the copy\\n\");",
    "cudaDeviceSynchronize();\nprintf(\"device usable: %s\\n\", "
    "cudaGetErrorName(cudaGetLastError()));",
]

# %timeit of a launch: host time per loop, and GPU time from CUDA events
# (n is a parameter: the simulator's run in CI uses `gpuc run -p n 65536`)
TIMING = [
    "%%kernel\n__global__ void inc(int n, float *v) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) v[i] += 1.0f;\n}",
    PARAMETERS + "int n = 1 << 24;",
    "float *d_v;\ncudaMalloc(&d_v, n * sizeof(float));\ncudaMemset(d_v, 0, n * sizeof(float));",
    "%timeit -n 100 -r 5 inc<<<(n + 255) / 256, 256>>>(n, d_v);",
]


# the sections of the squared-difference %%speedup cells, over N floats
SQDIFF_SECTIONS = (
    "//%% setup\n"
    "float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));\n"
    "float *cpu_out = malloc(N * sizeof(float)), *gpu_out = malloc(N * sizeof(float));\n"
    "for (long i = 0; i < N; i++) { a[i] = i % 1000 * 0.5f; b[i] = i % 7; }\n"
    "float *d_a, *d_b, *d_out;\ncudaMalloc(&d_a, N * sizeof(float)); cudaMalloc(&d_b, N * sizeof(float));\n"
    "cudaMalloc(&d_out, N * sizeof(float));\n"
    "//%% cpu\nsqdiff_cpu(a, b, cpu_out, N);\n"
    "//%% gpu\ncudaMemcpy(d_a, a, N * sizeof(float), cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(d_b, b, N * sizeof(float), cudaMemcpyHostToDevice);\n"
    "sqdiff<<<1024, 256>>>(d_a, d_b, d_out, N);\n"
    "cudaMemcpy(gpu_out, d_out, N * sizeof(float), cudaMemcpyDeviceToHost);")

# the classic cases of GPU-array tutorials, timed with %%speedup against
# -O2 CPU code from %%cc (matmul at 1000 x 1000: a 10000 x 10000 CPU
# baseline would take minutes per run)
SPEEDUP = [
    "%%cc -O2 -march=native\n"
    "void sqdiff_cpu(const float *a, const float *b, float *out, long n) {\n"
    "    for (long i = 0; i < n; i++) { float d = a[i] - b[i]; out[i] = d * d; }\n}\n"
    "void matmul_cpu(const float *A, const float *B, float *C, int n) {\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        for (int j = 0; j < n; j++) C[i * n + j] = 0;\n"
    "        for (int k = 0; k < n; k++) {\n"
    "            float a = A[i * n + k];\n"
    "            for (int j = 0; j < n; j++) C[i * n + j] += a * B[k * n + j];\n"
    "        }\n    }\n}\n"
    "double sum_cpu(const float *x, long n) {\n"
    "    double s = 0;\n    for (long i = 0; i < n; i++) s += x[i];\n    return s;\n}",
    "%%kernel\n"
    "__global__ void sqdiff(const float *a, const float *b, float *out, long n) {\n"
    "    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x) {\n"
    "        float d = a[i] - b[i]; out[i] = d * d;\n    }\n}\n"
    "__global__ void matmul(const float *A, const float *B, float *C, int n) {\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (r < n && c < n) {\n        float s = 0;\n"
    "        for (int k = 0; k < n; k++) s += A[r * n + k] * B[k * n + c];\n"
    "        C[r * n + c] = s;\n    }\n}\n"
    "__global__ void sum(const float *x, long n, double *out) {\n"
    "    __shared__ double s[256];\n    int t = threadIdx.x;\n    double v = 0;\n"
    "    for (long i = blockIdx.x * (long)blockDim.x + t; i < n; i += (long)blockDim.x * gridDim.x) v += x[i];\n"
    "    s[t] = v;\n    __syncthreads();\n"
    "    for (int k = 128; k > 0; k >>= 1) { if (t < k) s[t] += s[t + k]; __syncthreads(); }\n"
    "    if (t == 0) atomicAdd(out, s[0]);\n}",
    # squared difference, 1e6 then 1e8 float32
    "%%speedup --check cpu_out,gpu_out:N --sizes 1e6,1e8 -r 3\n" + SQDIFF_SECTIONS,
    # matmul
    "%%speedup --check C_cpu,C_gpu:M*M --rtol 1e-3 -n 1 -r 3\n//%% setup\nint M = 1000;\n"
    "float *A = malloc(M * M * sizeof(float)), *B = malloc(M * M * sizeof(float));\n"
    "float *C_cpu = malloc(M * M * sizeof(float)), *C_gpu = malloc(M * M * sizeof(float));\n"
    "for (int i = 0; i < M * M; i++) { A[i] = (i % 17) * 0.25f; B[i] = (i % 13) * 0.5f; }\n"
    "float *dA, *dB, *dC;\ncudaMalloc(&dA, M * M * sizeof(float)); cudaMalloc(&dB, M * M * sizeof(float));\n"
    "cudaMalloc(&dC, M * M * sizeof(float));\n"
    "//%% cpu\nmatmul_cpu(A, B, C_cpu, M);\n"
    "//%% gpu\ncudaMemcpy(dA, A, M * M * sizeof(float), cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(dB, B, M * M * sizeof(float), cudaMemcpyHostToDevice);\n"
    "dim3 tb(16, 16);\ndim3 gr((M + 15) / 16, (M + 15) / 16);\n"
    "matmul<<<gr, tb>>>(dA, dB, dC, M);\n"
    "cudaMemcpy(C_gpu, dC, M * M * sizeof(float), cudaMemcpyDeviceToHost);",
    # the sum of a 500 x 500 matrix
    "%%speedup --check s_cpu,s_gpu --rtol 1e-9\n//%% setup\nlong P = 500 * 500;\n"
    "float *mat = malloc(P * sizeof(float));\nfor (long i = 0; i < P; i++) mat[i] = (i % 100) * 0.01f;\n"
    "float *d_mat; double *d_s;\ncudaMalloc(&d_mat, P * sizeof(float)); cudaMalloc(&d_s, sizeof(double));\n"
    "double s_cpu = 0, s_gpu = 0;\n"
    "//%% cpu\ns_cpu = sum_cpu(mat, P);\n"
    "//%% gpu\ncudaMemcpy(d_mat, mat, P * sizeof(float), cudaMemcpyHostToDevice);\n"
    "cudaMemset(d_s, 0, sizeof(double));\nsum<<<256, 256>>>(d_mat, P, d_s);\n"
    "cudaMemcpy(&s_gpu, d_s, sizeof(double), cudaMemcpyDeviceToHost);",
    # the sweep, for the chart
    "%%speedup --check cpu_out,gpu_out:N --sizes 1e3,1e4,1e5,1e6,1e7 -r 3\n" + SQDIFF_SECTIONS,
]

# %device cpu and back on a GPU machine: a kernel compiled for the GPU runs
# on the CUDA simulator (compiled there at its first launch), one compiled
# while simulating runs on both; memory stays on its side
SWITCH = [
    "%gpu",
    "%%kernel\n__global__ void twice(int n, float *v) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) v[i] *= 2.0f;\n}",
    "float h[256];\nfor (int i = 0; i < 256; i++) h[i] = i;\nfloat *d;\ncudaMalloc(&d, sizeof h);\n"
    "cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);\ntwice<<<1, 256>>>(256, d);\n"
    "cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\nprintf(\"PASS gpu %g\\n\", h[10]);",
    "%device cpu",
    "float *c;\ncudaMalloc(&c, 256 * sizeof(float));\nfor (int i = 0; i < 256; i++) c[i] = i;\n"
    "twice<<<1, 256>>>(256, c);\nprintf(\"PASS simulated %g\\n\", c[10]);",
    "%%kernel\n__global__ void thrice(int n, float *v) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) v[i] *= 3.0f;\n}",
    "thrice<<<1, 256>>>(256, c);\nprintf(\"PASS simulated %g\\n\", c[10]);",
    "%device gpu",
    "twice<<<1, 256>>>(256, d);\nthrice<<<1, 256>>>(256, d);\n"
    "cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\nprintf(\"PASS gpu %g\\n\", h[10]);",
]

# any kernel parameter type (issue 12): structs by value with an array, a
# float4 and a nested struct inside (nvcc's layout), vector types made with
# make_float4 & co, __half; the last cell's wrong struct is a LaunchError
# (run with --allow-errors; run.sh checks the PASS lines and the message)
PARAMS = [
    "%gpu",
    "struct Inner { double scale; char tag; };\n"
    "struct Params { float w[5]; float4 shift; Inner in; int n; };\n"
    "__global__ void apply(Params q, float *out) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < q.n) out[i] = (float)(q.w[i % 5] * q.in.scale + q.shift.x + q.shift.w + q.in.tag);\n}\n"
    "Params q = {{1, 2, 3, 4, 5}, {0}, {0.5, 3}, 1000};\n"
    "q.shift = make_float4(10, 0, 0, 100);\n"
    "float *d_out, out[1000];\ncudaMalloc(&d_out, sizeof out);\n"
    "apply<<<4, 256>>>(q, d_out);\n"
    "cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < 1000; i++)\n"
    "    if (out[i] != (float)(q.w[i % 5] * 0.5 + 113)) { printf(\"out[%d] = %g\\n\", i, out[i]); abort(); }\n"
    "if (sizeof q != 80) abort();\nprintf(\"PASS struct by value\\n\");",
    "%%kernel\n__global__ void combine(float4 a, int2 b, double2 c, uchar4 d, float *out) {\n"
    "    out[0] = a.x + a.y + a.z + a.w;\n    out[1] = b.x * 10 + b.y;\n"
    "    out[2] = (float)(c.x - c.y);\n    out[3] = d.x + d.y + d.z + d.w;\n}",
    "float h4[4];\n"
    "combine<<<1, 1>>>(make_float4(1, 2, 3, 4.5f), make_int2(7, -3), make_double2(2.5, 0.25),\n"
    "                  make_uchar4(1, 2, 3, 250), d_out);\n"
    "cudaMemcpy(h4, d_out, sizeof h4, cudaMemcpyDeviceToHost);\n"
    "if (h4[0] != 10.5f || h4[1] != 67 || h4[2] != 2.25f || h4[3] != 256) abort();\n"
    "printf(\"PASS vector types\\n\");",
    "%%kernel\n#include <cuda_fp16.h>\n"
    "__global__ void halves(__half a, const __half *x, float *out, int n) {\n"
    "    int i = threadIdx.x;\n    if (i < n) out[i] = __half2float(a) * __half2float(x[i]);\n}",
    "__half hx[8];\nfor (int i = 0; i < 8; i++) hx[i] = __float2half(i * 0.75f - 2);\n"
    "__half *dx;\ncudaMalloc(&dx, sizeof hx);\ncudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);\n"
    "halves<<<1, 8>>>(__float2half(0.5f), dx, d_out, 8);\n"
    "float h8[8];\ncudaMemcpy(h8, d_out, sizeof h8, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < 8; i++) if (h8[i] != (i * 0.75f - 2) * 0.5f) abort();\n"
    "printf(\"PASS __half\\n\");",
    "struct Wrong { float a[5]; float4 shift; } wrong = {{0}};\napply<<<1, 1>>>(wrong, d_out);",
]

# NVIDIA's own runtime API in host cells (issue 12): default arguments left
# out, float ** where void ** is declared, functions and cudaDeviceProp
# fields gpuc's subset never had; run.sh also checks that no cell warned
RUNTIME = [
    "%gpu",
    "%%kernel\n__global__ void axpy(int n, float a, const float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = a * x[i] + y[i];\n}",
    "int n = 1 << 20;\nfloat *x, *y, *pinned;\n"
    "cudaMallocManaged(&x, n * sizeof(float));\ncudaMallocManaged(&y, n * sizeof(float));\n"
    "cudaHostAlloc(&pinned, n * sizeof(float), cudaHostAllocDefault);\n"
    "for (int i = 0; i < n; i++) { x[i] = i % 1000; y[i] = 1.0f; }\n"
    "cudaEvent_t start, stop;\ncudaEventCreate(&start);\ncudaEventCreate(&stop);\n"
    "cudaStream_t s;\ncudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
    "float *z;\ncudaMallocManaged(&z, 64);\ncudaStreamAttachMemAsync(s, z);\ncudaStreamSynchronize(s);\n"
    "cudaEventRecord(start);\naxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);\n"
    "cudaEventRecord(stop);\ncudaEventSynchronize(stop);\n"
    "float ms = -1;\ncudaEventElapsedTime(&ms, start, stop);\n"
    "cudaMemcpyAsync(pinned, y, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "cudaDeviceSynchronize();\n"
    "for (int i = 0; i < n; i++) if (pinned[i] != 2.0f * (i % 1000) + 1.0f) abort();\n"
    "if (!(ms > 0)) abort();\nprintf(\"PASS managed memory, events, streams with defaults\\n\");",
    "size_t pitch;\nfloat *d2;\nint w = 100, h = 50;\n"
    "cudaMallocPitch(&d2, &pitch, w * sizeof(float), h);\n"
    "float host2[50][100], back2[50][100];\n"
    "for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) host2[r][c] = r * 1000 + c;\n"
    "cudaMemcpy2DAsync(d2, pitch, host2, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy2D(back2, w * sizeof(float), d2, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost);\n"
    "if (pitch < w * sizeof(float) || back2[49][99] != 49099 || back2[7][3] != 7003) abort();\n"
    "printf(\"PASS pitched memory and cudaMemcpy2DAsync without a stream\\n\");",
    "cudaDeviceProp prop;\ncudaGetDeviceProperties(&prop, 0);\nint sms = 0, l2 = 0;\n"
    "cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
    "cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);\n"
    "printf(\"%s: cc %d.%d, %d SMs, %zu MiB, L2 %d, persisting L2 max %d\\n\", prop.name, prop.major,\n"
    "       prop.minor, prop.multiProcessorCount, prop.totalGlobalMem >> 20, prop.l2CacheSize,\n"
    "       prop.persistingL2CacheMaxSize);\n"
    "if (prop.multiProcessorCount != sms || prop.l2CacheSize != l2 || prop.warpSize != 32 ||\n"
    "    prop.maxThreadsPerBlock != 1024 || prop.major < 7 || prop.totalGlobalMem == 0) abort();\n"
    "printf(\"PASS the real cudaDeviceProp\\n\");",
    # the tutorials' error-check macro: exit() ends the cell, not the session
    "#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\\n"
    "    fprintf(stderr, \"CUDA error: %s at %s:%d\\n\", cudaGetErrorString(e_), __FILE__, __LINE__); \\\n"
    "    exit(EXIT_FAILURE); } } while (0)\n"
    "float *huge;\nCUDA_CHECK(cudaMalloc(&huge, (size_t)1 << 50));\nprintf(\"never\\n\");",
    "CUDA_CHECK(cudaMemset(y, 0, n * sizeof(float)));\nCUDA_CHECK(cudaDeviceSynchronize());\n"
    "if (y[n - 1] != 0.0f) abort();\nprintf(\"PASS an error-check macro that calls exit keeps the session\\n\");",
    "cudaFree(x); cudaFree(y); cudaFree(z); cudaFree(d2); cudaFreeHost(pinned);\n"
    "cudaStreamDestroy(s); cudaEventDestroy(start); cudaEventDestroy(stop);\n"
    "printf(\"PASS cleanup\\n\");",
]


# cuRAND's device API (curand_kernel.h: XORWOW states) in a kernel cell: a
# Monte Carlo estimate of pi on the GPU, then the same cell on the CUDA
# simulator (%device cpu), which must count the same hits
CURAND_RUN = ("int h = 0, *d_hits;\ncudaMalloc(&d_hits, sizeof(int));\n"
              "cudaMemset(d_hits, 0, sizeof(int));\nmc_pi<<<8, 128>>>(1234ULL, d_hits, 500);\n"
              "cudaMemcpy(&h, d_hits, sizeof(int), cudaMemcpyDeviceToHost);\ncudaFree(d_hits);\n"
              "printf(\"hits %d pi %.4f\\n\", h, 4.0 * h / (8 * 128 * 500.0));")
CURAND = [
    "%%kernel\n#include <curand_kernel.h>\n"
    "__global__ void mc_pi(unsigned long long seed, int *hits, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    curandState s;\n"
    "    curand_init(seed, i, 0, &s);\n    int h = 0;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        float x = curand_uniform(&s), y = curand_uniform(&s);\n"
    "        h += x * x + y * y <= 1.0f;\n    }\n    atomicAdd(hits, h);\n}",
    CURAND_RUN,
    "int gpu_hits = h;",
    "%device cpu",
    CURAND_RUN,
    "if (h != gpu_hits || fabs(4.0 * h / (8 * 128 * 500.0) - 3.1416) > 0.01) abort();\n"
    "printf(\"PASS equal hits on the GPU and the simulator\\n\");",
]


# device variables (issue 12): __constant__ set from host cells, one
# __device__ storage across kernel cells (a __device__ function of an earlier
# cell), symbol address and size, async copies with an offset, a bad symbol
SYMBOLS = [
    "%%kernel\n__constant__ float coef[4];\n__device__ int hits = 5;\n__global__ void poly(const float *x, float *y, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = coef[0] + x[i] * (coef[1] + x[i] * (coef[2] + x[i] * coef[3]));\n}",
    "%%kernel\n__device__ int bump_by(int k) { return atomicAdd(&hits, k); }",
    "%%kernel\n__global__ void count_hits(int k) { bump_by(k); }\n__global__ void scale_by_coef(float *v, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) v[i] *= coef[1];\n}",
    "float h[4] = {1.0f, 2.0f, 0.5f, -0.25f};\nif (cudaMemcpyToSymbol(coef, h, sizeof h) != cudaSuccess) abort();\nint n = 1 << 16;\nfloat *x, *y, *hx = malloc(n * sizeof(float)), *hy = malloc(n * sizeof(float));\nfor (int i = 0; i < n; i++) hx[i] = (i % 100) * 0.01f;\ncudaMalloc(&x, n * sizeof(float)); cudaMalloc(&y, n * sizeof(float));\ncudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);\npoly<<<(n + 255) / 256, 256>>>(x, y, n);\ncudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);\nint bad = 0;\nfor (int i = 0; i < n; i++) {\n    float v = hx[i], want = 1 + v * (2 + v * (0.5f + v * -0.25f));\n    bad += fabsf(hy[i] - want) > 1e-4f;\n}\nprintf(\"poly bad=%d\\n\", bad);\nif (bad) abort();\nprintf(\"PASS constant memory set from the host\\n\");",
    "count_hits<<<4, 64>>>(1);\nscale_by_coef<<<(n + 255) / 256, 256>>>(x, n);\ncudaDeviceSynchronize();\nint hh = -1;\ncudaMemcpyFromSymbol(&hh, hits, sizeof hh);\nint *p = 0; size_t sz = 0;\ncudaGetSymbolAddress((void **)&p, hits);\ncudaGetSymbolSize(&sz, coef);\nint direct = -1;\ncudaMemcpy(&direct, p, sizeof direct, cudaMemcpyDeviceToHost);\ncudaMemcpy(hy, x, n * sizeof(float), cudaMemcpyDeviceToHost);\nprintf(\"hits=%d direct=%d size=%zu x[5]=%g\\n\", hh, direct, sz, hy[5]);\nif (hh != 5 + 256 || direct != hh || sz != 16 || fabsf(hy[5] - 0.1f) > 1e-6f) abort();\nprintf(\"PASS one __device__ storage across kernel cells, symbol address and size\\n\");",
    "float back[4];\ncudaStream_t st; cudaStreamCreate(&st);\nfloat h2[2] = {7, 9};\ncudaMemcpyToSymbolAsync(coef, h2, sizeof h2, 2 * sizeof(float), cudaMemcpyHostToDevice, st);\ncudaMemcpyFromSymbolAsync(back, coef, sizeof back, 0, cudaMemcpyDeviceToHost, st);\ncudaStreamSynchronize(st);\nprintf(\"%g %g %g %g\\n\", back[0], back[1], back[2], back[3]);\nif (back[2] != 7 || back[3] != 9 || back[0] != 1) abort();\nprintf(\"PASS async symbol copies with an offset\\n\");",
    "cudaError_t e = cudaMemcpyToSymbol(h, h, 4);\nprintf(\"%s\\n\", cudaGetErrorName(e));\nif (e != cudaErrorInvalidSymbol) abort();\nprintf(\"PASS a host variable is not a symbol\\n\");",
]

# a whole program in a %%cuda cell, as nvcc4jupyter's Colab cells are written
# (NVIDIA's introductory "add" program): kernels compiled, main() run
PROGRAM = [
    "%%cuda\n#include <stdio.h>\n#include <math.h>\n\n"
    "__global__ void add(int n, float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = x[i] + y[i];\n}\n\n"
    "int main(void) {\n    int N = 1 << 20;\n    float *x, *y;\n"
    "    cudaMallocManaged(&x, N * sizeof(float));\n    cudaMallocManaged(&y, N * sizeof(float));\n"
    "    for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }\n"
    "    add<<<(N + 255) / 256, 256>>>(N, x, y);\n    cudaDeviceSynchronize();\n"
    "    float maxError = 0.0f;\n"
    "    for (int i = 0; i < N; i++) maxError = fmaxf(maxError, fabsf(y[i] - 3.0f));\n"
    "    printf(\"Max error: %f\\n\", maxError);\n"
    "    if (maxError == 0.0f) printf(\"PASS add program\\n\");\n    cudaFree(x);\n    cudaFree(y);\n"
    "    return 0;\n}",
]

# template kernels launched by instance, and the runtime functions that take
# a kernel (issue 12); run.sh checks the PASS lines and the one error cell
TEMPLATES = [
    "%gpu",
    "%%kernel\ntemplate <typename T>\n__global__ void scale(T *x, T a, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] = a * x[i];\n}\n"
    "template <int BLOCK>\n__global__ void block_sum(const float *x, float *out, int n) {\n"
    "    __shared__ float part[BLOCK];\n    int i = blockIdx.x * BLOCK + threadIdx.x;\n"
    "    part[threadIdx.x] = i < n ? x[i] : 0.0f;\n    __syncthreads();\n"
    "    for (int s = BLOCK / 2; s > 0; s /= 2) {\n"
    "        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];\n"
    "        __syncthreads();\n    }\n    if (threadIdx.x == 0) atomicAdd(out, part[0]);\n}\n"
    "template <typename T, int K>\n__global__ void times_k(T *x, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= K;\n}\n"
    "__global__ void saxpy(int n, float a, const float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = a * x[i] + y[i];\n}\n"
    "__global__ void dyn_fill(float *out) {\n    extern __shared__ float buf[];\n"
    "    int per = 16384 / blockDim.x;\n"
    "    for (int k = 0; k < per; k++) buf[threadIdx.x * per + k] = threadIdx.x * per + k;\n"
    "    __syncthreads();\n    if (threadIdx.x == 0) { double s = 0;\n"
    "        for (int k = 0; k < 16384; k++) s += buf[k];\n        out[0] = s; }\n}",
    # 1. type templates: float, double, int instances, each checked
    "int n = 1 << 20;\nsize_t fb = n * sizeof(float), db = n * sizeof(double), ib = n * sizeof(int);\n"
    "float *hf = malloc(fb); double *hd = malloc(db); int *hi = malloc(ib);\n"
    "for (int i = 0; i < n; i++) { hf[i] = i % 1000; hd[i] = (i % 1000) * 0.25; hi[i] = i % 1000; }\n"
    "float *df; double *dd; int *di;\ncudaMalloc(&df, fb); cudaMalloc(&dd, db); cudaMalloc(&di, ib);\n"
    "cudaMemcpy(df, hf, fb, cudaMemcpyHostToDevice);\ncudaMemcpy(dd, hd, db, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(di, hi, ib, cudaMemcpyHostToDevice);\n"
    "scale<float><<<(n + 255) / 256, 256>>>(df, 2.0f, n);\n"
    "scale<double><<<(n + 255) / 256, 256>>>(dd, 3, n);\n"
    "scale<int><<<(n + 255) / 256, 256>>>(di, 4, n);\n"
    "cudaMemcpy(hf, df, fb, cudaMemcpyDeviceToHost);\ncudaMemcpy(hd, dd, db, cudaMemcpyDeviceToHost);\n"
    "cudaMemcpy(hi, di, ib, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < n; i++)\n"
    "    if (hf[i] != (i % 1000) * 2.0f || hd[i] != (i % 1000) * 0.75 || hi[i] != (i % 1000) * 4) abort();\n"
    "printf(\"PASS template instances float, double, int\\n\");",
    # 2. non-type template arguments
    "float *ones = malloc(fb), *dsum, sum = 0;\nfor (int i = 0; i < n; i++) ones[i] = 1.0f;\n"
    "cudaMemcpy(df, ones, fb, cudaMemcpyHostToDevice);\ncudaMalloc(&dsum, sizeof(float));\n"
    "times_k<float, 3><<<(n + 127) / 128, 128>>>(df, n);\ncudaMemset(dsum, 0, sizeof(float));\n"
    "block_sum<256><<<(n + 255) / 256, 256>>>(df, dsum, n);\n"
    "cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost);\n"
    "printf(\"block_sum<256> of 3 * ones: %g\\n\", sum);\nif (sum != 3.0f * n) abort();\n"
    "printf(\"PASS non-type template arguments\\n\");",
    # 3. a second launch of an instance costs what an ordinary launch costs
    "#include <time.h>\nstatic double now_s(void) { struct timespec t; "
    "clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }\n"
    "cudaDeviceSynchronize();\ndouble t0 = now_s();\n"
    "for (int i = 0; i < 2000; i++) scale<float><<<1, 32>>>(df, 1.0f, 32);\n"
    "cudaDeviceSynchronize();\ndouble t1 = now_s();\n"
    "for (int i = 0; i < 2000; i++) saxpy<<<1, 32>>>(32, 0.0f, df, df);\n"
    "cudaDeviceSynchronize();\ndouble t2 = now_s();\n"
    "printf(\"launch of an instance %.2f us, of a kernel %.2f us\\n\", (t1 - t0) / 2000 * 1e6, "
    "(t2 - t1) / 2000 * 1e6);\n"
    "if ((t1 - t0) > 3 * (t2 - t1) + 0.002) abort();\nprintf(\"PASS instance launch cost\\n\");",
    # 4. a bad instantiation: an error naming the cell and line, the session kept
    "%%kernel\nstruct Pair { int a, b; };",
    "int k = 1;\nscale<Pair><<<1, 1>>>(0, 0, k);",
    # 5. the functions that take a kernel, on its CUfunction
    "cudaDeviceProp prop;\ncudaGetDeviceProperties(&prop, 0);\n"
    "struct cudaFuncAttributes attr;\n"
    "if (cudaFuncGetAttributes(&attr, saxpy) != cudaSuccess) abort();\n"
    "printf(\"saxpy: %d threads a block at most, %d registers, binary %d, ptx %d\\n\",\n"
    "       attr.maxThreadsPerBlock, attr.numRegs, attr.binaryVersion, attr.ptxVersion);\n"
    "if (attr.maxThreadsPerBlock != 1024 || attr.numRegs <= 0 || "
    "attr.binaryVersion != prop.major * 10 + prop.minor) abort();\n"
    "struct cudaFuncAttributes battr;\n"
    "if (cudaFuncGetAttributes(&battr, block_sum<256>) != cudaSuccess || battr.sharedSizeBytes != 1024) abort();\n"
    "printf(\"PASS cudaFuncGetAttributes\\n\");",
    "int blocks = 0, minGrid = 0, block = 0, atBlock = 0;\n"
    "if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 256, 0)) abort();\n"
    "if (cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, saxpy, 0, 0)) abort();\n"
    "if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&atBlock, saxpy, block, 0)) abort();\n"
    "printf(\"saxpy: %d blocks of 256 a multiprocessor; best block %d, min grid %d\\n\", blocks, block, minGrid);\n"
    "if (blocks != prop.maxThreadsPerMultiProcessor / 256) abort();\n"
    "if (block <= 0 || block > 1024 || minGrid != atBlock * prop.multiProcessorCount) abort();\n"
    "printf(\"PASS occupancy\\n\");",
    "float *dout, got = 0;\ncudaMalloc(&dout, sizeof(float));\n"
    "if (cudaFuncSetAttribute(dyn_fill, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536)) abort();\n"
    "if (cudaFuncSetCacheConfig(saxpy, cudaFuncCachePreferL1)) abort();\n"
    "dyn_fill<<<1, 256, 65536>>>(dout);\ncudaDeviceSynchronize();\n"
    "cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost);\n"
    "struct cudaFuncAttributes dattr;\ncudaFuncGetAttributes(&dattr, dyn_fill);\n"
    "printf(\"64 KiB of dynamic shared memory: sum %g, max dynamic %d\\n\", got, dattr.maxDynamicSharedSizeBytes);\n"
    "if (got != 16384.0f * 16383.0f / 2 || dattr.maxDynamicSharedSizeBytes != 65536) abort();\n"
    "printf(\"PASS cudaFuncSetAttribute\\n\");",
    "float a = 2.0f, *dx, *dy;\ncudaMalloc(&dx, fb); cudaMalloc(&dy, fb);\n"
    "for (int i = 0; i < n; i++) { hf[i] = i % 100; ones[i] = 1.0f; }\n"
    "cudaMemcpy(dx, hf, fb, cudaMemcpyHostToDevice);\ncudaMemcpy(dy, ones, fb, cudaMemcpyHostToDevice);\n"
    "void *args[] = {&n, &a, &dx, &dy};\ncudaStream_t st;\ncudaStreamCreate(&st);\n"
    "if (cudaLaunchKernel((const void *)saxpy, dim3((n + 255) / 256), dim3(256), args, 0, st)) abort();\n"
    "cudaStreamSynchronize(st);\n"
    "if (cudaLaunchKernel(saxpy, (n + 255) / 256, 256, args)) abort();\n"
    "int grid = prop.multiProcessorCount, m = grid * 256;\nvoid *cargs[] = {&m, &a, &dx, &dy};\n"
    "if (cudaLaunchCooperativeKernel((void *)saxpy, grid, 256, cargs)) abort();\n"
    "int one = 1;\nfloat two = 2.0f;\nvoid *sargs[] = {&dy, &two, &one};\n"
    "if (cudaLaunchKernel((const void *)scale<float>, 1, 1, sargs)) abort();\n"
    "cudaDeviceSynchronize();\ncudaMemcpy(hf, dy, fb, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < n; i++) {\n"
    "    float want = 1.0f + 2 * 2.0f * (i % 100) + (i < m ? 2.0f * (i % 100) : 0);\n"
    "    if (i == 0) want *= 2;\n    if (hf[i] != want) { printf(\"y[%d] = %g, not %g\\n\", i, hf[i], want); abort(); }\n}\n"
    "printf(\"PASS cudaLaunchKernel and cudaLaunchCooperativeKernel\\n\");",
    "int notKernel = 0;\nstruct cudaFuncAttributes nattr;\n"
    "cudaError_t e = cudaFuncGetAttributes(&nattr, &notKernel);\n"
    "printf(\"%s\\n\", cudaGetErrorName(e));\nif (e != cudaErrorInvalidDeviceFunction) abort();\n"
    "printf(\"PASS not a kernel\\n\");",
]


# CUDA's libraries from host cells as their documentation writes them
# (issue 12): each cell checks every status with the course's CHECK macro
# (abort() on an error, after printing it) and prints one PASS line that
# run.sh checks. tests/sim/test_cuda_libraries.py runs the same cells on
# the simulator, where they compile and link and stop at the library's own
# no-GPU status.
CUDA_LIBRARIES = [
    "%gpu",
    # cuBLAS: a known 2x2 product, then a 64 x 48 x 32 SGEMM against the CPU
    "#include <cublas_v2.h>\n"
    "#define CHECK_CUBLAS(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \\\n"
    "    printf(\"cuBLAS error %s at line %d\\n\", cublasGetStatusName(s_), __LINE__); abort(); } } while (0)\n"
    "cublasHandle_t handle;\nCHECK_CUBLAS(cublasCreate(&handle));\n"
    "/* column-major: A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]] */\n"
    "float hA[4] = {1, 3, 2, 4}, hB[4] = {5, 7, 6, 8}, hC[4];\n"
    "float *dA, *dB, *dC;\n"
    "cudaMalloc(&dA, sizeof hA); cudaMalloc(&dB, sizeof hB); cudaMalloc(&dC, sizeof hC);\n"
    "cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);\n"
    "const float alpha = 1.0f, beta = 0.0f;\n"
    "CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, dA, 2, dB, 2, &beta, dC, 2));\n"
    "cudaMemcpy(hC, dC, sizeof hC, cudaMemcpyDeviceToHost);\n"
    "printf(\"C = [[%g, %g], [%g, %g]]\\n\", hC[0], hC[2], hC[1], hC[3]);\n"
    "if (hC[0] != 19 || hC[2] != 22 || hC[1] != 43 || hC[3] != 50) abort();\n"
    "int M = 64, N = 48, K = 32;\n"
    "float *A = malloc(M * K * sizeof(float)), *B = malloc(K * N * sizeof(float)), *C = malloc(M * N * sizeof(float));\n"
    "for (int i = 0; i < M * K; i++) A[i] = (i % 7) - 3;\nfor (int i = 0; i < K * N; i++) B[i] = (i % 5) * 0.5f;\n"
    "float *dA2, *dB2, *dC2;\n"
    "cudaMalloc(&dA2, M * K * sizeof(float)); cudaMalloc(&dB2, K * N * sizeof(float)); cudaMalloc(&dC2, M * N * sizeof(float));\n"
    "cublasSetMatrix(M, K, sizeof(float), A, M, dA2, M);\ncublasSetMatrix(K, N, sizeof(float), B, K, dB2, K);\n"
    "CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, dA2, M, dB2, K, &beta, dC2, M));\n"
    "CHECK_CUBLAS(cublasGetMatrix(M, N, sizeof(float), dC2, M, C, M));\n"
    "double err = 0;\nfor (int i = 0; i < M; i++)\n    for (int j = 0; j < N; j++) {\n"
    "        double r = 0;\n        for (int k = 0; k < K; k++) r += A[i + k * M] * B[k + j * K];\n"
    "        err = fmax(err, fabs(r - C[i + j * M]));\n    }\n"
    "if (err > 1e-3) abort();\nprintf(\"PASS cublasSgemm 2x2 and 64x48x32 (max error %g)\\n\", err);",
    # cuRAND's host API: uniform and normal numbers on the device, statistics
    "#include <curand.h>\n"
    "#define CHECK_CURAND(call) do { curandStatus_t s_ = (call); if (s_ != CURAND_STATUS_SUCCESS) { \\\n"
    "    printf(\"cuRAND error %d at line %d\\n\", (int)s_, __LINE__); abort(); } } while (0)\n"
    "size_t n = 1 << 20;\nfloat *d_u, *d_n;\n"
    "cudaMalloc(&d_u, n * sizeof(float));\ncudaMalloc(&d_n, n * sizeof(float));\n"
    "curandGenerator_t gen;\nCHECK_CURAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));\n"
    "CHECK_CURAND(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));\n"
    "CHECK_CURAND(curandGenerateUniform(gen, d_u, n));\n"
    "CHECK_CURAND(curandGenerateNormal(gen, d_n, n, 2.0f, 0.5f));\n"
    "float *h_u = malloc(n * sizeof(float)), *h_n = malloc(n * sizeof(float));\n"
    "cudaMemcpy(h_u, d_u, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "cudaMemcpy(h_n, d_n, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "double su = 0, su2 = 0, sn = 0, sn2 = 0;\nint outside = 0;\n"
    "for (size_t i = 0; i < n; i++) {\n    su += h_u[i]; su2 += (double)h_u[i] * h_u[i];\n"
    "    sn += h_n[i]; sn2 += (double)h_n[i] * h_n[i];\n    outside += !(h_u[i] > 0.0f && h_u[i] <= 1.0f);\n}\n"
    "double mu = su / n, vu = su2 / n - mu * mu, mn = sn / n, sdn = sqrt(sn2 / n - mn * mn);\n"
    "printf(\"uniform: mean %.4f var %.4f, normal: mean %.4f std %.4f\\n\", mu, vu, mn, sdn);\n"
    "if (outside || fabs(mu - 0.5) > 0.002 || fabs(vu - 1.0 / 12) > 0.001 || fabs(mn - 2.0) > 0.003 ||\n"
    "    fabs(sdn - 0.5) > 0.003) abort();\n"
    "printf(\"PASS curandGenerateUniform and curandGenerateNormal statistics\\n\");",
    # cuFFT: a C2C forward transform finds the tone, the inverse gives the signal back
    "#include <cufft.h>\n"
    "#define CHECK_CUFFT(call) do { cufftResult r_ = (call); if (r_ != CUFFT_SUCCESS) { \\\n"
    "    printf(\"cuFFT error %d at line %d\\n\", (int)r_, __LINE__); abort(); } } while (0)\n"
    "int NX = 256;\ncufftComplex *sig = malloc(NX * sizeof(cufftComplex)), *spec = malloc(NX * sizeof(cufftComplex));\n"
    "cufftComplex *back = malloc(NX * sizeof(cufftComplex));\n"
    "for (int i = 0; i < NX; i++) { sig[i].x = cosf(2 * 3.14159265f * 5 * i / NX); sig[i].y = 0.5f * sinf(2 * 3.14159265f * 12 * i / NX); }\n"
    "cufftComplex *d_sig;\ncudaMalloc(&d_sig, NX * sizeof(cufftComplex));\n"
    "cudaMemcpy(d_sig, sig, NX * sizeof(cufftComplex), cudaMemcpyHostToDevice);\n"
    "cufftHandle plan;\nCHECK_CUFFT(cufftPlan1d(&plan, NX, CUFFT_C2C, 1));\n"
    "CHECK_CUFFT(cufftExecC2C(plan, d_sig, d_sig, CUFFT_FORWARD));\n"
    "cudaMemcpy(spec, d_sig, NX * sizeof(cufftComplex), cudaMemcpyDeviceToHost);\n"
    "CHECK_CUFFT(cufftExecC2C(plan, d_sig, d_sig, CUFFT_INVERSE));\n"
    "cudaMemcpy(back, d_sig, NX * sizeof(cufftComplex), cudaMemcpyDeviceToHost);\n"
    "float maxerr = 0;\nfor (int i = 0; i < NX; i++)\n"
    "    maxerr = fmaxf(maxerr, fmaxf(fabsf(back[i].x / NX - sig[i].x), fabsf(back[i].y / NX - sig[i].y)));\n"
    "float tone = sqrtf(spec[5].x * spec[5].x + spec[5].y * spec[5].y);\n"
    "printf(\"|X[5]| = %.2f (want %d), round trip max error %.2e\\n\", tone, NX / 2, maxerr);\n"
    "if (fabsf(tone - NX / 2) > 0.01f || maxerr > 1e-4f) abort();\n"
    "printf(\"PASS cufftExecC2C forward and inverse round trip\\n\");",
    # cuSPARSE's generic API: y = A x for a 3 x 3 CSR matrix
    "#include <cusparse.h>\n"
    "#define CHECK_CUSPARSE(call) do { cusparseStatus_t s_ = (call); if (s_ != CUSPARSE_STATUS_SUCCESS) { \\\n"
    "    printf(\"cuSPARSE error %s at line %d\\n\", cusparseGetErrorName(s_), __LINE__); abort(); } } while (0)\n"
    "/* A = [[1, 0, 2], [0, 3, 0], [4, 0, 5]], x = [1, 2, 3]: y = [7, 6, 19] */\n"
    "int hRowPtr[] = {0, 2, 3, 5}, hColInd[] = {0, 2, 1, 0, 2};\n"
    "float hVal[] = {1, 2, 3, 4, 5}, hX[] = {1, 2, 3}, hY[3];\n"
    "int *dRowPtr, *dColInd;\nfloat *dVal, *dX, *dY;\n"
    "cudaMalloc(&dRowPtr, sizeof hRowPtr); cudaMalloc(&dColInd, sizeof hColInd);\n"
    "cudaMalloc(&dVal, sizeof hVal); cudaMalloc(&dX, sizeof hX); cudaMalloc(&dY, sizeof hY);\n"
    "cudaMemcpy(dRowPtr, hRowPtr, sizeof hRowPtr, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(dColInd, hColInd, sizeof hColInd, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(dVal, hVal, sizeof hVal, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(dX, hX, sizeof hX, cudaMemcpyHostToDevice);\n"
    "cusparseHandle_t sparse;\nCHECK_CUSPARSE(cusparseCreate(&sparse));\n"
    "cusparseSpMatDescr_t matA;\ncusparseDnVecDescr_t vecX, vecY;\n"
    "CHECK_CUSPARSE(cusparseCreateCsr(&matA, 3, 3, 5, dRowPtr, dColInd, dVal, CUSPARSE_INDEX_32I,\n"
    "                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));\n"
    "CHECK_CUSPARSE(cusparseCreateDnVec(&vecX, 3, dX, CUDA_R_32F));\n"
    "CHECK_CUSPARSE(cusparseCreateDnVec(&vecY, 3, dY, CUDA_R_32F));\n"
    "float one = 1.0f, zero = 0.0f;\nsize_t bufferSize = 0;\nvoid *dBuffer = NULL;\n"
    "CHECK_CUSPARSE(cusparseSpMV_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA, vecX,\n"
    "                                       &zero, vecY, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bufferSize));\n"
    "cudaMalloc(&dBuffer, bufferSize);\n"
    "CHECK_CUSPARSE(cusparseSpMV(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA, vecX, &zero, vecY,\n"
    "                            CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, dBuffer));\n"
    "cudaMemcpy(hY, dY, sizeof hY, cudaMemcpyDeviceToHost);\n"
    "printf(\"y = [%g, %g, %g]\\n\", hY[0], hY[1], hY[2]);\n"
    "if (hY[0] != 7 || hY[1] != 6 || hY[2] != 19) abort();\n"
    "printf(\"PASS cusparseSpMV with a CSR matrix\\n\");",
    # everything released, as courses end
    "cusparseDestroySpMat(matA); cusparseDestroyDnVec(vecX); cusparseDestroyDnVec(vecY);\n"
    "cusparseDestroy(sparse); cufftDestroy(plan); curandDestroyGenerator(gen); cublasDestroy(handle);\n"
    "cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dA2); cudaFree(dB2); cudaFree(dC2);\n"
    "cudaFree(d_u); cudaFree(d_n); cudaFree(d_sig); cudaFree(dBuffer);\n"
    "cudaFree(dRowPtr); cudaFree(dColInd); cudaFree(dVal); cudaFree(dX); cudaFree(dY);\n"
    "printf(\"PASS cleanup\\n\");",
]


# C++ host code as courses write it (iostream, new/delete, std::vector,
# std::max, static_cast, a class owning device memory), compiled by g++ into
# the session: a .cu-style cell with main(), kernels launched from C++ cells,
# C and C++ cells calling each other. Each check prints PASS or aborts.
CPP_HOST = [
    "#include <iostream>\n#include <cmath>\n\n"
    "__global__ void add(int n, float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = x[i] + y[i];\n}\n\n"
    "int main() {\n    int N = 1 << 20;\n    float *x = new float[N], *y = new float[N];\n"
    "    for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }\n"
    "    float *d_x, *d_y;\n    cudaMalloc(&d_x, N * sizeof(float));\n"
    "    cudaMalloc(&d_y, N * sizeof(float));\n"
    "    cudaMemcpy(d_x, x, N * sizeof(float), cudaMemcpyHostToDevice);\n"
    "    cudaMemcpy(d_y, y, N * sizeof(float), cudaMemcpyHostToDevice);\n"
    "    add<<<(N + 255) / 256, 256>>>(N, d_x, d_y);\n"
    "    cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "    float maxError = 0.0f;\n"
    "    for (int i = 0; i < N; i++) maxError = std::fmax(maxError, std::fabs(y[i] - 3.0f));\n"
    "    std::cout << \"Max error: \" << maxError << std::endl;\n"
    "    if (maxError == 0.0f) std::cout << \"PASS add program\" << std::endl;\n"
    "    cudaFree(d_x);\n    cudaFree(d_y);\n    delete[] x;\n    delete[] y;\n    return 0;\n}",
    "%%kernel\n__global__ void saxpy(int n, float a, const float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = a * x[i] + y[i];\n}",
    "#include <cuda_runtime.h>\n#include <vector>\n#include <algorithm>\n"
    "const int n = 100000;\nstd::vector<float> hx(n), hy(n, 1.0f);\n"
    "for (int i = 0; i < n; i++) hx[i] = static_cast<float>(i % 100);\n"
    "float *dx, *dy;\ncudaMalloc(&dx, n * sizeof(float));\ncudaMalloc(&dy, n * sizeof(float));\n"
    "cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);\n"
    "dim3 block(256), grid((n + block.x - 1) / block.x);\n"
    "saxpy<<<grid, block>>>(n, 2.0f, dx, dy);\n"
    "cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "float biggest = *std::max_element(hy.begin(), hy.end());\n"
    "if (biggest != 199.0f || hy[1] != 3.0f) { std::cerr << \"saxpy: \" << biggest << std::endl; abort(); }\n"
    "std::cout << \"PASS saxpy from C++, max \" << biggest << std::endl;",
    # the session keeps the C++ cell's vector and device pointers
    "std::sort(hy.begin(), hy.end());\n"
    "if (hy.front() != 1.0f || hy.back() != 199.0f) abort();\n"
    "std::cout << \"PASS sorted \" << hy.size() << \" results\" << std::endl;",
    # a class that owns device memory (RAII), a 2-D launch with dim3
    "%%kernel\n__global__ void fill2d(float *m, int w, int h) {\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (r < h && c < w) m[r * w + c] = r * 1000.0f + c;\n}",
    "#include <iostream>\n"
    "class DeviceMatrix {\npublic:\n    int w, h;\n    float *d = nullptr;\n"
    "    DeviceMatrix(int w_, int h_) : w(w_), h(h_) { cudaMalloc(&d, bytes()); }\n"
    "    ~DeviceMatrix() { cudaFree(d); }\n"
    "    size_t bytes() const { return static_cast<size_t>(w) * h * sizeof(float); }\n};\n"
    "double corner_sum() {\n    DeviceMatrix m(700, 500);\n"
    "    dim3 block(16, 16);\n    dim3 grid((m.w + 15) / 16, (m.h + 15) / 16);\n"
    "    fill2d<<<grid, block>>>(m.d, m.w, m.h);\n"
    "    float *host = new float[m.w * m.h];\n"
    "    cudaMemcpy(host, m.d, m.bytes(), cudaMemcpyDeviceToHost);\n"
    "    double s = host[0] + host[m.w - 1] + host[(m.h - 1) * m.w] + host[m.w * m.h - 1];\n"
    "    delete[] host;\n    return s;\n}\n"
    "double s = corner_sum();\n"
    "if (s != 999398.0) { std::cerr << \"corners \" << s << std::endl; abort(); }\n"
    "std::cout << \"PASS 2-D launch from a C++ class, corners \" << s << std::endl;",
    # C and C++ cells call each other
    "int twice(int v) { return 2 * v; }",
    "extern \"C\" int twice_plus_one(int v) { return twice(v) + 1; }\n"
    "std::cout << \"PASS C function from C++: \" << twice_plus_one(20) << std::endl;",
    "if (twice_plus_one(3) != 7) abort();\nprintf(\"PASS C++ function from C\\n\");",
    # a whole C++ program in a %%cuda cell, as nvcc4jupyter's Colab cells are written
    "%%cuda\n#include <iostream>\n#include <cuda_runtime.h>\n"
    "__global__ void add_managed(int n, float *x, float *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = x[i] + y[i];\n}\n"
    "int main() {\n    int N = 1 << 20;\n    float *x, *y;\n"
    "    cudaMallocManaged(&x, N * sizeof(float));\n    cudaMallocManaged(&y, N * sizeof(float));\n"
    "    for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }\n"
    "    add_managed<<<(N + 255) / 256, 256>>>(N, x, y);\n    cudaDeviceSynchronize();\n"
    "    float maxError = 0.0f;\n"
    "    for (int i = 0; i < N; i++) maxError = std::max(maxError, std::abs(y[i] - 3.0f));\n"
    "    std::cout << \"Max error: \" << maxError << std::endl;\n"
    "    if (maxError == 0.0f) std::cout << \"PASS managed memory program\" << std::endl;\n"
    "    cudaFree(x);\n    cudaFree(y);\n    return 0;\n}",
]


# one .cu file's meaning across cells (issue 25): a host cell's constant and
# typedef in a kernel, `using namespace cooperative_groups;` in a mixed cell
# (the GPU's only: the simulator has no cooperative groups)
ONE_UNIT = [
    "const int cg_threads = 128;\ntypedef float cg_real;",
    "#include <cooperative_groups.h>\nusing namespace cooperative_groups;\n"
    "__global__ void cg_sum(const cg_real *x, cg_real *out) {\n"
    "    thread_block b = this_thread_block();\n    __shared__ cg_real part[cg_threads];\n"
    "    part[b.thread_rank()] = x[b.thread_rank()];\n    b.sync();\n"
    "    if (b.thread_rank() == 0) {\n        cg_real s = 0;\n"
    "        for (int i = 0; i < cg_threads; i++) s += part[i];\n        *out = s;\n    }\n}\n"
    "cg_real *cx, *cs;\ncudaMallocManaged(&cx, cg_threads * sizeof(cg_real));\n"
    "cudaMallocManaged(&cs, sizeof(cg_real));\nfor (int i = 0; i < cg_threads; i++) cx[i] = i;\n"
    "cg_sum<<<1, cg_threads>>>(cx, cs);\ncudaDeviceSynchronize();\n"
    "if (*cs != 8128.0f) abort();\n"
    "printf(\"PASS cooperative groups in a mixed cell, sum %g\\n\", *cs);",
]

# the operator's limits on a GPU (docs/hosting.md): run with
# GPUC_LIMIT_MEMORY=2GiB GPUC_LIMIT_GPU_MEMORY=256MB (tests/gpu/run.sh): the
# CUDA context and a kernel work under the host memory limit, an array within
# the pool limit works, one past it is refused (the run's one error)
LIMITS = [
    "%gpu\n%limits",
    "%%kernel\n__global__ void twice(int n, float *x) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= 2.0f;\n}",
    "#include <stdlib.h>\nint ln = 1 << 20;\nfloat *lx = (float *)malloc(ln * sizeof(float));\n"
    "for (int i = 0; i < ln; i++) lx[i] = i;\nfloat *dlx;\n"
    "if (cudaMalloc(&dlx, ln * sizeof(float)) != cudaSuccess) abort();\n"
    "cudaMemcpy(dlx, lx, ln * sizeof(float), cudaMemcpyHostToDevice);\n"
    "twice<<<(ln + 255) / 256, 256>>>(ln, dlx);\n"
    "cudaMemcpy(lx, dlx, ln * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < ln; i++) if (lx[i] != 2.0f * i) abort();\n"
    "printf(\"PASS a kernel under the memory limit\\n\");",
    "ga_t within = ga_ones(F32, 10000000);\nif (ga_sum(within) != 1e7) abort();\n"
    "printf(\"PASS an array within the pool limit\\n\");",
    "if (malloc((size_t)4 << 30) != NULL) abort();\nprintf(\"PASS 4 GiB of host memory refused\\n\");",
    "ga_t past = ga_zeros(F32, 100000000);",
]


# a kernel cell run again: its compile is a memory hit and, when the image
# is the one loaded, the loaded module stays (gpu_module.c reuse_loaded);
# launches still run the right code, an edited kernel and its edit undone
# run their own code, and a cell's __device__ variable starts again
BUMP = "%%kernel\n__global__ void bump(int *v) { v[threadIdx.x] += 1; }"
COUNT = ("%%kernel\n__device__ int counter = 0;\n"
         "__global__ void count(int *out) { counter += 1; *out = counter; }")
RERUN = [
    BUMP,
    "int *dv, hv[32];\ncudaMalloc(&dv, sizeof hv);\ncudaMemset(dv, 0, sizeof hv);\n"
    "bump<<<1, 32>>>(dv);\ncudaDeviceSynchronize();",
    BUMP,
    "bump<<<1, 32>>>(dv);\ncudaMemcpy(hv, dv, sizeof hv, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < 32; i++) if (hv[i] != 2) abort();\n"
    "printf(\"PASS a kernel cell run again launches\\n\");",
    "%%kernel\n__global__ void bump(int *v) { v[threadIdx.x] += 10; }",
    "bump<<<1, 32>>>(dv);\ncudaMemcpy(hv, dv, sizeof hv, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < 32; i++) if (hv[i] != 12) abort();",
    BUMP,
    "bump<<<1, 32>>>(dv);\ncudaMemcpy(hv, dv, sizeof hv, cudaMemcpyDeviceToHost);\n"
    "for (int i = 0; i < 32; i++) if (hv[i] != 13) abort();\n"
    "printf(\"PASS an edited kernel and its edit undone each run their own code\\n\");",
    COUNT,
    "int *dc, hc;\ncudaMalloc(&dc, sizeof hc);\ncount<<<1, 1>>>(dc);\ncount<<<1, 1>>>(dc);\n"
    "cudaMemcpy(&hc, dc, sizeof hc, cudaMemcpyDeviceToHost);\nif (hc != 2) abort();",
    COUNT,
    "count<<<1, 1>>>(dc);\ncudaMemcpy(&hc, dc, sizeof hc, cudaMemcpyDeviceToHost);\n"
    "if (hc != 1) abort();\n"
    "printf(\"PASS a device variable starts again when its cell runs again\\n\");",
]


def cell(i, src):
    tags = ["parameters"] if src.startswith(PARAMETERS) else []
    return {"cell_type": "code", "execution_count": None, "id": f"c{i}",
            "metadata": {"tags": tags} if tags else {}, "outputs": [],
            "source": src[len(PARAMETERS):] if tags else src}


def notebook(cells):
    return {
        "cells": [cell(i, src) for i, src in enumerate(cells)],
        "metadata": {"kernelspec": {"name": "gpuc", "display_name": "C + CUDA (gpuc)",
                                    "language": "c"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


for name, cells in (("tutorial", TUTORIAL), ("errors", ERRORS), ("endless", ENDLESS),
                    ("timing", TIMING), ("speedup", SPEEDUP), ("switch", SWITCH),
                    ("curand", CURAND), ("waits", WAITS), ("program", PROGRAM), ("params", PARAMS),
                    ("runtime", RUNTIME), ("templates", TEMPLATES),
                    ("cuda_libraries", CUDA_LIBRARIES), ("cpp_host", CPP_HOST), ("symbols", SYMBOLS),
                    ("one_unit", ONE_UNIT), ("limits", LIMITS), ("rerun", RERUN)):
    (HERE / f"{name}.ipynb").write_text(json.dumps(notebook(cells), indent=1) + "\n")
