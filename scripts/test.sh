#!/usr/bin/env bash
# Runs the whole test suite: a warning-free release build with ctest, the
# same tests built with clang under AddressSanitizer and UBSan, and a short
# libFuzzer run of the PTX parser seeded with the examples.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
fuzz_seconds=${MB_FUZZ_SECONDS:-60}

echo "== release build (gcc, warnings are errors)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMB_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== sanitizer build (clang, ASan + UBSan, warnings are errors)"
CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMB_SANITIZE=ON -DMB_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/../tests/lsan.supp" \
  ctest --output-on-failure -j"$jobs")

echo "== fuzzing the PTX parser for ${fuzz_seconds}s"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DMB_FUZZ=ON -DMB_SANITIZE=ON -DMB_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_ptx_parse
corpus=build-fuzz/fuzz-corpus
mkdir -p "$corpus"
cp examples/*/*.ptx tests/ptx/*.ptx tests/fuzz/regressions/* "$corpus"/ 2>/dev/null || true
# crash inputs go to build-fuzz/, never into the source tree
if ! build-fuzz/tests/fuzz/fuzz_ptx_parse -max_total_time="$fuzz_seconds" -max_len=65536 \
  -rss_limit_mb=4096 -artifact_prefix=build-fuzz/ -print_final_stats=1 "$corpus" \
  >build-fuzz/fuzz.log 2>&1; then
  tail -n 80 build-fuzz/fuzz.log
  echo "fuzz: the parser failed on an input, kept as build-fuzz/crash-*" >&2
  exit 1
fi
tail -n 12 build-fuzz/fuzz.log
echo "fuzz: no crash in ${fuzz_seconds}s"
