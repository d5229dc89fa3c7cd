#!/usr/bin/env bash
# End-to-end tests of 'minibench ptx': help, usage errors, check, print, cfg.
source "$(dirname "$0")/lib.sh"

# --- help and usage errors (exit 2)
expect_exit 0 "top-level help" -- "$MINIBENCH" --help
expect_grep "$TMP/out" "ptx check" "top-level help lists commands"
expect_exit 2 "no command" -- "$MINIBENCH"
expect_exit 2 "unknown command" -- "$MINIBENCH" frobnicate
expect_grep "$TMP/err" "unknown command 'frobnicate'" "unknown command is named"
expect_exit 0 "ptx help" -- "$MINIBENCH" ptx --help
expect_exit 2 "unknown ptx sub-command" -- "$MINIBENCH" ptx explode
for sub in check print cfg; do
  expect_exit 0 "ptx $sub --help" -- "$MINIBENCH" ptx $sub --help
  expect_grep "$TMP/out" "Usage: minibench ptx $sub" "ptx $sub help text"
  expect_exit 2 "ptx $sub unknown option" -- "$MINIBENCH" ptx $sub --bogus x.ptx
  expect_grep "$TMP/err" "unknown option '--bogus'" "unknown option is named"
done
expect_exit 2 "ptx check without files" -- "$MINIBENCH" ptx check
expect_exit 2 "ptx cfg --kernel without value" -- "$MINIBENCH" ptx cfg "$EX/vecadd/vecadd.ptx" --kernel
expect_exit 0 "version" -- "$MINIBENCH" --version

# --- check every example
expect_exit 0 "check all examples" -- "$MINIBENCH" ptx check "$EX"/*/*.ptx
n_examples=$(ls "$EX"/*/*.ptx | wc -l)
n_files=$(grep -c "PTX ISA" "$TMP/out")
[ "$n_files" -eq "$n_examples" ] && pass || fail "check printed $n_files file headers for $n_examples files"
expect_grep "$TMP/out" "kernel " "check names kernels"
expect_grep "$TMP/out" "nested loop at" "check reports a nested loop"
expect_grep "$TMP/out" "self loop at" "check reports a self loop"
expect_grep "$TMP/out" "shared memory  [1-9][0-9]* bytes static" "check reports static shared memory"
expect_grep "$TMP/out" "local memory   [1-9]" "check reports local memory"
expect_grep "$TMP/out" "calls          1 function" "check reports calls"

expect_exit 0 "check --json" -- "$MINIBENCH" ptx check --json "$EX/nested_loops/nested_loops.ptx"
expect_grep "$TMP/out" '"kind": "nested"' "json loop kinds"
expect_grep "$TMP/out" '"basic_blocks": [0-9]+' "json basic blocks"

# --- bad input: exit 1 with file:line:col
printf '.version 8.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tfrob.u32 %%r1;\n}\n' >"$TMP/bad.ptx"
expect_exit 1 "check a malformed file" -- "$MINIBENCH" ptx check "$TMP/bad.ptx"
expect_grep "$TMP/err" "bad.ptx:6:2: error: unknown instruction 'frob'" "error names file:line:col"
expect_exit 1 "check a missing file" -- "$MINIBENCH" ptx check "$TMP/missing.ptx"
expect_grep "$TMP/err" "missing.ptx: error: cannot open" "missing file is named"
expect_exit 1 "one bad file among good ones fails the run" -- "$MINIBENCH" ptx check "$EX/vecadd/vecadd.ptx" "$TMP/bad.ptx"
expect_grep "$TMP/out" "kernel vecadd" "good files are still reported"
size=$(wc -c <"$EX/matmul/matmul.ptx"); head -c $((size / 2)) "$EX/matmul/matmul.ptx" >"$TMP/truncated.ptx"
expect_exit 1 "truncated file" -- "$MINIBENCH" ptx check "$TMP/truncated.ptx"
expect_grep "$TMP/err" "truncated.ptx:[0-9]+:[0-9]+: error:" "truncated file error has a location"

# --- print: canonical, a fixpoint, atomic
for f in "$EX"/*/*.ptx; do
  name=$(basename "$f" .ptx)
  "$MINIBENCH" ptx print "$f" -o "$TMP/$name.1.ptx" || fail "print $name"
  "$MINIBENCH" ptx print "$TMP/$name.1.ptx" >"$TMP/$name.2.ptx" || fail "re-print $name"
  cmp -s "$TMP/$name.1.ptx" "$TMP/$name.2.ptx" && pass || fail "print is not a fixpoint for $name"
done
expect_exit 1 "print of a bad file" -- "$MINIBENCH" ptx print "$TMP/bad.ptx" -o "$TMP/never.ptx"
[ ! -e "$TMP/never.ptx" ] && pass || fail "a failed print left an output file"
expect_exit 1 "print into a missing directory" -- "$MINIBENCH" ptx print "$EX/vecadd/vecadd.ptx" -o "$TMP/no/such/dir/x.ptx"
[ -z "$(ls "$TMP" | grep tmp)" ] && pass || fail "temporary files left behind"

# --- cfg
expect_exit 0 "cfg DOT" -- "$MINIBENCH" ptx cfg "$EX/nested_loops/nested_loops.ptx" -o "$TMP/nl.dot"
expect_grep "$TMP/nl.dot" "digraph" "cfg is DOT"
expect_grep "$TMP/nl.dot" "cluster_loop" "loops are clusters"
expect_grep "$TMP/nl.dot" "xlabel=back" "back edges are labelled"
expect_grep "$TMP/nl.dot" "nested, header" "loop kinds are marked"
expect_grep "$TMP/nl.dot" "self, header" "self loops are marked"
expect_exit 0 "cfg SVG" -- "$MINIBENCH" ptx cfg --svg "$EX/nested_loops/nested_loops.ptx" -o "$TMP/nl.svg"
expect_grep "$TMP/nl.svg" "<svg" "cfg renders SVG"
expect_exit 0 "cfg of a device function" -- "$MINIBENCH" ptx cfg "$EX/devfunc/devfunc.ptx" --kernel _Z9digit_sumjj
expect_grep "$TMP/out" "function _Z9digit_sumjj" "cfg of a .func"
expect_exit 1 "cfg of an unknown kernel" -- "$MINIBENCH" ptx cfg "$EX/vecadd/vecadd.ptx" --kernel nope
expect_grep "$TMP/err" "no kernel or function with a body named 'nope'; it has: vecadd" "unknown kernel lists the kernels"

finish
