#!/usr/bin/env bash
# Replay at a million ranks. A 2-D periodic halo exchange with an allreduce per
# iteration (irecv x4, isend x4, waitall, compute, allreduce: 11 actions a rank
# per iteration), written as ONE time-independent trace file whose ranks come
# one after another, replayed on a cluster of 16-core nodes (16 ranks a node,
# in blocks) at 4,096, 65,536, 262,144 and 1,048,576 ranks with
# `perfcast replay --net loggp` and `--net smpi`, and with SimGrid's
# `smpirun -replay` at the counts it finishes within SG_TIMEOUT seconds (once
# it times out, larger counts are not tried). Prints, per count, CPU seconds,
# actions per CPU second and peak memory of each, both makespans, and the ratio
# of SimGrid's CPU time to perfcast's; then the cost per action at the largest
# count against the smallest (target: within 2x) and the wall time of the
# largest loggp replay (target: under 60 s at 1,048,576 ranks x 3 iterations).
# SimGrid reads the same file through a one-line index, as `smpirun -replay`
# takes a shared trace. Needs about 1 GB of disk and 6 GB of memory at 2^20 ranks.
# A perfcast replay longer than PC_TIMEOUT seconds is reported as timed out.
# usage: [REPEAT=1] [ITER=3] [SG_TIMEOUT=600] [PC_TIMEOUT=3600] [COUNTS="4096 65536 262144 1048576"] \
#        bench/replay_million.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
iter=${ITER:-3}
sg_timeout=${SG_TIMEOUT:-600}
pc_timeout=${PC_TIMEOUT:-3600} # per perfcast replay: a guard against a runaway, not a target
counts=${COUNTS:-"4096 65536 262144 1048576"}
repeat=${REPEAT:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/replay_million.XXXXXX")
trap 'rm -rf "$work"' EXIT

# the trace (ranks one after another), the platform (P/16 nodes of 16 cores) and a hostfile (16 ranks a node)
make_case() { # ranks iterations dir
  python3 - "$@" <<'PY'
import os, sys
P, iters, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.makedirs(d, exist_ok=True)
px = 1
while px * px < P:
    px *= 2
if px * px != P:
    px //= 2
py = P // px
assert px * py == P and P % 16 == 0, "ranks must be a power of two, at least 16"
with open(f"{d}/trace.txt", "w", buffering=1 << 22) as f:
    for r in range(P):
        x, y = r % px, r // px
        peers = [((y - 1) % py) * px + x, ((y + 1) % py) * px + x, y * px + (x - 1) % px, y * px + (x + 1) % px]
        block = "".join(f"{r} irecv {p} 0 1024 0\n" for p in peers) + "".join(f"{r} isend {p} 0 1024 0\n" for p in peers)
        block += f"{r} waitall 8\n{r} compute 1000000\n{r} allreduce 1 0 0\n"
        f.write(f"{r} init\n" + block * iters + f"{r} finalize\n")
with open(f"{d}/one.txt", "w") as f:
    f.write("trace.txt\n")
nodes = P // 16
with open(f"{d}/platform.xml", "w") as f:
    f.write(f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-{nodes - 1}" speed="10Gf" core="16"
           bw="1.25GBps" lat="1us" bb_bw="125GBps" bb_lat="1us"/>
</platform>
""")
with open(f"{d}/hosts", "w") as f:
    for n in range(nodes):
        f.write(f"node-{n}\n" * 16)
PY
}

run_timed() { # timeout command... -> "cpu_s peak_kb wall_s status" of one run; output in $work/out
  local limit=$1 status=0
  shift
  /usr/bin/time -f "%U %S %M %e" -o "$work/time" timeout "$limit" "$@" > "$work/out" 2>&1 || status=$?
  read -r u s m e < <(tail -1 "$work/time")
  echo "$(echo "$u + $s" | bc -l) $m $e $status"
}

measure_pc() { # net dir -> "cpu_s peak_kb wall_s makespan_s", medians over $repeat runs, or "timeout"
  local net=$1 dir=$2
  : > "$work/runs"
  for _ in $(seq "$repeat"); do
    read -r cpu mem wall status < <(run_timed "$pc_timeout" "$perfcast" replay "$dir/trace.txt" -p "$dir/platform.xml" \
      --hostfile "$dir/hosts" --net "$net" --json --summary -q)
    [ "$status" != 124 ] || { echo timeout; return; }
    [ "$status" = 0 ] || { echo "perfcast --net $net failed:" >&2; head -c 2000 "$work/out" >&2; exit 1; }
    echo "$cpu $mem $wall" >> "$work/runs"
  done
  local mid=$(((repeat + 1) / 2)) makespan
  makespan=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["makespan_s"])' "$work/out")
  echo "$(cut -d' ' -f1 "$work/runs" | sort -g | sed -n "${mid}p") $(cut -d' ' -f2 "$work/runs" | sort -g | sed -n "${mid}p")" \
    "$(cut -d' ' -f3 "$work/runs" | sort -g | sed -n "${mid}p") $makespan"
}

printf '%8s %10s | %-28s | %-28s %-10s | %-32s | %8s %8s\n' "" "" "perfcast --net loggp" "perfcast --net smpi" "" \
  "smpirun -replay (SimGrid 3.32)" "SimGrid/" "SimGrid/"
printf '%8s %10s | %8s %10s %8s | %8s %10s %8s %-10s | %8s %10s %8s %-10s | %8s %8s\n' ranks actions cpu_s act/cpu_s \
  peak_MB cpu_s act/cpu_s peak_MB makespan_s cpu_s act/cpu_s peak_MB makespan_s loggp smpi
# actions per CPU second (CPU times have 0.01 s resolution); a / b
rate() { awk -v a="$actions" -v c="$1" 'BEGIN { if (c < 0.01) c = 0.01; printf "%.0f", a / c }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b < 0.01) b = 0.01; printf "%.2f", a / b }'; }
command -v smpirun > /dev/null || { echo "smpirun (SimGrid 3.32) is needed: scripts/install-deps.sh" >&2; exit 1; }
sg_why="" first_lg="" first_sm="" last_lg="" last_sm="" last_wall="" sg_gave_up=""
for P in $counts; do
  dir="$work/p$P"
  make_case "$P" "$iter" "$dir"
  actions=$((P * (11 * iter + 2)))
  read -r lg_cpu lg_mem lg_wall lg_ms < <(measure_pc loggp "$dir")
  read -r sm_cpu sm_mem sm_wall sm_ms < <(measure_pc smpi "$dir")
  if [ "$sm_cpu" = timeout ]; then # printed as "over PC_TIMEOUT"; no rate for the summary
    sm_cpu=$pc_timeout sm_mem=0 sm_ms=nan sm_note="(over ${pc_timeout} s)"
  else
    sm_note=""
  fi
  sg="timeout" sg_cpu="" sg_mem="" sg_ms=""
  if [ -z "$sg_gave_up" ]; then
    # no copy of the replay program per actor (privatization: a replay has no globals of its own; 13,000
    # copies exhaust the mappings), no guard page per actor (each one a memory mapping: 65,536 actors pass
    # vm.max_map_count's default) and small stacks; none of them changes the simulation
    read -r sg_cpu sg_mem sg_wall status < <(cd "$dir" && run_timed "$sg_timeout" smpirun -np "$P" -no-privatize \
      -platform platform.xml -hostfile hosts -replay one.txt --cfg=contexts/guard-size:0 \
      --cfg=contexts/stack-size:256 --log=smpi_replay.thresh:info --log=root.thresh:warning)
    sg_ms=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$work/out" | tail -1)
    if [ "$status" = 0 ] && [ -n "$sg_ms" ]; then
      sg=ok
    elif [ "$status" = 124 ]; then
      sg_gave_up=$P sg_why="over ${sg_timeout} s (timed out)"
    else
      echo "smpirun failed ($status):" >&2
      tail -c 1500 "$work/out" >&2
      sg_gave_up=$P sg_why="failed (status $status)"
    fi
  fi
  if [ "$sg" = ok ]; then
    printf '%8d %10d | %8.2f %10.0f %8.0f | %8.2f %10.0f %8.0f %-10.6f | %8.2f %10.0f %8.0f %-10s | %8.1f %8.1f\n' \
      "$P" "$actions" "$lg_cpu" "$(rate "$lg_cpu")" "$((lg_mem / 1024))" "$sm_cpu" "$(rate "$sm_cpu")" \
      "$((sm_mem / 1024))" "$sm_ms" "$sg_cpu" "$(rate "$sg_cpu")" "$((sg_mem / 1024))" "$sg_ms" \
      "$(ratio "$sg_cpu" "$lg_cpu")" "$(ratio "$sg_cpu" "$sm_cpu")"
    same=$(python3 -c "print('same' if f'{$sm_ms:.6f}' == f'{float(\"$sg_ms\"):.6f}' else 'DIFFERENT')")
    echo "         makespan smpi $sm_ms, SimGrid $sg_ms: $same at SimGrid's 6 decimals"
  else
    printf '%8d %10d | %8.2f %10.0f %8.0f | %8.2f %10.0f %8.0f %-10.6f | %-32s | %8s %8s\n' \
      "$P" "$actions" "$lg_cpu" "$(rate "$lg_cpu")" "$((lg_mem / 1024))" "$sm_cpu" "$(rate "$sm_cpu")" \
      "$((sm_mem / 1024))" "$sm_ms" \
      "$([ "$sg_gave_up" = "$P" ] && echo "$sg_why" || echo "not tried (stopped at $sg_gave_up)")" \
      ">" ">"
  fi
  [ -n "$first_lg" ] || { first_lg=$(rate "$lg_cpu"); first_sm=$(rate "$sm_cpu"); first_P=$P; }
  last_lg=$(rate "$lg_cpu") last_sm=$(rate "$sm_cpu") last_wall=$lg_wall last_P=$P last_sm_note=$sm_note
  [ -z "$sm_note" ] || echo "         perfcast --net smpi timed out $sm_note: its figures are bounds"
  rm -f "$dir/trace.txt"
done
echo
printf 'cost per action at %d ranks / at %d ranks: loggp %.2f, smpi %s%.2f (target <= 2)\n' "$last_P" "$first_P" \
  "$(ratio "$first_lg" "$last_lg")" "$([ -n "$last_sm_note" ] && echo "over ")" "$(ratio "$first_sm" "$last_sm")"
printf 'loggp wall time at %d ranks x %d iterations: %.1f s (target < 60 s at 1048576 x 3)\n' "$last_P" "$iter" "$last_wall"
