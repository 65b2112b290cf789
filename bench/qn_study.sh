#!/usr/bin/env bash
# The queueing model on third-party MPI codes (issue 13): each code, already
# built with smpicc, is recorded with smpirun -trace-ti at 1 to 64 processes
# (simulated computation on, so compute bursts are this machine's CPU time at
# --host-speed), each trace is replayed by perfcast on the three clusters of
# Saad et al.'s Table 1 with round-robin placement, the runs with 1, 2, 4 and 8
# processes are the training runs (`fit qn`, and `--paper`), and 16, 32 and 64
# are predicted and compared with the replayed truth. Prints, per code and
# cluster, the accuracy (100 - MAPE) of perfcast's recommended prediction, of
# the queueing model alone, of the paper's exact form and of Amdahl's law, and
# whether the printed prediction carried a warning (its band past 40%, or the
# queueing model recommended although the held-out checks call it a guess),
# and which model `predict` recommended (qn or am).
# usage: bench/qn_study.sh OUT_DIR NAME='BINARY ARGS'...
#   ARGS may use $n, the process count: reduce='/path/reduce 10 $((1048576 / n))'
# Traces already in OUT_DIR/traces/NAME/N/trace.txt are reused, and so are
# replays already in OUT_DIR/NAME-CLUSTER/run-N.json. QN_FIT_ARGS adds options
# to `fit qn` (QN_FIT_ARGS=--single-class: the paper's single customer class),
# QN_FIT_ARGS_NAME to one code's fits only (a grid file, say). When
# QN_PREPARE names a command, it runs as `$QN_PREPARE NAME N TRACE_DIR` before
# each recording (an input file per count; bench/qn_codes.sh sets it).
# QN_RECORD_ONLY=1 stops after the recordings (a pre-registered code recorded
# before the method that scores it is named).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
out=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
train="1 2 4 8" test="16 32 64"
hostfile() { # platform.xml n -> round-robin hostfile on stdout
  python3 - "$1" "$2" <<'PY'
import re, sys
hosts = re.findall(r'<host id="([^"]+)"', open(sys.argv[1]).read())
print("".join(hosts[r % len(hosts)] + "\n" for r in range(int(sys.argv[2]))), end="")
PY
}
record_plat=$root/examples/platforms/hetero8.xml
names=()
for spec in "$@"; do
  name=${spec%%=*} cmd=${spec#*=}
  names+=("$name")
  for n in $train $test; do
    dir=$out/traces/$name/$n
    [ -s "$dir/trace.txt" ] && continue
    mkdir -p "$dir"
    hostfile "$record_plat" "$n" > "$dir/hosts"
    [ -z "${QN_PREPARE:-}" ] || $QN_PREPARE "$name" "$n" "$dir"
    args=$(eval "echo $cmd")
    (cd "$dir" && nice -n 19 smpirun -np "$n" -platform "$record_plat" -hostfile hosts \
      --cfg=smpi/host-speed:${HOST_SPEED:-9.6Gf} --cfg=smpi/display-timing:yes -trace-ti \
      --cfg=tracing/filename:trace.tmp $args > app.log 2>&1)
    grep -o 'Simulated time: [0-9.e+-]*' "$dir/app.log" | awk '{print $3}' > "$dir/online_s"
    mv "$dir/trace.tmp" "$dir/trace.txt"
  done
done

[ -z "${QN_RECORD_ONLY:-}" ] || { echo "recorded: ${names[*]} (traces in $out/traces)"; exit 0; }
printf '%-10s %-8s %10s %8s %8s %8s %5s %4s\n' code cluster perfcast% qn% paper% amdahl% warn rec | tee "$out/table.txt"
for name in "${names[@]}"; do
  for cluster in table1-2nodes table1-4nodes hetero8; do
    xml=$root/examples/platforms/$cluster.xml json=$root/examples/platforms/$cluster.json
    dir=$out/$name-$cluster
    mkdir -p "$dir"
    for n in $train $test; do
      hostfile "$xml" "$n" > "$dir/hosts-$n"
      [ -s "$dir/run-$n.json" ] || nice -n 19 "$perfcast" replay "$out/traces/$name/$n/trace.txt" -p "$xml" \
        --hostfile "$dir/hosts-$n" --json -q > "$dir/run-$n.json"
    done
    files=$(for n in $train; do echo "$dir/run-$n.json"; done)
    code_args=QN_FIT_ARGS_$name
    # a case whose fit fails (fit.txt says why) gets a row of dashes and is left out of the mean
    if ! "$perfcast" fit qn $files -p "$json" -o "$dir/model.json" --force ${QN_FIT_ARGS:-} ${!code_args:-} \
      > "$dir/fit.txt" 2>&1; then
      printf '%-10s %-8s %10s %8s %8s %8s %5s %4s\n' "$name" "${cluster#table1-}" - - - - - fail
      continue
    fi
    # the paper's form can fail to fit: its column is then 0
    rm -f "$dir/model-paper.json" "$dir"/predict-paper-*.json
    "$perfcast" fit qn $files -p "$json" -o "$dir/model-paper.json" --paper --force > "$dir/fit-paper.txt" 2>&1 || true
    for n in $test; do
      "$perfcast" predict "$dir/model.json" -p "$json" --procs "$n" --placement "$dir/hosts-$n" --json \
        > "$dir/predict-$n.json" 2> "$dir/predict-$n.err"
      [ ! -s "$dir/model-paper.json" ] || "$perfcast" predict "$dir/model-paper.json" -p "$json" --procs "$n" \
        --placement "$dir/hosts-$n" --json > "$dir/predict-paper-$n.json" 2> /dev/null
    done
    python3 - "$dir" $test <<'PY' | sed "s|^|$(printf '%-10s %-8s' "$name" "${cluster#table1-}")|"
import json, os, sys
d, counts = sys.argv[1], sys.argv[2:]
err = {"rec": [], "qn": [], "paper": [], "amdahl": []}
warned = False
for n in counts:
    truth = json.load(open(f"{d}/run-{n}.json"))["makespan_s"]
    p = json.load(open(f"{d}/predict-{n}.json"))
    row = p["predictions"][0]
    pf = f"{d}/predict-paper-{n}.json"
    paper = json.load(open(pf))["predictions"][0]["predicted_s"] if os.path.exists(pf) else float("inf")
    for k, v in (("rec", row["recommended_s"]), ("qn", row["predicted_s"]), ("paper", paper),
                 ("amdahl", row["amdahl_s"])):
        err[k].append(abs(v - truth) / truth)
    # the printed prediction is flagged when its own band passes 40% or when
    # the recommended model is the queueing model that the checks call a guess
    rel = p.get("reliability", {})
    warned = warned or bool(row.get("warning")) or (rel.get("recommended_model") == "queueing-network"
                                                    and bool(rel.get("warning")))
    chosen = "am" if rel.get("recommended_model") == "amdahl" else "qn"
acc = {k: max(0.0, 100 - 100 * sum(v) / len(v)) for k, v in err.items()}
print(f" {acc['rec']:>10.1f} {acc['qn']:>8.1f} {acc['paper']:>8.1f} {acc['amdahl']:>8.1f} {'yes' if warned else 'no':>5} {chosen:>4}")
PY
  done
done | tee -a "$out/table.txt"
awk 'NR > 1 && $3 == "-" { f++ } NR > 1 && $3 != "-" { r += $3; q += $4; p += $5; a += $6; n++ }
     END { m = n ? n : 1  # no case fitted: the mean line reads 0
           printf "%-10s %-8s %10.1f %8.1f %8.1f %8.1f%s\n", "mean", "", r / m, q / m, p / m, a / m,
                  f ? sprintf("  (%d of %d cases, %d fit failed)", n, n + f, f) : "" }' "$out/table.txt" \
  | tee -a "$out/table.txt"
echo "(accuracy = max(0, 100 - MAPE) over 16, 32 and 64 processes; fitted on 1, 2, 4 and 8; files in $out)"
