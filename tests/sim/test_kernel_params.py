"""Any kernel parameter type (issue 12), through the real kernel on the CUDA
simulator: structs by value (arrays and vector types inside, nested),
CUDA's vector types with make_float4 & co in host cells, __half; the values
the kernel sees are checked against NumPy, and a value of the wrong type is
a LaunchError that names the argument and both types, with the session
kept."""
import numpy as np
import pytest

from gpuc_testing.kernel import execute, execute_ok

# on a machine with a GPU too, the module's kernel cells run simulated
pytestmark = pytest.mark.usefixtures("simulated")


def floats(run, n):
    """The last line's numbers (a .cu-style cell says first what it compiled)."""
    return np.array([float(v) for v in run.stream().strip().split("\n")[-1].split()[:n]])


def test_struct_by_value_in_a_cu_style_cell(kc):
    # as in a .cu file: the struct is defined once, for both sides, and
    # named without `struct` on the host as C++ does
    run = execute_ok(kc, """
struct Particle { float x, y; int id; };
__global__ void place(Particle p, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p.x + p.y * i + p.id;
}
Particle p = {1.5f, -0.25f, 7};
int n = 300;
float *d, h[300];
cudaMalloc(&d, n * sizeof(float));
place<<<(n + 127) / 128, 128>>>(p, d, n);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
for (int i = 0; i < n; i++) printf("%.6f ", h[i]);
""")
    i = np.arange(300, dtype=np.float32)
    np.testing.assert_allclose(floats(run, 300), np.float32(1.5) + np.float32(-0.25) * i + 7,
                               rtol=1e-6)


def test_struct_holding_an_array_a_float4_and_a_nested_struct(kc):
    # the layout differs from a plain C struct's unless float4 is aligned
    # to 16 on the host as nvcc aligns it
    execute_ok(kc, """%%kernel
struct Inner { double scale; char tag; };
struct Params { float w[5]; float4 shift; Inner in; int n; };
__global__ void apply(Params q, float *out) {
    int i = threadIdx.x;
    if (i < q.n) out[i] = (float)(q.w[i % 5] * q.in.scale + q.shift.x + q.shift.w + q.in.tag);
}""")
    run = execute_ok(kc, """
struct Inner { double scale; char tag; };
struct Params { float w[5]; float4 shift; struct Inner in; int n; };
struct Params q = {{1, 2, 3, 4, 5}, {0}, {0.5, 3}, 20};
q.shift = make_float4(10, 0, 0, 100);
float *d, h[20];
cudaMalloc(&d, sizeof h);
apply<<<1, 32>>>(q, d);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("sizeof=%zu offset=%zu\\n", sizeof q, (size_t)&((struct Params *)0)->shift);
for (int i = 0; i < 20; i++) printf("%.6f ", h[i]);
""")
    first, rest = run.stream().split("\n", 1)
    assert first == "sizeof=80 offset=32"  # as nvcc lays it out
    w = np.array([1, 2, 3, 4, 5], dtype=np.float64)[np.arange(20) % 5]
    np.testing.assert_allclose(np.array([float(v) for v in rest.split()]),
                               w * 0.5 + 10 + 100 + 3, rtol=1e-6)


def test_vector_types_and_make_functions(kc):
    execute_ok(kc, """%%kernel
__global__ void combine(float4 a, int2 b, double2 c, uchar4 d, float *out) {
    out[0] = a.x + a.y + a.z + a.w;
    out[1] = b.x * 10 + b.y;
    out[2] = (float)(c.x - c.y);
    out[3] = d.x + d.y + d.z + d.w;
}""")
    run = execute_ok(kc, """
float *d, h[4];
cudaMalloc(&d, sizeof h);
combine<<<1, 1>>>(make_float4(1, 2, 3, 4.5f), make_int2(7, -3), make_double2(2.5, 0.25),
                  make_uchar4(1, 2, 3, 250), d);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%g %g %g %g\\n", h[0], h[1], h[2], h[3]);
printf("%zu %zu %zu %zu\\n", _Alignof(float4), _Alignof(double2), _Alignof(float2), sizeof(float3));
""")
    lines = run.stream().split("\n")
    assert lines[0] == "10.5 67 2.25 256"
    assert lines[1] == "16 16 8 12"


