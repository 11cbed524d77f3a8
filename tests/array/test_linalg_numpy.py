"""Linear algebra (ga_solve ... ga_norm), FFTs (ga_fft ... ga_irfftn) and
ga_einsum through the real kernel, against numpy.linalg, numpy.fft and
numpy.einsum of the same .npy inputs, on the CPU backend (LAPACKE, FFTW,
OpenBLAS) and on the simulator's device (sim0: the same host libraries,
on its memory): dtypes, batches, broadcast batches, views as operands,
non-square and empty shapes, n padding and cropping, each norm, more than
three FFT axes, and the errors (LinAlgError for singular and indefinite
matrices). The cases are linalg_cases.py's, which the GPU machine's
tests/gpu/linalg_gpu.py runs too. Skipped when NumPy is not installed."""
import pytest

from gpuc_testing.notebook import run_cells

np = pytest.importorskip("numpy")

import linalg_cases as lc  # noqa: E402  (after NumPy's check)

DEVICES = {"cpu": "GA_CPU", "sim": "1000"}


@pytest.fixture(scope="module", params=list(DEVICES))
def session(request, gpuc_bin, tmp_path_factory):
    dev = request.param
    folder = tmp_path_factory.mktemp(f"linalg_{dev}")
    arrays = lc.inputs()
    for name, value in arrays.items():
        np.save(folder / f"{name}.npy", value)
    return dev, folder, arrays, run_cells(gpuc_bin, folder, lc.cells_for(dev, DEVICES[dev], arrays))


def test_cells_run(session):
    dev, _, _, res = session
    names = ["load"] + list(lc.CASES) + ["norms"]
    for i, (_, out, err) in enumerate(res[:len(names)]):
        assert err is None, (dev, names[i], err)


@pytest.mark.parametrize("name", list(lc.CASES))
def test_as_numpy(session, name):
    dev, folder, arrays, _ = session
    lc.check_case(folder, dev, arrays, name)


@pytest.mark.parametrize("name", list(lc.FACTORS))
def test_factors_rebuild_the_matrix(session, name):
    dev, folder, arrays, _ = session
    lc.check_factors(folder, dev, arrays, name)


def test_norms(session):
    _, _, arrays, res = session
    lc.check_norms(arrays, res[len(lc.CASES) + 1][1])


def test_errors(session):
    lc.check_errors(session[3])
