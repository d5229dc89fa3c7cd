#!/usr/bin/env bash
# clone.cu compiles with nvcc (skipped, exit 77, when the CUDA toolkit is absent):
# a straight-line kernel, one with nested loops and shared memory, and one
# with 2-D CTAs.
source "$(dirname "$0")/lib.sh"
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
if [ -z "$NVCC" ]; then
  echo "nvcc not found: skipped"
  exit 77
fi
for name in vecadd nested_loops matmul; do
  expect_exit 0 "$name: profile" -- "$MINIBENCH" profile "$EX/$name/$name.ptx" \
    --launch "$EX/$name/launch.json" --launch-index 0 -o "$TMP/p.$name"
  prof=$(ls "$TMP/p.$name"/*.0.profile.json | head -1)
  expect_exit 0 "$name: synth" -- "$MINIBENCH" synth "${prof%.profile.json}" --reduction 2 -o "$TMP/c.$name"
  expect_exit 0 "$name: nvcc clone.cu" -- "$NVCC" -arch=sm_75 -O2 -o "$TMP/c.$name/clone" "$TMP/c.$name/clone.cu"
done
finish
