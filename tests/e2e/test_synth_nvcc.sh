#!/usr/bin/env bash
# clone.cu compiles with nvcc (skipped, exit 77, when the CUDA toolkit is
# absent): every example's clone at reductions 1, 2, 8 and max, as the
# synthesis checks ask (about a second a compile).
source "$(dirname "$0")/lib.sh"
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
if [ -z "$NVCC" ]; then
  echo "nvcc not found: skipped"
  exit 77
fi
for dir in "$EX"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/launch.json" ] && [ -f "$dir/$name.ptx" ] || continue
  expect_exit 0 "$name: profile" -- "$MINIBENCH" profile "$dir/$name.ptx" \
    --launch "$dir/launch.json" --launch-index 0 -o "$TMP/p.$name"
  prof=$(ls "$TMP/p.$name"/*.0.profile.json | head -1)
  for R in 1 2 8 max; do
    C="$TMP/c.$name.$R"
    expect_exit 0 "$name R=$R: synth" -- "$MINIBENCH" synth "${prof%.profile.json}" --reduction $R -o "$C"
    expect_exit 0 "$name R=$R: nvcc clone.cu" -- "$NVCC" -arch=sm_75 -O2 -o "$C/clone" "$C/clone.cu"
    rm -rf "$C"
  done
done
finish
