#!/usr/bin/env bash
# The validation of de Mello and Senger's section 4 on this machine: K workers
# of examples/apps/mw_integral.c (each receives its share, integrates
# 2 sin x + e^x by the trapezium rule, writes a volume to disk with O_DIRECT,
# sends its result) started together on the machine's cores, their measured
# mean response time against `perfcast schedule`'s prediction.
#
# Every input of the prediction comes from the probe (machine.json: cores,
# memory slowdown, disk write, message costs), the calibration (the speed:
# the probe's mix timed between the workers' intervals, less the host's
# steal meanwhile) or from the workload's
# description: the workers' stages, whose CPU work is the number of trapezia
# times the cost of one trapezium in the probe's unit (the flop of its mix) on
# that worker's own interval, from `mw_integral calibrate --workers 100` (100 cells of [0, 1])
# (each interval and the mix timed in turn in one process's CPU time, so the
# ratio does not depend on the machine's load; sin and exp cost less near 0, so
# the workers' demands differ by about a fifth from first to last).
# Nothing is fitted to the measured response times.
#
# usage: bench/sched_validation.sh [options]
#   --machine FILE     probed platform (default: run perfcast probe --max-samples 20 now, in --dir)
#   --ks "10 20 ..."   worker counts (default 10 20 ... 100)
#   --reps R           repetitions of each count (default 3)
#   --steps N          trapezia per worker (default 30000000, about 0.4 s of one core here)
#   --write-bytes B    bytes each worker writes (default 16777216)
#   --exp K:RHO        also a run of K workers with exponential arrivals at utilisation RHO (default 100:0.8)
#   --dir DIR          where workers write (default /var/tmp)
#   --out CSV          measurements (default bench/data/sched_validation.csv)
#   --quiet SHARE      most of the cores other processes may hold during a run before it is
#                      repeated (default 0.03; measured from /proc/stat by mw_integral, the host's steal not counted)
#   --tries N          runs of a repetition at most, when others disturb it (default 4)
#   --recalibrate      calibrate and probe the speed again before every repetition after the first, and
#                      predict each repetition from its own calibration (rows RUN); the rows RUN-first keep the
#                      first calibration's prediction for the same measurements: on this VM the speed per CPU
#                      second moves by a few percent within minutes, and M/M/2 at 80% turns 1% into about 5%
#   --append           add this run's rows (and its header lines) to --out instead of replacing it:
#                      the table is measured in pieces of a few minutes, each under the heavy
#                      lock with its own probe and calibration
#   --detail DIR       also keep each run's per-worker times (RUN-K-REP.csv, its summary lines RUN-K-REP.err) and the
#                      prediction per process (RUN-K.json, its workload RUN-K.workload.json); bench/sched_process_times.py DIR
#                      compares them
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
machine="" ks="10 20 30 40 50 60 70 80 90 100" reps=3 steps=30000000 write_bytes=16777216 exp="100:0.8"
dir=/var/tmp out=$root/bench/data/sched_validation.csv detail="" quiet=0.03 tries=4 append=0 recalibrate=0
command_line="bench/sched_validation.sh $*"
while [ $# -gt 0 ]; do
  case $1 in
    --machine) machine=$2 ;; --ks) ks=$2 ;; --reps) reps=$2 ;; --steps) steps=$2 ;;
    --write-bytes) write_bytes=$2 ;; --exp) exp=$2 ;; --dir) dir=$2 ;; --out) out=$2 ;; --detail) detail=$2 ;;
    --quiet) quiet=$2 ;; --tries) tries=$2 ;;
    --append) append=1; shift; continue ;;
    --recalibrate) recalibrate=1; shift; continue ;;
    *) echo "sched_validation.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
started=$(date -u +%FT%TZ) load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O3 -Wall -o "$work/mw_integral" "$root/examples/apps/mw_integral.c" -lm

if [ -z "$machine" ]; then
  machine=$work/machine.json
  echo "probing this machine (perfcast probe --dir $dir)" >&2
  # 20 interleaved rounds over at least 30 s (about a minute here): the
  # figures' intervals cover that minute of the machine's drift
  "$perfcast" probe -o "$machine" --dir "$dir" --max-samples 20 >&2
fi
unit=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['description'].get('speed_unit',''))" "$machine")
if [ "$unit" != "flop per second" ]; then
  echo "sched_validation.sh: $machine counts $unit; the calibration here is in the mix's flop (expected a probe without hardware counters)" >&2
  exit 1
