#!/bin/bash
# End-to-end tests of 'minibench inspect': listings, JSON, clang arguments,
# output files and the error paths with their exit codes.
. "$(dirname "$0")/lib.sh"
CU="$MB_SOURCE_DIR/tests/cuda"

# Help and usage errors.
expect_exit 0 "inspect --help" -- "$MINIBENCH" inspect --help
expect_grep "$TMP/out" "Usage: minibench inspect" "help text"
expect_grep "$TMP/out" "CLANG_ARGS" "help names the clang pass-through"
expect_exit 2 "no file" -- "$MINIBENCH" inspect
expect_grep "$TMP/err" "expected one CUDA source file" "missing file message"
expect_exit 2 "two files" -- "$MINIBENCH" inspect "$EX/vecadd/vecadd.cu" "$EX/matmul/matmul.cu"
expect_exit 2 "unknown option" -- "$MINIBENCH" inspect --frobnicate "$EX/vecadd/vecadd.cu"
expect_grep "$TMP/err" "unknown option '--frobnicate'" "unknown option message"

# Every example lists its kernels and launches.
for cu in "$EX"/*/*.cu; do
  name=$(basename "$cu" .cu)
  expect_exit 0 "inspect $name" -- "$MINIBENCH" inspect "$cu"
  expect_grep "$TMP/out" "^kernel " "$name lists a kernel"
  expect_grep "$TMP/out" "^launch .*<<<.*>>>\(" "$name lists a launch"
done

# A text listing, checked by hand.
expect_exit 0 "inspect vecadd" -- "$MINIBENCH" inspect "$EX/vecadd/vecadd.cu"
expect_grep "$TMP/out" "^kernel vecadd  at .*vecadd.cu:11:28$" "vecadd kernel place"
expect_grep "$TMP/out" "0  a  const float \*  \(pointer to const float\)" "vecadd first parameter"
expect_grep "$TMP/out" "3  n  unsigned int$" "vecadd last parameter"
expect_grep "$TMP/out" "^launch vecadd<<<grid, block>>>\(d_a, d_b, d_c, n\)$" "vecadd launch text"
expect_grep "$TMP/out" "in main at .*vecadd.cu:40:5, entry vecadd$" "vecadd launch place"

# JSON: valid, deterministic, with the documented keys.
expect_exit 0 "inspect --json" -- "$MINIBENCH" inspect --json "$EX/nested_loops/nested_loops.cu"
cp "$TMP/out" "$TMP/first.json"
expect_grep "$TMP/out" '"shared_bytes": "shared"' "three-expression configuration"
expect_grep "$TMP/out" '"dynamic": true' "dynamic shared array"
if command -v python3 >/dev/null; then
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kernels"][0]["name"]=="conv1d_blocked"; assert len(d["launches"])==1' "$TMP/out"; then
    pass
  else
    fail "JSON does not parse or lacks the kernel"
  fi
fi
expect_exit 0 "inspect --json again" -- "$MINIBENCH" inspect --json "$EX/nested_loops/nested_loops.cu"
if cmp -s "$TMP/out" "$TMP/first.json"; then pass; else fail "JSON differs between runs"; fi

# -o writes the file; a failure leaves no file behind.
expect_exit 0 "inspect -o" -- "$MINIBENCH" inspect --json -o "$TMP/inspect.json" "$CU/inspect_launches.cu"
expect_grep "$TMP/inspect.json" '"in_macro": true' "launch inside a macro"
expect_grep "$TMP/inspect.json" '"form": "cudaLaunchKernel"' "cudaLaunchKernel launch"
expect_exit 1 "inspect -o on a bad file" -- "$MINIBENCH" inspect --json -o "$TMP/bad.json" "$CU/bad_header.cuh"
if [ -e "$TMP/bad.json" ]; then fail "output written for a file with errors"; else pass; fi

# Clang arguments after "--".
printf '#ifndef WIDTH\n#error WIDTH is not defined\n#endif\n__global__ void k(float *p) { __shared__ float s[WIDTH]; s[0] = p[0]; p[0] = s[0]; }\n' >"$TMP/defs.cu"
expect_exit 1 "inspect without -D" -- "$MINIBENCH" inspect "$TMP/defs.cu"
expect_grep "$TMP/err" "defs.cu:2:2: error: WIDTH is not defined" "the #error with its place"
expect_exit 0 "inspect with -D" -- "$MINIBENCH" inspect "$TMP/defs.cu" -- -DWIDTH=40
expect_grep "$TMP/out" "s  __shared__ float\[WIDTH\]  160 bytes" "the -D value reaches the array size"
expect_exit 0 "inspect with -I" -- "$MINIBENCH" inspect "$TMP/defs.cu" -- -DWIDTH=8 -I "$CU/include" -include kernel_header.cuh
expect_grep "$TMP/out" "^kernel from_header  at .*kernel_header.cuh:4:" "kernel from a header found through -I"

# Errors: a missing file, a syntax error with its place, a NUL byte.
expect_exit 1 "missing file" -- "$MINIBENCH" inspect "$TMP/does_not_exist.cu"
expect_grep "$TMP/err" "does_not_exist.cu: error: cannot open" "missing file message"
printf '__global__ void k(int *p)\n{\n    p[0] = 1\n}\n' >"$TMP/syntax.cu"
expect_exit 1 "syntax error" -- "$MINIBENCH" inspect "$TMP/syntax.cu"
expect_grep "$TMP/err" "^minibench: .*syntax.cu:3:13: error: expected ';'" "syntax error place"
printf 'int a;\nint b;\0\n' >"$TMP/nul.cu"
expect_exit 1 "NUL byte" -- "$MINIBENCH" inspect "$TMP/nul.cu"
expect_grep "$TMP/err" "nul.cu:2:7: error: NUL byte" "NUL byte place"
expect_exit 1 "a directory" -- "$MINIBENCH" inspect "$TMP"

finish
