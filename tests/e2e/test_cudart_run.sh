#!/usr/bin/env bash
# End-to-end tests of 'minibench run -- PROGRAM': the examples' host programs
# and the test programs, built with 'nvcc -cudart shared', run on minibench's
# libcudart.so.13. Every example prints PASS (its own comparison with the C
# reference) with the launches it made executed by minibench; a fault and an
# unimplemented call are reported with the runtime's error names and the
# library's message. Skipped (77) without nvcc.
source "$(dirname "$0")/lib.sh"

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "skipped: nvcc not found (set NVCC); the C unit tests cover the library without it"
  exit 77
fi
LIB="$(dirname "$MINIBENCH")/lib/libcudart.so.13"
if nm -D "$LIB" 2>/dev/null | grep -q " U __asan_init"; then
  echo "skipped: a sanitizer build's libcudart.so.13 needs the sanitizer runtime in the program; run in a plain build"
  exit 77
fi
CT="$MB_SOURCE_DIR/tests/cudart"
BIN="$TMP/bin"
mkdir -p "$BIN"
build() { # build NAME SOURCES...
  local name=$1; shift
  "$NVCC" -arch=sm_75 -O3 -cudart shared -o "$BIN/$name" "$@" 2>"$TMP/nvcc.err" ||
    { fail "nvcc $name"; sed 's/^/  nvcc: /' "$TMP/nvcc.err" | head -5 >&2; }
}

# --- usage
expect_exit 0 "run --help" -- "$MINIBENCH" run --help
expect_grep "$TMP/out" "minibench run \[options\] -- PROGRAM" "help shows the -- form"
expect_exit 2 "run -- without a program" -- "$MINIBENCH" run --
expect_grep "$TMP/err" "expected a program after '--'" "missing program is named"
expect_exit 2 "run --threads 0 --" -- "$MINIBENCH" run --threads 0 -- /bin/true
expect_exit 127 "run -- missing program" -- "$MINIBENCH" run -- "$TMP/no-such-program"
expect_grep "$TMP/err" "cannot run .*no-such-program: No such file" "missing program is named"
# the exit status is the program's own
expect_exit 3 "exit status passes through" -- "$MINIBENCH" run -- sh -c 'exit 3'

# --- every example
for dir in "$EX"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/$name.cu" ] || continue
  build "$name" "$dir/$name.cu" "$dir/${name}_ref.c"
  [ -x "$BIN/$name" ] || continue
  expect_exit 0 "example $name" -- "$MINIBENCH" run --verbose -- "$BIN/$name"
  expect_grep "$TMP/out" "^PASS$" "example $name passes its own check"
  expect_grep "$TMP/err" "minibench cudart: launch 0: " "example $name ran its kernels on minibench"
done
# arguments reach the program; several host threads give the same answer
expect_exit 0 "vecadd with arguments" -- "$MINIBENCH" run --threads 2 -- "$BIN/vecadd" 5000 128 9
expect_grep "$TMP/out" "vecadd: n=5000 grid=40 block=128 mismatches=0" "vecadd saw its arguments"

# --- the wider API: symbols, pitched/2D, pinned/mapped/managed, streams, events, properties
build api_app "$CT/api_app.cu"
expect_exit 0 "api_app" -- "$MINIBENCH" run -- "$BIN/api_app"
expect_grep "$TMP/out" "^PASS$" "api_app passes every check"
if grep -q "^FAILED" "$TMP/out"; then fail "api_app: $(grep '^FAILED' "$TMP/out" | head -3)"; fi

# --- texture objects over linear and pitched memory
build textures_app "$CT/textures_app.cu"
expect_exit 0 "textures_app" -- "$MINIBENCH" run -- "$BIN/textures_app"
expect_grep "$TMP/out" "texture sums: 0 wrong \(cudaSuccess\)" "texture fetches are exact"
expect_grep "$TMP/out" "array texture sums: 0 wrong \(cudaSuccess, cudaSuccess\)" "textures over CUDA arrays"
expect_grep "$TMP/out" "^PASS$" "textures_app passes"

