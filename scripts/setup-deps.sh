#!/usr/bin/env bash
# Checks that the Debian 12 packages gpuc needs to build and test are
# installed. Missing ones are installed when run as root; otherwise the exact
# apt-get line is printed and the script exits 1.
set -euo pipefail

packages=(
    cmake pkg-config gcc make
    libzmq3-dev libjansson-dev libsodium-dev libpng-dev
    libtcc-dev tcc
)

# python3-venv is only needed when the venv is made from Debian's python3;
# a python3 earlier on PATH (pyenv, a custom build) brings its own venv.
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    packages+=(python3 python3-venv)
fi

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$p")
    fi
done

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
