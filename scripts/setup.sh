#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks (compiler, CMake, CLI11, fmt, nlohmann_json, GoogleTest,
# Open MPI), builds bwacct in build/, and runs the first example. The CUDA toolkit is optional: when
# CMake finds nvcc the measurement backend is built; without it bwacct builds model-only.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

mapfile -t missing < <(bwacct_missing_packages)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$(nproc)" --target bwacct
./build/bwacct gemm --m 2160 --k 5120 --n 5120
