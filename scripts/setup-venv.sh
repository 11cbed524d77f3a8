#!/usr/bin/env bash
# Creates the test/benchmark virtual environment in build/venv and installs
# the pinned versions of tests/requirements.txt, then the papermill
# translator python/gpuc_papermill, and Enterprise Gateway's own venv beside
# it (VENV_DIR/../eg-venv, from tests/requirements-gateway.txt; EG 3.3 pins
# older Jupyter packages than the tests use). Each step is skipped when its
# stamp file is newer than what it installs.
#   usage: scripts/setup-venv.sh [VENV_DIR]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-$root/build/venv}
req=$root/tests/requirements.txt
stamp=$venv/.requirements.stamp
plugin=$root/python/gpuc_papermill
plugin_stamp=$venv/.gpuc_papermill.stamp
eg_venv=$(dirname "$venv")/eg-venv
eg_req=$root/tests/requirements-gateway.txt
eg_stamp=$eg_venv/.requirements.stamp

# papermill looks parameter translators up in its own process: the venv's
# papermill gets gpuc's from this package (docs/frontends.md)
install_plugin() {
    if [[ -f "$plugin_stamp" && -z $(find "$plugin" -newer "$plugin_stamp" -type f \
            -not -path '*/__pycache__/*' -not -path '*.egg-info*' -not -path '*/build/*') ]]; then
        return 0
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$plugin"
    touch "$plugin_stamp"
    echo "setup-venv: installed the papermill translator python/gpuc_papermill"
}

# Enterprise Gateway for tests/gateway/ (docs/gateway.md), in a venv of its own.
install_gateway() {
    if [[ -f "$eg_stamp" && "$eg_stamp" -nt "$eg_req" && -x "$eg_venv/bin/python" ]]; then
        return 0
    fi
    rm -rf "$eg_venv"
    "$python" -m venv "$eg_venv"
    "$eg_venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$eg_req"
    touch "$eg_stamp"
    echo "setup-venv: installed Enterprise Gateway into $eg_venv"
}

# python3 on PATH first (pyenv on the dev machines), Debian's as a fallback.
python=
for candidate in "$(command -v python3 || true)" /usr/bin/python3; do
    if [[ -n "$candidate" ]] && "$candidate" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        python=$candidate
        break
    fi
done
if [[ -z "$python" ]]; then
    echo "setup-venv: no python3 with the venv module (sudo apt-get install -y python3-venv)" >&2
    exit 1
fi

if [[ -f "$stamp" && "$stamp" -nt "$req" && -x "$venv/bin/python" ]]; then
    install_plugin
    install_gateway
    echo "setup-venv: $venv is up to date"
    exit 0
fi

echo "setup-venv: creating $venv with $python ($("$python" --version 2>&1))"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
touch "$stamp"
rm -f "$plugin_stamp"
install_plugin
install_gateway
echo "setup-venv: installed $(grep -c "==" "$req") pinned packages into $venv"
