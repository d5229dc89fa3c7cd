#!/usr/bin/env bash
# End-to-end tests of 'minibench profile -o DIR -- PROGRAM': every launch of
# an nvcc-built program is profiled as <kernel>.<n> (profile JSON + DFSG DOT)
# and listed in index.json, with selection by kernel regex and launch index,
# a cap, aggregation of repeated launches, and the program's own output and
# exit status kept. Skipped (77) without nvcc.
source "$(dirname "$0")/lib.sh"

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "skipped: nvcc not found (set NVCC); test_cudart_profile covers profile mode without it"
  exit 77
fi
LIB="$(dirname "$MINIBENCH")/lib/libcudart.so.13"
if nm -D "$LIB" 2>/dev/null | grep -q " U __asan_init"; then
  echo "skipped: a sanitizer build's libcudart.so.13 needs the sanitizer runtime in the program; run in a plain build"
  exit 77
fi
BIN="$TMP/bin"
mkdir -p "$BIN"
for name in nw reduce_seq vecadd; do
  "$NVCC" -arch=sm_75 -O3 -cudart shared -o "$BIN/$name" "$EX/$name/$name.cu" "$EX/$name/${name}_ref.c" ||
    fail "nvcc $name"
done
count() { ls "$1" | grep -c -- "$2"; }
launches_in() { tr -d ' \n' <"$1/index.json" | grep -o '"index":[0-9]*' | wc -l; }

# --- usage
expect_exit 0 "profile --help" -- "$MINIBENCH" profile --help
expect_grep "$TMP/out" "minibench profile -o PROFDIR \[options\] -- PROGRAM" "help shows the -- form"
expect_exit 2 "profile -- without -o" -- "$MINIBENCH" profile -- "$BIN/vecadd"
expect_grep "$TMP/err" "-o PROFDIR is required" "missing -o is named"
expect_exit 2 "profile -- with a bad regex" -- "$MINIBENCH" profile -o "$TMP/p" --kernel '(' -- "$BIN/vecadd"
expect_grep "$TMP/err" "--kernel: bad regular expression at offset 1" "bad regex is named"
expect_exit 2 "profile -- --max-profiles 0" -- "$MINIBENCH" profile -o "$TMP/p" --max-profiles 0 -- "$BIN/vecadd"

# --- every launch of a multi-launch program (11 launches of one kernel)
expect_exit 0 "profile nw" -- "$MINIBENCH" profile -o "$TMP/nw" -- "$BIN/nw"
expect_grep "$TMP/out" "^PASS$" "the program's own output and verdict are kept"
[ "$(count "$TMP/nw" 'profile.json$')" -eq 11 ] && pass || fail "nw: 11 profiles expected, got $(count "$TMP/nw" 'profile.json$')"
[ "$(count "$TMP/nw" 'dfsg.dot$')" -eq 11 ] && pass || fail "nw: 11 DFSGs expected"
[ "$(launches_in "$TMP/nw")" -eq 11 ] && pass || fail "nw: index lists 11 launches"
expect_grep "$TMP/nw/nw_tile_wavefront.10.profile.json" '"kernel": "nw_tile_wavefront"' "profile names its kernel"
expect_grep "$TMP/nw/nw_tile_wavefront.0.dfsg.dot" "digraph" "DFSG is a graph"
expect_grep "$TMP/nw/index.json" "\"program\": \".*/nw\"" "index names the program"
[ "$(count "$TMP/nw" 'input[0-9]*\.bin$')" -ge 11 ] && pass || fail "nw: each launch's input expected beside its profile"
expect_grep "$TMP/nw/index.json" '"nw_tile_wavefront.3.input0.bin"' "index lists the inputs"
# the profile renders like any other
expect_exit 0 "render a program's DFSG" -- "$MINIBENCH" render "$TMP/nw/nw_tile_wavefront.3.dfsg.dot" -o "$TMP/nw3.svg"

# --- selection: kernel regex, launch index, cap
expect_exit 0 "profile reduce_seq by kernel" -- "$MINIBENCH" profile -o "$TMP/rs" --kernel 'ILj256E' -- "$BIN/reduce_seq"
[ "$(count "$TMP/rs" 'profile.json$')" -eq 1 ] && pass || fail "reduce_seq: one 256-thread kernel launch expected"
expect_grep "$TMP/rs/index.json" '"kernel": "_Z10reduce_seqILj256EEvPKfPfj"' "regex picks the template instance"
expect_exit 0 "profile nw launch 4" -- "$MINIBENCH" profile -o "$TMP/nw4" --launch-index 4 -- "$BIN/nw"
[ -f "$TMP/nw4/nw_tile_wavefront.4.profile.json" ] && [ "$(count "$TMP/nw4" 'profile.json$')" -eq 1 ] && pass ||
  fail "--launch-index 4 profiles exactly launch 4"
expect_exit 0 "profile nw capped" -- "$MINIBENCH" profile -o "$TMP/nwcap" --max-profiles 3 -- "$BIN/nw"
[ "$(count "$TMP/nwcap" 'profile.json$')" -eq 3 ] && [ -f "$TMP/nwcap/nw_tile_wavefront.2.profile.json" ] && pass ||
  fail "--max-profiles 3 profiles launches 0-2"
expect_exit 1 "no launch matches" -- "$MINIBENCH" profile -o "$TMP/none" --kernel nomatch -- "$BIN/vecadd"
expect_grep "$TMP/err" "no launch that matches the selection" "empty selection is an error"
expect_grep "$TMP/out" "^PASS$" "but the program still ran"

# --- aggregation: one profile for all 11 launches, counts summed
expect_exit 0 "profile nw aggregated" -- "$MINIBENCH" profile -o "$TMP/nwagg" --aggregate -- "$BIN/nw"
[ "$(count "$TMP/nwagg" 'profile.json$')" -eq 1 ] && pass || fail "aggregate: one profile expected"
sum_sep=$(tr -d ' \n' <"$TMP/nw/index.json" | grep -o '"thread_insts":[0-9]*' | cut -d: -f2 | awk '{s += $1} END {print s}')
sum_agg=$(tr -d ' \n' <"$TMP/nwagg/index.json" | grep -o '"thread_insts":[0-9]*' | cut -d: -f2)
[ "$sum_sep" = "$sum_agg" ] && pass || fail "aggregate thread instructions $sum_agg != sum of launches $sum_sep"
expect_grep "$TMP/nwagg/index.json" '"launches": \[' "aggregate lists its launches"

# --- deterministic: the same run gives byte-identical profiles
expect_exit 0 "profile nw again" -- "$MINIBENCH" profile -o "$TMP/nw_again" -- "$BIN/nw"
cmp -s "$TMP/nw/nw_tile_wavefront.5.profile.json" "$TMP/nw_again/nw_tile_wavefront.5.profile.json" && pass ||
  fail "profiles differ between identical runs"
finish
