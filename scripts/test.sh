#!/usr/bin/env bash
# Builds bwacct with its tests and runs the whole suite (unit + end-to-end). Needs scripts/setup.sh's
# packages; installs them first when they are missing. Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BWACCT_BUILD_DIR:-build}

for p in g++ cmake make libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev libopenmpi-dev openmpi-bin; do
  if ! dpkg -s "$p" >/dev/null 2>&1; then
    echo "test: $p is missing; running scripts/setup.sh first" >&2
    scripts/setup.sh >/dev/null
    break
  fi
done
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBWACCT_TESTS=ON "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
