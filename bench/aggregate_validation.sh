#!/usr/bin/env bash
# Aggregation against the real thing (issue 9): traces examples/apps/imbalance2d
# at FINE ranks (default 64, an 8x8 grid) and at COARSE ranks (default 16, 4x4)
# on this machine, aggregates the fine trace to COARSE ranks with
# `perfcast aggregate`, and prints, against the trace recorded directly:
# per-iteration computation (all ranks summed, and per rank), bytes sent per
# iteration, and the makespan `perfcast replay` gives both on
# examples/platforms/cluster16.xml. Targets: computation within 5%, bytes
# equal, makespan within 5%. Computation is thread CPU time x each rank's
# measured flop rate, so oversubscribing the machine does not change it.
# usage: [FINE=8x8] [COARSE=4x4] [ITERATIONS=100] [SIZE=256] [BASE=200] [REPS=1] [FLOP_RATE=]
#        bench/aggregate_validation.sh [FINE_TRACE_DIR]
# With FINE_TRACE_DIR (e.g. examples/traces/imbalance64) the fine trace is not recorded again.
# FLOP_RATE=1e9: one flop rate for every rank of both traces (PERFCAST_FLOP_RATE), so compute is each
# rank's CPU seconds; by default each rank's rate is its own, measured at MPI_Init.
# REPS=R > 1: both traces are recorded R times, alternately, and each is the median trace of its R
# recordings (every compute burst the median of that burst over the recordings; the program is
# deterministic, so the recordings hold the same events): the same measurement noise is taken out
# of both, aggregation itself is unchanged.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
perfcast=$build/perfcast
app=$build/imbalance2d
fine_grid=${FINE:-8x8}
coarse_grid=${COARSE:-4x4}
iterations=${ITERATIONS:-100}
size=${SIZE:-256}
base=${BASE:-200}
platform=$root/examples/platforms/cluster16.xml
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count() { echo "$1" | tr 'x' '\n' | awk 'BEGIN{p=1}{p*=$1}END{print p}'; }
nfine=$(count "$fine_grid")
ncoarse=$(count "$coarse_grid")

reps=${REPS:-1}
rate=${FLOP_RATE:-}
record() { # OUT RANKS
  env ${rate:+PERFCAST_FLOP_RATE=$rate} "$perfcast" trace -o "$1" -- mpirun -np "$2" "$app" "$iterations" "$size" \
    "$base" > /dev/null
}
median_trace() { # OUT RECORDING... : every compute burst the median over the recordings
  python3 - "$@" <<'PY'
import os, statistics, sys
out, ins = sys.argv[1], sys.argv[2:]
os.makedirs(out)
for name in sorted(os.listdir(ins[0])):
    if not (name.startswith("rank-") and name.endswith(".txt")):  # the index, the profiles
        with open(os.path.join(out, name), "w") as f:
            f.write(open(os.path.join(ins[0], name)).read())
        continue
    # each recording as its MPI events and the compute before each (the tracer leaves out bursts too short
    # to time, so a burst may be absent from one recording: it counts as 0 there)
    def split(path):
        events, gaps, rank, pending = [], [], None, 0.0
        for line in open(path).read().splitlines():
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            rank = w[0]
            if w[1] == "compute":
                pending += float(w[2])
            else:
                events.append(line)
                gaps.append(pending)
                pending = 0.0
        gaps.append(pending)
        return open(path).readline().rstrip("\n"), rank, events, gaps
    recs = [split(os.path.join(d, name)) for d in ins]
    header, rank, events = recs[0][0], recs[0][1], recs[0][2]
    # a migration point's heap in use varies a little between runs (the MPI library's own allocations)
    key = lambda evs: [" ".join(e.split()[:2]) if e.split()[1] == "migrate" else e for e in evs]
    if any(key(r[2]) != key(events) for r in recs):
        sys.exit(f"error: {name}: the recordings' MPI events differ: the program is not deterministic")
    lines = [header]
    for i in range(len(events) + 1):
        m = statistics.median(r[3][i] for r in recs)
        if m > 0:
            lines.append(f"{rank} compute {m:.6g}")
        if i < len(events):
            lines.append(events[i])
    with open(os.path.join(out, name), "w") as f:
        f.write("\n".join(lines) + "\n")
PY
}
fine=${1:-}
if ((reps == 1)); then
  [[ -n "$fine" ]] || { fine=$work/fine; record "$fine" "$nfine"; }
  record "$work/direct" "$ncoarse"
