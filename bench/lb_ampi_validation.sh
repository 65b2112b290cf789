#!/usr/bin/env bash
# The load-balancing simulation against real AMPI runs (issue 9, as Tesser et
# al. 2016 validated SAMPI against AMPI). Builds examples/apps/imbalance2d with
# Charm++'s ampicc, runs it on P PEs (charmrun +pP ++local) for every
# configuration of CONFIGS (VPs, balancer, period), REPS times each, then
# traces the same program once at the finest level under Open MPI
# (`perfcast trace`, 64 ranks oversubscribed: compute is thread CPU time),
# aggregates that trace to every other level (`perfcast aggregate`), builds
# this machine as a platform calibrated to the trace (`perfcast platform
# --this-machine --trace`) and replays every configuration with
# `perfcast lb replay --cores P`, charging AMPI's overheads as
# bench/lb_ampi_probe.sh measures them (message CPU, migration and step costs:
# micro-runs, not fitted to these runs). Prints per configuration the measured and
# predicted loop time and the error (target: within 10%), and how well the
# predictions rank the configurations (Spearman, Kendall, best configuration).
#
# usage: [CHARM_DIR=DIR] bench/lb_ampi_validation.sh [CHARM_DIR]
#   CHARM_DIR  a Charm++ build with AMPI (holding bin/ampicc and bin/charmrun),
#              e.g. /work/charm/netlrts-linux-x86_64; refused when absent
# env: ITERATIONS=100 SIZE=256 BASE=200 SHAPE=hotspot (the program's input), PES=2, REPS=5,
#      CONFIGS=FILE (lines "VPS BALANCER PERIOD", '#' comments; default:
#      bench/data/lb_ampi_configs_SHAPE.txt), RUNS=FILE (a CSV of measured runs to reuse instead of
#      running AMPI again), CSV=FILE (write the measured runs there),
#      LOCK=FILE (run each heavy piece under `flock FILE`, or under FILE itself
#      when it is executable, e.g. LOCK=/work/bin/heavy), BUILD=DIR,
#      STAGE=runs (stop after the real runs), KEEP=DIR (keep the traces, the
#      platform and the predictions there), PROBE="message_cpu_s=... ..." (the
#      line bench/lb_ampi_probe.sh printed, instead of probing again),
#      FLOP_RATE=1e9 (one rate for every traced rank; empty: the tracer's per-rank rates),
#      NO_OVERHEADS=1 (replay without the probed CPU costs, as before them;
#      the link is then the ping-pong's latency and --vp-stack 1MiB).
# Balancers are perfcast's names; the AMPI run uses Charm++ 7's legacy names
# for the same TreeLB strategies: greedy=GreedyLB, refine=RefineLB,
# greedy-refine=GreedyRefineLB, rotate=RotateLB; `none` runs without any
# AMPI_Migrate call (period 0). Period K: the program calls
# AMPI_Migrate(AMPI_INFO_LB_SYNC) after every K-th iteration and AMPI balances
# at each call (+LBPeriod is unset); the trace has a migration point every
# iteration and `lb replay --period K` balances at every K-th.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
perfcast=$build/perfcast
mpi_app=$build/imbalance2d
charm=${1:-${CHARM_DIR:-}}
if [[ -z "$charm" || ! -x "$charm/bin/ampicc" || ! -x "$charm/bin/charmrun" ]]; then
  echo "error: ${charm:-CHARM_DIR}: expected a Charm++ build with AMPI (bin/ampicc and bin/charmrun);" \
    "give it as the first argument or in CHARM_DIR" >&2
  exit 2
fi
for f in "$perfcast" "$mpi_app"; do
  [[ -x "$f" ]] || { echo "error: $f: not built (run ninja -C $build)" >&2; exit 2; }
done
iterations=${ITERATIONS:-100}
size=${SIZE:-256}
base=${BASE:-200}
shape=${SHAPE:-hotspot}
pes=${PES:-2}
reps=${REPS:-5}
fine_vps=64
locked() {
  if [[ -z "${LOCK:-}" ]]; then "$@"; elif [[ -x "$LOCK" && ! -d "$LOCK" ]]; then "$LOCK" "$@"; else flock "$LOCK" "$@"; fi
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

configs=$work/configs
grep -v '^\s*#' "${CONFIGS:-$root/bench/data/lb_ampi_configs_$shape.txt}" | awk 'NF' > "$configs"

# 1. the AMPI builds, with the flags CMake's Release build gives the Open MPI one
app=$work/imbalance2d-ampi
cd "$work" # ampicc copies charmrun and ampirun beside the output
locked "$charm/bin/ampicc" -O3 -DNDEBUG -I"$root/tools/ampi" -o "$app" "$root/examples/apps/imbalance2d.c" \
  -module CommonLBs
cd - > /dev/null

# 2. the real runs: one repetition of every configuration per locked piece
runs=${RUNS:-}
if [[ -z "$runs" ]]; then
  runs=${CSV:-$work/runs.csv}
  echo "vps,balancer,period,rep,seconds,load1" > "$runs"
  run_rep() { # rep configs app charm pes iterations size base shape
    local rep=$1 v b k lb s load
    while read -r v b k; do
      case $b in
        none) lb=() ;;
        greedy) lb=(+balancer GreedyLB) ;;
        refine) lb=(+balancer RefineLB) ;;
        greedy-refine) lb=(+balancer GreedyRefineLB) ;;
        rotate) lb=(+balancer RotateLB) ;;
        *) echo "error: $2: unknown balancer '$b'" >&2; return 2 ;;
      esac
      [[ $b == none ]] && k=0
      load=$(cut -d' ' -f1 /proc/loadavg)
      s=$(cd "$(dirname "$3")" && timeout 300 "$4/bin/charmrun" "+p$5" "$3" "$6" "$7" "$8" "$k" "$9" "+vp$v" "${lb[@]}" \
            ++local ++quiet 2>&1 | sed -n 's/.*loop \([0-9.]*\) s.*/\1/p')
      [[ -n "$s" ]] || { echo "error: the AMPI run '$v $b $k' printed no loop time" >&2; return 1; }
      echo "$v,$b,$k,$rep,$s,$load"
    done < "$2"
  }
  export -f run_rep
  for ((rep = 1; rep <= reps; rep++)); do
    locked bash -c 'run_rep "$@"' _ "$rep" "$configs" "$app" "$charm" "$pes" "$iterations" "$size" "$base" "$shape" >> "$runs"
    if [[ -t 2 ]]; then echo "repetition $rep of $reps done" >&2; fi
  done
