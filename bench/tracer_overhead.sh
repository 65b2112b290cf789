#!/usr/bin/env bash
# Tracer overhead against the uninstrumented run, measured in the same session:
# the 2-D stencil (real computation) on 4 ranks for several seconds, run
# alternately with and without `perfcast trace`, 7 pairs; prints the median of
# the per-pair overheads (wall and CPU) and the trace's bytes per MPI call.
# On a 2-core machine 4 ranks share cores and the speed drifts between runs by
# more than the overhead, so each traced run is compared with the plain run
# just before it, and the median pair is reported with the spread.
# usage: bench/tracer_overhead.sh [ITERATIONS] [EDGE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
iters=${1:-2000}
edge=${2:-700}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpicc -O2 -o "$work/stencil" "$root/examples/apps/stencil2d.c"
plain=() traced=() plain_cpu=() traced_cpu=()
wall_ratio=() cpu_ratio=()
for k in 1 2 3 4 5 6 7; do
  /usr/bin/time -f "%e %U %S" -o "$work/t1" mpirun -np 4 "$work/stencil" "$iters" "$edge" > /dev/null
  /usr/bin/time -f "%e %U %S" -o "$work/t2" "$root/build/perfcast" trace --force -o "$work/trace" -- \
    mpirun -np 4 "$work/stencil" "$iters" "$edge" > /dev/null 2>&1
  read -r e u s < "$work/t1"; plain+=("$e"); plain_cpu+=("$(echo "$u + $s" | bc -l)")
  read -r e u s < "$work/t2"; traced+=("$e"); traced_cpu+=("$(echo "$u + $s" | bc -l)")
  wall_ratio+=("$(echo "(${traced[-1]} - ${plain[-1]}) / ${plain[-1]} * 100" | bc -l)")
  cpu_ratio+=("$(echo "(${traced_cpu[-1]} - ${plain_cpu[-1]}) / ${plain_cpu[-1]} * 100" | bc -l)")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 4p; }
p=$(median "${plain[@]}")
t=$(median "${traced[@]}")
pc=$(median "${plain_cpu[@]}")
tc=$(median "${traced_cpu[@]}")
bytes=$(cat "$work"/trace/rank-*.txt | wc -c)
calls=$(python3 -c "import json; print(sum(v['calls'] for v in json.load(open('$work/trace/profile.json'))['calls'].values()))")
printf 'stencil2d, 4 ranks, %s iterations of a %sx%s block per rank\n' "$iters" "$edge" "$edge"
printf 'wall:  uninstrumented %.3f s, traced %.3f s (medians of 7; runs %s | %s)\n' "$p" "$t" "${plain[*]}" "${traced[*]}"
printf 'cpu:   uninstrumented %.3f s, traced %.3f s (medians of 7)\n' "$pc" "$tc"
printf 'per-pair overhead, wall %%: %s\n' "$(printf '%.1f ' "${wall_ratio[@]}")"
printf 'overhead (median pair): wall %.2f%%, cpu %.2f%% (target <= 3%%)\n' "$(median "${wall_ratio[@]}")" \
  "$(median "${cpu_ratio[@]}")"
printf 'trace: %s bytes for %s MPI calls: %.1f bytes per call\n' "$bytes" "$calls" "$(echo "$bytes / $calls" | bc -l)"
