# Sourced by setup.sh and test.sh: the Debian packages bwacct builds and tests with, and the CUDA
# toolkit's nvcc put on the PATH when it is installed in its usual place.
BWACCT_PACKAGES=(g++ cmake make libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev libopenmpi-dev openmpi-bin zlib1g-dev libsimdjson-dev librsvg2-bin clang libclang-rt-14-dev python3 zsh)

bwacct_missing_packages() {
  local p
  for p in "${BWACCT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || echo "$p"
  done
}

if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