# --- device printf: the kernel's lines, in thread order, before the host's
build printf_app "$CT/printf_app.cu"
expect_exit 0 "printf_app" -- "$MINIBENCH" run -- "$BIN/printf_app"
expect_grep "$TMP/out" "^t2 n=7 f=3.000000 ll=7000000000 c=C s=dev  3.14\|2   \|ff%   7\|de$" "device printf formats every conversion"
[ "$(grep -c '^plain line from block' "$TMP/out")" -eq 2 ] && pass || fail "one plain line per block"
[ "$(tail -1 "$TMP/out")" = "host after the kernel: cudaSuccess" ] && pass || fail "device output precedes the host's"

# --- failures
build errors_app "$CT/errors_app.cu"
expect_exit 2 "a kernel fault" -- "$MINIBENCH" run -- "$BIN/errors_app" fault
expect_grep "$TMP/out" "cudaGetLastError\(\) -> cudaErrorIllegalAddress \(700\)" "fault is cudaErrorIllegalAddress"
expect_grep "$TMP/out" "message: an illegal memory access was encountered" "fault message"
expect_grep "$TMP/err" "kernel fault in launch 0: errors_app.fatbin0.sm_75.ptx:[0-9]+:1: error: kernel _Z14write_past_endPii, block \(1,0,0\), thread \(127,0,0\): out-of-bounds global store" "fault report names kernel, block, thread, PTX line"
expect_exit 2 "an unimplemented call" -- "$MINIBENCH" run -- "$BIN/errors_app" unimplemented
expect_grep "$TMP/out" "cudaGraphCreate\(&graph, 0\) -> cudaErrorNotSupported \(801\)" "unimplemented call returns cudaErrorNotSupported"
expect_grep "$TMP/err" "minibench cudart: cudaGraphCreate is not implemented" "unimplemented call is named"
expect_exit 2 "a failed assert" -- "$MINIBENCH" run -- "$BIN/errors_app" assert
expect_grep "$TMP/out" "cudaDeviceSynchronize\(\) -> cudaErrorAssert \(710\)" "assert is cudaErrorAssert"
expect_grep "$TMP/err" "errors_app.cu:[0-9]+: void check_positive\(const int \*\): block: \[0,0,0\], thread: \[5,0,0\] Assertion \`a\[threadIdx.x\] > 0\` failed." "the assertion is printed as the hardware does"

# --- a program with SASS only cannot run: the message says why
"$NVCC" -gencode arch=compute_75,code=sm_75 -cudart shared -o "$BIN/sass_only" "$EX/vecadd/vecadd.cu" "$EX/vecadd/vecadd_ref.c" 2>/dev/null
expect_exit 2 "SASS-only program" -- "$MINIBENCH" run -- "$BIN/sass_only" 1000
expect_grep "$TMP/err" "holds no PTX, only SASS for sm_75" "SASS-only fat binary is explained"
expect_grep "$TMP/err" "no kernel image is available for execution on the device" "and reported as the runtime does"
# ... unless the PTX is given
expect_exit 0 "SASS-only program with --ptx" -- "$MINIBENCH" run --ptx "$EX/vecadd/vecadd.ptx" -- "$BIN/sass_only" 1000
expect_grep "$TMP/out" "^PASS$" "--ptx supplies the device code"

# --- a program linked with the static runtime is pointed out
"$NVCC" -arch=sm_75 -o "$BIN/static_vecadd" "$EX/vecadd/vecadd.cu" "$EX/vecadd/vecadd_ref.c" 2>/dev/null
"$MINIBENCH" run -- "$BIN/static_vecadd" 1000 >"$TMP/out" 2>"$TMP/err"
expect_grep "$TMP/err" "does not load libcudart.so.13; build it with 'nvcc -cudart shared'" "static runtime warning"
finish
