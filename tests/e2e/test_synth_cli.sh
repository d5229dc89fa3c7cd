#!/usr/bin/env bash
# End-to-end tests of 'minibench synth': usage, bad inputs, determinism, the
# clone directory, and a clone that reproduces its original within the
# tolerances of 'minibench compare --check' (vecadd, at every reduction).
source "$(dirname "$0")/lib.sh"
P="$TMP/prof"
expect_exit 0 "profile vecadd" -- "$MINIBENCH" profile "$EX/vecadd/vecadd.ptx" \
  --launch "$EX/vecadd/launch.json" -o "$P"
A="$P/vecadd.0"

# --- help and usage errors
expect_exit 0 "synth help" -- "$MINIBENCH" synth --help
expect_grep "$TMP/out" "Usage: minibench synth" "help text"
expect_exit 2 "no reduction" -- "$MINIBENCH" synth "$A" -o "$TMP/c"
expect_exit 2 "no output" -- "$MINIBENCH" synth "$A" --reduction 2
expect_exit 2 "reduction 0" -- "$MINIBENCH" synth "$A" --reduction 0 -o "$TMP/c"
expect_grep "$TMP/err" "reduction" "the bad option is named"
expect_exit 2 "bad seed" -- "$MINIBENCH" synth "$A" --reduction 2 --seed x -o "$TMP/c"

# --- bad inputs: nothing is written
expect_exit 1 "missing profile" -- "$MINIBENCH" synth "$TMP/none.0" --reduction 2 -o "$TMP/c"
expect_grep "$TMP/err" "none.0.profile.json" "missing file named"
[ ! -e "$TMP/c" ] && pass || fail "a failed synth created its output directory"
CALLS="$MB_SOURCE_DIR/tests/synth/calls"
expect_exit 0 "profile the crafted calls" -- "$MINIBENCH" profile "$CALLS/calls.ptx" \
  --launch "$CALLS/launch.json" -o "$TMP/cp"
expect_exit 1 "recursion is refused" -- "$MINIBENCH" synth "$TMP/cp/recurse.1" --reduction 2 -o "$TMP/c"
expect_grep "$TMP/err" "kernel recurse: function depth calls itself \(recursion\)" "reason given"
[ ! -e "$TMP/c" ] && pass || fail "a refused synth created its output directory"

# --- a guarded load staged into shared memory (matmul's tiles: x = 0; if (in) x = a[i];
# tile[t] = x): the clone's load writes the register its store reads, so the store
# waits for the load as the original's did
expect_exit 0 "profile matmul" -- "$MINIBENCH" profile "$EX/matmul/matmul.ptx" \
  --launch "$EX/matmul/launch.json" -o "$TMP/mp"
expect_exit 0 "synth matmul" -- "$MINIBENCH" synth "$TMP/mp/_Z12matmul_tiledPKfS0_Pfiii.0" --reduction 1 -o "$TMP/cm"
loads=$(grep -cE "^\s*ld\.global\.f32 " "$TMP/cm/clone.ptx")
joined=0
for r in $(sed -nE 's/^\s*ld\.global\.f32 (%f[0-9]+), .*/\1/p' "$TMP/cm/clone.ptx"); do
  grep -qE "^\s*st\.shared\.f32 \[[^]]*\], $r;" "$TMP/cm/clone.ptx" && joined=$((joined + 1))
done
[ "$loads" -eq 2 ] && [ "$joined" -eq 2 ] && pass ||
  fail "matmul's clone: $joined of $loads tile loads write the register their store reads"

# --- nw's busiest launch: its constant loads read the substitution table at 4 to 5
# distinct words a request (a constant cache serves one a cycle), which the clone
# reproduces with several words per sector; the tile's stores write the maximum the
# original stores, and its shared reads wait for the add that makes their address
expect_exit 0 "profile nw" -- "$MINIBENCH" profile "$EX/nw/nw.ptx" --launch "$EX/nw/launch.json" \
  --launch-index 1 -o "$TMP/np"
