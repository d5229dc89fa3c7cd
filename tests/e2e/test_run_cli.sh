#!/usr/bin/env bash
# End-to-end tests of 'minibench run': every example's launch manifest runs
# and writes its outputs, results do not depend on --threads, usage errors
# exit 2, bad manifests exit 1 naming the JSON path or line:column, and
# faults of the simulated program exit 1 naming kernel, block, thread, PTX
# line and address, without leaving output files behind.
source "$(dirname "$0")/lib.sh"

# u32/s32 values of a binary file, one per line
words() { od -An -v -t "$1" "$2" | tr -s ' ' '\n' | sed '/^$/d'; }
# bytes of one buffer as listed in index.json: index_bytes DIR NAME
index_bytes() {
  tr -d '\n ' <"$1/index.json" | grep -oE "\{\"name\":\"$2\"[^}]*\}" | grep -oE '"bytes":[0-9]+' | cut -d: -f2
}

# --- help and usage errors (exit 2)
expect_exit 0 "run --help" -- "$MINIBENCH" run --help
expect_grep "$TMP/out" "Usage: minibench run FILE.ptx --launch" "run help text"
expect_grep "$TMP/out" "--threads N" "run help lists --threads"
VA="$EX/vecadd/vecadd.ptx"
VJ="$EX/vecadd/launch.json"
expect_exit 2 "run without --launch" -- "$MINIBENCH" run "$VA"
expect_grep "$TMP/err" "--launch L.json is required" "missing --launch is named"
expect_exit 2 "run without a PTX file" -- "$MINIBENCH" run --launch "$VJ"
expect_grep "$TMP/err" "expected one PTX file" "missing PTX file is named"
expect_exit 2 "run with two PTX files" -- "$MINIBENCH" run "$VA" "$VA" --launch "$VJ"
expect_exit 2 "run --launch without value" -- "$MINIBENCH" run "$VA" --launch
for bad in -1 abc 2x 1025 99999999999999999999; do
  expect_exit 2 "run --threads $bad" -- "$MINIBENCH" run "$VA" --launch "$VJ" --threads "$bad"
  expect_grep "$TMP/err" "--threads needs a whole number from 1 to 1024, not '$bad'" "--threads $bad is named"
done
expect_exit 2 "run --threads 0" -- "$MINIBENCH" run "$VA" --launch "$VJ" --threads 0
expect_grep "$TMP/err" "--threads needs a whole number from 1 to 1024, not '0'" "--threads 0 is refused"
expect_exit 2 "run --max-insts 0" -- "$MINIBENCH" run "$VA" --launch "$VJ" --max-insts 0
expect_exit 2 "run --max-insts x" -- "$MINIBENCH" run "$VA" --launch "$VJ" --max-insts x
expect_exit 2 "run --stack 0" -- "$MINIBENCH" run "$VA" --launch "$VJ" --stack 0
expect_exit 2 "run unknown option" -- "$MINIBENCH" run "$VA" --launch "$VJ" --bogus
expect_grep "$TMP/err" "unknown option '--bogus'" "unknown option is named"
[ ! -s "$TMP/out" ] && pass || fail "a usage error printed results on stdout"

