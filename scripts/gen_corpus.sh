#!/usr/bin/env bash
# Builds a PTX stress corpus for the PTX parser: every tests/corpus/*.cu and
# every examples/*/*.cu compiled by nvcc with a matrix of flags, one file per
# (source, variant) named OUTDIR/<source>.<variant>.ptx.
#
# usage: scripts/gen_corpus.sh [-j JOBS] [--verify] OUTDIR
#   -j JOBS   parallel nvcc jobs (default: number of CPUs)
#   --verify  also assemble each PTX with ptxas for its target, so the corpus
#             contains only PTX that NVIDIA's own assembler accepts
#
# Variants (all with -ptx):
#   sm75 sm80 sm86 sm90            -arch=sm_XX (device code at -O3, the default)
#   sm100 sm120                    newer targets, for the newest PTX features
#   sm75-G                         -G (debug: no optimisation, .loc and DWARF sections)
#   sm75-lineinfo                  -lineinfo (.file/.loc line tables)
#   sm75-srcinptx                  -lineinfo -src-in-ptx (source lines as comments)
#   sm75-fastmath                  --use_fast_math
#   sm75-O0 .. sm75-O3             -Xcicc -O0 .. -O3 (NVVM optimisation level)
#
# A combination that does not compile (for example a feature a target lacks)
# is reported with nvcc's first error and skipped; the script only fails when
# nvcc is missing or OUTDIR cannot be written. OUTDIR/index.tsv lists every
# attempt: ptx file, source, variant, flags, status, bytes.
# The corpus is generated, not committed.
set -euo pipefail

usage() {
    echo "usage: $0 [-j JOBS] [--verify] OUTDIR" >&2
    exit 2
}

jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 4)
verify=0
outdir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -j) [[ $# -ge 2 ]] || usage; jobs=$2; shift 2 ;;
        -j*) jobs=${1#-j}; shift ;;
        --verify) verify=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
                   exit 0 ;;
        -*) usage ;;
        *) [[ -z "$outdir" ]] || usage; outdir=$1; shift ;;
    esac
done
[[ -n "$outdir" ]] || usage
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "gen_corpus: -j needs a positive integer" >&2; exit 2; }

if ! command -v nvcc >/dev/null 2>&1; then
    if [[ -x /usr/local/cuda/bin/nvcc ]]; then
        PATH="/usr/local/cuda/bin:$PATH"
    else
        echo "gen_corpus: nvcc not found on PATH or in /usr/local/cuda/bin;" \
             "install the CUDA toolkit to build the PTX corpus" >&2
        exit 1
    fi
fi
if [[ $verify -eq 1 ]] && ! command -v ptxas >/dev/null 2>&1; then
    echo "gen_corpus: --verify needs ptxas, which is not next to nvcc" >&2
    exit 1
fi

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$outdir" || { echo "gen_corpus: cannot create $outdir" >&2; exit 1; }
outdir=$(cd "$outdir" && pwd)

# variant name, target architecture, extra nvcc flags
variants=(
    "sm75|sm_75|"
    "sm80|sm_80|"
    "sm86|sm_86|"
    "sm90|sm_90|"
    "sm100|sm_100|"
    "sm120|sm_120|"
    "sm75-G|sm_75|-G"
    "sm75-lineinfo|sm_75|-lineinfo"
    "sm75-srcinptx|sm_75|-lineinfo -src-in-ptx"
    "sm75-fastmath|sm_75|--use_fast_math"
    "sm75-O0|sm_75|-Xcicc -O0"
    "sm75-O1|sm_75|-Xcicc -O1"
    "sm75-O2|sm_75|-Xcicc -O2"
    "sm75-O3|sm_75|-Xcicc -O3"
)