def test_half_parameter_and_host_conversions(kc):
    execute_ok(kc, """%%kernel
#include <cuda_fp16.h>
__global__ void halves(__half a, const __half *x, float *out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = __half2float(a) * __half2float(x[i]);
}""")
    run = execute_ok(kc, """
float vals[8] = {0.1f, -2.5f, 65504.0f, 1e-7f, 3.14159f, -0.0f, 1024.5f, 6e-5f};
__half hx[8];
for (int i = 0; i < 8; i++) hx[i] = __float2half(vals[i]);
__half *dx; float *dout, out[8];
cudaMalloc(&dx, sizeof hx); cudaMalloc(&dout, sizeof out);
cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
halves<<<1, 8>>>(__float2half(0.5f), dx, dout, 8);
cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
for (int i = 0; i < 8; i++) printf("%.9g %u\\n", out[i], hx[i].__x);
""")
    rows = [line.split() for line in run.stream().strip().split("\n")]
    vals = np.array([0.1, -2.5, 65504.0, 1e-7, 3.14159, -0.0, 1024.5, 6e-5], dtype=np.float32)
    want = vals.astype(np.float16)
    assert [int(r[1]) for r in rows] == [int(b) for b in want.view(np.uint16)]
    np.testing.assert_array_equal(np.array([float(r[0]) for r in rows], dtype=np.float32),
                                  want.astype(np.float32) * np.float32(0.5))


def test_wrong_types_are_clear_errors_and_keep_the_session(kc):
    execute_ok(kc, """%%kernel
struct Pair { float a, b; int c; };
__global__ void takes_pair(Pair p, float *out) { out[0] = p.a + p.b + p.c; }
__global__ void takes_float(float x, float *out) { out[0] = x; }""")
    execute_ok(kc, "float *dst; cudaMalloc(&dst, 64); int kept = 41;")
    cases = [
        ("takes_float<<<1, 1>>>(make_float4(1, 2, 3, 4), dst);",
         "argument 1 of takes_float is float x (4 bytes), got a float4 (16 bytes)"),
        ("struct Two { float a, b; } t = {1, 2}; takes_pair<<<1, 1>>>(t, dst);",
         "argument 1 of takes_pair is Pair p (12 bytes), got a pointer (or an 8-byte struct)"),
        ("takes_pair<<<1, 1>>>(make_float4(1, 2, 3, 4), dst);",
         "argument 1 of takes_pair is Pair p (12 bytes), got a float4 (16 bytes)"),
        ("takes_pair<<<1, 1>>>(dst, dst);",
         "argument 1 of takes_pair is Pair p (12 bytes), got a pointer (or an 8-byte struct)"),
        ("struct Three { float a, b, c; } s3 = {0}; takes_pair<<<1, 1>>>(s3, s3);",
         "argument 2 of takes_pair is a pointer (float *out), got a 12-byte value"),
        ("struct Pair2 { float a, b; int c; } s = {0}; takes_float<<<1, 1>>>(s, dst);",
         "argument 1 of takes_float is float x (4 bytes), got a 12-byte value"),
    ]
    for code, message in cases:
        run = execute(kc, code)
        assert run.reply["content"]["status"] == "error", code
        assert run.reply["content"]["ename"] == "LaunchError"
        assert message in run.reply["content"]["evalue"], run.reply["content"]["evalue"]
    # a struct of the right size and layout launches, and the session is intact
    run = execute_ok(kc, """
struct Mine { float a, b; int c; } m = {1.5f, 2.0f, 3};
takes_pair<<<1, 1>>>(m, dst);
float r; cudaMemcpy(&r, dst, sizeof r, cudaMemcpyDeviceToHost);
printf("%g %d\\n", r, kept + 1);
""")
    assert run.stream().strip() == "6.5 42"


def test_enum_and_union_by_value(kc):
    run = execute_ok(kc, """
enum Mode { ADD = 1, MUL = 2 };
union Bits { float f; unsigned u; };
__global__ void apply_mode(Mode m, Bits b, float *out) {
    out[0] = m == MUL ? b.f * 3 : b.f + 3;
    out[1] = (float)(b.u >> 23);
}
Bits b; b.f = 2.0f;
Mode twice = MUL;
float *d, h[2];
cudaMalloc(&d, sizeof h);
apply_mode<<<1, 1>>>(twice, b, d);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%g %g\\n", h[0], h[1]);
apply_mode<<<1, 1>>>(ADD, b, d);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%g %g\\n", h[0], h[1]);
""")
    assert run.stream().strip().split("\n")[-2:] == ["6 128", "5 128"]