fi
if [[ "${STAGE:-}" == runs ]]; then exit 0; fi

# 3. the simulation: one fine trace, aggregated to every level, replayed on this machine
# One flop rate for every rank (FLOP_RATE, default 1e9; empty: each rank's rate as the tracer measures it at
# MPI_Init): a VP's load is then its CPU seconds, as AMPI measures it, not CPU seconds x a rate that 64
# ranks sharing 2 cores measure with a 13% spread (docs/aggregate.md).
flop_rate=${FLOP_RATE-1e9}
locked env ${flop_rate:+PERFCAST_FLOP_RATE=$flop_rate} "$perfcast" trace -o "$work/t$fine_vps" -- mpirun -np "$fine_vps" "$mpi_app" "$iterations" "$size" "$base" 1 \
  "$shape" > /dev/null
grid() { # the program's py x px for N ranks (grid_dims in imbalance2d.c)
  local n=$1 d best=1
  for ((d = 1; d * d <= n; d++)); do ((n % d == 0)) && best=$d; done
  echo "${best}x$((n / best))"
}
for v in $(awk '{print $1}' "$configs" | sort -un); do
  [[ $v == "$fine_vps" ]] && continue
  "$perfcast" aggregate "$work/t$fine_vps" -o "$work/t$v" --grid "$(grid $fine_vps)" --coarse-grid "$(grid "$v")" \
    > /dev/null
done
# The platform: each AMPI PE is a process, so each is a host of one core at
# the speed the trace was recorded at; VPs on one PE exchange messages through
# memory (the host's loopback: memcpy's bandwidth), VPs on two PEs through
# netlrts' sockets, whose latency and bandwidth bench/lb_ampi_probe.sh
# measures with AMPI's message CPU, its migration and step costs.
"$perfcast" platform --this-machine --trace "$work/t$fine_vps" -o "$work/here.json" > /dev/null
probe=${PROBE:-}
if [[ -z "$probe" ]]; then
  probe=$(LOCK=${LOCK:-} "$root/bench/lb_ampi_probe.sh" "$charm" | tail -1)
fi
echo "AMPI overheads (bench/lb_ampi_probe.sh): $probe"
declare -A o
for w in $probe; do o[${w%%=*}]=${w#*=}; done
for k in message_cpu_s local_message_cpu_s latency_s bandwidth_Bps migration_cpu_s step_s; do
  [[ -n "${o[$k]:-}" ]] || { echo "error: PROBE='$probe': expected $k=VALUE" >&2; exit 2; }
done
overheads=(--message-cpu "${o[message_cpu_s]}" --local-message-cpu "${o[local_message_cpu_s]}"
  --migration-cost "${o[migration_cpu_s]}" --step-cost "${o[step_s]}" --vp-stack 0)
latency=${o[latency_s]}
if [[ -n "${NO_OVERHEADS:-}" ]]; then
  # as before the probes: the link is the whole ping-pong latency (4 x message CPU included),
  # a migration carries the 1 MiB thread stack, nothing else costs
  latency=$(python3 -c "print(${o[latency_s]} + 2 * ${o[message_cpu_s]})")
  overheads=(--vp-stack 1MiB)
fi
python3 - "$work/here.json" "$pes" "$latency" "${o[bandwidth_Bps]}" > "$work/pes.json" <<'PY'
import json, sys
machine = json.load(open(sys.argv[1]))
pes = int(sys.argv[2])
cluster = machine["clusters"][0]
speed = cluster["nodes"][0]["speed"]
# a route is the sender's up link and the receiver's down link: half the latency each
print(json.dumps({"format": "perfcast-platform", "version": 1,
    "clusters": [{"name": "ampi-pes", "bandwidth": float(sys.argv[4]),
                  "latency": float(sys.argv[3]) / 2, "loopback": cluster["loopback"],
                  "nodes": [{"prefix": "pe-", "count": pes, "speed": speed, "cores": 1}]}]}, indent=1))
PY
if [[ -n "${KEEP:-}" ]]; then mkdir -p "$KEEP" && cp -r "$work/." "$KEEP"; fi
predicted=$work/predicted.csv
echo "vps,balancer,period,seconds,migrations" > "$predicted"
replay_all() {
  local v b k
  while read -r v b k; do
    "$perfcast" lb replay "$work/t$v" -p "$work/pes.json" --cores "$pes" --balancer "$b" --period "$k" \
      "${overheads[@]}" --json > "$work/r.json"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%.6f,%d" % (r["makespan_s"], r["migrations"]))' \
      "$work/r.json" | sed "s/^/$v,$b,$k,/"
  done < "$configs" >> "$predicted"
}
replay_all # about a second per configuration: no lock needed
if [[ -n "${KEEP:-}" ]]; then cp "$predicted" "$KEEP"; fi

python3 "$root/bench/lb_ampi_compare.py" "$runs" "$predicted" "$configs"
