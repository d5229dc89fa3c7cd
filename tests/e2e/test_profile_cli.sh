#!/usr/bin/env bash
# End-to-end tests of 'minibench profile' and 'minibench render'.
source "$(dirname "$0")/lib.sh"
PTX="$EX/nested_loops/nested_loops.ptx"
MAN="$EX/nested_loops/launch.json"

# --- help and usage errors
expect_exit 0 "profile help" -- "$MINIBENCH" profile --help
expect_grep "$TMP/out" "Usage: minibench profile" "profile help text"
expect_exit 0 "render help" -- "$MINIBENCH" render --help
expect_exit 2 "profile without -o" -- "$MINIBENCH" profile "$PTX" --launch "$MAN"
expect_exit 2 "profile without --launch" -- "$MINIBENCH" profile "$PTX" -o "$TMP/p"
expect_exit 2 "bad --launch-index" -- "$MINIBENCH" profile "$PTX" --launch "$MAN" -o "$TMP/p" --launch-index x
expect_exit 2 "bad --banks" -- "$MINIBENCH" profile "$PTX" --launch "$MAN" -o "$TMP/p" --banks 0
expect_exit 2 "--threads 3" -- "$MINIBENCH" profile "$PTX" --launch "$MAN" -o "$TMP/p" --threads 3
expect_grep "$TMP/err" "threads" "a bad --threads is named"
expect_exit 2 "--threads 0" -- "$MINIBENCH" profile "$PTX" --launch "$MAN" -o "$TMP/p" --threads 0
expect_exit 2 "bad --kernel regex" -- "$MINIBENCH" profile "$PTX" --launch "$MAN" -o "$TMP/p" --kernel "("
expect_grep "$TMP/err" "bad regular expression" "regex error is named"

# --- a profile of one launch
expect_exit 0 "profile nested_loops" -- "$MINIBENCH" profile "$PTX" --launch "$MAN" -o "$TMP/p"
for f in index.json conv1d_blocked.0.profile.json conv1d_blocked.0.dfsg.dot; do
  [ -s "$TMP/p/$f" ] && pass || fail "profile did not write $f"
done
expect_grep "$TMP/p/index.json" '"dfsg": "conv1d_blocked.0.dfsg.dot"' "index lists the DFSG"
expect_grep "$TMP/p/conv1d_blocked.0.profile.json" '"format": "minibench-profile-1"' "profile format tag"
expect_grep "$TMP/p/conv1d_blocked.0.profile.json" '"kind": "nested"' "loops are classified"
expect_grep "$TMP/p/conv1d_blocked.0.profile.json" '"trip_counts"' "trip-count distributions"
expect_grep "$TMP/p/conv1d_blocked.0.profile.json" '"bank_conflict_degree"' "bank conflicts"
# the launch's input beside the profile: in (random), taps (15 x 0.0625f), out (zeros)
expect_grep "$TMP/p/index.json" '"conv1d_blocked.0.input1.bin"' "index lists the inputs"
expect_grep "$TMP/p/conv1d_blocked.0.profile.json" '"buffer": "taps",' "profile lists the inputs"
[ "$(stat -c %s "$TMP/p/conv1d_blocked.0.input0.bin")" -eq 12056 ] && pass || fail "input0.bin: not in's 12056 bytes"
[ "$(od -An -tx1 -v "$TMP/p/conv1d_blocked.0.input1.bin" | tr -d ' \n')" = "$(printf '0000803d%.0s' $(seq 15))" ] &&
  pass || fail "input1.bin: not 15 floats 0.0625"
cmp -s "$TMP/p/conv1d_blocked.0.input2.bin" <(head -c 12000 /dev/zero) && pass || fail "input2.bin: out before the launch is zeros"
expect_grep "$TMP/p/conv1d_blocked.0.dfsg.dot" 'ecount=' "DFSG nodes carry ECount"
expect_grep "$TMP/p/conv1d_blocked.0.dfsg.dot" 'tcount=' "DFSG edges carry TCount"
[ -z "$(ls "$TMP/p" | grep tmp)" ] && pass || fail "temporary files left in the profile directory"

# --- byte-identical across runs
expect_exit 0 "profile again" -- "$MINIBENCH" profile "$PTX" --launch "$MAN" -o "$TMP/p2"
for f in conv1d_blocked.0.profile.json conv1d_blocked.0.dfsg.dot conv1d_blocked.0.input0.bin; do
  cmp -s "$TMP/p/$f" "$TMP/p2/$f" && pass || fail "$f differs between runs"
