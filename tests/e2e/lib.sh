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

finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