fi
# the cost of a trapezium on each worker's interval, for every K measured
# (K = the exponential case's too), measured just before that K's runs by two
# calibrations at once, one on each core: the runs keep both cores busy with
# the integrand, and a calibration alone on one core, the other left to other
# processes, measured it 15% dearer than the runs' own CPU time (19:35 UTC,
# others held 6 to 15% of the cores)
cal_ks="$ks"
[ -n "$exp" ] && cal_ks="$cal_ks ${exp%%:*}"
calibrate() { # K -> calibration-K.json: the two calibrations' mean, worker by worker
  # on a grid of 100 cells of [0, 1] whatever K is, 600 million trapezia in
  # all (about 7 s of each core): per-K calibrations of K cells (0.7 s at
  # K = 10) put the mean cost of a trapezium anywhere from 99.9 to 108.8 flop
  # from one K to the next (21:05 UTC), a noise as large as the target
  local args=(calibrate --steps 600000 --rounds 10 --workers 100 --write-bytes "$write_bytes" --dir "$dir")
  "$work/mw_integral" "${args[@]}" > "$work/cal-$1-a.json" &
  local pid=$!
  "$work/mw_integral" "${args[@]}" > "$work/cal-$1-b.json"
  wait "$pid"
  python3 - "$work/cal-$1-a.json" "$work/cal-$1-b.json" > "$work/calibration-$1.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
c = dict(a)
for key in ("flop_per_step", "mix_flop_per_s", "overhead_cpu_s", "overhead_flop", "steal_share"):
    c[key] = (a[key] + b[key]) / 2
c["per_worker"] = [(x + y) / 2 for x, y in zip(a["per_worker"], b["per_worker"])]
c["cores"] = 2
print(json.dumps(c))
PY
}
calibration_summary() { # one line: per K, the mean cost and the range over its workers
  python3 - "$work" $(echo $cal_ks | tr ' ' '\n' | sort -uV) <<'PY'
import json, sys
parts = []
for k in sys.argv[2:]:
    c = json.load(open(f"{sys.argv[1]}/calibration-{k}.json"))
    w = c["per_worker"]
    parts.append(f"K={k}: {c['flop_per_step']:.2f} flop/trapezium (100 cells {min(w):.1f} to {max(w):.1f}), mix {c['mix_flop_per_s']:.4g} flop/s, "
                 f"worker overhead {1e3 * c['overhead_cpu_s']:.2f} ms CPU")
print("; ".join(parts))
PY
}

