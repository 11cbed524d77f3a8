"""A kernel cell that includes a header of the user's, through the real
kernel on the simulator: editing the header (or a header it includes) and
running the cell again runs the new code, and undoing the edit runs the
first code again (the compile cache's key holds the headers as read:
backend/cuda/gpu_include.c, gpu_compile.c). Before, both the NVRTC image
and the simulator's g++ object were found by the cell's text alone, and
the old value came back."""
from gpuc_testing.kernel import execute_ok

KERNEL = ('%%kernel -I{inc}\n#include "scale.h"\n'
          "__global__ void hscale(int *x) {{ x[0] = SCALE; }}\n")
LAUNCH = "hscale<<<1, 1>>>(hv);\ncudaDeviceSynchronize();\nprintf(\"%d\\n\", hv[0]);"


def run_value(kc, inc):
    execute_ok(kc, KERNEL.format(inc=inc))
    return int(execute_ok(kc, LAUNCH).stream().strip())


def test_edited_header_is_compiled_again(fresh_kernel, tmp_path):
    kc = fresh_kernel[1]
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "inner.h").write_text("#define INNER 1\n")
    (inc / "scale.h").write_text('#include "inner.h"\n#define SCALE (2 * INNER)\n')
    execute_ok(kc, "int *hv;\ncudaMallocManaged(&hv, sizeof(int));")
    assert run_value(kc, inc) == 2
    (inc / "scale.h").write_text('#include "inner.h"\n#define SCALE (3 * INNER)\n')
    assert run_value(kc, inc) == 3
    (inc / "inner.h").write_text("#define INNER 5\n")
    assert run_value(kc, inc) == 15
    (inc / "inner.h").write_text("#define INNER 1\n")
    (inc / "scale.h").write_text('#include "inner.h"\n#define SCALE (2 * INNER)\n')
    assert run_value(kc, inc) == 2
