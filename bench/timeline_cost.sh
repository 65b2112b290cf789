#!/usr/bin/env bash
# What `perfcast replay --timeline` costs, measured against the same replay
# without it in the same run. Records a 64-rank stencil trace (ITER iterations;
# default 10000, about 6.4 million actions) with smpirun, replays it with and
# without --timeline, and prints CPU seconds, peak memory and their ratios.
# Then replays a trace LONGER times as long (each rank's body repeated; default
# 2) with --timeline, to show that the timeline's memory does not grow with the
# trace.
# TRACE=DIR reuses a trace recorded by an earlier run (DIR/trace.txt, 64 ranks).
# usage: [REPEAT=3] [LONGER=2] [PERFCAST=build/perfcast] [TRACE=DIR] bench/timeline_cost.sh [ITER]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
iter=${1:-10000}
perfcast=${PERFCAST:-$root/build/perfcast}
platform=$root/examples/platforms/cluster16.xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 0 63); do echo "node-$((i % 16))"; done > "$work/hosts"

source "$root/bench/measure.sh" # measure CMD...: median CPU seconds and peak memory of REPEAT runs

if [ -n "${TRACE:-}" ]; then
  cp -r "$TRACE" "$work/t"
else
  echo "recording a 64-rank stencil trace, $iter iterations..."
  "$root/scripts/record-trace.sh" "$root/examples/apps/stencil2d.c" 64 "$platform" "$work/hosts" "$work/t" "$iter" 128 5
fi
actions=$(cat "$work"/t/rank-*.txt | wc -l)

longer=${LONGER:-2}
mkdir -p "$work/tl"
for r in $(seq 0 63); do
  f="$work/t/rank-$r.txt"
  { head -1 "$f"; for _ in $(seq "$longer"); do sed '1d;$d' "$f"; done; tail -1 "$f"; } > "$work/tl/rank-$r.txt"
done
cp "$work/t/trace.txt" "$work/tl/trace.txt"

args=(-p "$platform" --hostfile "$work/hosts" -q)
read -r plain_cpu plain_mem < <(measure "$perfcast" replay "$work/t/trace.txt" "${args[@]}")
read -r tl_cpu tl_mem < <(measure "$perfcast" replay "$work/t/trace.txt" "${args[@]}" --timeline "$work/t.svg" --force)
svg_kb=$(($(stat -c %s "$work/t.svg") / 1024))
read -r long_cpu long_mem < <(measure "$perfcast" replay "$work/tl/trace.txt" "${args[@]}" --timeline "$work/tl.svg" --force)

printf '\n%-36s %10s %10s\n' "" "cpu_s" "peak_MB"
printf '%-36s %10.3f %10.1f\n' "replay" "$plain_cpu" "$(echo "$plain_mem/1024" | bc -l)"
printf '%-36s %10.3f %10.1f\n' "replay --timeline" "$tl_cpu" "$(echo "$tl_mem/1024" | bc -l)"
printf '%-36s %10.3f %10.1f\n' "replay --timeline, ${longer}x longer trace" "$long_cpu" "$(echo "$long_mem/1024" | bc -l)"
echo
echo "actions: $actions (${longer}x: $((actions * longer - 128 * (longer - 1)))); timeline SVG: $svg_kb KiB"
printf 'timeline/plain CPU time: %.2f (target <= 1.2)\n' "$(echo "$tl_cpu/$plain_cpu" | bc -l)"
printf 'timeline/plain peak memory: %.2f (target <= 1.2)\n' "$(echo "$tl_mem/$plain_mem" | bc -l)"
printf 'timeline peak memory, %sx trace/1x trace: %.2f (flat = 1)\n' "$longer" "$(echo "$long_mem/$tl_mem" | bc -l)"