# workload: K workers, each receives 32 bytes, integrates, writes, sends 32 bytes;
# it holds its 1 MiB write buffer (memory_mb 1.048576); worker i's CPU work is
# the trapezia times the calibrated cost on its own interval [i/K, (i+1)/K]
# (from the calibration's 100 cells of [0, 1]),
# plus the CPU time a worker spends beyond its integration (fork, the write's
# system calls, exit: about 9 ms here, 2.5% of the integration, measured by the
# calibration with workers of one trapezium); the write goes in requests of
# 1 MiB, mw_integral's block: the disk serves the writing workers' requests in
# turn (at K = 60 the writes of one whole run overlapped for 1.3 s on average,
# where one FIFO request per worker's write had most of them end earlier)
workload() { # K ARRIVALS_FILE|"" [CALIBRATION_LABEL, default K] > workload.json
  python3 - "$1" "$2" "$steps" "$write_bytes" "$work/calibration-${3:-$1}.json" <<'PY'
import json, sys
k, arrivals, steps, write_bytes = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cal = json.load(open(sys.argv[5]))
cells, overhead = cal["per_worker"], cal["overhead_flop"]
def cost(a, b):
    """mean cost of a trapezium on [a, b]: the calibrated cells it overlaps, weighted by the overlap"""
    n = len(cells)
    return sum(c * max(0.0, min(b, (j + 1) / n) - max(a, j / n)) for j, c in enumerate(cells)) / (b - a)
per_worker = [cost(i / k, (i + 1) / k) for i in range(k)]
times = [float(x) for x in open(arrivals)] if arrivals else [0.0] * k
procs = [{"id": i, "arrival_s": times[i], "memory_mb": 1.048576,
          "stages": [["message", 32], ["cpu", steps * per_worker[i] + overhead], ["write", write_bytes, 1048576], ["message", 32]]}
         for i in range(k)]
print(json.dumps({"format": "perfcast-workload", "version": 1, "processes": procs}))
PY
}
# the machine's speed for each K's prediction: the calibration's own mix
# rate (the mix timed between the cells, both cores busy), less the share of
# the cores the host stole meanwhile (a process's CPU time does not count
# steal, its response time does; 1.5 to 2.3% here). The demands are in the
# mix's flop, measured in the same rounds: any other rate converts them at
# another moment of a machine whose speed moves by seconds (2026-11-27: the
# probe's 20 samples went 5.70, 5.70, 5.23, 5.00, 4.96 Gflop/s within a
# minute, and a CPU probe 6 s after the calibration differed from its mix by
# -2.6 to +4.8%, while the workers' CPU time stayed within 2% of the
# calibration's time per trapezium; docs/probe.md). The separate CPU probe
# right after the calibration is kept as a check in the header.
cpu_probe() { # K -> machine-K.json
  "$perfcast" probe -o "$work/cpu-$1.json" --skip memory disk net --min-seconds 6 --max-samples 20 > /dev/null
  python3 - "$machine" "$work/calibration-$1.json" > "$work/machine-$1.json" <<'PY'
import json, sys
m, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m["clusters"][0]["nodes"][0]["speed"] = c["mix_flop_per_s"] * (1 - c.get("steal_share", 0.0))
print(json.dumps(m))
PY
}
predict() { # workload.json NAME K -> mean response (the JSON kept as DETAIL/NAME.json)
  "$perfcast" schedule -p "$work/machine-$3.json" -w "$1" --json > "$work/p.json"
  if [ -n "$detail" ]; then
    cp "$work/p.json" "$detail/$2.json"; cp "$1" "$detail/$2.workload.json"; cp "$work/machine-$3.json" "$detail/machine-$3.json"
  fi
  python3 -c "import json,sys; print(json.load(sys.stdin)['response_s']['mean'])" < "$work/p.json"
}
measure() { # K ARRIVALS_FILE|"" NAME -> "mean_response others_share steal_share" of one run (per worker as DETAIL/NAME.csv)
  # mw_integral reports the share of the cores other processes held during the
  # run (from /proc/stat); a run they disturbed more than --quiet allows is
  # repeated, up to --tries times, and the last one kept either way
  local args=(run --workers "$1" --steps "$steps" --write-bytes "$write_bytes" --dir "$dir") others steal attempt
  [ -n "$2" ] && args+=(--arrivals "$2")
  for attempt in $(seq 1 "$tries"); do
    "$work/mw_integral" "${args[@]}" > "$work/m.csv" 2> "$work/m.err"
    others=$(sed -n 's/^mw_integral: others \([0-9.e+-]*\) of the cores.*/\1/p' "$work/m.err")
    # the share of the cores the host took from this virtual machine (in others' share too)
    steal=$(sed -n 's/^mw_integral: steal \([0-9.e+-]*\) of the cores.*/\1/p' "$work/m.err")
    # the host's steal is in the prediction (the speed), so only other processes count against --quiet
    if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) - float(sys.argv[2]) <= float(sys.argv[3]) else 1)" "$others" "$steal" "$quiet"; then
      break
    fi
    echo "$3: other processes held $others of the cores, steal $steal of it (more than $quiet beside the steal), attempt $attempt of $tries" >&2
  done
  if [ -n "$detail" ]; then cp "$work/m.csv" "$detail/$3.csv"; cp "$work/m.err" "$detail/$3.err"; fi
  python3 -c "import csv,sys; r=[float(x['response_s']) for x in csv.DictReader(sys.stdin)]; print(sum(r)/len(r), sys.argv[1], sys.argv[2])" "$others" "$steal" < "$work/m.csv"
}

mkdir -p "$(dirname "$out")"
if [ -n "$detail" ]; then
  mkdir -p "$detail"
  cp "$machine" "$detail/machine.json"
