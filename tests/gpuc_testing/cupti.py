"""Building reference programs against CUPTI with nvcc (bench/bench_profile.py's
bare CUPTI loop, tests/gpu/profile_gpu.py's self-tracing program)."""
import glob
from pathlib import Path


def cupti_flags(nvcc, tmp, first=()):
    """nvcc's flags to compile and link against CUPTI: its header from the
    toolkit nvcc belongs to, its library from the folders `first` (e.g. a
    bundle's lib/cupti), else the toolkit's; a library found only by its
    soname is linked through a link made in `tmp`. None where either is missing."""
    cuda = Path(nvcc).resolve().parent.parent
    inc = [d for d in (cuda / "include", cuda / "extras/CUPTI/include") if (d / "cupti.h").exists()]
    libs = [Path(d) for d in (*first, cuda / "lib64", cuda / "extras/CUPTI/lib64")
            if glob.glob(str(Path(d) / "libcupti.so*"))]
    if not inc or not libs:
        return None
    lib = libs[0]
    if not (lib / "libcupti.so").exists():  # a bundle's has only its soname
        lib = Path(tmp)
        link = lib / "libcupti.so"
        if not link.exists():
            link.symlink_to(sorted(libs[0].glob("libcupti.so*"))[0])
    return [f"-I{inc[0]}", f"-L{lib}", "-lcupti", f"-Xlinker=-rpath={libs[0]}"]
