#!/usr/bin/env bash
# Installs what benchmorph needs on a Debian/Ubuntu machine: bubblewrap for the
# sandbox (apt) and the package with its test extras (pip, editable).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if command -v apt-get >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap >/dev/null
else
    echo "install.sh: no apt-get; install bubblewrap with your package manager (benchmorph falls back to rlimits only without it)" >&2
fi
python3 -m pip install -q -e ".[test]"
