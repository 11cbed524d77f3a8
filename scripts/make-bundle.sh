#!/usr/bin/env bash
# Makes a relocatable bundle of gpuc for machines without package access
# (GPU nodes of a cluster, batch jobs): the binary, the shared libraries it
# needs that are not part of glibc, libtcc's runtime files and a README.
#
#   scripts/make-bundle.sh BUILD_DIR OUT_DIR
#
# Layout (OUT_DIR/gpuc-VERSION/):
#   bin/gpuc          finds lib/ and lib/kernel/ through its RPATH
#                     ($ORIGIN/../lib:$ORIGIN/../lib/kernel)
#   bin/gpuc-executor the executor process gpuc starts (RPATH $ORIGIN/../lib)
#   lib/*.so.*        what the executor links (libjansson, libsodium)
#   lib/kernel/*.so.* what only the kernel process links: libzmq and what it
#                     pulls in, libstdc++ among it, and libcrypto, which it
#                     loads for Enterprise Gateway's launches. Kept out of the
#                     executor's path, so that C++ cells (compiled by the
#                     node's g++) and CUDA's libraries load the node's own
#                     libstdc++, not this older one
#   lib/gpuc/tcc/     libtcc1.a and TCC's include/ (found beside bin/gpuc)
#   lib/cupti/        libcupti and the perf libraries (from the toolkit that
#                     built it), for %%profile on a GPU
#   include/gpuc.h    the header every host cell is compiled after, for .c
#                     files outside notebooks (`bin/gpuc --include-dir`
#                     prints this folder)
# and OUT_DIR/gpuc-VERSION.tar.gz. CUDA is not bundled: gpuc dlopens the
# node's libcuda, NVRTC, libcudart and cuBLAS at run time, cuFFT and
# cuSOLVER for array FFTs and linear algebra, and cuRAND, cuFFT and
# cuSPARSE for host cells that name them, whose headers come from the
# node's toolkit (docs/gpu.md, "Relocatable bundle"). Nor are the CPU
# backend's OpenBLAS, LAPACKE and FFTW (dlopened too, from the node).
set -euo pipefail
build=${1:?usage: make-bundle.sh BUILD_DIR OUT_DIR}
out=${2:?usage: make-bundle.sh BUILD_DIR OUT_DIR}
gpuc="$build/gpuc"
version=$("$gpuc" --version | awk '{print $2}')
name="gpuc-$version"
dest="$out/$name"
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib/gpuc" "$dest/lib/kernel" "$dest/include"
cp "$gpuc" "$dest/bin/gpuc"
# the executor without the kernel's libraries (gpuc falls back to
# `gpuc executor` when it is missing)
[ -x "$build/gpuc-executor" ] && cp "$build/gpuc-executor" "$dest/bin/gpuc-executor"

# glibc and the loader come from the node (they must match its kernel);
# everything else the binaries link is copied: the executor's libraries to
# lib/, the rest of the kernel's to lib/kernel/.
linked() { ldd "$1" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
        libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|ld-linux*) ;;
        *) echo "$lib" ;;
    esac
done; }
executor_libs=$( [ -x "$build/gpuc-executor" ] && linked "$build/gpuc-executor" || true)
for lib in $executor_libs; do cp -L "$lib" "$dest/lib/"; done
for lib in $(linked "$gpuc"); do
    [ -e "$dest/lib/$(basename "$lib")" ] || cp -L "$lib" "$dest/lib/kernel/"
done
# OpenSSL's libcrypto is not linked but loaded when Enterprise Gateway starts
# gpuc on a node (kernel/jk_seal.c, docs/gateway.md): copied too, for nodes
# without libssl3
crypto=$(ldconfig -p | awk '/libcrypto\.so\.3 .*x86-64/ {print $NF; exit}')
if [ -n "$crypto" ]; then cp -L "$crypto" "$dest/lib/kernel/"; fi

# CUPTI for %%profile on a GPU (backend/cuda/gpu_cupti.c looks in
# lib/cupti/ first): the toolkit's libcupti and the perf libraries its
# counters need, when this machine's toolkit has them
mkdir -p "$dest/lib/cupti"
for dir in /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 /usr/local/cuda/lib; do
    for lib in libcupti.so.13 libnvperf_host.so libnvperf_target.so; do
        [ -e "$dir/$lib" ] && [ ! -e "$dest/lib/cupti/$lib" ] && cp -L "$dir/$lib" "$dest/lib/cupti/"
    done
done
[ -n "$(ls -A "$dest/lib/cupti")" ] || rmdir "$dest/lib/cupti"

tccdir=$(sed -n 's/^#define GPUC_TCC_LIBDIR "\(.*\)"$/\1/p' "$build/generated/gpuc_config.h")
cp -r "$tccdir" "$dest/lib/gpuc/tcc"
cp "$build/include/gpuc.h" "$dest/include/gpuc.h"

cat > "$dest/README" <<TXT
gpuc $version, a relocatable bundle (Linux x86-64, glibc 2.36 or newer).

  bin/gpuc --version
  bin/gpuc run NOTEBOOK.ipynb -o OUT.ipynb      # headless, no Python needed
  bin/gpuc install --user                       # the Jupyter kernelspec
  gcc -I\$(bin/gpuc --include-dir) -fsyntax-only x.c   # x.c includes gpuc.h

Move the folder anywhere: bin/gpuc finds lib/ beside it. GPU work uses the
node's NVIDIA driver and CUDA 13 or 12 (libcuda.so.1, libnvrtc, libcudart;
libcublas, libcusolver and libcufft for array linear algebra and FFTs;
libcurand, libcufft, libcusparse and their headers for host cells that use
them), loaded at run time; without them host C cells still run.
TXT
tar -C "$out" -czf "$out/$name.tar.gz" "$name"
echo "bundle: $dest ($(du -sh "$dest" | cut -f1)), $out/$name.tar.gz"
