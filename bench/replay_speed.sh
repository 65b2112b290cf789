#!/usr/bin/env bash
# Replay speed and memory against SimGrid, measured in the same run.
# Records a 64-rank stencil trace (ITER iterations; default 1000, about 640k
# actions) with smpirun, replays it with `smpirun -replay`, `perfcast replay
# --net smpi` (with and without its solution cache) and `--net loggp`, and
# prints CPU seconds, peak memory, actions per second and the ratios. Then
# repeats perfcast on a trace ten times longer to show that memory stays flat.
# usage: [REPEAT=3] bench/replay_speed.sh [ITER]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
iter=${1:-1000}
perfcast=$root/build/perfcast
platform=$root/examples/platforms/cluster16.xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 0 63); do echo "node-$((i % 16))"; done > "$work/hosts"

source "$root/bench/measure.sh" # measure CMD...: median CPU seconds and peak memory of REPEAT runs

echo "recording a 64-rank stencil trace, $iter iterations..."
"$root/scripts/record-trace.sh" "$root/examples/apps/stencil2d.c" 64 "$platform" "$work/hosts" "$work/t" "$iter" 128 5
actions=$(cat "$work"/t/rank-*.txt | wc -l)

read -r sg_cpu sg_mem < <(cd "$work/t" && measure smpirun -np 64 -platform "$platform" -hostfile "$work/hosts" \
  -replay trace.txt --log=root.thresh:warning --log=smpi_replay.thresh:info)
sg_time=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$work/out" | tail -1)
read -r pc_cpu pc_mem < <(measure "$perfcast" replay "$work/t/trace.txt" -p "$platform" --hostfile "$work/hosts" --json -q)
pc_time=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["makespan_s"])' "$work/out")
read -r nc_cpu nc_mem < <(measure "$perfcast" replay "$work/t/trace.txt" -p "$platform" --hostfile "$work/hosts" --no-solution-cache -q)
read -r lg_cpu lg_mem < <(measure "$perfcast" replay "$work/t/trace.txt" -p "$platform" --hostfile "$work/hosts" --net loggp -q)

# ten times longer: concatenate each rank's body ten times
mkdir -p "$work/t10"
for r in $(seq 0 63); do
  f="$work/t/rank-$r.txt"
  { head -1 "$f"; for k in $(seq 10); do sed '1d;$d' "$f"; done; tail -1 "$f"; } > "$work/t10/rank-$r.txt"
done
cp "$work/t/trace.txt" "$work/t10/trace.txt"
read -r pc10_cpu pc10_mem < <(measure "$perfcast" replay "$work/t10/trace.txt" -p "$platform" --hostfile "$work/hosts" -q)

printf '\n%-28s %12s %12s %14s %14s\n' "" "cpu_s" "peak_MB" "actions/cpu_s" "makespan_s"
printf '%-28s %12.3f %12.1f %14.0f %14s\n' "smpirun -replay" "$sg_cpu" "$(echo "$sg_mem/1024" | bc -l)" \
  "$(echo "$actions/$sg_cpu" | bc -l)" "$sg_time"
printf '%-28s %12.3f %12.1f %14.0f %14.6f\n' "perfcast --net smpi" "$pc_cpu" "$(echo "$pc_mem/1024" | bc -l)" \
  "$(echo "$actions/$pc_cpu" | bc -l)" "$pc_time"
printf '%-28s %12.3f %12.1f %14.0f\n' "perfcast smpi, no cache" "$nc_cpu" "$(echo "$nc_mem/1024" | bc -l)" \
  "$(echo "$actions/$nc_cpu" | bc -l)"
printf '%-28s %12.3f %12.1f %14.0f\n' "perfcast --net loggp" "$lg_cpu" "$(echo "$lg_mem/1024" | bc -l)" \
  "$(echo "$actions/$lg_cpu" | bc -l)"
printf '%-28s %12.3f %12.1f %14.0f\n' "perfcast --net smpi, 10x" "$pc10_cpu" "$(echo "$pc10_mem/1024" | bc -l)" \
  "$(echo "$actions*10/$pc10_cpu" | bc -l)"
echo
echo "actions: $actions"
printf 'ratio smpirun/perfcast CPU time: %.1f (target >= 20); with --no-solution-cache: %.1f\n' \
  "$(echo "$sg_cpu/$pc_cpu" | bc -l)" "$(echo "$sg_cpu/$nc_cpu" | bc -l)"
printf 'makespan difference: %.4f%% (target <= 1%%)\n' "$(python3 -c "print(abs($pc_time-$sg_time)/$sg_time*100)")"
printf 'loggp actions per CPU second: %.2f million (target >= 5)\n' "$(echo "$actions/$lg_cpu/1000000" | bc -l)"
printf 'peak memory perfcast/smpirun: %.2f (target <= 1); 10x trace/1x trace: %.2f (flat = 1)\n' \
  "$(echo "$pc_mem/$sg_mem" | bc -l)" "$(echo "$pc10_mem/$pc_mem" | bc -l)"