expect_exit 0 "synth nw" -- "$MINIBENCH" synth "$TMP/np/nw_tile_wavefront.1" --reduction 1 -o "$TMP/cn"
profile_clone "nw" "$TMP/cn"
"$MINIBENCH" compare "$TMP/np/nw_tile_wavefront.1" "$TMP/cn/prof/nw_tile_wavefront.0" --json >"$TMP/cn/cmp.json"
if command -v python3 >/dev/null; then
  python3 - "$TMP/cn/cmp.json" <<'PY' && pass || fail "nw's clone: constant loads' distinct words"
import json, sys
mem = [m for m in json.load(open(sys.argv[1]))["memory"] if m["space"] == "const"]
assert len(mem) == 4, mem
# one word per sector gave 0.41 of the original's words; the sectors stay near
# (one access's window keeps 2 lanes for its sectors, and so 2 words)
a = sum(m["addresses_mean_a"] for m in mem)
b = sum(m["addresses_mean_b"] for m in mem)
assert a > 16 and b >= 0.65 * a, (a, b)
for m in mem:
    assert m["addresses_mean_b"] >= 2 and m["sectors_tv"] < 0.06, m
PY
else
  echo "python3 not found: nw's constant-word check is skipped"
fi
stores=$(grep -cE "^\s*st\.shared\.u32 \[%r[0-9]+\+1(40|44|48|52)\], %r[0-9]+;" "$TMP/cn/clone.ptx")
maxed=0
for r in $(sed -nE 's/^\s*st\.shared\.u32 \[%r[0-9]+\+1(40|44|48|52)\], (%r[0-9]+);/\2/p' "$TMP/cn/clone.ptx"); do
  grep -qE "^\s*max\.s32 $r, " "$TMP/cn/clone.ptx" && maxed=$((maxed + 1))
done
[ "$stores" -eq 4 ] && [ "$maxed" -eq 4 ] && pass || fail "nw's clone: $maxed of $stores tile stores write a maximum"
joined=0
for r in $(sed -nE 's/^\s*ld\.shared\.u32 %r[0-9]+, \[(%r[0-9]+)\+[0-9]+\];/\1/p' "$TMP/cn/clone.ptx"); do
  grep -qE "^\s*add\.s32 $r, %r[0-9]+, 0;" "$TMP/cn/clone.ptx" && joined=$((joined + 1))
done
[ "$joined" -ge 8 ] && pass || fail "nw's clone: $joined shared reads wait for their address's add"

# --- the original's products where the clone's values allow them: a product by
# a power of two leaves the block's one `mad` to one that cannot become a shift and
# an add (transpose_shared's entry block: ctaid.x * 32 + tid.x and tid.y * 33 + tid.x)
expect_exit 0 "profile transpose_shared" -- "$MINIBENCH" profile "$EX/transpose_shared/transpose_shared.ptx" \
  --launch "$EX/transpose_shared/launch.json" -o "$TMP/tp"
expect_exit 0 "synth transpose_shared" -- "$MINIBENCH" synth "$TMP/tp/transpose_shared.0" --reduction 1 -o "$TMP/ct"
check_clone "transpose_shared" "$TMP/ct"
expect_exit 0 "compare transpose_shared" -- "$MINIBENCH" compare "$TMP/tp/transpose_shared.0" \
  "$TMP/ct/prof/transpose_shared.0" --reduction 1
mad=$(awk '$1 == "mad.s32" { d = $3 - $2; print (d < 0 ? -d : d) < 0.5 }' "$TMP/out")
[ "$mad" = 1 ] && pass || fail "transpose_shared's clone: mad.s32 share off the original's ($(grep mad.s32 "$TMP/out"))"

# --- a table indexed by loaded data (histogram: bins[data[i]]): the profile names
# the load and its steps, and the clone indexes its table the same way, with no
# per-thread set-up; its bank conflicts then come from the data as the original's did
expect_exit 0 "profile histogram" -- "$MINIBENCH" profile "$EX/histogram/histogram.ptx" \
  --launch "$EX/histogram/launch.json" -o "$TMP/hp"