done

# --- selection: bfs has 6 launches of one kernel
BFS="$EX/bfs/bfs.ptx"; BMAN="$EX/bfs/launch.json"
expect_exit 0 "profile one launch by index" -- "$MINIBENCH" profile "$BFS" --launch "$BMAN" -o "$TMP/b1" --launch-index 2
[ "$(ls "$TMP/b1" | grep -c profile.json)" -eq 1 ] && [ -f "$TMP/b1/bfs_level_step.2.profile.json" ] && pass ||
  fail "--launch-index 2 should profile exactly launch 2"
expect_exit 0 "profile all launches by kernel regex" -- "$MINIBENCH" profile "$BFS" --launch "$BMAN" -o "$TMP/b2" --kernel '^bfs_'
[ "$(ls "$TMP/b2" | grep -c profile.json)" -eq 6 ] && pass || fail "--kernel should profile all 6 launches"
# counted in the launch's thread or in a second one: the same files
for t in 1 2; do
  expect_exit 0 "profile all launches, --threads $t" -- "$MINIBENCH" profile "$BFS" --launch "$BMAN" -o "$TMP/bt$t" --threads $t
done
for f in $(ls "$TMP/bt1" | grep -v index.json); do
  cmp -s "$TMP/bt1/$f" "$TMP/bt2/$f" && pass || fail "$f differs between --threads 1 and 2"
done
expect_exit 1 "a regex matching nothing" -- "$MINIBENCH" profile "$BFS" --launch "$BMAN" -o "$TMP/b3" --kernel nomatch
expect_grep "$TMP/err" "no launch matches" "empty selection is an error"
[ ! -e "$TMP/b3" ] && pass || fail "an empty selection created the output directory"
expect_exit 1 "launch index out of range" -- "$MINIBENCH" profile "$BFS" --launch "$BMAN" -o "$TMP/b4" --launch-index 99
expect_grep "$TMP/err" "the manifest has 6 launches" "out-of-range index is explained"

# --- a fault leaves no partial profile
# vecadd told n = 2000 over buffers of 1000: the loads run past the end of 'a'
cat >"$TMP/bad.json" <<'JSON'
{"buffers": {"a": {"type": "f32", "count": 1000}, "b": {"type": "f32", "count": 1000},
             "c": {"type": "f32", "count": 1000, "output": true}},
 "launches": [{"kernel": "vecadd", "grid": 16, "block": 128, "args": ["a", "b", "c", 2000]}]}
JSON
expect_exit 1 "profile of a faulting launch" -- "$MINIBENCH" profile "$EX/vecadd/vecadd.ptx" --launch "$TMP/bad.json" -o "$TMP/f"
expect_grep "$TMP/err" "out-of-bounds" "the fault is reported"
[ ! -e "$TMP/f" ] || [ -z "$(ls -A "$TMP/f")" ] && pass || fail "a failed profile left files behind"
for t in 1 2; do
  expect_exit 1 "a faulting launch, --threads $t" -- "$MINIBENCH" profile "$EX/vecadd/vecadd.ptx" --launch "$TMP/bad.json" -o "$TMP/f$t" --threads $t
  expect_grep "$TMP/err" "out-of-bounds" "the fault is reported with --threads $t"
done

# --- render
expect_exit 0 "render the DFSG" -- "$MINIBENCH" render "$TMP/p/conv1d_blocked.0.dfsg.dot" -o "$TMP/d.svg"
expect_grep "$TMP/d.svg" "<svg" "render writes SVG"
expect_grep "$TMP/d.svg" "ECount" "the picture shows ECount"
expect_exit 0 "render twice" -- "$MINIBENCH" render "$TMP/p/conv1d_blocked.0.dfsg.dot" -o "$TMP/d2.svg"
cmp -s "$TMP/d.svg" "$TMP/d2.svg" && pass || fail "rendering is not deterministic"
printf 'digraph { a -> ' >"$TMP/broken.dot"
expect_exit 1 "render a broken DOT file" -- "$MINIBENCH" render "$TMP/broken.dot" -o "$TMP/x.svg"
expect_grep "$TMP/err" "broken.dot" "the broken file is named"
[ ! -e "$TMP/x.svg" ] && pass || fail "a failed render left a file"
expect_exit 1 "render a missing file" -- "$MINIBENCH" render "$TMP/none.dot"

finish
