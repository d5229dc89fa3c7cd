#!/usr/bin/env bash
# End-to-end tests of 'minibench sim --config C -- PROGRAM': launches of an
# nvcc-built program are timed on the cycle simulator, with one statistics
# block per selected launch and the totals, the device the program sees is
# the configuration's, and the program's output and exit status are kept.
# Skipped (77) without nvcc.
source "$(dirname "$0")/lib.sh"

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "skipped: nvcc not found (set NVCC)"
  exit 77
fi
LIB="$(dirname "$MINIBENCH")/lib/libcudart.so.13"
if nm -D "$LIB" 2>/dev/null | grep -q " U __asan_init"; then
  echo "skipped: a sanitizer build's libcudart.so.13 needs the sanitizer runtime in the program; run in a plain build"
  exit 77
fi
BIN="$TMP/bin"
mkdir -p "$BIN"
for name in nw vecadd; do
  "$NVCC" -arch=sm_75 -O3 -cudart shared -o "$BIN/$name" "$EX/$name/$name.cu" "$EX/$name/${name}_ref.c" ||
    fail "nvcc $name"
done
"$NVCC" -arch=sm_75 -O3 -cudart shared -o "$BIN/api_app" "$MB_SOURCE_DIR/tests/cudart/api_app.cu" || fail "nvcc api_app"
blocks() { grep -c '^kernel_name = ' "$1"; }

# --- usage
expect_exit 0 "sim --help --" -- "$MINIBENCH" sim --help --
expect_grep "$TMP/out" "minibench sim --config NAME\|FILE \[options\] -- PROGRAM" "help of the -- form"
expect_exit 2 "sim -- without --config" -- "$MINIBENCH" sim -- "$BIN/vecadd"
expect_grep "$TMP/err" "--config NAME\|FILE is required" "missing --config is named"

# --- every launch timed, one block each, totals at the end
expect_exit 0 "sim nw" -- "$MINIBENCH" sim --config conf1 -o "$TMP/nw.txt" -- "$BIN/nw"
expect_grep "$TMP/out" "^PASS$" "the program's output is kept"
[ "$(blocks "$TMP/nw.txt")" -eq 11 ] && pass || fail "nw: 11 statistics blocks expected, got $(blocks "$TMP/nw.txt")"
expect_grep "$TMP/nw.txt" "^kernel_launch_uid = 10$" "blocks name their launch"
expect_grep "$TMP/nw.txt" "^gpu_sim_cycle = [1-9][0-9]*$" "cycles are counted"
expect_grep "$TMP/nw.txt" "^# totals over every simulated launch$" "totals follow"
# the last block's running total equals the totals
last=$(grep '^gpu_tot_sim_cycle' "$TMP/nw.txt" | tail -1 | cut -d' ' -f3)
total=$(sed -n '/^# totals/,$p' "$TMP/nw.txt" | grep '^gpu_sim_cycle' | cut -d' ' -f3)
[ -n "$last" ] && [ "$last" = "$total" ] && pass || fail "gpu_tot_sim_cycle $last != total $total"

# --- selection and fast-forward: fewer blocks; fast-forwarded launches take no simulated time
expect_exit 0 "sim nw selected" -- "$MINIBENCH" sim --config conf1 -o "$TMP/sel.txt" --launch-index 3 -- "$BIN/nw"
[ "$(blocks "$TMP/sel.txt")" -eq 1 ] && pass || fail "--launch-index 3: one block expected"
tot_all=$(grep '^gpu_tot_sim_cycle' "$TMP/sel.txt" | cut -d' ' -f3)
expect_exit 0 "sim nw fast-forward" -- "$MINIBENCH" sim --config conf1 -o "$TMP/ff.txt" --launch-index 3 --fast-forward -- "$BIN/nw"
own=$(grep '^gpu_sim_cycle' "$TMP/ff.txt" | head -1 | cut -d' ' -f3)
tot_ff=$(grep '^gpu_tot_sim_cycle' "$TMP/ff.txt" | cut -d' ' -f3)
[ "$own" = "$tot_ff" ] && pass || fail "fast-forward: only launch 3 is timed ($own != $tot_ff)"
[ "$tot_all" -gt "$tot_ff" ] && pass || fail "without fast-forward launches 0-2 are timed too ($tot_all <= $tot_ff)"
expect_exit 0 "sim vecadd --max-launches" -- "$MINIBENCH" sim --config conf3 --max-launches 1 -- "$BIN/vecadd" 5000
expect_grep "$TMP/err" "^kernel_name = vecadd$" "statistics on standard error by default"

# --- the program sees the simulated machine
expect_exit 0 "api_app under sim" -- "$MINIBENCH" sim --config conf1 -o "$TMP/api.txt" -- "$BIN/api_app"
expect_grep "$TMP/out" "^ok: properties of minibench simulated GPU \(conf1\)$" "device named after the config"
sms=$("$MINIBENCH" sim --print-config --config conf1 | awk '/^-gpgpu_n_clusters/ {c=$2} /^-gpgpu_n_cores_per_cluster/ {k=$2} END {print c*k}')
expect_grep "$TMP/out" "^ok: SM count $sms$" "SM count from the config"
expect_grep "$TMP/out" "^PASS$" "api_app passes under sim"

# --- a bad configuration is reported and every call fails
expect_exit 2 "sim with a missing config" -- "$MINIBENCH" sim --config "$TMP/no.config" -- "$BIN/vecadd" 1000
expect_grep "$TMP/err" "cannot start the simulator" "config failure is reported"
expect_grep "$TMP/err" "initialization error" "and calls fail with cudaErrorInitializationError"
# --- JSON statistics of one fast-forwarded launch (what validate reads)
MINIBENCH_CUDART_STATS_JSON="$TMP/nw.json" expect_exit 0 "sim nw launch 3 as JSON" -- \
  "$MINIBENCH" sim --config conf1 --launch-index 3 --fast-forward -- "$BIN/nw"
expect_grep "$TMP/nw.json" '^\{"selected_kernels": \["nw_tile_wavefront"\], "launch_seconds": [0-9.]+, "simulator": \{' "the JSON document's shape"
expect_grep "$TMP/nw.json" '"gpu_sim_launches": 1,' "only the selected launch was timed"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/nw.json" && pass || fail "the JSON statistics parse"
! grep -q '^kernel_name = ' "$TMP/err" && pass || fail "JSON alone keeps the text blocks off stderr"

finish
