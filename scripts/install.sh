#!/usr/bin/env bash
# Installs every dependency of minibench from Debian packages and builds it
# into build/ (the binary is build/minibench). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config   # compiler and build system
  clang libclang-rt-14-dev           # second compiler, libFuzzer and sanitizer runtimes
  libclang-dev                       # CUDA source inspection
  graphviz libgraphviz-dev           # DOT through cgraph, SVG through gvc
  libpcre2-dev                       # regular expressions
  libjansson-dev                     # JSON
  libcmocka-dev                      # unit tests
  libgsl-dev                         # numerics
  libzstd-dev liblz4-dev             # compressed device code in fat binaries (cudart)
  valgrind                           # instruction counts for benchmarks
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "install.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo "install.sh: built build/minibench"
