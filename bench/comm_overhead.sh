#!/usr/bin/env bash
# Cost of the value-flow analysis on the sequential examples of examples/comm:
# each built plainly (clang-19 -O2, vectorisation off as in the wrapper) and
# with perfcast-cc, run alternately 3 times each (the instrumented run writes
# its graph, as under perfcast comm run); prints per example the median wall
# time (millisecond clock) and the peak resident memory of both, and the
# slowdown against its target (at most 30x). Run it under the heavy lock; the
# load average is printed with the figures.
# usage: bench/comm_overhead.sh [PAIR...] (default: all five)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$root/build/perfcast-cc" ] || { echo "comm_overhead: build/perfcast-cc missing (LLVM 19 not installed?)" >&2; exit 1; }
declare -A region=([heat2d]=step [matmul]=multiply [spmv]=spmv [stencil3d]=step [mesh]=step)
declare -A args=([heat2d]="512 40" [matmul]="96" [spmv]="131072 20" [stencil3d]="64 20" [mesh]="256 256 20")
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(heat2d matmul spmv stencil3d mesh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one run: prints "milliseconds peak_KiB"
run() {
  local start end
  start=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$work/mem" "$@" > /dev/null
  end=$(date +%s%N)
  echo "$(((end - start) / 1000000)) $(cat "$work/mem")"
}
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
echo "load: $(uptime | sed 's/.*load average: //')"
printf '%-10s %-14s %10s %10s %8s %12s %12s %7s\n' pair args plain_ms inst_ms slowdown plain_KiB inst_KiB memory
for pair in "${pairs[@]}"; do
  [ -n "${region[$pair]:-}" ] || { echo "comm_overhead: unknown pair '$pair'" >&2; exit 1; }
  src="$root/examples/comm/$pair/${pair}_seq.c"
  clang-19 -O2 -fno-vectorize -fno-slp-vectorize "$src" -o "$work/plain"
  "$root/build/perfcast-cc" -O2 "$src" -o "$work/instrumented"
  plain=() inst=() plain_kb=() inst_kb=()
  for _ in 1 2 3; do
    # shellcheck disable=SC2086
    read -r t m < <(run "$work/plain" ${args[$pair]})
    plain+=("$t"); plain_kb+=("$m")
    # shellcheck disable=SC2086
    read -r t m < <(PERFCAST_COMM_OUT="$work/graph" PERFCAST_COMM_REGION="${region[$pair]}" run "$work/instrumented" ${args[$pair]})
    inst+=("$t"); inst_kb+=("$m")
  done
  p=$(median "${plain[@]}"); i=$(median "${inst[@]}")
  pm=$(median "${plain_kb[@]}"); im=$(median "${inst_kb[@]}")
  [ "$p" -gt 0 ] || p=1
  printf '%-10s %-14s %10d %10d %7.1fx %12d %12d %6.1fx\n' "$pair" "${args[$pair]}" "$p" "$i" \
    "$(echo "$i / $p" | bc -l)" "$pm" "$im" "$(echo "$im / $pm" | bc -l)"
done
echo "target: slowdown <= 30x (medians of 3 runs; the plain runs include the program's start and set-up)"
echo "load: $(uptime | sed 's/.*load average: //')"
