"""%%profile on the simulator through the real kernel (jupyter_client):
the table in text and HTML, the timeline and roofline SVGs, and the
numbers in the output's metadata ("gpuc.profile"), checked against counts
known from the kernels' source."""
import re

import pytest

from gpuc_testing.kernel import execute, execute_ok
from gpuc_testing.sources import AXPY_KERNELS

N = 4096

KERNELS = "%%kernel\n" + AXPY_KERNELS + r"""
__global__ void copy(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
__global__ void blocksum(const float *x, float *out)
{
    __shared__ float tile[256];
    tile[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0;
        for (int k = 0; k < 256; k++) s += tile[k];
        out[blockIdx.x] = s;
    }
}
"""

SETUP = f"""
int n = {N};
float *x, *y; double *dx, *dy;
cudaMalloc((void **)&x, n * sizeof(float));
cudaMalloc((void **)&y, n * sizeof(float));
cudaMalloc((void **)&dx, n * sizeof(double));
cudaMalloc((void **)&dy, n * sizeof(double));
cudaMemset(x, 0, n * sizeof(float));
cudaMemset(y, 0, n * sizeof(float));
cudaMemset(dx, 0, n * sizeof(double));
cudaMemset(dy, 0, n * sizeof(double));
"""


@pytest.fixture(scope="module")
def pkc(simulated):
    execute_ok(simulated, KERNELS)
    execute_ok(simulated, SETUP)
    return simulated


def profile_of(run):
    """The display carrying the profile's metadata, and the SVGs."""
    shown = run.of_type("display_data")
    tables = [m for m in shown if "gpuc.profile" in m["content"]["metadata"]]
    assert len(tables) == 1, run.describe()
    svgs = [m["content"]["data"]["image/svg+xml"] for m in shown
            if "image/svg+xml" in m["content"]["data"]]
    return tables[0]["content"], svgs


def rows_named(meta, name):
    return [r for r in meta["rows"] if r["name"] == name]