H="$TMP/hp/histogram256.0"
expect_exit 0 "synth histogram" -- "$MINIBENCH" synth "$H" --reduction 1 -o "$TMP/ch"
check_clone "histogram" "$TMP/ch"
byte=$(sed -nE 's/^\s*ld\.global\.u8 (%rs[0-9]+), .*/\1/p' "$TMP/ch/clone.ptx")
expect_grep "$TMP/ch/clone.ptx" "^\s*mul\.wide\.u16 %r[0-9]+, ${byte:-none}, 4;" "clone: the loaded byte indexes the bins"
cmp -s "$H.input0.bin" "$TMP/ch/input0.bin" && pass || fail "the clone's data is not the original's"
# synthesised again into the same directory, where an earlier clone left more inputs
printf 'x' > "$TMP/ch/input3.bin"
expect_exit 0 "synth histogram again" -- "$MINIBENCH" synth "$H" --reduction 2 -o "$TMP/ch"
[ ! -e "$TMP/ch/input3.bin" ] && [ -e "$TMP/ch/input0.bin" ] && pass || fail "a stale input<k>.bin stayed in the clone directory"
expect_exit 0 "synth histogram at R = 1" -- "$MINIBENCH" synth "$H" --reduction 1 -o "$TMP/ch"
# at max each thread counts one byte, 32 requests against the original's 625: the
# first bytes would draw conflicts 6.3% from the profile's, so the load reads a
# window further on whose bytes keep them, and the README says so
expect_exit 0 "synth histogram at max" -- "$MINIBENCH" synth "$H" --reduction max -o "$TMP/chm"
check_clone "histogram at max" "$TMP/chm"
byte=$(sed -nE 's/^\s*ld\.global\.u8 (%rs[0-9]+), \[%rd[0-9]+\+[0-9]+\];/\1/p' "$TMP/chm/clone.ptx")
expect_grep "$TMP/chm/clone.ptx" "^\s*mul\.wide\.u16 %r[0-9]+, ${byte:-none}, 4;" "max: the shifted load's byte indexes the bins"
expect_grep "$TMP/chm/README.md" "The load at line 66 reads buffer 'data' [0-9]+ bytes \([0-9]+ lines of 128\) further on" \
  "max: the README names the load's window"
"$MINIBENCH" compare "$H" "$TMP/chm/prof/histogram256.0" --reduction max --check >"$TMP/cmp" 2>&1
grep -q "atom.u32 at line 70.*bank-conflict" "$TMP/cmp" && fail "max: the bins' bank conflicts are off: $(grep 'line 70' "$TMP/cmp")" || pass
awk '$2 == 70 && $4 == "atom.u32" { ok = $12 <= 0.025 } END { exit !ok }' "$TMP/cmp" && pass || fail "max: the bins' conflicts not within 2.5% ($(awk '$2 == 70' "$TMP/cmp"))"
expect_exit 0 "compare histogram" -- "$MINIBENCH" compare "$H" "$TMP/ch/prof/histogram256.0" --reduction 1 --json
if command -v python3 >/dev/null; then
  python3 - "$H.profile.json" <<'PY' && pass || fail "profile: the atomic's index"
import json, sys
mem = json.load(open(sys.argv[1]))["functions"][0]["memory"]
atom = [m for m in mem if m["line"] == 70][0]
assert atom["index"] == {"load": 28, "load_line": 66, "ops": [{"op": "mul.wide.u16", "imm": 4}],
                         "variable": "_ZZ12histogram256E10local_bins", "offset": 0}, atom.get("index")
assert all("index" not in m for m in mem if m["line"] != 70)
PY
  python3 - "$TMP/out" <<'PY' && pass || fail "histogram's clone: the atomic's bank conflicts or its instruction count"
