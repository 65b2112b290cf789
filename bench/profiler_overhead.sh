#!/bin/bash
# Overhead and share stability of perfcast's sampling profiler
# (tools/profiler, docs/phases.md) on a real MPI code, miniFE with 2
# processes: PAIRS alternating pairs of a plain run and a profiled run
# (perfcast phases measure, default clock and 1000 Hz); the overhead is the
# median of the pairs' time ratios (target: under 2%). Each profiled run's
# top functions (inclusive share of the run per rank) are compared across
# the repetitions: the spread (max - min, in points) of each share.
# Takes the machine-wide heavy lock when /work/heavy.lock exists.
#   bench/profiler_overhead.sh PATH/miniFE.x [PAIRS=7] [NX=70]
set -euo pipefail
exe=${1:?usage: bench/profiler_overhead.sh PATH/miniFE.x [PAIRS] [NX]}
pairs=${2:-7}
nx=${3:-70}
[ -x "$exe" ] || { echo "profiler_overhead: $exe is not an executable (build miniFE first, docs/phases.md)" >&2; exit 2; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
here=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$here/build/perfcast}
[ -x "$perfcast" ] || { echo "profiler_overhead: $perfcast not built" >&2; exit 2; }
if [ -e /work/heavy.lock ] && [ -z "${PROFILER_OVERHEAD_LOCKED:-}" ]; then
  PROFILER_OVERHEAD_LOCKED=1 exec flock /work/heavy.lock "$0" "$@"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "load: $(uptime)"
cmd=(mpirun -np 2 --bind-to core "$exe" -nx {size} -ny {size} -nz {size})
plain=(mpirun -np 2 --bind-to core "$exe" -nx "$nx" -ny "$nx" -nz "$nx")
"${plain[@]}" > /dev/null # warm-up (page cache, Open MPI's first start)
for i in $(seq 1 "$pairs"); do
  t0=$(date +%s.%N)
  nice "${plain[@]}" > /dev/null
  t1=$(date +%s.%N)
  nice "$perfcast" phases measure -o "$work/p$i" --size "$nx" -- "${cmd[@]}" > /dev/null 2>&1
  echo "$i $(echo "$t1 - $t0" | bc -l)" >> "$work/plain.txt"
done
echo "load: $(uptime)"
python3 - "$work" "$pairs" <<'PY'
import glob, json, os, statistics, sys
work, pairs = sys.argv[1], int(sys.argv[2])
plain = [float(l.split()[1]) for l in open(os.path.join(work, "plain.txt"))]
prof, shares = [], []
for i in range(1, pairs + 1):
    log = json.load(open(os.path.join(work, f"p{i}", "phases.json")))
    prof.append(log["sizes"][0]["wall_s"])
    run = {}
    ranks = glob.glob(os.path.join(work, f"p{i}", log["sizes"][0]["dir"], "rank-*.functions.json"))
    for f in ranks:
        j = json.load(open(f))
        for fn in j["functions"]:
            run[fn["name"]] = run.get(fn["name"], 0) + fn["inclusive_s"] / j["seconds"] / len(ranks)
    shares.append(run)
ratios = [p / q for p, q in zip(prof, plain)]
print("pair  plain_s  profiled_s  ratio")
for k, (q, p, r) in enumerate(zip(plain, prof, ratios), 1):
    print(f"{k:4d} {q:8.3f} {p:11.3f} {r:6.3f}")
over = statistics.median(ratios) - 1
print(f"profiler overhead (median of {pairs} pair ratios): {100 * over:+.2f}% (target: under 2%)")
top = sorted(shares[0], key=lambda n: -shares[0][n])[:12]
print("share of the run per rank over the repetitions (inclusive): function, mean, min, max, spread in points")
for n in top:
    v = [s.get(n, 0) for s in shares]
    print(f"  {n[:60]:60s} {100 * statistics.mean(v):6.2f}% {100 * min(v):6.2f}% {100 * max(v):6.2f}% "
          f"{100 * (max(v) - min(v)):5.2f}")
PY
