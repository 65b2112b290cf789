#!/usr/bin/env bash
# Cost of the value-flow analysis: the sequential 2-D heat diffusion built
# plainly (clang-19 -O2, vectorisation off as in the wrapper) and with
# perfcast-cc, run alternately 3 times each; prints the median wall time and
# the peak resident memory of both, and their ratios against the target
# (slowdown at most 30x). The instrumented run writes its graph, as under
# perfcast comm run. usage: bench/comm_overhead.sh [N] [STEPS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-512}
steps=${2:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$root/build/perfcast-cc" ] || { echo "comm_overhead: build/perfcast-cc missing (LLVM 19 not installed?)" >&2; exit 1; }
src="$root/examples/comm/heat2d/heat2d_seq.c"
clang-19 -O2 -fno-vectorize -fno-slp-vectorize "$src" -o "$work/plain"
"$root/build/perfcast-cc" -O2 "$src" -o "$work/instrumented"
plain=() inst=() plain_kb=() inst_kb=()
for k in 1 2 3; do
  /usr/bin/time -f "%e %M" -o "$work/t1" "$work/plain" "$n" "$steps" > /dev/null
  PERFCAST_COMM_OUT="$work/graph" PERFCAST_COMM_REGION=step /usr/bin/time -f "%e %M" -o "$work/t2" \
    "$work/instrumented" "$n" "$steps" > /dev/null
  read -r e m < "$work/t1"; plain+=("$e"); plain_kb+=("$m")
  read -r e m < "$work/t2"; inst+=("$e"); inst_kb+=("$m")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
p=$(median "${plain[@]}"); i=$(median "${inst[@]}")
pm=$(median "${plain_kb[@]}"); im=$(median "${inst_kb[@]}")
printf 'heat2d_seq %s x %s, %s steps (region step)\n' "$n" "$n" "$steps"
printf 'wall: plain %.3f s, instrumented %.3f s (medians of 3; runs %s | %s)\n' "$p" "$i" "${plain[*]}" "${inst[*]}"
printf 'peak memory: plain %s KiB, instrumented %s KiB (%.1fx)\n' "$pm" "$im" "$(echo "$im / $pm" | bc -l)"
printf 'slowdown: %.1fx (target <= 30x)\n' "$(echo "$i / $p" | bc -l)"