import json, sys
d = json.load(open(sys.argv[1]))
atom = [m for m in d["memory"] if m["line"] == 70][0]
assert atom["bank_tv"] < 0.05 and abs(atom["bank_mean_b"] - atom["bank_mean_a"]) < 0.15, atom
# the bank quotas' set-up cost 22 instructions per thread (+8.6%)
a, b = d["thread_insts_a"], d["thread_insts_b"]
assert b < 1.06 * a, (a, b)
PY
  # an index the clone cannot follow (an op no step takes, a table the values
  # would overrun) leaves the access to the bank-conflict quotas
  for bad in 'xor.b32 4' 'mul.wide.u16 8'; do
    rm -rf "$TMP/hq" && cp -r "$TMP/hp" "$TMP/hq"
    python3 - "$TMP/hq/histogram256.0.profile.json" $bad <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
atom = [m for m in p["functions"][0]["memory"] if m["line"] == 70][0]
atom["index"]["ops"] = [{"op": sys.argv[2], "imm": int(sys.argv[3])}]
json.dump(p, open(sys.argv[1], "w"))
PY
    expect_exit 0 "synth histogram ($bad)" -- "$MINIBENCH" synth "$TMP/hq/histogram256.0" --reduction 1 -o "$TMP/chq"
    check_clone "histogram ($bad)" "$TMP/chq"
    if grep -qE "^\s*(mul\.wide\.u16|xor\.b32) " "$TMP/chq/clone.ptx"; then fail "$bad: the clone still indexes"; else pass; fi
  done
else
  echo "python3 not found: histogram's index checks are skipped"
fi

# --- counters of the thread's .local frame indexed by loaded words (local_array's
# in[k] % 32, shl/cvt/and) with enough requests that chance keeps their sectors near
# the profiled distribution (8,000 columns): the clone indexes its frame from its own
# load as the original does, the load and the store of a counter share the address
cat > "$TMP/la.json" <<'EOF2'
{"buffers": {"in": {"type": "u32", "count": 128000, "init": {"kind": "random", "seed": 1, "min": 0, "max": 100}},
             "mode": {"type": "u32", "count": 8000}, "count": {"type": "u32", "count": 8000}},
 "launches": [{"kernel": "local_mode", "grid": 63, "block": 128, "args": ["in", "mode", "count", 8000, 16]}]}
EOF2
expect_exit 0 "profile local_array (8,000 columns)" -- "$MINIBENCH" profile "$EX/local_array/local_array.ptx" \
  --launch "$TMP/la.json" -o "$TMP/lp"
expect_exit 0 "synth local_array" -- "$MINIBENCH" synth "$TMP/lp/local_mode.0" --reduction 1 -o "$TMP/cl"
check_clone "local_array" "$TMP/cl"
expect_exit 0 "compare local_array" -- "$MINIBENCH" compare "$TMP/lp/local_mode.0" "$TMP/cl/prof/local_mode.0" \
  --reduction 1 --json
if command -v python3 >/dev/null; then
  python3 - "$TMP/cl/clone.ptx" <<'PY' && pass || fail "local_array's clone: counters not indexed by their loaded word"
import re, sys
lines = [l.strip() for l in open(sys.argv[1])]
steps = [r"ld\.global\.u32 (%r\d+), \[", r"shl\.b32 (%r\d+), {0}, 2;", r"cvt\.u64\.u32 (%rd\d+), {0};",
         r"and\.b64 (%rd\d+), {0}, 124;", r"add\.s64 (%rd\d+), %rd\d+, {0};", r"ld\.local\.u32 %r\d+, \[{0}\];"]
found = 0
for i in range(len(lines) - len(steps)):
    reg = None
    for k, pat in enumerate(steps):
        m = re.match(pat.format(re.escape(reg)) if reg else pat, lines[i + k])
        if not m:
            break
        reg = m.group(1) if m.groups() else reg
    else:
        store = r"st\.local\.u32 \[{0}\], ".format(re.escape(reg))
        found += any(re.match(store, l) for l in lines[i + len(steps):i + len(steps) + 4])
