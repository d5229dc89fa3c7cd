#!/usr/bin/env bash
# Clones of kernels that call a device function (tests/synth/calls): the
# callee is a .func with a cloned body, each call site a real call; the
# clone passes ptxas (when installed), runs, and has the original's CFG in
# the kernel and in the function, the same ECounts (the function's scaled
# by the calls the reduced kernel makes) and the function's divergent
# branch. devfunc's callee receives its loop's trip count as an argument.
# Recursion is refused with its reason.
source "$(dirname "$0")/lib.sh"
CALLS="$MB_SOURCE_DIR/tests/synth/calls"
expect_exit 0 "profile the crafted kernels" -- "$MINIBENCH" profile "$CALLS/calls.ptx" \
  --launch "$CALLS/launch.json" -o "$TMP/p"
for R in 1 2 max; do
  C="$TMP/c$R"
  expect_exit 0 "synth twice R=$R" -- "$MINIBENCH" synth "$TMP/p/twice.0" --reduction $R -o "$C"
  n=$(grep -cE "call\.uni \(_call[01]_retval\), add_some, \(_call[01]_param0, _call[01]_param1\);" "$C/clone.ptx")
  [ "$n" = 2 ] && pass || fail "R=$R: $n calls in clone.ptx, expected 2"
  # each call site passes its arguments in .param variables of its own
  expect_grep "$C/clone.ptx" "call\.uni \(_call1_retval\), add_some, \(_call1_param0, _call1_param1\);" \
    "R=$R: the second call site's own .param variables"
  expect_grep "$C/clone.ptx" "^\.func \(\.param \.b32 func_retval0\) add_some\($" "R=$R: the .func"
  expect_grep "$C/clone.ptx" "st\.param\.b32 \[func_retval0\], " "R=$R: the result is returned"
  check_clone "R=$R" "$C"
  "$MINIBENCH" compare "$TMP/p/twice.0" "$C/prof/twice.0" --reduction $R --check >"$TMP/cmp" 2>/dev/null
  expect_grep "$TMP/cmp" "^CFG +same" "R=$R: same CFG in the kernel and the function"
  expect_grep "$TMP/cmp" "^function add_some: 488 calls in A, 488 in B" "R=$R: every call made"
  if sed -n '/^check/,$p' "$TMP/cmp" | grep -qE "ECount|barriers|missing"; then
    fail "R=$R: $(sed -n '/^check/,$p' "$TMP/cmp" | grep -E "ECount|barriers|missing" | head -1)"
  else
    pass
  fi
  # the callee's lane branch: every warp diverges in the original; the clone's
  # lane key splits all but the one partial warp of the second call site
  line=$(sed -n '/^function add_some/,$p' "$TMP/cmp" | grep -E "^  0 +[0-9]+ +1\.0000" | head -1)
  read -r _ _ da db _ <<<"$line"
  awk -v b="$db" 'BEGIN { exit !(b + 0 >= 0.9) }' && pass ||
    fail "R=$R: the function's branch diverges in $db of warp executions (original $da)"
done
# devfunc: the callee's per-lane digit count arrives as its first argument,
# computed once per thread in the kernel instead of in every call
EX="$MB_SOURCE_DIR/examples/devfunc"
expect_exit 0 "profile devfunc" -- "$MINIBENCH" profile "$EX/devfunc.ptx" --launch "$EX/launch.json" \
  -o "$TMP/d"
for R in 1 2; do
  C="$TMP/d$R"
  expect_exit 0 "devfunc R=$R: synth" -- "$MINIBENCH" synth "$TMP/d/digit_sums.0" --reduction $R -o "$C"
  sed -n '/^\.func/,/^}/p' "$C/clone.ptx" >"$TMP/func"
  arg=$(grep -oE "ld\.param\.u32 %r[0-9]+, \[_Z9digit_sumjj_param_0\]" "$TMP/func" | grep -oE "%r[0-9]+")
  expect_grep "$TMP/func" "setp\.[a-z]+\.u32 %p[0-9]+, %r[0-9]+, $arg;" "devfunc R=$R: the loop tests the argument"
  grep -q "selp" "$TMP/func" && fail "devfunc R=$R: the callee still selects its trip count" || pass
  profile_clone "devfunc R=$R" "$C"
  "$MINIBENCH" compare "$TMP/d/digit_sums.0" "$C/prof/digit_sums.0" --reduction $R --check >"$TMP/cmp" 2>/dev/null
  if sed -n '/^check/,$p' "$TMP/cmp" | grep -qE "ECount|thread instructions"; then
    fail "devfunc R=$R: $(sed -n '/^check/,$p' "$TMP/cmp" | grep -E "ECount|thread instructions" | head -1)"
  else
    pass
  fi
done
expect_exit 1 "recursion refused" -- "$MINIBENCH" synth "$TMP/p/recurse.1" --reduction 1 -o "$TMP/r"
expect_grep "$TMP/err" "function depth calls itself \(recursion\)" "the reason is named"
[ ! -e "$TMP/r" ] && pass || fail "a refused synth created its output directory"
finish
