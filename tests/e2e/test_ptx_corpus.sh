#!/usr/bin/env bash
# Compiles part of the PTX stress corpus with nvcc (debug, line info, fast
# math, sm_75 and sm_90) and checks that minibench parses every file, that
# printing is a fixpoint and that ptxas accepts the printed PTX. Skipped
# (exit 77) when nvcc or ptxas is not installed.
source "$(dirname "$0")/lib.sh"
PATH="$PATH:/usr/local/cuda/bin"
if ! command -v nvcc >/dev/null || ! command -v ptxas >/dev/null; then
  echo "skipping: nvcc/ptxas not found (the corpus is compiled from CUDA sources)"
  exit 77
fi
sources=("$MB_SOURCE_DIR"/tests/corpus/{math_libdevice,globals_calls,atomics_sync,half_bf16}.cu)
variants=("-arch=sm_75 -G" "-arch=sm_75 -lineinfo" "-arch=sm_75 --use_fast_math" "-arch=sm_90 -O3")
for src in "${sources[@]}"; do
  for v in "${variants[@]}"; do
    name="$(basename "$src" .cu).$(echo "$v" | tr -c 'A-Za-z0-9_\n' '_').ptx"
    # shellcheck disable=SC2086
    if ! nvcc $v -ptx "$src" -o "$TMP/$name" 2>"$TMP/nvcc.err"; then
      fail "nvcc $v $src: $(head -1 "$TMP/nvcc.err")"
      continue
    fi
    arch=$(grep -m1 '^\.target' "$TMP/$name" | sed 's/^\.target //; s/,.*//')
    if ! "$MINIBENCH" ptx print "$TMP/$name" -o "$TMP/p1.ptx" 2>"$TMP/err"; then
      fail "parse $name: $(head -1 "$TMP/err")"
      continue
    fi
    "$MINIBENCH" ptx print "$TMP/p1.ptx" -o "$TMP/p2.ptx" && cmp -s "$TMP/p1.ptx" "$TMP/p2.ptx" && pass ||
      fail "printing $name is not a fixpoint"
    ptxas -arch="$arch" "$TMP/p1.ptx" -o "$TMP/out.cubin" 2>"$TMP/ptxas.err" && pass ||
      fail "ptxas rejects printed $name: $(head -2 "$TMP/ptxas.err")"
    "$MINIBENCH" ptx check "$TMP/$name" >/dev/null 2>"$TMP/err" && pass || fail "check $name: $(head -1 "$TMP/err")"
  done
done
finish
