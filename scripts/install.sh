#!/usr/bin/env bash
# Installs what benchmorph needs on a Debian/Ubuntu machine: bubblewrap for the sandbox, chromium for
# the report's browser tests and python3-venv (apt), then a virtualenv `.venv` in the checkout holding
# the package with the embedded model, the CTF-Instruct extra (datasets), the Ray backend, torch (CPU) and
# the test extras (pip, editable).
#
# A virtualenv, not the system Python: Debian 12+ and Ubuntu 23.04+ mark their Python externally
# managed (PEP 668) and refuse `pip install` outside one. PYTHON picks the interpreter (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if command -v apt-get >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap chromium python3-venv >/dev/null
else
    echo "install.sh: no apt-get; install bubblewrap (and chromium for the tests) with your package manager: benchmorph refuses to run model code without it unless told --sandbox rlimits" >&2
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "install.sh: benchmorph needs Python 3.11 or newer; $("$PYTHON" --version 2>&1) found (set PYTHON=/path/to/python3.11)" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
# llama-cpp-python compiles llama.cpp: skip its examples, tests and multimodal
# tools (about 3 minutes on 2 cores instead of 10). Not -march=native: on CPUs with
# AMX (Sapphire Rapids and later, often virtualized) the native build routes
# quantized matmuls through ggml's AMX backend, which segfaults on the first decode
# there (ggml-org/llama.cpp#20824); a portable AVX2 build runs everywhere.
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
LLAMA_CPU="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DMTMD_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF $LLAMA_CPU}"
# Built from source, never from pip's wheel cache: a wheel cached by an earlier native build would bring
# the crash back. The wheel this script builds is kept in a folder named by its build flags
# (BENCHMORPH_WHEELS, default ~/.cache/benchmorph/wheels), so a second checkout or a reinstall takes
# seconds, not minutes; only this script writes there. An existing native (AMX) build in .venv is
# replaced the same way.
LLAMA_REQ="llama-cpp-python>=0.3.2"
WHEELS="${BENCHMORPH_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/benchmorph/wheels}/llama-$(printf '%s' "$CMAKE_ARGS" | sha256sum | cut -c1-12)"
llama_wheel() {  # sets LLAMA_WHEEL to this build's wheel, building it the first time
    LLAMA_WHEEL=$(ls "$WHEELS"/llama_cpp_python-*.whl 2>/dev/null | head -n 1 || true)
    if [ -z "$LLAMA_WHEEL" ]; then
        mkdir -p "$WHEELS"
        .venv/bin/python -m pip wheel -q --disable-pip-version-check --no-cache-dir --no-deps -w "$WHEELS" "$LLAMA_REQ"
        LLAMA_WHEEL=$(ls "$WHEELS"/llama_cpp_python-*.whl | head -n 1)
    fi
}
if ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
    llama_wheel
    .venv/bin/python -m pip install -q --disable-pip-version-check "$LLAMA_WHEEL[server]"
elif .venv/bin/python -c 'import llama_cpp, sys; sys.exit("AMX" not in llama_cpp.llama_print_system_info().decode())' 2>/dev/null; then
    llama_wheel
    .venv/bin/python -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$LLAMA_WHEEL"
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test,local,instruct,ray]"
# The torch extra (the trained memoriser's smoke test), pinned to the CPU build this project's machines
# carry as a local wheel: an unpinned torch from PyPI would bring gigabytes of CUDA libraries.
if ! .venv/bin/python -c 'import torch' 2>/dev/null; then
    .venv/bin/python -m pip install -q --disable-pip-version-check "torch==2.13.0"
fi
echo "install.sh: installed into $(pwd)/.venv (run .venv/bin/benchmorph, or activate it: source .venv/bin/activate)"