# each counter: the word loaded, the original's three steps, the frame added, the
# load and the store at that one address
assert found == 4, found
PY
  python3 - "$TMP/out" <<'PY' && pass || fail "local_array's clone: the counters' sectors per request"
import json, sys
d = json.load(open(sys.argv[1]))
counters = [m for m in d["memory"] if m["space"] == "local" and 70 <= m["line"] <= 112]
assert len(counters) == 8, counters
for m in counters:
    assert abs(m["sectors_mean_b"] / m["sectors_mean_a"] - 1) < 0.01 and m["sectors_tv"] < 0.08, m
PY
fi

# --- at the examples' size (1,000 columns, 128 requests per counter) chance alone
# moves a sample's sectors past the check's 5%, but the clone reads the original's
# input where the original read it: at R = 1 its counters see the original's words
expect_exit 0 "profile local_array" -- "$MINIBENCH" profile "$EX/local_array/local_array.ptx" \
  --launch "$EX/local_array/launch.json" -o "$TMP/lq"
expect_exit 0 "synth local_array (1,000 columns)" -- "$MINIBENCH" synth "$TMP/lq/local_mode.0" --reduction 1 -o "$TMP/cq"
check_clone "local_array (1,000 columns)" "$TMP/cq"
expect_exit 0 "compare local_array (1,000 columns)" -- "$MINIBENCH" compare "$TMP/lq/local_mode.0" \
  "$TMP/cq/prof/local_mode.0" --reduction 1 --json
if command -v python3 >/dev/null; then
  python3 - "$TMP/out" <<'PY' && pass || fail "local_array's clone on the original's input: the counters' sectors"
import json, sys
d = json.load(open(sys.argv[1]))
counters = [m for m in d["memory"] if m["space"] == "local" and 70 <= m["line"] <= 112]
assert len(counters) == 8 and all(m["sectors_tv"] == 0 for m in counters), counters
PY
fi

# --- a kernel calling a device function: the callee is a .func, called for real
expect_exit 0 "profile devfunc" -- "$MINIBENCH" profile "$EX/devfunc/devfunc.ptx" \
  --launch "$EX/devfunc/launch.json" -o "$TMP/dp"
expect_exit 0 "synth devfunc" -- "$MINIBENCH" synth "$TMP/dp/digit_sums.0" --reduction 2 -o "$TMP/cd"
expect_grep "$TMP/cd/clone.ptx" "^\.func \(\.param \.b32 func_retval0\) _Z9digit_sumjj\($" "clone.ptx: the .func"
expect_grep "$TMP/cd/clone.ptx" "call\.uni \(_call0_retval\), _Z9digit_sumjj, \(_call0_param0, _call0_param1\);" \
  "clone.ptx: the calls"
expect_grep "$TMP/cd/clone.cu" "^extern \"C\" __device__ __noinline__ __attribute__\(\(used\)\) unsigned int _Z9digit_sumjj\(" \
  "clone.cu: the function"

# --- the clone directory
expect_exit 0 "synth vecadd" -- "$MINIBENCH" synth "$A" --reduction 2 --seed 5 -o "$TMP/c"
expect_grep "$TMP/out" "branch in block 0 \(line [0-9]+\): outside-loop first N" "case printed"
for f in clone.ptx clone.cu launch.json Makefile README.md; do
  [ -s "$TMP/c/$f" ] && pass || fail "synth did not write $f"
done
expect_grep "$TMP/c/README.md" "\| reduction factor \| 2 \|" "README: reduction"
expect_grep "$TMP/c/README.md" "\| seed \| 5 \|" "README: seed"
expect_grep "$TMP/c/README.md" "\| source kernel \| \`vecadd\` \|" "README: source kernel"
expect_grep "$TMP/c/clone.cu" "asm volatile\(" "clone.cu: one asm block"
expect_grep "$TMP/c/launch.json" '"grid": \[' "launch.json: grid"
# the store writes the sum, as the original's does (the profile's dependence)
sum=$(sed -n 's/^\tadd\.f32 \(%f[0-9]*\), .*/\1/p' "$TMP/c/clone.ptx")
expect_grep "$TMP/c/clone.ptx" "^	st\.global\.f32 \[%rd[0-9]+\], ${sum:-none};" "the store writes the sum"

