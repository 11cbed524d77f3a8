#!/usr/bin/env python3
"""make_npy_files: the golden .npy files of test_ga_npy, written by NumPy.

For every case NAME it writes, into tests/array/npy/:
  NAME.npy      the file as NumPy writes it (any dtype, byte order, memory order)
  NAME.bin      the same values as raw little-endian C-order bytes
and, when NAME.npy is not C-order little-endian version 1.0, NAME_c.npy:
np.save of the same values in C order and little-endian, which is what
ga_npy_save must write byte for byte. MANIFEST lists them:
  NAME.npy DTYPE SHAPE NAME.bin TWIN.npy
Files in bad/ are broken on purpose (test_ga_npy checks the error for each).

Run with a NumPy (python3 -m venv /tmp/np2 && /tmp/np2/bin/pip install numpy):
  /tmp/np2/bin/python tests/array/make_npy_files.py
"""
import io
import shutil
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "npy"
GPUC_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
               "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def values(dtype, shape=(2, 3)):
    """Values of dtype that show the edges: extremes, signs, NaN and infinities."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = [True, False, True, False, False, True]
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = [info.min, info.max, 0, 1, info.max // 3, 42]
    elif dt.kind == "f":
        v = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5]
    else:
        v = [1 + 2j, complex(-0.0, -1), complex(np.inf, np.nan), 0.5 - 0.25j, 3, -7j]
    return np.array((v * (n // len(v) + 1))[:n], dtype=dt).reshape(shape)


def npy_bytes(write):
    buf = io.BytesIO()
    write(buf)
    return buf.getvalue()


def case(manifest, name, a, raw=None, write=None):
    """NAME.npy from a (or write(fp)), NAME.bin, a twin when needed."""
    file = OUT / f"{name}.npy"
    file.write_bytes(npy_bytes(write) if write else npy_bytes(lambda f: np.save(f, a)))
    c = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"))
    (OUT / f"{name}.bin").write_bytes(raw if raw is not None else c.tobytes())
    twin = file.name
    if write or a.dtype.byteorder == ">" or (a.ndim > 1 and a.flags.f_contiguous
                                              and not a.flags.c_contiguous):
        twin = f"{name}_c.npy"
        np.save(OUT / twin, c)
    shape = "(" + ",".join(str(d) for d in a.shape) + ("," if a.ndim == 1 else "") + ")"
    manifest.append(f"{file.name} {c.dtype.name} {shape} {name}.bin {twin}")


def header(descr, shape, fortran=False):
    return npy_bytes(lambda f: np.lib.format.write_array_header_1_0(
        f, {"descr": descr, "fortran_order": fortran, "shape": shape}))


def good_files():
    manifest = []
    for dt in GPUC_DTYPES:
        case(manifest, dt, values(dt))
    case(manifest, "f64_0d", np.array(3.25))
    case(manifest, "i32_1d", np.arange(5, dtype=np.int32) - 2)
    case(manifest, "f32_3d", np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5)
    case(manifest, "i16_8d", (np.arange(48, dtype=np.int16) - 24).reshape(2, 1, 2, 1, 2, 1, 3, 2))
    case(manifest, "f64_fortran", np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)))
    case(manifest, "c64_fortran", np.asfortranarray(values("complex64", (3, 4))))
    case(manifest, "i32_fortran_big", np.asfortranarray(
        (np.arange(12, dtype=np.int32) * -1000003).reshape(3, 4)).astype(">i4", order="F"))
    for dt in ["float64", "complex128", "float16", "uint16", "int64"]:
        case(manifest, f"{dt}_big", values(dt).astype(np.dtype(dt).newbyteorder(">")))
    half = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 2.0**-24, 2.0**-14,
                     1.0, -2.5, 0.1], dtype=np.float16)
    case(manifest, "f16_special", half)
    stored = np.array([0, 1, 2, 255, 0, 7], dtype=np.uint8)   # bools as any non-zero byte
    case(manifest, "bool_bytes", stored != 0, raw=(stored != 0).astype(np.uint8).tobytes(),
         write=lambda f: f.write(header("|b1", (6,)) + stored.tobytes()))
    v2 = np.arange(6, dtype=np.float32).reshape(3, 2)
    case(manifest, "v2", v2, write=lambda f: np.lib.format.write_array(f, v2, version=(2, 0)))
    case(manifest, "v3", v2, write=lambda f: np.lib.format.write_array(f, v2, version=(3, 0)))
    case(manifest, "empty", np.zeros((0, 3), dtype=np.float32))
    (OUT / "MANIFEST").write_text("# file dtype shape raw-bytes np.save-twin\n"
                                  + "\n".join(manifest) + "\n")


def bad_files():
    bad = OUT / "bad"
    bad.mkdir()
    f64 = npy_bytes(lambda f: np.save(f, np.arange(12.0).reshape(4, 3)))
    four = np.arange(4.0).tobytes()
    files = {
        "truncated": f64[:-20],
        "lying": header("<f8", (100,)) + four,
        "extra": f64 + b"\0" * 8,
        "header_past_end": f64[:8] + (1000).to_bytes(2, "little") + f64[10:128],
        "bad_magic": npy_bytes(lambda f: np.savez(f, a=np.arange(2))),
        "tiny": f64[:4],
        "version99": f64[:6] + b"\x09\x09" + f64[8:],
        "unicode": npy_bytes(lambda f: np.save(f, np.array(["hello", "a"], dtype="<U5"))),
        "object": npy_bytes(lambda f: np.save(f, np.array([1, "a", None], dtype=object),
                                              allow_pickle=True)),
        "structured": npy_bytes(lambda f: np.save(f, np.zeros(2, dtype=[("a", "<f4")]))),
        "datetime": npy_bytes(lambda f: np.save(f, np.array(["2024-01-01"], dtype="M8[D]"))),
        "dims9": npy_bytes(lambda f: np.save(f, np.zeros((1,) * 9, dtype=np.float32))),
        "negative": header("<f8", (3, -1)),
        "overflow": header("<f8", (2**62, 2**62)),
        "no_shape": f64[:10] + f64[10:].replace(b"'shape': (4, 3), ", b"                 "),
    }
    for name, data in files.items():
        (bad / f"{name}.npy").write_bytes(data)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir()
    good_files()
    bad_files()
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"{OUT}: {sum(1 for _ in OUT.rglob('*.*'))} files, {total} bytes (NumPy {np.__version__})")


if __name__ == "__main__":
    main()
