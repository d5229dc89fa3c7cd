#!/usr/bin/env bash
# Regenerates the committed PTX of every example:
#   examples/<name>/<name>.ptx  from  examples/<name>/<name>.cu
# with exactly
#   nvcc -arch=sm_75 -ptx -O3 <name>.cu -o <name>.ptx
# run inside the example's directory, so the PTX depends only on the source
# and the nvcc release (which the PTX header records).
#
# usage: scripts/gen_examples_ptx.sh [name...]    (default: all examples)
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
examples_dir="$repo_root/examples"

if ! command -v nvcc >/dev/null 2>&1; then
    if [[ -x /usr/local/cuda/bin/nvcc ]]; then
        PATH="/usr/local/cuda/bin:$PATH"
    else
        echo "gen_examples_ptx: nvcc not found on PATH or in /usr/local/cuda/bin;" \
             "install the CUDA toolkit to regenerate the example PTX" >&2
        exit 1
    fi
fi

if [[ $# -gt 0 ]]; then
    names=("$@")
else
    names=()
    for src in "$examples_dir"/*/*.cu; do
        name=$(basename "$src" .cu)
        # Only <name>/<name>.cu is an example; other .cu files are helpers.
        [[ "$(basename "$(dirname "$src")")" == "$name" ]] && names+=("$name")
    done
fi

echo "gen_examples_ptx: $(nvcc --version | grep -m1 release)"
failed=0
for name in "${names[@]}"; do
    dir="$examples_dir/$name"
    if [[ ! -f "$dir/$name.cu" ]]; then
        echo "gen_examples_ptx: no such example: $name" >&2
        failed=1
        continue
    fi
    # Write to a temporary file first so a failed compile never leaves a
    # truncated PTX behind.
    if (cd "$dir" && nvcc -arch=sm_75 -ptx -O3 "$name.cu" -o "$name.ptx.tmp"); then
        mv -f "$dir/$name.ptx.tmp" "$dir/$name.ptx"
        echo "  $name/$name.ptx ($(wc -l <"$dir/$name.ptx") lines)"
    else
        rm -f "$dir/$name.ptx.tmp"
        echo "gen_examples_ptx: nvcc failed for $name" >&2
        failed=1
    fi
done
exit "$failed"
