#!/usr/bin/env bash
# End-to-end tests of 'minibench sim': every example simulates on every preset,
# output is GPGPU-Sim-style text or JSON and identical across runs, --stats-out
# writes JSON atomically, config files load (unmodelled options warned about
# once) from any working directory, and bad input exits 1 or 2 naming the place.
source "$(dirname "$0")/lib.sh"
T="$MB_SOURCE_DIR/tests/sim"

# --- help and usage errors (exit 2)
expect_exit 0 "sim --help" -- "$MINIBENCH" sim --help
expect_grep "$TMP/out" "Usage: minibench sim FILE.ptx --launch L.json --config" "sim help text"
expect_grep "$TMP/out" "--stats-out F" "sim help lists --stats-out"
expect_exit 2 "sim without --config" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --launch "$T/dep_chain.json"
expect_grep "$TMP/err" "--config NAME\|FILE is required" "missing --config is named"
expect_exit 2 "sim without --launch" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --config conf1
expect_grep "$TMP/err" "--launch L.json is required" "missing --launch is named"
expect_exit 2 "sim without a PTX file" -- "$MINIBENCH" sim --launch "$T/dep_chain.json" --config conf1
expect_exit 2 "sim --max-insts 0" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --launch "$T/dep_chain.json" --config conf1 --max-insts 0
expect_exit 2 "sim unknown option" -- "$MINIBENCH" sim --bogus
expect_exit 0 "sim --list-options" -- "$MINIBENCH" sim --list-options
expect_grep "$TMP/out" "-gpgpu_cache:dl1" "options list names GPGPU-Sim options"

# --- every example on every preset (a preset works from any directory)
cd "$TMP" || exit 1
for conf in conf1 conf2 conf3 conf4 gpumech stargazer v100 rtx2060 h100; do
  for dir in "$EX"/*/; do
    name=$(basename "$dir")
    [ -f "$dir/launch.json" ] || continue
    if "$MINIBENCH" sim "$dir/$name.ptx" --launch "$dir/launch.json" --config "$conf" >"$TMP/o" 2>"$TMP/e"; then
      if grep -qE '^gpu_sim_cycle = [1-9]' "$TMP/o" && grep -qE '^gpu_sim_insn = [1-9]' "$TMP/o" &&
         grep -qE '^gpu_ipc = [0-9]' "$TMP/o"; then pass; else fail "$name on $conf: statistics missing"; fi
    else
      fail "$name on $conf: exit status $?"; sed 's/^/  stderr: /' "$TMP/e" | head -3 >&2
    fi
  done
done

# --- text, JSON and determinism
expect_exit 0 "sim text" -- "$MINIBENCH" sim "$T/indep.ptx" --launch "$T/indep.json" --config conf2
cp "$TMP/out" "$TMP/text1"
expect_grep "$TMP/text1" "^gpu_sim_insn = 622592$" "thread instructions match the executor's count"
expect_grep "$TMP/text1" "^stall_issued = [0-9]+$" "stall breakdown printed"
expect_exit 0 "sim text again" -- "$MINIBENCH" sim "$T/indep.ptx" --launch "$T/indep.json" --config conf2
cmp -s "$TMP/out" "$TMP/text1" && pass || fail "two runs printed different statistics"
expect_exit 0 "sim --json --stats-out" -- "$MINIBENCH" sim "$T/copy.ptx" --launch "$T/copy.json" --config v100 --json --stats-out "$TMP/stats.json"
expect_grep "$TMP/out" '"gpu_sim_cycle": [1-9]' "JSON statistics"
expect_grep "$TMP/out" '"scheduler_cycles"' "JSON per-scheduler stall cycles"
expect_grep "$TMP/out" '"gpgpu_n_clusters": "80"' "JSON config"
cmp -s "$TMP/out" "$TMP/stats.json" && pass || fail "--stats-out differs from --json output"
ls "$TMP" | grep -q '\.tmp' && fail "a temporary file was left behind" || pass

# --- config files: GPGPU-Sim syntax, unmodelled options warned once, overrides
cat >"$TMP/my.config" <<'EOF'
# a gpgpusim.config-style file
-gpgpu_n_clusters 2
-gpgpu_ptx_force_max_capability 75
-gpgpu_ptx_force_max_capability 70
-gpgpu_scheduler gto
EOF
expect_exit 0 "sim with a config file" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --launch "$T/dep_chain.json" --config "$TMP/my.config"
expect_grep "$TMP/err" "my.config:3: warning: option -gpgpu_ptx_force_max_capability is not modelled" "unmodelled option warned"
[ "$(grep -c warning "$TMP/err")" -eq 1 ] && pass || fail "unmodelled option warned more than once"
expect_exit 0 "sim --print-config --set" -- "$MINIBENCH" sim --config "$TMP/my.config" --print-config --set "gpgpu_n_mem=3;smem_latency=9"
expect_grep "$TMP/out" "^-gpgpu_n_clusters 2$" "config file value printed"
expect_grep "$TMP/out" "^-gpgpu_n_mem 3$" "--set applied"
expect_grep "$TMP/out" "^-smem_latency 9$" "--set applied to a second option"

# --- errors (exit 1) name the place
printf -- '-gpgpu_n_clusters 4\n-gpgpu_cache:dl1 12:34\n' >"$TMP/bad.config"
expect_exit 1 "malformed config" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --launch "$T/dep_chain.json" --config "$TMP/bad.config"
expect_grep "$TMP/err" "bad.config:2: error: -gpgpu_cache:dl1 '12:34' is not a cache description" "malformed value names file:line"
expect_exit 1 "unknown preset" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --launch "$T/dep_chain.json" --config conf7
expect_grep "$TMP/err" "no preset or config file named 'conf7'" "unknown preset named"
expect_exit 1 "bad --set" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --launch "$T/dep_chain.json" --config conf1 --set "nope=1"
expect_grep "$TMP/err" "unknown simulator option -nope" "unknown --set option named"
sed 's/"count": 32/"count": 8/' "$T/dep_chain.json" >"$TMP/small.json"
expect_exit 1 "fault in the simulated program" -- "$MINIBENCH" sim "$T/dep_chain.ptx" --launch "$TMP/small.json" --config conf1 --stats-out "$TMP/fault.json"
expect_grep "$TMP/err" "dep_chain.ptx:[0-9]+:[0-9]+: error: kernel dep_chain, block \(0,0,0\), thread \(8,0,0\)" "fault names kernel, block, thread and PTX line"
[ ! -e "$TMP/fault.json" ] && pass || fail "a failed run wrote --stats-out"
expect_exit 1 "budget" -- "$MINIBENCH" sim "$T/indep.ptx" --launch "$T/indep.json" --config conf1 --max-insts 100
expect_grep "$TMP/err" "instruction budget exhausted" "budget fault"

finish
