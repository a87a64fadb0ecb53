#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks (compiler, CMake, CLI11, fmt, nlohmann_json, GoogleTest,
# Open MPI for multi-process runs),
# builds bwacct in build/, and runs the first example. The CUDA toolkit is optional: when CMake finds it
# (nvcc on the PATH) it is used; without it bwacct builds model-only.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake make libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# nvcc is usually outside the default PATH; let CMake's FindCUDAToolkit see it when it is installed.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$(nproc)" --target bwacct
./build/bwacct gemm --m 2160 --k 5120 --n 5120