shopt -s nullglob
sources=("$repo_root"/tests/corpus/*.cu "$repo_root"/examples/*/*.cu)
shopt -u nullglob
if [[ ${#sources[@]} -eq 0 ]]; then
    echo "gen_corpus: no .cu sources under tests/corpus or examples" >&2
    exit 1
fi

status_dir=$(mktemp -d "${TMPDIR:-/tmp}/gen_corpus.XXXXXX")
trap 'rm -rf "$status_dir"' EXIT

# Compiles one (source, variant) pair; writes one index line to the status
# directory and a message for failures. Runs in a subshell under xargs.
compile_one() {
    local src=$1 spec=$2
    local variant arch flags
    IFS='|' read -r variant arch flags <<<"$spec"
    local base rel out tmp errfile all_flags
    base=$(basename "$src" .cu)
    all_flags="-arch=$arch -ptx${flags:+ $flags}"
    rel=${src#"$REPO_ROOT"/}
    out="$OUTDIR/$base.$variant.ptx"
    tmp="$out.tmp.$$"
    errfile="$STATUS_DIR/$base.$variant.err"
    # shellcheck disable=SC2086  # flags is a word list on purpose
    if (cd "$(dirname "$src")" && nvcc -arch="$arch" -ptx $flags "$(basename "$src")" -o "$tmp") \
        2>"$errfile"; then
        if [[ $VERIFY -eq 1 ]] && ! ptxas -arch="$arch" "$tmp" -o /dev/null 2>>"$errfile"; then
            rm -f "$tmp"
            printf '%s\t%s\t%s\t%s\tptxas-rejected\t0\n' "$base.$variant.ptx" "$rel" "$variant" \
                "$all_flags" >"$STATUS_DIR/$base.$variant.tsv"
            return 0
        fi
        mv -f "$tmp" "$out"
        printf '%s\t%s\t%s\t%s\tok\t%s\n' "$base.$variant.ptx" "$rel" "$variant" \
            "$all_flags" "$(stat -c %s "$out")" >"$STATUS_DIR/$base.$variant.tsv"
        rm -f "$errfile"
    else
        rm -f "$tmp" "$out"
        printf '%s\t%s\t%s\t%s\tskipped\t0\n' "$base.$variant.ptx" "$rel" "$variant" \
            "$all_flags" >"$STATUS_DIR/$base.$variant.tsv"
    fi
    return 0
}
export -f compile_one
export REPO_ROOT="$repo_root" OUTDIR="$outdir" STATUS_DIR="$status_dir" VERIFY="$verify"

echo "gen_corpus: $(nvcc --version | grep -m1 release)"
echo "gen_corpus: ${#sources[@]} sources x ${#variants[@]} variants into $outdir ($jobs jobs)"
for src in "${sources[@]}"; do
    for spec in "${variants[@]}"; do
        printf '%s\0%s\0' "$src" "$spec"
    done
done | xargs -0 -n 2 -P "$jobs" bash -c 'compile_one "$1" "$2"' _

index="$outdir/index.tsv"
{
    printf 'ptx\tsource\tvariant\tflags\tstatus\tbytes\n'
    cat "$status_dir"/*.tsv | sort
} >"$index"

produced=0
total_bytes=0
skipped=0
while IFS=$'\t' read -r ptx _src variant _flags status bytes; do
    [[ "$ptx" == "ptx" ]] && continue
    if [[ "$status" == "ok" ]]; then
        produced=$((produced + 1))
        total_bytes=$((total_bytes + bytes))
    else
        skipped=$((skipped + 1))
        err="$status_dir/${ptx%.ptx}.err"
        reason=$(grep -m1 -iE 'error|fatal' "$err" 2>/dev/null || head -n1 "$err" 2>/dev/null || true)
        echo "gen_corpus: skipped $ptx ($status): ${reason:-no message}"
    fi
done <"$index"

echo "gen_corpus: $produced PTX files, $total_bytes bytes" \
     "($(awk -v b="$total_bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB)," \
     "$skipped combinations skipped; index in $index"
exit 0
