#!/usr/bin/env bash
# Scheduling simulator speed: a generated workload of COUNT processes
# (default 1,000,000) arriving on 1,000 one-core computers at 80% load,
# simulated by `perfcast schedule` under each placement policy, and, when a
# Standard Workload Format log is given, that log under FCFS, EASY and
# conservative backfilling. Prints CPU seconds (user + system: the machine is
# shared, so wall time measures the neighbours too) and wall seconds, the
# CPU figure against the 10 s target.
# usage: bench/sched_speed.sh [SWF_LOG [CORES]] (env COUNT, POLICIES)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=$root/build/perfcast
count=${COUNT:-1000000}
policies=${POLICIES:-"random round-robin lowest:probes=2 threshold:probes=3,limit=1 least-work most-free-memory balance:period=10,probes=2"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target=10
fail=0

platform() { # cores per computer, computers -> platform JSON
  cat <<JSON
{"format": "perfcast-platform", "version": 1, "clusters": [{"name": "farm", "bandwidth": "1Gbps",
 "latency": "20us", "nodes": [{"prefix": "c", "count": $2, "speed": "1Gf", "cores": $1, "memory": "4GB",
 "virtual_memory": "4GB", "disk_read": "200MBps", "disk_write": "100MBps", "message_overhead": "10us",
 "message_latency": "20us"}]}]}
JSON
}

timed() { # label, command... : prints CPU and wall time, CPU against the target
  local label=$1 cpu wall
  shift
  /usr/bin/time -f "%U %S %e" -o "$work/time" "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
  read -r u s wall < "$work/time"
  cpu=$(echo "$u + $s" | bc -l)
  local verdict=ok
  if (($(echo "$cpu >= $target" | bc -l))); then verdict="OVER"; fail=1; fi
  printf '%-34s cpu %7.2f s  (wall %7.2f s)   target < %d s   %s\n' "$label" "$cpu" "$wall" "$target" "$verdict"
}

platform 1 1000 > "$work/p1000.json"
# 1000 computers of 1e9 instructions/s serve 1000 one-second processes a
# second; arrivals every 1.25 ms on average load them to 80%
cat > "$work/w.json" <<JSON
{"format": "perfcast-workload", "version": 1, "generate": {"count": $count, "seed": 7,
 "arrival": "exp:mean=0.00125", "cpu": "exp:mean=1e9", "memory_mb": "uniform:min=10,max=200"}}
JSON
echo "generated workload: $count processes on 1000 computers (80% load)"
for policy in $policies; do
  timed "$policy" nice "$perfcast" schedule -p "$work/p1000.json" -w "$work/w.json" --policy "$policy"
done

if [ $# -ge 1 ]; then
  log=$1
  cores=${2:-$(sed -n 's/^; *MaxProcs: *\([0-9]*\).*/\1/p' "$log" | head -1)}
  jobs=$(grep -vc '^;' "$log")
  platform 1 "$cores" > "$work/pswf.json"
  echo "SWF log $(basename "$log"): $jobs jobs, $(du -h "$log" | cut -f1), on $cores one-core computers"
  for policy in fcfs easy conservative; do
    timed "$policy" nice "$perfcast" schedule -p "$work/pswf.json" -w "$log" --policy "$policy"
  done
fi
exit $fail
