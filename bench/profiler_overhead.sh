#!/bin/bash
# Overhead and share stability of perfcast's sampling profiler
# (tools/profiler, docs/phases.md) on a real MPI code, miniFE with 2
# processes. PAIRS alternating pairs of a plain run and a profiled run (the
# library preloaded as perfcast phases run does: ranks only, own clock, its
# default rate, PERFCAST_PROFILE_HZ to change it); each run's CPU time (user + system of mpirun and the ranks,
# /usr/bin/time) and wall time. The overhead is the median of the pairs'
# ratios (target: under 2%); CPU time is the figure, since on a shared
# machine other jobs change the wall time of a run but hardly its CPU time.
# Then REPEATS profiled runs through perfcast phases measure: the spread
# (max - min, in points) of each top function's share of the run.
# First, the cost of one sample: the single-process test program two_loops
# (no MPI, so no rank polls while another waits) plain, sampled at 1000 Hz and
# at the default rate, PAIRS times each: the extra CPU time per sample.
# The timed runs are not niced: the lock gives them the machine, and jobs
# left running outside it at nice 19 would otherwise take their cores.
# Takes the machine-wide heavy lock when /work/heavy.lock exists.
#   bench/profiler_overhead.sh PATH/miniFE.x [PAIRS=7] [NX=60] [REPEATS=5]
set -euo pipefail
exe=${1:?usage: bench/profiler_overhead.sh PATH/miniFE.x [PAIRS] [NX] [REPEATS]}
pairs=${2:-7}
nx=${3:-60}
repeats=${4:-5}
[ -x "$exe" ] || { echo "profiler_overhead: $exe is not an executable (build miniFE first, docs/phases.md)" >&2; exit 2; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
here=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$here/build/perfcast}
lib=${PERFCAST_PROFILER_LIB:-$here/build/libperfcast_profiler.so}
[ -x "$perfcast" ] && [ -f "$lib" ] || { echo "profiler_overhead: $perfcast or $lib not built" >&2; exit 2; }
if [ -e /work/heavy.lock ] && [ -z "${PROFILER_OVERHEAD_LOCKED:-}" ]; then
  PROFILER_OVERHEAD_LOCKED=1 exec flock /work/heavy.lock "$0" "$@"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "load before: $(uptime)"
run=(mpirun -np 2 --bind-to core "$exe" -nx "$nx" -ny "$nx" -nz "$nx")
timed() { # LABEL command...: appends "LABEL wall cpu" to times.txt
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" > /dev/null 2>&1
  read -r e u s < "$work/t"
  echo "$label $e $(echo "$u + $s" | bc -l)" >> "$work/times.txt"
}
two_loops=$(dirname "$lib")/profiler_two_loops
samples() { sed -n 's/^samples //p' "$work"/raw/*.meta; }
if [ -x "$two_loops" ]; then
  for i in $(seq 1 "$pairs"); do
    timed loop-plain "$two_loops" 2000000000
    for hz in 1000 default; do
      rm -rf "$work/raw" && mkdir "$work/raw"
      rate=()
      [ "$hz" = default ] || rate=(PERFCAST_PROFILE_HZ=$hz)
      timed "loop-$hz" env LD_PRELOAD="$lib" PERFCAST_PROFILE_DIR="$work/raw" "${rate[@]}" "$two_loops" 2000000000
      echo "loop-$hz-samples $(samples)" >> "$work/samples.txt"
    done
  done
fi
"${run[@]}" > /dev/null 2>&1 # warm-up (page cache, Open MPI's first start)
for i in $(seq 1 "$pairs"); do
  timed plain "${run[@]}"
  rm -rf "$work/raw" && mkdir "$work/raw"
  timed profiled env LD_PRELOAD="$lib" PERFCAST_PROFILE_DIR="$work/raw" PERFCAST_PROFILE_RANKS_ONLY=1 "${run[@]}"
  echo "profiled-samples $(samples | paste -sd+ | bc)" >> "$work/samples.txt"
done
for i in $(seq 1 "$repeats"); do
  nice "$perfcast" phases measure -o "$work/p$i" --size "$nx" -- mpirun -np 2 --bind-to core "$exe" \
    -nx {size} -ny {size} -nz {size} > /dev/null 2>&1
done
echo "load after: $(uptime)"
python3 - "$work" "$repeats" <<'PY'
import glob, json, os, statistics, sys
work, repeats = sys.argv[1], int(sys.argv[2])
rows = [l.split() for l in open(os.path.join(work, "times.txt"))]
counts = [l.split() for l in open(os.path.join(work, "samples.txt"))]
loop = {k: [float(r[2]) for r in rows if r[0] == k] for k in ("loop-plain", "loop-1000", "loop-default")}
if loop["loop-plain"]:
    base = statistics.median(loop["loop-plain"])
    print(f"two_loops (one process) CPU s, median of {len(loop['loop-plain'])}: plain {base:.3f}", end="")
    for hz in ("1000", "default"):
        cpu = statistics.median(loop[f"loop-{hz}"])
        n = statistics.median(float(r[1]) for r in counts if r[0] == f"loop-{hz}-samples")
        print(f", {hz} Hz {cpu:.3f} ({n:.0f} samples, {100 * (cpu / base - 1):+.2f}%, "
              f"{1e6 * (cpu - base) / n:.0f} us per sample)", end="")
    print()
plain = [(float(r[1]), float(r[2])) for r in rows if r[0] == "plain"]
prof = [(float(r[1]), float(r[2])) for r in rows if r[0] == "profiled"]
print("pair  plain wall/cpu s   profiled wall/cpu s   cpu ratio")
for k, (q, p) in enumerate(zip(plain, prof), 1):
    print(f"{k:4d} {q[0]:8.2f} {q[1]:8.2f}   {p[0]:8.2f} {p[1]:8.2f}   {p[1] / q[1]:6.3f}")
cpu = statistics.median(p[1] / q[1] for q, p in zip(plain, prof)) - 1
wall = statistics.median(p[0] / q[0] for q, p in zip(plain, prof)) - 1
print(f"profiler overhead, CPU time (median of {len(plain)} pair ratios): {100 * cpu:+.2f}% (target: under 2%)")
print(f"profiler overhead, wall time (median of {len(plain)} pair ratios): {100 * wall:+.2f}%")
per_run = [float(r[1]) for r in counts if r[0] == "profiled-samples"]
print(f"samples per profiled run (both ranks): median {statistics.median(per_run):.0f}")
shares = []
for i in range(1, repeats + 1):
    log = json.load(open(os.path.join(work, f"p{i}", "phases.json")))
    ranks = glob.glob(os.path.join(work, f"p{i}", log["sizes"][0]["dir"], "rank-*.functions.json"))
    run = {}
    for f in ranks:
        j = json.load(open(f))
        for fn in j["functions"]:
            run[fn["name"]] = run.get(fn["name"], 0) + fn["inclusive_s"] / j["seconds"] / len(ranks)
    shares.append(run)
top = sorted(shares[0], key=lambda n: -shares[0][n])[:12]
print(f"inclusive share of the run per rank over {repeats} profiled runs: mean, min, max, spread in points")
for n in top:
    v = [s.get(n, 0) for s in shares]
    print(f"  {n[:60]:60s} {100 * statistics.mean(v):6.2f}% {100 * min(v):6.2f}% {100 * max(v):6.2f}% "
          f"{100 * (max(v) - min(v)):5.2f}")
PY