else
  for ((k = 1; k <= reps; k++)); do
    [[ -n "$fine" ]] || record "$work/fine-$k" "$nfine"
    record "$work/direct-$k" "$ncoarse"
    if [[ -t 2 ]]; then echo "recording $k of $reps done" >&2; fi
  done
  [[ -n "$fine" ]] || { fine=$work/fine; median_trace "$fine" "$work"/fine-*; }
  median_trace "$work/direct" "$work"/direct-*
fi
"$perfcast" aggregate "$fine" -o "$work/aggregated" --grid "$fine_grid" --coarse-grid "$coarse_grid" >/dev/null
for t in direct aggregated; do
  "$perfcast" replay "$work/$t" --platform "$platform" --json -q > "$work/$t.json"
done

python3 - "$work" "$ncoarse" "$fine" "$fine_grid" "$coarse_grid" <<'PY'
import json, sys
work, ranks, fine_dir, fine_grid, coarse_grid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]

def per_iteration(trace):
    """compute flops and bytes sent per (rank, iteration); iterations end at migrate"""
    flops, sent = [], []
    for r in range(ranks):
        f, b = [0.0], [0]
        for line in open(f"{work}/{trace}/rank-{r}.txt"):
            w = line.split()
            if len(w) < 2 or w[0].startswith("#"):
                continue
            if w[1] == "compute":
                f[-1] += float(w[2])
            elif w[1] in ("send", "isend", "ssend", "issend"):
                b[-1] += int(w[4])
            elif w[1] == "migrate":
                f.append(0.0)
                b.append(0)
        flops.append(f)
        sent.append(b)
    return flops, sent

df, db = per_iteration("direct")
af, ab = per_iteration("aggregated")
iters = len(df[0]) - 1  # the part after the last migrate is MPI_Finalize's
assert all(len(x) == iters + 1 for x in df + af), "iteration counts differ"
total_err, rank_err, bytes_equal = [], [], 0
for i in range(iters):
    d = sum(df[r][i] for r in range(ranks))
    a = sum(af[r][i] for r in range(ranks))
    total_err.append(abs(a - d) / d)
    rank_err += [abs(af[r][i] - df[r][i]) / df[r][i] for r in range(ranks) if df[r][i] > 0]
    bytes_equal += all(ab[r][i] == db[r][i] for r in range(ranks))
rank_err.sort()
dm = json.load(open(f"{work}/direct.json"))["makespan_s"]
am = json.load(open(f"{work}/aggregated.json"))["makespan_s"]
dsum = sum(sum(x[:iters]) for x in df)
asum = sum(sum(x[:iters]) for x in af)
print(f"{ranks} ranks, {iters} iterations: aggregated trace vs trace recorded at {ranks} ranks")
print(f"{'measure':48} {'value':>12} {'target':>10}")
print(f"{'compute per iteration, all ranks: max error':48} {100 * max(total_err):11.2f}% {'<= 5%':>10}")
print(f"{'compute per iteration, all ranks: mean error':48} {100 * sum(total_err) / iters:11.2f}% {'':>10}")
within = sum(e <= 0.05 for e in total_err)
print(f"{'compute per iteration, all ranks: within 5%':48} {within:>6}/{iters:<5} {'':>10}")
print(f"{'compute per rank and iteration: median error':48} {100 * rank_err[len(rank_err) // 2]:11.2f}% {'':>10}")
print(f"{'compute per rank and iteration: 95th percentile':48} {100 * rank_err[int(0.95 * len(rank_err))]:11.2f}% {'':>10}")
print(f"{'compute over the run':48} {100 * (asum - dsum) / dsum:+11.2f}% {'':>10}")
print(f"{'iterations with equal bytes per rank':48} {bytes_equal:>6}/{iters:<5} {'all':>10}")
print(f"{'replayed makespan, direct (s)':48} {dm:12.6f}")
print(f"{'replayed makespan, aggregated (s)':48} {am:12.6f}")
print(f"{'makespan error':48} {100 * (am - dm) / dm:+11.2f}% {'<= 5%':>10}")

