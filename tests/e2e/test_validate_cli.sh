#!/usr/bin/env bash
# End-to-end tests of 'minibench validate': a profile validated into a report
# directory (table, CSV, JSON, plots, clones), a suite with a kernel synth
# refuses, a profile of an unmodified program (when nvcc is present), and
# usage errors.
source "$(dirname "$0")/lib.sh"

# --- usage
expect_exit 0 "validate --help" -- "$MINIBENCH" validate --help
expect_grep "$TMP/out" "minibench validate --suite DIR -o REPORTDIR" "help shows the suite form"
expect_exit 2 "no -o" -- "$MINIBENCH" validate prof/k.0
expect_grep "$TMP/err" "-o REPORTDIR is required" "missing -o is named"
expect_exit 2 "no profile" -- "$MINIBENCH" validate -o "$TMP/r"
expect_exit 2 "profile and suite" -- "$MINIBENCH" validate prof/k.0 --suite "$EX" -o "$TMP/r"
expect_exit 2 "reduction 0" -- "$MINIBENCH" validate prof/k.0 --reduction 1,0 -o "$TMP/r"
expect_grep "$TMP/err" "--reduction" "a bad factor names the option"
expect_exit 2 "reduction twice" -- "$MINIBENCH" validate prof/k.0 --reduction 2,max,2 -o "$TMP/r"
expect_grep "$TMP/err" "'2' is listed twice" "a repeated factor is named"
expect_exit 2 "empty config list" -- "$MINIBENCH" validate prof/k.0 --config , -o "$TMP/r"
expect_exit 2 "--ptx alone" -- "$MINIBENCH" validate prof/k.0 --ptx a.ptx -o "$TMP/r"
expect_exit 2 "--repeat 0" -- "$MINIBENCH" validate prof/k.0 --repeat 0 -o "$TMP/r"
expect_exit 1 "missing profile" -- "$MINIBENCH" validate "$TMP/nope/k.0" -o "$TMP/r"
expect_grep "$TMP/err" "nope" "the missing profile is named"
[ ! -e "$TMP/r" ] && pass || fail "a failed validation writes no report"

# --- one profile, every default factor and config
expect_exit 0 "profile matmul" -- "$MINIBENCH" profile "$EX/matmul/matmul.ptx" --launch "$EX/matmul/launch.json" -o "$TMP/prof"
P="$TMP/prof/_Z12matmul_tiledPKfS0_Pfiii.0"
expect_exit 0 "validate matmul" -- "$MINIBENCH" validate "$P" -o "$TMP/rep"
for c in conf1 conf2 conf3 conf4; do
  for r in 1 2 4 8 max; do
    expect_grep "$TMP/out" "^$c +$r +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%" "table row $c R=$r"
  done
done
expect_grep "$TMP/out" "^at reduction max: mean \|IPC error\|" "the headline line"
[ "$(wc -l <"$TMP/rep/validate.csv")" -eq 21 ] && pass || fail "validate.csv: header + 20 rows"
for f in validate.json speedup.svg ipc_error.svg ipc_configs.svg clones/r8/clone.ptx clones/rmax/clone.cu; do
  [ -s "$TMP/rep/$f" ] && pass || fail "report file $f"
done
expect_grep "$TMP/rep/validate.json" '"first_divergence": "' "rows name what diverged first"
# the clone written into the report is the one validated: it runs and simulates
expect_exit 0 "a report's clone simulates" -- "$MINIBENCH" sim "$TMP/rep/clones/r8/clone.ptx" --launch "$TMP/rep/clones/r8/launch.json" --config conf3
# the same inputs give the same statistics (times aside)
expect_exit 0 "validate again" -- "$MINIBENCH" validate "$P" -o "$TMP/rep2"
cut -d, -f1-7 "$TMP/rep/validate.csv" >"$TMP/a.csv"
cut -d, -f1-7 "$TMP/rep2/validate.csv" >"$TMP/b.csv"
cmp -s "$TMP/a.csv" "$TMP/b.csv" && pass || fail "cycle counts repeat exactly"
# a config file works like a preset, and an unknown one is named
"$MINIBENCH" sim --config conf2 --print-config >"$TMP/my.config"
expect_exit 0 "validate with a config file" -- "$MINIBENCH" validate "$P" --config "$TMP/my.config,conf3" --reduction max -o "$TMP/rep3"
expect_grep "$TMP/out" "my.config +max" "the file's row"
expect_exit 1 "unknown config" -- "$MINIBENCH" validate "$P" --config conf9 -o "$TMP/rep4"
expect_grep "$TMP/err" "conf9" "the unknown config is named"

# --- a suite: three kernels validated (reduce_seq's busiest launch is its second,
# whose shared array starts after the first instance's; devfunc calls a device
# function), one refused by synth (a recursive function)
mkdir -p "$TMP/suite/recurse"
for ex in vecadd devfunc reduce_seq; do mkdir "$TMP/suite/$ex"; ln -s "$EX/$ex/$ex.ptx" "$EX/$ex/launch.json" "$TMP/suite/$ex/"; done
ln -s "$(cd "$MB_SOURCE_DIR" && pwd)/tests/synth/calls/calls.ptx" "$TMP/suite/recurse/recurse.ptx"
cat >"$TMP/suite/recurse/launch.json" <<'JSON'
{"buffers": {"out": {"type": "u32", "count": 64}},
 "launches": [{"kernel": "recurse", "grid": 1, "block": 64, "args": ["out"]}]}
