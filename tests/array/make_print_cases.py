#!/usr/bin/env python3
"""Writes the golden cases of ga_print (runtime/array/ga_print.c) with NumPy.

    python tests/array/make_print_cases.py                  # tests/array/print/
    python tests/array/make_print_cases.py --out DIR --random 40 --seed 7

The first form (re)writes the committed cases, NN_name.case; the second
writes 40 random arrays instead (tests/array/test_print_numpy.py does that
in a temporary folder, so NumPy is the oracle wherever it is installed).
test_ga_print (tests/unit/runtime/array/) reads each case, prints the array
with ga_print_repr and ga_print_str and compares.

A case is plain text, so the C test needs no .npy parser:

    dtype float32                 NumPy's name
    shape 2 3                     nothing after "shape" for 0-d
    device -1                     -1 the CPU backend, n gpuN
    data 0000803f...              the C-contiguous bytes, little-endian, hex
    --- repr
    array([[...]], dtype=float32, shape=(2, 3), device=cpu)
    --- str
    [[...]]

The expected repr is NumPy's repr(a) with its ", dtype=..."/"shape=..." tail
replaced by gpuc's suffix ", dtype=NAME, shape=(..), device=DEV)", placed by
NumPy's own rule (a new line under "array(" when the last line would pass
the line width). The expected str is NumPy's str(a). Default print options.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

LINEWIDTH = 75
HERE = Path(__file__).resolve().parent


def device_text(device):
    return "cpu" if device < 0 else f"gpu{device}"


def expected_repr(a, device):
    body = np.array2string(a, separator=", ", prefix="array(", suffix=")")
    if not repr(a).startswith("array(" + body):
        raise SystemExit(f"array2string and repr disagree for {a!r}")
    arr_str = "array(" + body + ","
    extra = f"dtype={a.dtype.name}, shape={a.shape}, device={device_text(device)})"
    last = len(arr_str) - (arr_str.rfind("\n") + 1)
    spacer = "\n" + " " * len("array(") if last + len(extra) + 1 > LINEWIDTH else " "
    return arr_str + spacer + extra


def write_case(path, a, device=-1):
    a = np.ascontiguousarray(a)
    text = [f"dtype {a.dtype.name}",
            "shape" + "".join(f" {n}" for n in a.shape),
            f"device {device}",
            "data " + a.astype(a.dtype.newbyteorder("<")).tobytes().hex(),
            "--- repr", expected_repr(a, device),
            "--- str", str(a)]
    path.write_text("\n".join(text) + "\n")


def golden():
    """(name, array[, device]) of the committed cases."""
    rng = np.random.default_rng(20240601)
    nan, inf = np.nan, np.inf
    f = lambda v, t="float64": np.array(v, dtype=t)
    cases = []
    # every dtype, 1-d
    cases += [("bool", f([True, False, True], "bool")),
              ("int8", f([-128, 0, 127], "int8")),
              ("uint8", f([0, 7, 255], "uint8")),
              ("int16", f([-32768, 5, 32767], "int16")),
              ("uint16", f([0, 65535], "uint16")),
              ("int32", f([-2147483648, 1, 2147483647], "int32")),
              ("uint32", f([0, 4294967295], "uint32")),
              ("int64_minmax", f([-2**63, 0, 2**63 - 1], "int64")),
              ("uint64_max", f([0, 2**64 - 1], "uint64")),
              ("float16", f([0.1, 1 / 3, 2.5, -7], "float16")),
              ("float32", f([0.1, 1 / 3, 2.5, -7], "float32")),
              ("float64", f([0.1, 1 / 3, 2.5, -7])),
              ("complex64", f([1 + 2j, -0.5 - 1.25j, 3j], "complex64")),
              ("complex128", f([1 + 2j, -0.5 - 1.25j, 1 / 3 - 1j], "complex128"))]
    # 0-d (repr and NumPy's scalar str)
    cases += [("0d_float64", f(1.5)), ("0d_float64_whole", f(3.0)),
              ("0d_float32_tenth", f(0.1, "float32")), ("0d_float16_tenth", f(0.1, "float16")),
              ("0d_int32", f(-42, "int32")), ("0d_bool", f(True, "bool")),
              ("0d_uint64", f(2**64 - 1, "uint64")),
              ("0d_complex128", f(1 - 2j, "complex128")), ("0d_complex64_imag", f(2j, "complex64")),
              ("0d_nan", f(nan)), ("0d_float32_big", f(1e10, "float32")),
              ("0d_float16_big", f(1000, "float16")), ("0d_float64_tiny", f(1.5e-5)),
              ("0d_negzero", f(-0.0)), ("0d_float32_1e-4", f(1e-4, "float32"))]
    # more dimensions
    cases += [("2d_float64", rng.standard_normal((3, 4))),
              ("2d_int32_neg", f([[-1, 20, 300], [4000, -50000, 6]], "int32")),
              ("3d_float32", rng.random((2, 3, 4)).astype("float32")),
              ("3d_int16", np.arange(-12, 12, dtype="int16").reshape(2, 3, 4)),
              ("5d_int64", np.arange(32, dtype="int64").reshape(2, 2, 2, 2, 2)),
              ("5d_float64", rng.standard_normal((1, 2, 1, 2, 3))),
              ("8d_uint8", np.arange(256, dtype="uint8").reshape((2,) * 8)),
              ("2d_bool", rng.random((4, 5)) > 0.5),
              ("2d_complex128", (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))))]
    # around the threshold and large arrays
    cases += [("size1000", np.arange(1000, dtype="float64")),
              ("size1001", np.arange(1001, dtype="float64")),
              ("size1001_int64", np.arange(1001, dtype="int64") * 10**12),
              ("size1001_bool", np.arange(1001) % 3 == 0),
              ("2000x3_float64", rng.standard_normal((2000, 3))),
              ("40x40_float32", rng.random((40, 40)).astype("float32")),
              ("40x40_int32", np.arange(1600, dtype="int32").reshape(40, 40)),
              ("11x11x11_float64", rng.random((11, 11, 11))),
              ("5d_summarised", np.arange(3125, dtype="int32").reshape(5, 5, 5, 5, 5)),
              ("1001_complex64", (np.arange(1001) * (1 - 1j)).astype("complex64")),
              ("1001x1_float16", np.linspace(0, 1, 1001).astype("float16").reshape(1001, 1))]
    # exponent format and precision
    cases += [("exp_small", f([1e-5, 1.0, 2.0])),
              ("exp_big", f([1.0, 1e8])),
              ("below_exp_big", f([1.0, 99999999.0])),
              ("exp_ratio", f([1.0, 1001.0])),
              ("no_exp_ratio", f([1.0, 1000.0])),
              ("exp_float32_1e6", f([1e6], "float32")),
              ("exp_float16_1e3", f([1000, 1], "float16")),
              ("exp_float16_1e-4", f([1e-4, 1], "float16")),
              ("exp_3digit", f([1e-300, 1e300])),
              ("exp_mixed_neg", f([-1.5e-7, 2.25e10, 0.0, 3.0])),
              ("exp_nan_inf", f([1e-10, nan, -inf, 1.0])),
              ("precision_cap", f([0.123456789123, 1.5, 2.0])),
              ("precision_cap_round", f([0.999999999999, 0.5])),
              ("large_positional", f([12345678.123456789, 1.0])),
              ("float32_tenths", f([0.1, 0.2, 0.3, 1 / 3, 2 / 3], "float32")),
              ("float16_thirds", f([1 / 3, 2 / 3, 0.1, 0.2, 0.3], "float16")),
              ("float16_small", f([2**-10, 2**-14, 6e-8], "float16")),
              ("float32_powers2", f([2.0**-20, 2.0**30, 1.0], "float32")),
              ("suppress_whole", f([1.0, 2.0, 3.0])),
              ("negzero", f([-0.0, 0.0, 1.5])),
              ("nan_inf", f([nan, inf, -inf, 1.0, -2.5])),
              ("all_nan", f([nan, nan])),
              ("all_inf", f([inf, -inf])),
              ("negative_ints", f([-5, -10, -100], "int64")),
              ("complex_neg_imag", f([1 - 1j, -2 - 0.5j, 0 - 3j], "complex128")),
              ("complex_nan_inf", f([complex(nan, 1), complex(1, -inf), 2 + 0j], "complex128")),
              ("complex_exp", f([1e-6 + 1j, 1e6 - 2j], "complex64")),
              ("complex_negzero", f([complex(-0.0, -0.0), 1 + 1j], "complex128"))]
    # line wrapping and the suffix's line
    cases += [("wrap_float64", rng.standard_normal(30)),
              ("wrap_int", np.arange(100, dtype="int64") ** 3),
              ("wrap_bool", rng.random(40) > 0.5),
              ("wrap_2d", rng.standard_normal((3, 12))),
              ("wrap_complex", rng.standard_normal(12) * (1 + 1j)),
              ("suffix_newline", np.arange(19, dtype="int32") * 1000),
              ("suffix_same_line", np.arange(4, dtype="int32")),
              ("empty", f([], "float32")),
              ("empty_2d", np.zeros((2, 0), dtype="int16"))]
    cases += [("gpu_device", f([1.0, 2.0], "float32"), 0),
              ("gpu1_device", f([[1, 2], [3, 4]], "uint16"), 1)]
    return cases


DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def random_case(rng):
    """A random array: any dtype, 0 to 5 dims, sometimes over the threshold,
    values of mixed sign and magnitude with the odd nan, inf and -0.0, or
    floats of random bits."""
    dtype = np.dtype(rng.choice(DTYPES))
    ndim = int(rng.integers(0, 6))
    big = rng.random() < 0.25
    shape = tuple(int(rng.integers(1, 12 if big else 5)) for _ in range(ndim))
    if big and ndim:
        shape = shape[:-1] + (int(rng.integers(1001, 1500)) // max(1, int(np.prod(shape[:-1]))) + 1,)
    n = int(np.prod(shape))
    if dtype.kind in "iub":
        info = np.iinfo(dtype) if dtype.kind != "b" else None
        if info is None:
            v = rng.random(n) > 0.5
        else:
            v = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
    else:
        scale = 10.0 ** rng.integers(-6, 9, n) if rng.random() < 0.5 else 10.0 ** rng.integers(-1, 3)
        v = rng.standard_normal(n) * scale
        if rng.random() < 0.3:
            v = np.round(v, int(rng.integers(0, 3)))
        special = rng.random(n)
        v = np.where(special < 0.03, np.nan, np.where(special < 0.05, -np.inf, v))
        v = np.where((special > 0.05) & (special < 0.07), -0.0, v)
        if dtype.kind == "c":
            v = v + 1j * rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4)
    if dtype.kind in "fc" and rng.random() < 0.2:  # any bit pattern: subnormals, extremes
        raw = rng.integers(0, 256, n * dtype.itemsize, dtype="uint8")
        return raw.view(dtype).reshape(shape)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(v).astype(dtype).reshape(shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=HERE / "print")
    ap.add_argument("--random", type=int, default=0, help="write this many random cases instead")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.random:
        rng = np.random.default_rng(args.seed)
        for i in range(args.random):
            write_case(args.out / f"{i:02d}_random.case", random_case(rng))
        return 0
    for old in args.out.glob("*.case"):
        old.unlink()
    for i, (name, a, *dev) in enumerate(golden()):
        write_case(args.out / f"{i:02d}_{name}.case", np.asarray(a), *(dev or [-1]))
    print(f"{len(golden())} cases in {args.out} (numpy {np.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
