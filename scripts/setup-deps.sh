#!/usr/bin/env bash
# Checks that the Debian 12 packages gpuc needs to build and test are
# installed. Missing ones are installed when run as root; otherwise the exact
# apt-get line is printed and the script exits 1.
set -euo pipefail

# g++: the CUDA simulator compiles kernel cells with it (docs/simulator.md), and
# C++ host cells are compiled with it (docs/cells.md)
packages=(
    cmake pkg-config gcc g++ make
    libzmq3-dev libjansson-dev libsodium-dev libpng-dev
    libssl-dev     # OpenSSL's headers: Enterprise Gateway's sealed launch (kernel/jk_seal.c)
    libtcc-dev tcc
    libopenblas0   # the CPU backend's BLAS (ga_matmul), loaded with dlopen at first use
    liblapacke     # the CPU backend's LAPACK (ga_solve, ga_svd...), loaded with dlopen at first use
    libfftw3-single3 libfftw3-double3 # the CPU backend's FFTs (ga_fft...), dlopen at first use
)

# clang and its libFuzzer runtime build the fuzz targets (tests/fuzz/);
# chromium is the browser of the JupyterLab test (tests/lab/, driven by
# Playwright from PyPI, which downloads no browser of its own); slurm-wlm
# and munge run the one-node Slurm cluster of tests/cluster/;
# node-configurable-http-proxy is JupyterHub's proxy (tests/hosting/,
# deploy/jupyterhub/); openssh-server is the sshd that tests/gateway/
# starts on loopback for Enterprise Gateway's remote kernels
# (docs/gateway.md). Installed when run as root, else only named; without
# them `make test` reports the fuzz runs, the Lab test, the cluster, hub
# and gateway tests skipped.
optional=(clang libclang-rt-14-dev chromium slurm-wlm munge node-configurable-http-proxy openssh-server)

# python3-venv is only needed when the venv is made from Debian's python3;
# a python3 earlier on PATH (pyenv, a custom build) brings its own venv.
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    packages+=(python3 python3-venv)
fi

installed() {
    [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == "install ok installed" ]]
}

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
optional_missing=()
for p in "${optional[@]}"; do
    installed "$p" || optional_missing+=("$p")
done
if ((${#optional_missing[@]} > 0)); then
    if [[ $(id -u) -eq 0 ]]; then
        missing+=("${optional_missing[@]}")
    else
        echo "setup-deps: optional, for the fuzz targets, the browser test, the Slurm, hub and gateway tests: sudo apt-get install -y ${optional_missing[*]}" >&2
    fi
fi

if ((${#missing[@]} == 0)); then
    echo "setup-deps: all Debian packages present"
    exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
    echo "setup-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
    exit 0
fi

echo "setup-deps: missing Debian packages: ${missing[*]}" >&2
echo "Install them with:" >&2
echo "    sudo apt-get install -y ${missing[*]}" >&2
exit 1