JSON
expect_exit 0 "suite" -- "$MINIBENCH" validate --suite "$TMP/suite" --reduction 1,max --config conf1,conf3 -o "$TMP/srep"
expect_grep "$TMP/out" "^recurse +not validated: .*recursion" "the refused kernel and why"
expect_grep "$TMP/out" "^devfunc +yes +max" "the kernel calling a device function is validated"
expect_grep "$TMP/out" "^vecadd +no +max" "the validated kernel's line"
expect_grep "$TMP/out" "^reduce_seq +no +max" "reduce_seq (its loops unrolled)"
expect_grep "$TMP/out" "3 kernels validated, 1 not" "the means line"
expect_grep "$TMP/out" "^vecadd +no +max .* kept +[0-9.]+% +R=max [0-9.]+x " "vecadd's R = 1 error and its factor within the aim"
expect_grep "$TMP/out" "^Within the 3% IPC aim on every config at some reduction: [1-3] of 3 kernels" "the aim's line"
expect_grep "$TMP/err" "example vecadd \(4 of 4\)" "progress names each example"
expect_grep "$TMP/srep/reduce_seq/profile/index.json" '"index": 1' "the busiest launch is profiled"
if command -v python3 >/dev/null; then
  python3 - "$TMP/srep/summary.csv" <<'PY' && pass || fail "summary.csv: the refused kernel's row has every column"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) == 5 and len({len(r) for r in rows}) == 1, [len(r) for r in rows]
recurse = [r for r in rows if r[0] == "recurse"][0]
assert "recursion" in recurse[-1] and not any(recurse[1:-1]), recurse
PY
fi
for f in summary.txt summary.csv summary.json summary_ipc.svg vecadd/validate.json vecadd/profile/index.json; do
  [ -s "$TMP/srep/$f" ] && pass || fail "suite file $f"
done
rm "$TMP/suite/vecadd/launch.json" "$TMP/suite/reduce_seq/launch.json" "$TMP/suite/devfunc/launch.json"
expect_exit 1 "a suite where nothing validates" -- "$MINIBENCH" validate --suite "$TMP/suite" --reduction max --config conf1 -o "$TMP/srep2"
expect_grep "$TMP/err" "no example could be validated" "an empty result is an error"
expect_exit 1 "not a suite" -- "$MINIBENCH" validate --suite "$TMP/nope" -o "$TMP/srep3"
expect_exit 2 "--manifest without --suite" -- "$MINIBENCH" validate prof/k.0 --manifest x.json -o "$TMP/r"
expect_exit 2 "--manifest as a path" -- "$MINIBENCH" validate --suite "$TMP/suite" --manifest a/x.json -o "$TMP/r"
cp "$EX/vecadd/launch.json" "$TMP/suite/vecadd/other.json"
expect_exit 0 "a suite with another manifest name" -- "$MINIBENCH" validate --suite "$TMP/suite" --manifest other.json --reduction max --config conf1 -o "$TMP/srep4"
expect_grep "$TMP/out" "^vecadd +no +max" "only the example with that manifest"
expect_grep "$TMP/out" "1 kernels validated, 0 not.* - over 0 kernels with loops" "no loop kernel: no speedup mean"

# --- a profile of an unmodified program: the program runs again on the runtime library
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
LIB="$(dirname "$MINIBENCH")/lib/libcudart.so.13"
if [ ! -x "$NVCC" ]; then
  echo "skipped the program part: nvcc not found (set NVCC)"
elif nm -D "$LIB" 2>/dev/null | grep -q " U __asan_init"; then
  echo "skipped the program part: a sanitizer build's libcudart.so.13 cannot be loaded by an ordinary program"
else
  "$NVCC" -arch=sm_75 -O3 -cudart shared -o "$TMP/reduce_seq" "$EX/reduce_seq/reduce_seq.cu" "$EX/reduce_seq/reduce_seq_ref.c" ||
    fail "nvcc reduce_seq"
  expect_exit 0 "profile the program" -- "$MINIBENCH" profile -o "$TMP/pp" --launch-index 0 -- "$TMP/reduce_seq"
  expect_grep "$TMP/pp/index.json" '"arguments": \[' "the index records the arguments"
  PP=$(ls "$TMP/pp" | grep '\.0\.profile\.json$' | sed 's/\.profile\.json$//')
  expect_exit 0 "validate the program's profile" -- "$MINIBENCH" validate "$TMP/pp/$PP" --reduction 2,max --config conf1,conf2 -o "$TMP/prep"
  expect_grep "$TMP/out" "^conf2 +max" "the program's table"
  [ "$(grep -c '^PASS' "$TMP/out")" -eq 0 ] && pass || fail "the program's own output stays out of the table"
  # the original launch's thread instructions match the profile's
  insts=$(tr -d ' \n' <"$TMP/pp/$PP.profile.json" | grep -o '"thread_insts":[0-9]*' | head -1 | cut -d: -f2)
  expect_grep "$TMP/out" " $insts " "the program's launch ran the profiled instruction count"
  # a program that is gone is named
  cp -r "$TMP/pp" "$TMP/pp2"
  sed -i "s#$TMP/reduce_seq#$TMP/gone#" "$TMP/pp2/index.json"
  expect_exit 1 "the program is gone" -- "$MINIBENCH" validate "$TMP/pp2/$PP" --reduction max --config conf1 -o "$TMP/prep2"
  expect_grep "$TMP/err" "gone" "the missing program is named"
fi
finish
