# Helpers for the end-to-end tests. Each test script sources this file and
# runs with MINIBENCH (the binary) and MB_SOURCE_DIR set by ctest.
set -u
: "${MINIBENCH:?MINIBENCH must point at the minibench binary}"
: "${MB_SOURCE_DIR:?MB_SOURCE_DIR must point at the source tree}"
EX="$(cd "$MB_SOURCE_DIR/examples" && pwd)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_exit CODE DESCRIPTION -- command...: runs the command, keeping its
# stdout in $TMP/out and stderr in $TMP/err, and checks the exit status.
expect_exit() {
  local want=$1 what=$2
  shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$what: exit $got, expected $want"
    sed 's/^/  stderr: /' "$TMP/err" | head -5 >&2
  else
    pass
  fi
}

# expect_grep FILE PATTERN DESCRIPTION
expect_grep() {
  if grep -qE -- "$2" "$1"; then pass; else fail "$3: '$2' not found in $(basename "$1")"; sed 's/^/  | /' "$1" | head -5 >&2; fi
}

# ptxas of the CUDA toolkit, or empty where it is not installed (its checks are skipped).
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null)

# profile_clone LABEL DIR: profiles the clone in DIR (clone.ptx with its
# launch.json) into DIR/prof.
profile_clone() {
  expect_exit 0 "$1: profile the clone" -- "$MINIBENCH" profile "$2/clone.ptx" \
    --launch "$2/launch.json" -o "$2/prof"
}

# check_clone LABEL DIR: the clone in DIR passes ptxas (when installed), runs
# under minibench without faults, and is profiled into DIR/prof.
check_clone() {
  if [ -n "$PTXAS" ]; then
    expect_exit 0 "$1: ptxas" -- "$PTXAS" -arch=sm_75 "$2/clone.ptx" -o "$2/clone.cubin"
  fi
  expect_exit 0 "$1: run" -- "$MINIBENCH" run "$2/clone.ptx" --launch "$2/launch.json"
  profile_clone "$1" "$2"
}

finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