fi
header() {
  [ "$append" = 1 ] && [ -s "$out" ] && cat "$out"
  echo "# generator: perfcast bench/sched_validation.sh"
  echo "# command: $command_line"
  echo "# date: $started, host $(hostname), load average $load_at_start at the start"
  echo "# machine: $(python3 -c "import json,sys; n=json.load(open(sys.argv[1]))['clusters'][0]['nodes'][0]; print('speed', n['speed'], 'cores', n['cores'], 'disk_write', n.get('disk_write'), 'memory_slowdown', n.get('memory_slowdown'))" "$machine")"
  echo "# calibration: $(calibration_summary)"
  # the probe and the calibration time the same mix in CPU time: when they
  # differ by more than a few percent the machine's speed moved between them
  # (other processes, or the host under a virtual machine), and the prediction
  # inherits the difference
  echo "# speed check (per K, the speed the prediction used, i.e. the calibration's mix less the host's steal, against the CPU probe taken right after the calibration): $(python3 - "$work" $(echo $cal_ks | tr ' ' '\n' | sort -uV) <<'PY'
import json, sys
parts = []
for k in sys.argv[2:]:
    s = json.load(open(f"{sys.argv[1]}/machine-{k}.json"))["clusters"][0]["nodes"][0]["speed"]
    c = json.load(open(f"{sys.argv[1]}/calibration-{k}.json"))
    p = json.load(open(f"{sys.argv[1]}/cpu-{k}.json"))["clusters"][0]["nodes"][0]["speed"]
    parts.append(f"K={k}: used {s:.4g} (mix {c['mix_flop_per_s']:.4g}, steal {100 * c.get('steal_share', 0):.1f}%), probe {p:.4g} flop/s ({100 * (p / s - 1):+.1f}%)")
print("; ".join(parts))
PY
)"
  echo "# first probe's speed: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['clusters'][0]['nodes'][0]['speed'])" "$machine") flop/s"
  echo "# steps $steps, write_bytes $write_bytes, dir $dir"
  if [ "$append" = 1 ] && [ -s "$out" ]; then :; else
    echo "run,workers,rep,measured_mean_response_s,predicted_mean_response_s,others_share,steal_share"
  fi
}
: > "$work/rows.csv"

for k in $ks; do
  calibrate "$k"
  cpu_probe "$k"
  workload "$k" "" > "$work/w.json"
  p=$(predict "$work/w.json" "together-$k" "$k")
  for r in $(seq 1 "$reps"); do
    read -r m others steal < <(measure "$k" "" "together-$k-$r")
    echo "together,$k,$r,$m,$p,$others,$steal" | tee -a "$work/rows.csv" >&2
  done
done
if [ -n "$exp" ]; then
  k=${exp%%:*} rho=${exp##*:}
  calibrate "$k"
  cpu_probe "$k"
  # mean gap between arrivals for utilisation rho of the cores: (work of one worker on one core) / (cores rho)
  python3 - "$work/machine-$k.json" "$work/calibration-$k.json" "$steps" "$k" "$rho" > "$work/arrivals" <<'PY'
import json, random, sys
node = json.load(open(sys.argv[1]))["clusters"][0]["nodes"][0]
cpu_s = int(sys.argv[3]) * json.load(open(sys.argv[2]))["flop_per_step"] / node["speed"]
gap = cpu_s / (node["cores"] * float(sys.argv[5]))
rng = random.Random(12)
gaps = [rng.expovariate(1 / gap) for _ in range(int(sys.argv[4]) - 1)]
# the sample's own mean gap is set to the wanted one: 99 draws of seed 12 came
# out 16% short on average (0.178 s against 0.2125 s), a queue at 95% of the
# cores instead of 80%, where a 1% error in the demand moves the mean response
# by about 24%, against 5% at 80% (M/M/2: R = S (1 + C / (2 (1 - rho))), C = 2 rho^2 / (1 + rho));
# the gaps stay exponentially distributed, scaled by one factor
scale = gap / (sum(gaps) / len(gaps)) if gaps else 1.0
t = 0.0
print(f"{t:.6f}")
for g in gaps:
    t += g * scale
    print(f"{t:.6f}")
PY
  workload "$k" "$work/arrivals" > "$work/w.json"
  p=$(predict "$work/w.json" "exponential-rho$rho-$k" "$k")
  for r in $(seq 1 "$reps"); do
    pr=$p
    if [ "$recalibrate" = 1 ] && [ "$r" -gt 1 ]; then
      # the same arrivals and workers; only the calibration and the speed are taken anew
      calibrate "$k.$r"
      cpu_probe "$k.$r"
      cal_ks="$cal_ks $k.$r"
      workload "$k" "$work/arrivals" "$k.$r" > "$work/w-$r.json"
      pr=$(predict "$work/w-$r.json" "exponential-rho$rho-$k-cal$r" "$k.$r")
    fi
    read -r m others steal < <(measure "$k" "$work/arrivals" "exponential-rho$rho-$k-$r")
    echo "exponential-rho$rho,$k,$r,$m,$pr,$others,$steal" | tee -a "$work/rows.csv" >&2
    if [ "$recalibrate" = 1 ]; then
      echo "exponential-rho$rho-first,$k,$r,$m,$p,$others,$steal" >> "$work/rows.csv"
    fi
  done
fi
echo "calibration: $(calibration_summary)" >&2
if [ -n "$detail" ]; then cp "$work"/calibration-*.json "$detail/"; fi
{ header; cat "$work/rows.csv"; } > "$work/out.csv"
cp "$work/out.csv" "$out"
"$root/bench/sched_validation_table.sh" "$out"
