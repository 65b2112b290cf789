#!/usr/bin/env bash
# Tracing oversubscribed against tracing one rank per core (issue 9: "tracing
# with 4x oversubscription gives compute volumes within 5% of tracing with one
# rank per core, per rank, same program and input").
# tests/apps/fixed_work.c gives every rank the same work whatever the rank
# count (ITERATIONS rounds of CHAIN dependent multiply-adds, an allreduce each),
# so rank r's volume at 4C ranks on C cores must equal a rank's volume at C
# ranks on C cores. The ranks are confined to the first C cores (taskset).
# REPS runs of each, alternated (a slow spell of a shared machine lasts
# seconds), and each rank's median over its runs is compared with the median
# of the one-rank-per-core runs. Every trace is recorded with one flop rate for
# every rank (PERFCAST_FLOP_RATE), so the volumes are the CPU seconds each rank
# measured: that is what the tracer's clock decides; the rate each rank
# measures itself at MPI_Init is a separate matter (docs/aggregate.md).
# Prints per crowded rank its median volume and the ratio to one rank per
# core, the worst ratio (for the total, and for the least iteration times the
# iteration count: the work's own cost, free of what only ever adds), and for contrast the elapsed-time volume that a
# wall-clock tracer would have recorded (about 4x).
# usage: [CORES=2] [REPS=5] [ITERATIONS=100] [CHAIN=600000] bench/tracer_oversubscription.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
cores=${CORES:-2}
reps=${REPS:-5}
iterations=${ITERATIONS:-100}
chain=${CHAIN:-600000}
[[ -x "$perfcast" ]] || { echo "error: $perfcast: not built (scripts/build.sh)" >&2; exit 2; }
command -v taskset > /dev/null || { echo "error: taskset not found (Debian package util-linux)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/fixed_work" "$root/tests/apps/fixed_work.c"
echo "fixed_work $iterations x $chain per rank; $cores ranks vs $((4 * cores)) ranks on $cores cores; $reps runs each;" \
  "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((k = 1; k <= reps; k++)); do
  for n in "$cores" $((4 * cores)); do
    PERFCAST_FLOP_RATE=1e9 "$perfcast" trace -o "$work/t-$n-$k" -- taskset -c "0-$((cores - 1))" \
      mpirun --bind-to none -np "$n" "$work/fixed_work" "$iterations" "$chain" > /dev/null
  done
  if [[ -t 2 ]]; then echo "run $k of $reps done" >&2; fi
done
python3 - "$work" "$cores" "$reps" <<'PY'
import statistics, sys
work, cores, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def volume(path):
    """the rank's compute (flops at the common rate of 1e9, i.e. its CPU nanoseconds): its total, and its
    least iteration times the iteration count (CPU time is only ever inflated by what shares the
    machine, never made smaller than the work, so the least iteration is the work's own cost)"""
    iterations, current = [], 0.0
    for line in open(path):
        w = line.split()
        if len(w) >= 3 and w[1] == "compute":
            current += float(w[2])
        elif len(w) >= 2 and w[1] == "allreduce":
            iterations.append(current)
            current = 0.0
    return sum(iterations) + current, min(iterations) * len(iterations)

def volumes(n):
    return [[volume(f"{work}/t-{n}-{k}/rank-{r}.txt") for k in range(1, reps + 1)] for r in range(n)]

alone = volumes(cores)
crowded = volumes(4 * cores)
for which, label in ((0, "total volume"), (1, "least iteration x iterations")):
    reference = statistics.median(v[which] for rank in alone for v in rank)
    spread_alone = max(max(v[which] for v in r) for r in alone) / min(min(v[which] for v in r) for r in alone) - 1
    print(f"\n{label}: one rank per core, median {reference / 1e9:.4f} CPU s per rank "
          f"(its runs spread {100 * spread_alone:.1f}%)")
    print(f"{'rank':>4} {'median (CPU s)':>15} {'ratio':>8} {'runs min..max ratio':>22}")
    worst = 0.0
    for r, runs in enumerate(crowded):
        m = statistics.median(v[which] for v in runs)
        ratio = m / reference
        worst = max(worst, abs(ratio - 1))
        print(f"{r:>4} {m / 1e9:15.4f} {ratio:8.4f} {min(v[which] for v in runs) / reference:10.4f} .. "
              f"{max(v[which] for v in runs) / reference:.4f}")
    print(f"{label}: worst |ratio - 1| over the {4 * cores} crowded ranks {100 * worst:.2f}% (target: within 5%)")
print(f"\na wall-clock tracer would record about 4x: each crowded rank has a quarter of a core")
PY
