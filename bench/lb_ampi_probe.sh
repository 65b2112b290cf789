#!/usr/bin/env bash
# AMPI's overheads on this machine, measured by micro-runs (not fitted to the
# validation runs), for `perfcast lb replay --message-cpu --migration-cost
# --step-cost` and the link between two PEs (bench/lb_ampi_validation.sh).
#
# 1. Local message CPU: two VPs on ONE PE ping-pong 8 bytes (+p1 +vp2).
#    Nothing but the PE's CPU is on the path: each round trip is two sends and
#    two receives, perfcast charges the local cost to each (docs/lb.md), so
#    local = round trip / 4.
# 2. Message CPU between PEs S: one VP per PE (+p2 +vp2), VP 0 streams 20000
#    small messages to VP 1: the latency is paid once, so the time per message
#    is the CPU the busier PE spends on one message (netlrts' socket calls
#    run on the PE itself). The link's latency is what the 8-byte round trip
#    leaves: round trip = 4S + 2 x latency; the bandwidth comes from a 1 MiB
#    ping-pong.
# 3. Migrations: imbalance2d with a uniform cost (nothing to balance), RotateLB
#    at every iteration, which moves every VP to the other PE: each PE packs
#    V/2 VPs and unpacks V/2, so a step costs step + V x M in perfcast's model.
#    The same run without AMPI_Migrate gives the time without steps; at two VP
#    levels a and b, E(V) = (t_rotate - t_none) / steps gives
#    M = (E(b) - E(a)) / (b - a) and step = E(a) - a x M. M is all-in: it
#    holds the VP's thread stack going over the link (replay with --vp-stack 0).
# Every run is repeated REPS times; the minimum counts (noise only adds).
#
# usage: bench/lb_ampi_probe.sh CHARM_DIR
# env: LOCK=FILE (each piece under `flock FILE`, or under FILE when it is executable), REPS=3, LEVELS="8 32",
#      ITERATIONS=40 SIZE=256 BASE=20 (the migration probe's input).
# prints: message_cpu_s=S local_message_cpu_s=C latency_s=L bandwidth_Bps=B migration_cpu_s=M step_s=T
#         (one line on stdout; the measurements go to stderr)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
charm=${1:-${CHARM_DIR:-}}
if [[ -z "$charm" || ! -x "$charm/bin/ampicc" || ! -x "$charm/bin/charmrun" ]]; then
  echo "error: ${charm:-CHARM_DIR}: expected a Charm++ build with AMPI (bin/ampicc and bin/charmrun)" >&2
  exit 2
fi
reps=${REPS:-3}
read -r -a levels <<< "${LEVELS:-8 32}"
iterations=${ITERATIONS:-40}
size=${SIZE:-256}
base=${BASE:-20}
[[ ${#levels[@]} == 2 ]] || { echo "error: LEVELS='${LEVELS:-}': expected two VP counts" >&2; exit 2; }
locked() {
  if [[ -z "${LOCK:-}" ]]; then "$@"; elif [[ -x "$LOCK" && ! -d "$LOCK" ]]; then "$LOCK" "$@"; else flock "$LOCK" "$@"; fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # ampicc copies charmrun beside its output
locked "$charm/bin/ampicc" -O3 -DNDEBUG -o pingpong "$root/bench/lb_ampi_pingpong.c"
locked "$charm/bin/ampicc" -O3 -DNDEBUG -I"$root/tools/ampi" -o app "$root/examples/apps/imbalance2d.c" \
  -module CommonLBs

# one locked piece: every probe run, REPS times, one "name value" line each
probe_runs() { # charm reps iterations size base level...
  local charm=$1 reps=$2 it=$3 g=$4 b=$5 r v
  shift 5
  for ((r = 0; r < reps; r++)); do
    echo "load $(cut -d' ' -f1 /proc/loadavg)"
    echo "same_pe $(./charmrun +p1 ./pingpong +vp2 ++local ++quiet | sed -n 's/.*round_trip_s=\([^ ]*\).*/\1/p')"
    ./charmrun +p2 ./pingpong +vp2 ++local ++quiet |
      sed -n 's/round_trip_s=\([^ ]*\) latency_s=[^ ]* bandwidth_Bps=\([^ ]*\) stream_s=\(.*\)/cross_pe \1\nbandwidth \2\nstream \3/p'
    for v in "$@"; do
      echo "none_$v $(./charmrun +p2 ./app "$it" "$g" "$b" 0 uniform "+vp$v" ++local ++quiet | sed -n 's/.*loop \([0-9.]*\) s.*/\1/p')"
      echo "rotate_$v $(./charmrun +p2 ./app "$it" "$g" "$b" 1 uniform "+vp$v" +balancer RotateLB ++local ++quiet |
        sed -n 's/.*loop \([0-9.]*\) s.*/\1/p')"
    done
  done
}
export -f probe_runs
locked bash -c 'probe_runs "$@"' _ "$charm" "$reps" "$iterations" "$size" "$base" "${levels[@]}" > runs.txt
python3 - runs.txt "$iterations" "${levels[@]}" <<'PY'
import sys
runs = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    runs.setdefault(name, []).append(float(value))
steps = int(sys.argv[2])
a, b = int(sys.argv[3]), int(sys.argv[4])
best = {k: min(v) for k, v in runs.items()}
bandwidth = max(runs["bandwidth"])
local = best["same_pe"] / 4
S = best["stream"]
latency = max(best["cross_pe"] / 2 - 2 * S, 0.0)
E = {v: (best[f"rotate_{v}"] - best[f"none_{v}"]) / steps for v in (a, b)}
M = (E[b] - E[a]) / (b - a)
T = E[a] - a * M
for k in sorted(runs):
    print(f"{k}: " + " ".join(f"{x:.6g}" for x in runs[k]), file=sys.stderr)
print(f"extra per step: {a} VPs {E[a] * 1e3:.3f} ms, {b} VPs {E[b] * 1e3:.3f} ms", file=sys.stderr)
if M < 0 or T < 0:
    print(f"warning: migration {M:.6g} s, step {T:.6g} s: noise exceeds the effect; negative parts set to 0",
          file=sys.stderr)
print(f"message_cpu_s={S:.6g} local_message_cpu_s={local:.6g} latency_s={latency:.6g} bandwidth_Bps={bandwidth:.6g} "
      f"migration_cpu_s={max(M, 0.0):.6g} step_s={max(T, 0.0):.6g}")
PY
