#!/usr/bin/env bash
# Extrapolated replay at scale (issue 30): a 2-D stencil (examples/apps/
# stencil2d.c, ITER iterations) recorded with smpirun at 1, 2, 4 and 8 ranks,
# learned by `perfcast model build`, and predicted by `perfcast predict` (the
# extrapolated trace streamed into the replay, no file written) at 1,024,
# 10,000 and 100,000 processes with --net loggp and smpi, on a cluster of
# n/16 nodes of 16 cores, 16 ranks a node (--placement pack). Prints CPU seconds and peak memory of each prediction (the
# median of REPEAT runs), and the actions replayed per CPU-second. The target
# is 100,000 processes in under 60 s and 2 GB. At 16 and 64 the prediction is
# checked against the replay of the real trace (recorded there too).
# usage: [REPEAT=1] bench/extrap_scale.sh [ITER] [COUNTS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
iter=${1:-5}
counts=${2:-"1024 10000 100000"}
perfcast=$root/build/perfcast
platform=$root/examples/platforms/cluster16.xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
REPEAT=${REPEAT:-1}
source "$root/bench/measure.sh"
for n in 1 2 4 8 16 64; do
  for i in $(seq 0 $((n - 1))); do echo "node-$((i % 16))"; done > "$work/hosts$n"
  "$root/scripts/record-trace.sh" "$root/examples/apps/stencil2d.c" "$n" "$platform" "$work/hosts$n" "$work/t$n" "$iter" 64 5
done
"$perfcast" model build "$work/t1" "$work/t2" "$work/t4" "$work/t8" -o "$work/app.json" -q
for n in 16 64; do
  real=$("$perfcast" replay "$work/t$n" -p "$platform" --placement round-robin --json -q |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
  pred=$("$perfcast" predict "$work/app.json" -p "$platform" --procs "$n" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["predictions"][0]["predicted_s"])')
  echo "check at $n processes: predicted $pred s, real trace replayed $real s"
done
printf '%-8s %8s %10s %10s %12s %14s\n' net procs cpu_s peak_MB predicted_s actions_per_s
for net in loggp smpi; do
  for n in $counts; do
    nodes=$(((n + 15) / 16))
    cat > "$work/platform-$n.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-$((nodes - 1))" speed="10Gf" core="16"
           bw="1.25GBps" lat="1us" bb_bw="125GBps" bb_lat="1us"/>
</platform>
XML
    read -r cpu mem < <(measure "$perfcast" predict "$work/app.json" -p "$work/platform-$n.xml" --procs "$n" \
      --placement pack --net "$net" --json)
    read -r pred actions < <(python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))["predictions"][0]
print(p["predicted_s"], p["actions"])' "$work/out")
    printf '%-8s %8d %10.2f %10.1f %12.6g %14.0f\n' "$net" "$n" "$cpu" "$(echo "$mem / 1024" | bc -l)" "$pred" \
      "$(echo "$actions / $cpu" | bc -l)"
  done
done