# --- every example's manifest
n_examples=0
for ptx in "$EX"/*/*.ptx; do
  dir=$(dirname "$ptx")
  name=$(basename "$ptx" .ptx)
  n_examples=$((n_examples + 1))
  manifest="$dir/launch.json"
  if [ ! -f "$manifest" ]; then
    fail "$name has no launch.json"
    continue
  fi
  grep -q '"description": "[^"]' "$manifest" && pass || fail "$name/launch.json has no description"
  out1="$TMP/$name.t1"
  expect_exit 0 "run $name" -- "$MINIBENCH" run "$ptx" --launch "$manifest" -o "$out1"
  expect_grep "$TMP/out" "^total: [1-9][0-9]* threads, [1-9][0-9]* warp instructions, [1-9][0-9]* thread instructions, [0-9.]+ s, [0-9.]+ million thread instructions per second$" "$name total line"
  launches=$(grep -c '"kernel"' "$manifest")
  printed=$(grep -c '^launch [0-9]*: ' "$TMP/out")
  [ "$printed" -eq "$launches" ] && pass || fail "$name: $printed launch lines for $launches launches"
  [ ! -s "$TMP/err" ] && pass || fail "$name: a successful run wrote to stderr: $(head -2 "$TMP/err")"
  # outputs: index.json lists exactly the buffers flagged as outputs, each file has its size
  if [ -f "$out1/index.json" ]; then pass; else fail "$name: no index.json"; continue; fi
  flagged=$(grep -o '"output": true' "$manifest" | wc -l)
  listed=$(grep -c '"file":' "$out1/index.json")
  [ "$flagged" -ge 1 ] && [ "$listed" -eq "$flagged" ] && pass || fail "$name: index.json lists $listed files, the manifest flags $flagged outputs"
  for f in $(grep -oE '"file": "[^"]+"' "$out1/index.json" | cut -d'"' -f4); do
    buf=${f%.bin}
    want=$(index_bytes "$out1" "$buf")
    got=$(wc -c <"$out1/$f" 2>/dev/null || echo missing)
    [ "$got" = "$want" ] && pass || fail "$name: $f has $got bytes, index.json says $want"
  done
  # nothing else: no temporary files left behind
  nfiles=$(find "$out1" -type f | wc -l)
  [ "$nfiles" -eq $((listed + 1)) ] && pass || fail "$name: $nfiles files in the output directory, expected $((listed + 1))"
  # results do not depend on the number of host threads (histogram's atomics
  # are integer additions, which give the same counts in any order)
  out2="$TMP/$name.t2"
  expect_exit 0 "run $name --threads 2" -- "$MINIBENCH" run "$ptx" --launch "$manifest" -o "$out2" --threads 2
  for f in "$out1"/*; do
    cmp -s "$f" "$out2/$(basename "$f")" && pass || fail "$name: $(basename "$f") differs between --threads 1 and 2"
  done
  # --json: machine-readable statistics, one entry per launch
  expect_exit 0 "run $name --json" -- "$MINIBENCH" run "$ptx" --launch "$manifest" --json
  expect_grep "$TMP/out" '"thread_insts": [1-9][0-9]*' "$name --json thread_insts"
  expect_grep "$TMP/out" '"thread_insts_per_second": ' "$name --json rate"
  n_json=$(grep -c '"kernel": ' "$TMP/out")
  [ "$n_json" -eq "$launches" ] && pass || fail "$name --json lists $n_json launches for $launches"
done
[ "$n_examples" -eq 18 ] && pass || fail "expected 18 examples, found $n_examples"

# --- a few results checked end to end (the unit tests check every example against its reference)
# bfs: the hand-made graph's levels and the per-launch 'changed' flags
words d4 "$TMP/bfs.t1/level.bin" | tr '\n' ' ' >"$TMP/bfs_levels.txt"
expect_grep "$TMP/bfs_levels.txt" "^0 1 1 1 2 2 2 2 1 3 3 3 2 4 4 4 3 5 5 4 5 -1 -1 -1 $" "bfs levels"
words u4 "$TMP/bfs.t1/changed.bin" | tr '\n' ' ' >"$TMP/bfs_changed.txt"
expect_grep "$TMP/bfs_changed.txt" "^1 1 1 1 1 0 $" "bfs changed flags"
# histogram: every byte is counted once
sum=$(words u4 "$TMP/histogram.t1/bins.bin" | awk '{s += $1} END {print s}')
[ "$sum" = 20000 ] && pass || fail "histogram bins sum to $sum, not 20000"
# nw: the top-left border is kept and the last cell is a real score (not the zero it started as)
last=$(words d4 "$TMP/nw.t1/score.bin" | tail -1)
first_row=$(words d4 "$TMP/nw.t1/score.bin" | head -3 | tr '\n' ' ')
[ "$first_row" = "0 -2 -4 " ] && pass || fail "nw border row starts '$first_row'"
[ "$last" != 0 ] && pass || fail "nw: the last cell was not computed"

# --- bad manifests: exit 1, the message names the file and the JSON path or line:column
ptx_manifest() { # NAME JSON: writes $TMP/NAME.json
  printf '%s\n' "$2" >"$TMP/$1.json"
}
bad_manifest() { # DESCRIPTION PTX NAME PATTERN
  local what=$1 ptx=$2 name=$3 pattern=$4
  rm -rf "$TMP/never"
  expect_exit 1 "$what" -- "$MINIBENCH" run "$ptx" --launch "$TMP/$name.json" -o "$TMP/never"
  expect_grep "$TMP/err" "$pattern" "$what: message"
  [ ! -e "$TMP/never" ] && pass || fail "$what: left an output directory"
}
BUFS='"a": {"type": "f32", "count": 1000}, "b": {"type": "f32", "count": 1000}, "c": {"type": "f32", "count": 1000, "output": true}'
ptx_manifest syntax '{"buffers": {'"$BUFS"'},
  "launches": [{"kernel": "vecadd", "grid": 4 "block": 256, "args": ["a", "b", "c", 1000]}]}'
bad_manifest "manifest syntax error" "$VA" syntax "syntax\.json:2:[0-9]+: error: "
ptx_manifest nogrid '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "block": 256, "args": ["a", "b", "c", 1000]}]}'
bad_manifest "launch without grid" "$VA" nogrid "nogrid\.json: error: launches\[0\]\.grid: missing"
ptx_manifest unknown '{"buffers": {"a": {"type": "f32", "cuont": 1000}}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 1}]}'
bad_manifest "unknown buffer field" "$VA" unknown "buffers\.a: unknown field 'cuont'"
ptx_manifest unknown2 '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 4, "block": 256, "threads": 2, "args": ["a", "b", "c", 1000]}]}'
bad_manifest "unknown launch field" "$VA" unknown2 "launches\[0\]: unknown field 'threads'"
ptx_manifest unknown3 '{"buffer": {}, "launches": []}'
bad_manifest "unknown top-level field" "$VA" unknown3 "unknown field 'buffer'"
head -c 100 /dev/zero >"$TMP/hundred.bin"
ptx_manifest smallfile '{"buffers": {"a": {"type": "f32", "count": 4, "init": {"kind": "file", "path": "hundred.bin"}}, "b": {"type": "f32", "count": 4}, "c": {"type": "f32", "count": 4}}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 4, "args": ["a", "b", "c", 4]}]}'
bad_manifest "buffer too small for its file" "$VA" smallfile "buffers\.a\.init: file '.*hundred\.bin' is larger than the buffer \(16 bytes\)"
ptx_manifest nofile '{"buffers": {"a": {"type": "f32", "count": 4, "init": {"kind": "file", "path": "missing.bin"}}, "b": {"type": "f32", "count": 4}, "c": {"type": "f32", "count": 4}}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 4, "args": ["a", "b", "c", 4]}]}'
bad_manifest "missing init file" "$VA" nofile "missing\.bin"
ptx_manifest nokernel '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecmul", "grid": 4, "block": 256, "args": ["a", "b", "c", 1000]}]}'
bad_manifest "kernel that does not exist" "$VA" nokernel "launches\[0\]\.kernel: no kernel named 'vecmul' in .*vecadd\.ptx; kernels: vecadd"
ptx_manifest ambiguous '{"buffers": {"in": {"type": "f32", "count": 8}, "p": {"type": "f32", "count": 8}}, "launches": [{"kernel": "/reduce_seq/", "grid": 1, "block": 128, "args": ["in", "p", 8]}]}'
bad_manifest "regex matching two kernels" "$EX/reduce_seq/reduce_seq.ptx" ambiguous "launches\[0\]\.kernel: /reduce_seq/ matches 2 kernels"
ptx_manifest badregex '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "/vec(add/", "grid": 4, "block": 256, "args": ["a", "b", "c", 1000]}]}'
bad_manifest "bad regular expression" "$VA" badregex "launches\[0\]\.kernel: bad regular expression"
ptx_manifest argcount '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 4, "block": 256, "args": ["a", "b", "c"]}]}'
bad_manifest "wrong argument count" "$VA" argcount "launches\[0\]\.args: kernel vecadd takes 4 arguments, the manifest gives 3"
ptx_manifest toobig '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 4, "block": 256, "args": ["a", "b", "c", 4294967296]}]}'
bad_manifest "number too large for a u32 parameter" "$VA" toobig "launches\[0\]\.args\[3\]: the integer does not fit parameter vecadd_param_3 of type \.u32"
ptx_manifest negative '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 4, "block": 256, "args": ["a", "b", "c", -1]}]}'
bad_manifest "negative number for a u32 parameter" "$VA" negative "launches\[0\]\.args\[3\]: the integer does not fit"
ptx_manifest fraction '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 4, "block": 256, "args": ["a", "b", "c", 2.5]}]}'
bad_manifest "fraction for an integer parameter" "$VA" fraction "launches\[0\]\.args\[3\]: the number does not fit"
ptx_manifest scalarptr '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 4, "block": 256, "args": ["a", "b", "c", "a"]}]}'
bad_manifest "buffer passed to a u32 parameter" "$VA" scalarptr "launches\[0\]\.args\[3\]: buffer 'a' passed to parameter vecadd_param_3 of type \.u32"
ptx_manifest nobuf '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 4, "block": 256, "args": ["a", "b", "d", 1000]}]}'
bad_manifest "argument naming no buffer" "$VA" nobuf "launches\[0\]\.args\[2\]: no buffer named 'd'"
ptx_manifest absurd '{"buffers": {"a": {"type": "f32", "count": 1000000000000000}}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 1}]}'
bad_manifest "absurd buffer count" "$VA" absurd "buffers\.a\.count: 1000000000000000 is larger than the limit"
ptx_manifest toomuch '{"buffers": {"a": {"type": "f32", "count": 200000000000}, "b": {"type": "f32", "count": 4}, "c": {"type": "f32", "count": 4}}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 4, "args": ["a", "b", "c", 4]}]}'
bad_manifest "buffer beyond the device memory limit" "$VA" toomuch "buffers\.a: "
ptx_manifest badtype '{"buffers": {"a": {"type": "float", "count": 4}}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 1}]}'
bad_manifest "unknown buffer type" "$VA" badtype "buffers\.a\.type: expected a PTX data type"
ptx_manifest badvalue '{"buffers": {"a": {"type": "u8", "init": [1, 2, 300]}}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 1}]}'
bad_manifest "initial value that does not fit" "$VA" badvalue "buffers\.a\.init: element 2 is not a number that fits in \.u8"
ptx_manifest nolaunch '{"buffers": {}, "launches": []}'
bad_manifest "no launches" "$VA" nolaunch "launches: expected a non-empty array"
ptx_manifest badblock '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 2048, "args": ["a", "b", "c", 1000]}]}'
bad_manifest "block of 2048 threads" "$VA" badblock "block \(2048,1,1\) is not a valid CTA shape"
ptx_manifest zerogrid '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": [4, 0], "block": 256, "args": ["a", "b", "c", 1000]}]}'
bad_manifest "grid with a zero dimension" "$VA" zerogrid "launches\[0\]\.grid: element 1: expected a positive integer"
expect_exit 1 "missing manifest file" -- "$MINIBENCH" run "$VA" --launch "$TMP/no-such.json"
expect_grep "$TMP/err" "no-such\.json: error: " "missing manifest is named"
expect_exit 1 "missing PTX file" -- "$MINIBENCH" run "$TMP/no-such.ptx" --launch "$VJ"
expect_grep "$TMP/err" "no-such\.ptx: error: " "missing PTX file is named"

# --- faults of the simulated program: exit 1, a memory-checker style report, no outputs
fault() { # DESCRIPTION NAME PATTERN [options...]
  local what=$1 name=$2 pattern=$3
  shift 3
  rm -rf "$TMP/never"
  expect_exit 1 "$what" -- "$MINIBENCH" run "$VA" --launch "$TMP/$name.json" -o "$TMP/never" "$@"
  expect_grep "$TMP/err" "$pattern" "$what: report"
  [ ! -e "$TMP/never" ] && pass || fail "$what: left an output directory"
}
# n = 1200 with 1000-element buffers: thread 1000 (block 3, thread 232) is the
# first to load past the end; vecadd.ptx loads b[i] (line 44) before a[i]
ptx_manifest oob_load '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 5, "block": 256, "args": ["a", "b", "c", 1200]}]}'
fault "out-of-bounds global load" oob_load "vecadd\.ptx:44:2: error: kernel vecadd, block \(3,0,0\), thread \(232,0,0\): out-of-bounds global load of 4 bytes at 0x[0-9a-f]+ \(0 bytes past the end of 'b' \[0x[0-9a-f]+, \+4000\)\)"
fault "out-of-bounds load with 2 host threads" oob_load "kernel vecadd, block \(3,0,0\), thread \(232,0,0\): out-of-bounds global load .*past the end of 'b'" --threads 2
ptx_manifest oob_store '{"buffers": {"a": {"type": "f32", "count": 2000}, "b": {"type": "f32", "count": 2000}, "c": {"type": "f32", "count": 1000, "output": true}}, "launches": [{"kernel": "vecadd", "grid": 8, "block": 256, "args": ["a", "b", "c", 2000]}]}'
fault "out-of-bounds global store" oob_store "vecadd\.ptx:49:2: error: kernel vecadd, block \(3,0,0\), thread \(232,0,0\): out-of-bounds global store of 4 bytes at 0x[0-9a-f]+ \(0 bytes past the end of 'c' \[0x[0-9a-f]+, \+4000\)\)"
# an output directory that exists already must stay empty after a fault
mkdir -p "$TMP/existing"
expect_exit 1 "fault with an existing output directory" -- "$MINIBENCH" run "$VA" --launch "$TMP/oob_store.json" -o "$TMP/existing"
[ -z "$(ls -A "$TMP/existing")" ] && pass || fail "a faulting run wrote into the output directory: $(ls "$TMP/existing")"
ptx_manifest misaligned '{"buffers": {'"$BUFS"'}, "launches": [{"kernel": "vecadd", "grid": 1, "block": 32, "args": [{"buffer": "a", "offset": 2}, "b", "c", 32]}]}'
fault "misaligned global load" misaligned "kernel vecadd, block \(0,0,0\), thread \(0,0,0\): misaligned .*load of 4 bytes at 0x[0-9a-f]+"
fault "instruction budget" oob_load "instruction budget exhausted" --max-insts 10
# the budget counts warp instructions over all launches: vecadd's 1000 threads need more than 10
expect_exit 1 "budget on a good manifest" -- "$MINIBENCH" run "$VA" --launch "$VJ" --max-insts 10
expect_grep "$TMP/err" "kernel vecadd, block \([0-9]+,0,0\), warp [0-9]+: instruction budget exhausted" "budget report names kernel, block and warp"
expect_exit 0 "a budget large enough" -- "$MINIBENCH" run "$VA" --launch "$VJ" --max-insts 1000000

finish
