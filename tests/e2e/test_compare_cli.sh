#!/bin/bash
# minibench compare: a profile against itself, against a crafted difference,
# and the usage and input errors.
. "$(dirname "$0")/lib.sh"

P="$TMP/prof"
expect_exit 0 "profile nested_loops" -- "$MINIBENCH" profile "$EX/nested_loops/nested_loops.ptx" \
  --launch "$EX/nested_loops/launch.json" -o "$P"
A="$P/conv1d_blocked.0"

expect_exit 0 "compare with itself" -- "$MINIBENCH" compare "$A" "$A" --check
expect_grep "$TMP/out" "^CFG +same" "CFG line"
expect_grep "$TMP/out" "thread instructions +501384 +501384 +\+0.0000" "totals side by side"
expect_grep "$TMP/out" "all statistics within tolerance" "check verdict"

expect_exit 0 "compare --json" -- "$MINIBENCH" compare "$A" "$A" --json --check
expect_grep "$TMP/out" '"cfg_equal": true' "JSON cfg_equal"
expect_grep "$TMP/out" '"violations": \[\]' "JSON violations"

# a crafted clone: one branch's divergence fraction 3 points higher
mkdir -p "$TMP/b"
cp "$P/conv1d_blocked.0.dfsg.dot" "$TMP/b/"
sed 's/"divergence_fraction": 0.25,/"divergence_fraction": 0.28,/' "$P/conv1d_blocked.0.profile.json" \
  >"$TMP/b/conv1d_blocked.0.profile.json"
expect_exit 1 "crafted divergence difference" -- "$MINIBENCH" compare "$A" "$TMP/b/conv1d_blocked.0" --check
expect_grep "$TMP/err" "branch in block 0 \(line 44\): divergence fraction 0.2500 vs 0.2800 \(\+3.0 points" \
  "the violated statistic is named"
# without --check the same comparison succeeds and shows the difference
expect_exit 0 "compare without --check" -- "$MINIBENCH" compare "$A" "$TMP/b/conv1d_blocked.0"
expect_grep "$TMP/out" "^  0 +44 +0.2500 +0.2800 +\+0.0300" "difference printed"

# inputs that are not profiles
expect_exit 1 "missing profile" -- "$MINIBENCH" compare "$A" "$TMP/nothing.0"
expect_grep "$TMP/err" "nothing.0.profile.json" "names the missing file"
sed 's/ecount=45000/ecount=45001/' "$P/conv1d_blocked.0.dfsg.dot" >"$TMP/b/conv1d_blocked.0.dfsg.dot"
expect_exit 1 "DFSG disagreeing with JSON" -- "$MINIBENCH" compare "$A" "$TMP/b/conv1d_blocked.0"
expect_grep "$TMP/err" "conv1d_blocked.0.dfsg.dot: error: node '\\\$L__BB0_17' \(block 16\) disagrees" "names the node"

expect_exit 2 "one argument" -- "$MINIBENCH" compare "$A"
expect_exit 2 "bad reduction" -- "$MINIBENCH" compare "$A" "$A" --reduction 0
expect_exit 0 "help" -- "$MINIBENCH" compare --help
expect_grep "$TMP/out" "Usage: minibench compare" "help text"
finish
