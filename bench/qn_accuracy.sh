#!/usr/bin/env bash
# Accuracy of the queueing-network model against SimGrid ground truth, in the
# setting of Saad et al.: clusters of 2, 4 and 8 nodes like their Table 1,
# strong-scaling runs of the example programs at several process counts with
# processes spread over the nodes (one, then several per node), fitted on four
# small process counts and asked for larger ones up to the cluster's cores. Each run is
# recorded with smpirun; its profile (MPI time, sends, message sizes) comes from
# perfcast's replay of that trace, whose makespan equals smpirun's (see
# bench/agreement_table.sh). The model and the Amdahl baseline are fitted on
# the smaller runs and predict the larger ones.
# usage: bench/qn_accuracy.sh [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_case() { # program cluster_xml cluster_json procs -> run file
  local app=$1 xml=$2 json=$3 n=$4 file=$5
  python3 - "$xml" "$n" > "$work/hosts" <<'PY'
import sys, re
hosts = re.findall(r'<host id="([^"]+)"', open(sys.argv[1]).read())
n = int(sys.argv[2])
for r in range(n):
    print(hosts[r % len(hosts)])
PY
  case $app in
    stencil2d.c) # 2048^2 cells, 60 flops per cell, 20 iterations, split over n ranks
      args="20 $(python3 -c "import math; print(max(8, int(2048 / math.sqrt($n))))") $(python3 -c "print(60 * 2048 * 2048 / $n / max(8, int(2048 / ($n ** 0.5))) ** 2)")" ;;
    collectives.c) # 8 iterations, 2^16 elements, 4e9 flops split over n ranks
      args="8 65536 $(python3 -c "print(4e9 / $n)")" ;;
  esac
  "$root/scripts/record-trace.sh" "$root/examples/apps/$app" "$n" "$xml" "$work/hosts" "$work/t" $args
  "$perfcast" replay "$work/t/trace.txt" -p "$xml" --hostfile "$work/hosts" --json -q > "$file"
  rm -rf "$work/t"
}

printf '%-12s %-8s %-22s %-22s %11s %9s %9s\n' program cluster fitted_on predicted perfcast_qn% paper_qn% amdahl_% | tee "$out/table.txt"
for app in stencil2d.c collectives.c; do
  for cluster in 2nodes 4nodes hetero8; do
    case $cluster in
      # train on four small counts, predict larger ones up to the cluster's cores (16, 32, 88)
      2nodes) xml=$root/examples/platforms/table1-2nodes.xml; json=$root/examples/platforms/table1-2nodes.json; train="2 4 6 8"; test="10 12 14 16" ;;
      4nodes) xml=$root/examples/platforms/table1-4nodes.xml; json=$root/examples/platforms/table1-4nodes.json; train="2 4 8 12"; test="16 20 24 32" ;;
      hetero8) xml=$root/examples/platforms/hetero8.xml; json=$root/examples/platforms/hetero8.json; train="4 8 12 16"; test="24 32 48 64 88" ;;
    esac
    dir=$out/${app%.c}-$cluster
    mkdir -p "$dir"
    for n in $train $test; do
      [ -s "$dir/run-$n.json" ] || run_case "$app" "$xml" "$json" "$n" "$dir/run-$n.json"
    done
    trainfiles=$(for n in $train; do echo "$dir/run-$n.json"; done)
    testfiles=$(for n in $test; do echo "$dir/run-$n.json"; done)
    "$perfcast" fit qn $trainfiles -p "$json" -o "$dir/model.json" > /dev/null
    "$perfcast" fit qn $trainfiles -p "$json" -o "$dir/model-paper.json" --paper > /dev/null
    python3 - "$dir/model.json" "$dir/model-paper.json" "$json" "$perfcast" $testfiles <<'PY' | sed "s|^|$(printf '%-12s %-8s %-22s' "${app%.c}" "$cluster" "$(echo $train | tr ' ' ,)")|"
import json, subprocess, sys
model, paper, platform, perfcast = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
amdahl = json.load(open(model))["amdahl"]
qn_err, paper_err, am_err, procs = [], [], [], []
def predict(m, n, hostfile):
    out = subprocess.check_output([perfcast, "predict", m, "-p", platform, "--procs", str(n), "--placement", hostfile, "--json"])
    return json.loads(out)["predictions"][0]["predicted_s"]
for f in sys.argv[5:]:
    run = json.load(open(f))
    n = len(run["ranks"])
    hosts = {}
    for r in run["ranks"]:
        hosts[r["host"]] = hosts.get(r["host"], 0) + 1
    hostfile = f + ".hosts"
    open(hostfile, "w").write("".join(r["host"] + "\n" for r in run["ranks"]))
    t = run["makespan_s"]
    qn_err.append(abs(predict(model, n, hostfile) - t) / t)
    paper_err.append(abs(predict(paper, n, hostfile) - t) / t)
    am_err.append(abs(amdahl["serial_s"] + amdahl["parallel_s"] / n - t) / t)
    procs.append(str(n))
acc = lambda e: 100 - 100 * sum(e) / len(e)
print(f" {','.join(procs):<22} {acc(qn_err):>11.1f} {acc(paper_err):>9.1f} {acc(am_err):>9.1f}")
PY
  done
done | tee -a "$out/table.txt"
awk 'NR > 1 { q += $(NF-2); p += $(NF-1); a += $NF; n++ }
     END { printf "%-12s %-8s %-22s %-22s %11.1f %9.1f %9.1f\n", "average", "", "", "", q / n, p / n, a / n }' "$out/table.txt"
echo "(accuracy = 100 - MAPE over the predicted runs; run files in $out)"
exit 0