# Why the figures differ: compute is CPU seconds x each rank's flop rate, measured at MPI_Init.
def rates(trace_dir, n):
    out = []
    for r in range(n):
        head = open(f"{trace_dir}/rank-{r}.txt").readline().split()
        out.append(float(next(w.split("=")[1] for w in head if w.startswith("flops_per_s="))))
    return out

fdims = [int(x) for x in fine_grid.split("x")]
cdims = [int(x) for x in coarse_grid.split("x")]
if len(fdims) == len(cdims) == 2:
    nfine = fdims[0] * fdims[1]
    frate = rates(fine_dir, nfine)
    drate = rates(f"{work}/direct", ranks)
    group = [((r // fdims[1]) // (fdims[0] // cdims[0])) * cdims[1] + (r % fdims[1]) // (fdims[1] // cdims[1])
             for r in range(nfine)]
    # the fine trace in CPU seconds per group and iteration
    fcpu = [[0.0] * (iters + 1) for _ in range(ranks)]
    for r in range(nfine):
        i = 0
        for line in open(f"{fine_dir}/rank-{r}.txt"):
            w = line.split()
            if len(w) < 2 or w[0].startswith("#"):
                continue
            if w[1] == "compute":
                fcpu[group[r]][i] += float(w[2]) / frate[r]
            elif w[1] == "migrate":
                i += 1
    dcpu = [[x / drate[r] for x in df[r]] for r in range(ranks)]
    spread = lambda v: 100 * (max(v) - min(v)) / min(v)
    print()
    print(f"flop rates measured at MPI_Init: fine trace {min(frate):.3e} to {max(frate):.3e} "
          f"(spread {spread(frate):.1f}%), direct trace {min(drate):.3e} to {max(drate):.3e} "
          f"(spread {spread(drate):.1f}%)")
    cpu_err = []
    for i in range(iters):
        d = sum(dcpu[r][i] for r in range(ranks))
        a = sum(fcpu[r][i] for r in range(ranks))
        cpu_err.append((a - d) / d)
    per_rank = [(sum(fcpu[r][:iters]) - sum(dcpu[r][:iters])) / sum(dcpu[r][:iters]) for r in range(ranks)]
    print(f"in CPU seconds (each trace's rates divided out):")
    print(f"{'  compute per iteration, all ranks: max / mean error':48} {100 * max(map(abs, cpu_err)):6.2f}% / "
          f"{100 * sum(map(abs, cpu_err)) / iters:.2f}%")
    print(f"{'  compute over the run':48} {100 * (sum(map(sum, fcpu)) - sum(map(sum, dcpu))) / sum(map(sum, dcpu)):+6.2f}%")
    print(f"{'  per coarse rank over the run: min / max error':48} {100 * min(per_rank):+6.2f}% / "
          f"{100 * max(per_rank):+.2f}%")
    worst = sorted(range(iters), key=lambda i: -abs(total_err[i]))[:5]
    print("worst iterations (flops, all ranks): " + ", ".join(
        f"{i} ({100 * (sum(af[r][i] for r in range(ranks)) - sum(df[r][i] for r in range(ranks))) / sum(df[r][i] for r in range(ranks)):+.1f}%, "
        f"worst rank {max(range(ranks), key=lambda r: abs(af[r][i] - df[r][i]) / df[r][i])})" for i in worst))
PY