# --- the original's input: the profile keeps it beside itself, the clone copies it
# and loads it (launch.json and clone.cu); a missing or changed file is refused
for k in 0 1 2; do
  cmp -s "$P/vecadd.0.input$k.bin" "$TMP/c/input$k.bin" && pass || fail "input$k.bin is not the profile's"
done
expect_grep "$TMP/c/launch.json" '"path": "input0.bin"' "launch.json: the input file"
expect_grep "$TMP/c/clone.cu" 'read_input\(input_dir, "input0.bin", h, bytes\)' "clone.cu: reads the input"
expect_grep "$TMP/c/README.md" "input0.bin.: the original's input for buffer 'a'" "README: the input"
for damage in missing changed short; do
  rm -rf "$TMP/pd" "$TMP/cd2" && cp -r "$P" "$TMP/pd"
  case $damage in
    missing) rm "$TMP/pd/vecadd.0.input1.bin" ;;
    changed) printf '\377' | dd of="$TMP/pd/vecadd.0.input1.bin" bs=1 seek=5 conv=notrunc 2>/dev/null ;;
    short) truncate -s 100 "$TMP/pd/vecadd.0.input1.bin" ;;
  esac
  expect_exit 1 "synth with a $damage input" -- "$MINIBENCH" synth "$TMP/pd/vecadd.0" --reduction 2 -o "$TMP/cd2"
  expect_grep "$TMP/err" "vecadd.0.input1.bin" "$damage input: the file is named"
  [ ! -e "$TMP/cd2" ] && pass || fail "synth with a $damage input wrote its output"
done
if command -v python3 >/dev/null; then
  # a profile without "inputs" (written before them): seeded bytes, and the README says so
  rm -rf "$TMP/pd" && cp -r "$P" "$TMP/pd" && rm "$TMP/pd"/vecadd.0.input*.bin
  python3 - "$TMP/pd/vecadd.0.profile.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
del p["inputs"]
for q in p["parameters"]:
    q.get("pointer", {}).pop("input", None)
json.dump(p, open(sys.argv[1], "w"))
PY
  expect_exit 0 "synth without inputs" -- "$MINIBENCH" synth "$TMP/pd/vecadd.0" --reduction 2 -o "$TMP/cd2"
  expect_grep "$TMP/cd2/launch.json" '"kind": "random"' "no input: seeded bytes"
  expect_grep "$TMP/cd2/README.md" "recorded no input" "no input: the README says so"
  check_clone "without inputs" "$TMP/cd2"
fi

# --- determinism: same seed, same bytes
expect_exit 0 "synth again" -- "$MINIBENCH" synth "$A" --reduction 2 --seed 5 -o "$TMP/c2"
for f in clone.ptx clone.cu launch.json Makefile README.md; do
  cmp -s "$TMP/c/$f" "$TMP/c2/$f" && pass || fail "$f differs between two runs with the same seed"
done

# --- the clone runs and matches its original at every reduction
for R in 1 2 8 max; do
  expect_exit 0 "synth R=$R" -- "$MINIBENCH" synth "$A" --reduction $R -o "$TMP/r$R"
  check_clone "R=$R" "$TMP/r$R"
  expect_exit 0 "compare --check R=$R" -- "$MINIBENCH" compare "$A" "$TMP/r$R/prof/vecadd.0" \
    --reduction $R --check
done

# --- ptxas accepts the clone (when the CUDA toolkit is installed)
if [ -n "$PTXAS" ]; then
  expect_exit 0 "ptxas" -- "$PTXAS" -arch=sm_75 "$TMP/c/clone.ptx" -o "$TMP/c/clone.cubin"
else
  echo "ptxas not found: the ptxas check is skipped"
fi
finish