def test_saxpy_counts_bytes_and_flops_exactly(pkc):
    run = execute_ok(pkc, "%%profile\nsaxpy<<<n / 256, 256>>>(n, 2.0f, x, y);")
    content, svgs = profile_of(run)
    meta = content["metadata"]["gpuc.profile"]
    assert meta["simulated"] is True
    [row] = rows_named(meta, "saxpy")
    assert row["grid"] == [N // 256, 1, 1] and row["block"] == [256, 1, 1]
    # x[i] and y[i] read, y[i] written: 8 bytes in, 4 out per element
    assert row["bytes_read"] == 8 * N
    assert row["bytes_written"] == 4 * N
    # a * x + y: a multiply and an add per element (one FFMA on a GPU: 2 FLOPs)
    assert row["flops"] == 2 * N
    assert row["ops"]["fp64"]["flops"] == 0
    assert row["seconds"] > 0
    assert row["occupancy"] is not None and 0 < row["occupancy"] <= 1
    assert "memory-bound" in row["verdict"]
    text = content["data"]["text/plain"]
    assert "SIMULATED" in text and "saxpy" in text
    assert "<table" in content["data"]["text/html"]
    assert len(svgs) == 2
    timeline, roofline = svgs
    assert 'class="span kernel"' in timeline and "saxpy" in timeline
    assert 'class="roof memory"' in roofline and 'class="point"' in roofline


def test_fp64_fma_counted_as_fp64(pkc):
    run = execute_ok(pkc, "%%profile\ndaxpy<<<n / 256, 256>>>(n, 2.0, dx, dy);")
    meta = profile_of(run)[0]["metadata"]["gpuc.profile"]
    [row] = rows_named(meta, "daxpy")
    assert row["ops"]["fp64"]["fma"] == N
    assert row["ops"]["fp64"]["flops"] == 2 * N
    assert row["ops"]["fp32"]["flops"] == 0
    assert row["bytes_read"] == 16 * N and row["bytes_written"] == 8 * N


def test_shared_memory_and_totals_per_name(pkc):
    code = ("%%profile\n"
            "for (int r = 0; r < 3; r++) copy<<<n / 256, 256>>>(n, x, y);\n"
            "blocksum<<<n / 256, 256>>>(x, y);\n")
    run = execute_ok(pkc, code)
    meta = profile_of(run)[0]["metadata"]["gpuc.profile"]
    copies = rows_named(meta, "copy")
    assert len(copies) == 3
    [total] = [t for t in meta["totals"] if t["name"] == "copy"]
    assert total["count"] == 3 and total["bytes_read"] == 3 * 4 * N
    [bs] = rows_named(meta, "blocksum")
    # global memory: each element read once, one float written per block
    assert bs["bytes_read"] == 4 * N and bs["bytes_written"] == 4 * (N // 256)
    # 255 additions a block into s (s = 0 + tile[0] is one too)
    assert bs["ops"]["fp32"]["add"] == 256 * (N // 256)
    text = profile_of(run)[0]["data"]["text/plain"]
    assert re.search(r"copy x3", text), text


def test_line_form_and_copies(pkc):
    code = ("float h[16] = {0};\n"
            "%profile cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);\n")
    run = execute_ok(pkc, code)
    meta = profile_of(run)[0]["metadata"]["gpuc.profile"]
    [row] = rows_named(meta, "cudaMemcpy HtoD")
    assert row["kind"] == "copy" and row["bytes_written"] == 64 and row["bytes_read"] == 0


def test_array_expression_named_and_counted(pkc):
    code = ("ga_t a = ga_arange(GA_F32, 0, 1000, 1), b = ga_ones(GA_F32, 1000);\n"
            "%profile ga_t c = ga_map(\"a * b + a\", a, b);\n")
    run = execute_ok(pkc, code)
    meta = profile_of(run)[0]["metadata"]["gpuc.profile"]
    [row] = rows_named(meta, 'ga_map "a * b + a"')
    assert row["kind"] == "array"
    assert row["flops"] == 2 * 1000
    assert row["bytes_read"] == 8 * 1000 and row["bytes_written"] == 4 * 1000


def test_usage_error(pkc):
    run = execute(pkc, "%%profile --bogus\nint z = 1;")
    assert run.status == "error" and "--bogus" in run.describe()


def test_names_escaped_in_html_and_svg(pkc):
    execute_ok(pkc, "%%kernel\ntemplate <int K> __global__ void times_k(float *y) "
                    "{ y[threadIdx.x] *= K; }")
    run = execute_ok(pkc, "%%profile\ntimes_k<3><<<1, 32>>>(y);")
    content, svgs = profile_of(run)
    [row] = [r for r in content["metadata"]["gpuc.profile"]["rows"] if r["kind"] == "kernel"]
    assert "<" in row["name"], row["name"]
    # the text keeps the name as written; HTML and SVG escape it
    assert row["name"] in content["data"]["text/plain"]
    html = content["data"]["text/html"]
    assert row["name"] not in html and row["name"].replace("<", "&lt;").replace(">", "&gt;") in html
    assert all(row["name"] not in svg for svg in svgs)
    assert row["ops"]["fp32"]["mul"] == 32 and row["bytes_read"] == row["bytes_written"] == 128


def test_reduction_counted(pkc):
    code = ("ga_t r = ga_ones(GA_F32, 1000);\n"
            "%profile double total = ga_sum(r);\n")
    run = execute_ok(pkc, code)
    meta = profile_of(run)[0]["metadata"]["gpuc.profile"]
    arrays = [r for r in meta["rows"] if r["kind"] == "array"]
    assert len(arrays) == 1, meta["rows"]
    # each element read once and added: 1000 FLOPs; one result written
    assert arrays[0]["bytes_read"] == 4000 and arrays[0]["flops"] == 1000
    assert arrays[0]["bytes_written"] > 0
