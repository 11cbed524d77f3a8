#!/usr/bin/env bash
# Creates the test/benchmark virtual environment in build/venv and installs
# the pinned versions of tests/requirements.txt. Skipped when the stamp file
# is newer than requirements.txt.
#   usage: scripts/setup-venv.sh [VENV_DIR]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-$root/build/venv}
req=$root/tests/requirements.txt
stamp=$venv/.requirements.stamp

if [[ -f "$stamp" && "$stamp" -nt "$req" && -x "$venv/bin/python" ]]; then
    echo "setup-venv: $venv is up to date"
    exit 0
fi

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

echo "setup-venv: creating $venv with $python ($("$python" --version 2>&1))"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
touch "$stamp"
echo "setup-venv: installed $(grep -c "==" "$req") pinned packages into $venv"
