#!/usr/bin/env bash
# Executor benchmark: builds bench_exec in a RelWithDebInfo tree, runs every
# example at the large size (wall time of mb_launch, median of R runs), then
# runs each example at the small size under callgrind to count host
# instructions per simulated thread instruction, and prints a markdown table.
#
# usage: bench/run_exec_bench.sh [--build DIR] [--repeat R] [--only LIST]
#                                [--no-callgrind] [--out DIR]
# Raw results (CSV, callgrind output) are kept in the --out directory
# (default: DIR/bench-results).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$SRC/build-bench"
REPEAT=3
ONLY=""
CALLGRIND=1
OUT=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --no-callgrind) CALLGRIND=0; shift ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_exec_bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
OUT=${OUT:-$BUILD/bench-results}

cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMB_SANITIZE=OFF >/dev/null
cmake --build "$BUILD" --target bench_exec -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
BENCH="$BUILD/bench/bench_exec"
mkdir -p "$OUT"
only_args=()
[ -n "$ONLY" ] && only_args=(--only "$ONLY")

echo "## large size: wall time of mb_launch, 1 host thread, median of $REPEAT runs" >&2
"$BENCH" --size large --repeat "$REPEAT" --threads 1 "${only_args[@]}" --csv | tee "$OUT/large.csv" >&2

# callgrind: host instructions (Ir) spent in mb_launch per simulated thread instruction
declare -A IR SMALL_TI
if [ "$CALLGRIND" = 1 ]; then
  if ! command -v valgrind >/dev/null; then
    echo "run_exec_bench.sh: valgrind not found; skipping the callgrind columns" >&2
    CALLGRIND=0
  fi
fi
if [ "$CALLGRIND" = 1 ]; then
  # with <valgrind/callgrind.h> only mb_launch is instrumented; without it,
  # the Ir of a run that skips mb_launch is subtracted from a full run
  instrumented=1
  "$BENCH" --help | grep -q "not in this build" && instrumented=0
  cg_ir() { # FILE: total Ir recorded in a callgrind output file ('totals:' is the sum
    # over all the dumps; 'summary:' can be 0 when instrumentation was toggled)
    local t
    t=$(awk '$1 == "totals:" {print $2; exit}' "$1")
    [ -n "$t" ] || t=$(awk '$1 == "summary:" {print $2; exit}' "$1")
    echo "${t:-0}"
  }
  names=$(awk -F, 'NR > 1 && $1 != "median" {print $1}' "$OUT/large.csv")
  for name in $names; do
    echo "## callgrind: $name (small size)" >&2
    if [ "$instrumented" = 1 ]; then
      valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.$name.out" \
        "$BENCH" --size small --repeat 1 --only "$name" --csv >"$OUT/small.$name.csv" 2>"$OUT/callgrind.$name.log"
      IR[$name]=$(cg_ir "$OUT/callgrind.$name.out")
    else
      valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$name.out" \
        "$BENCH" --size small --repeat 1 --only "$name" --csv >"$OUT/small.$name.csv" 2>"$OUT/callgrind.$name.log"
      valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$name.setup.out" \
        "$BENCH" --size small --repeat 1 --only "$name" --csv --no-launch >/dev/null 2>>"$OUT/callgrind.$name.log"
      IR[$name]=$(( $(cg_ir "$OUT/callgrind.$name.out") - $(cg_ir "$OUT/callgrind.$name.setup.out") ))
    fi
    SMALL_TI[$name]=$(awk -F, -v n="$name" '$1 == n {print $6}' "$OUT/small.$name.csv")
  done
fi

# the markdown table
{
  echo "| example | size (large) | launches | thread insts | median s | cpu s | M thread insts/s | thread insts (small) | host Ir per thread inst |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  ratios=()
  while IFS=, read -r name size launches _ _ thread_insts med _ _ rate _ cpu; do
    [ "$name" = example ] && continue
    if [ "$name" = median ]; then
      median_rate=$rate
      continue
    fi
    ratio="-"
    small="-"
    if [ "$CALLGRIND" = 1 ] && [ -n "${IR[$name]:-}" ] && [ -n "${SMALL_TI[$name]:-}" ] && [ "${SMALL_TI[$name]}" -gt 0 ]; then
      small=${SMALL_TI[$name]}
      ratio=$(awk -v a="${IR[$name]}" -v b="$small" 'BEGIN {printf "%.1f", a / b}')
      ratios+=("$ratio")
    fi
    printf '| %s | %s | %s | %s | %.3f | %.3f | %.1f | %s | %s |\n' "$name" "$size" "$launches" "$thread_insts" \
      "$med" "$cpu" "$(awk -v r="$rate" 'BEGIN {print r / 1e6}')" "$small" "$ratio"
  done <"$OUT/large.csv"
  median_ratio="-"
  if [ ${#ratios[@]} -gt 0 ]; then
    median_ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}')
  fi
  printf '| **median** | | | | | | **%.1f** | | **%s** |\n' "$(awk -v r="${median_rate:-0}" 'BEGIN {print r / 1e6}')" "$median_ratio"
} | tee "$OUT/table.md"
