#!/usr/bin/env bash
# Speed of the over-decomposition study (issue 9): a 60-configuration sweep
# (3 balancers x 4 periods x 5 VP levels; perfcast adds one no-balancing
# reference per level, 65 replays in all) of a 64-VP, 500-iteration
# imbalanced trace on 4 cores, with 2 threads; and one configuration
# (`perfcast lb replay`: the balanced replay and its no-balancing reference).
# Prints wall seconds against the targets (sweep < 60 s, one configuration < 1 s).
# usage: bench/lb_sweep_speed.sh [ITERATIONS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=$root/build/perfcast
platform=$root/examples/platforms/cluster16.xml
iterations=${1:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "writing the 64-VP trace and its coarser levels (4, 8, 16, 32 VPs), $iterations iterations..."
for v in 4 8 16 32 64; do
  python3 "$root/bench/lb_make_trace.py" "$work/v$v" "$v" "$iterations"
done
actions=$(cat "$work"/v64/rank-*.txt | wc -l)

wall() { # command... -> wall seconds
  local start end
  start=$(date +%s.%N)
  "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

one=$(wall "$perfcast" lb replay "$work/v64/trace.txt" -p "$platform" --cores 4 --balancer greedy --period 5)
sweep=$(wall "$perfcast" lb sweep "$work"/v{4,8,16,32,64}/trace.txt -p "$platform" --cores 4 \
  --balancers greedy,refine,refine-classic --periods 5,10,20,40 --threads 2 -q)
cat "$work/out" | tail -3
echo
echo "64-VP trace: $actions actions"
printf 'one configuration (balanced + reference replay): %.2f s (target < 1 s)\n' "$one"
printf 'sweep of 60 configurations (+5 references) on 2 threads: %.2f s (target < 60 s)\n' "$sweep"
