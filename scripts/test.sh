#!/usr/bin/env bash
# Builds bwacct with its tests and runs the whole suite (unit + end-to-end, the simulated measurement
# pipeline and a two-rank MPI run). Runs scripts/setup.sh first when packages are missing. Extra
# arguments go to CMake; BWACCT_BUILD_DIR picks the build directory (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
build=${BWACCT_BUILD_DIR:-build}

if [[ -n "$(bwacct_missing_packages)" ]]; then
  echo "test: packages missing; running scripts/setup.sh first" >&2
  scripts/setup.sh >/dev/null
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBWACCT_TESTS=ON "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
