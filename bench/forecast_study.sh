#!/usr/bin/env bash
# perfcast forecast on third-party MPI codes (issues 30 and 32): each code's
# traces at 1, 2, 4 and 8 processes (STUDY_DIR/traces/CODE/N, recorded by
# QN_RECORD_ONLY=1 bench/qn_codes.sh) are the runs; the forecast goes to 16, 32
# and 64 processes on the three clusters of Saad et al.'s Table 1 with the
# default (spread) placement, and the real traces there are its checks (their
# replays on the cluster: SMPI's time, which perfcast replay reproduces).
# Prints per code and cluster the method that answered, its validation error
# per doubling of the processes (the worst of its forward validations),
# the accuracy (100 - MAPE over 16, 32, 64), how many of the three truths fall
# inside the band, and whether the predictions carried a warning; then the
# mean accuracy, the band's coverage, and the cases under 85% with no warning.
# usage: bench/forecast_study.sh STUDY_DIR [CODE...]   (default: every code there)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
study=$(cd "$1" && pwd)
shift
codes=("$@")
[ ${#codes[@]} -gt 0 ] || mapfile -t codes < <(ls "$study/traces")
out=$study/forecast
mkdir -p "$out"
printf '%-12s %-8s %-20s %7s %9s %7s %5s\n' code cluster method rate% accuracy% inband warn | tee "$out/table.txt"
for code in "${codes[@]}"; do
  t=$study/traces/$code
  for cluster in table1-2nodes table1-4nodes hetero8; do
    json=$out/$code-$cluster.json
    if ! "$perfcast" forecast "$t/1" "$t/2" "$t/4" "$t/8" -p "$root/examples/platforms/$cluster.xml" \
      --procs 16,32,64 --check "$t/16" "$t/32" "$t/64" --json -q > "$json" 2> "$out/$code-$cluster.err"; then
      printf '%-12s %-8s %-20s %7s %9s %7s %5s  %s\n' "$code" "${cluster#table1-}" fail - - - - \
        "$(tr '\n' ' ' < "$out/$code-$cluster.err" | head -c 120)" | tee -a "$out/table.txt"
      continue
    fi
    python3 - "$json" "$code" "${cluster#table1-}" <<'PY' | tee -a "$out/table.txt"
import json, sys
f = json.load(open(sys.argv[1]))
rows = f["predictions"]
m = next(x for x in f["methods"] if x["method"] == f["recommended"])
valid = f"{100 * m['validation']['rate_per_doubling']:.1f}" if m["validated"] else "-"
acc = max(0.0, 100 - 100 * sum(r["check_error"] for r in rows) / len(rows))
inband = sum(1 for r in rows if r["band_s"][0] <= r["check_s"] <= r["band_s"][1])
warn = "yes" if any(r["warnings"] for r in rows) else "no"
print(f"{sys.argv[2]:<12} {sys.argv[3]:<8} {f['recommended']:<20} {valid:>7} {acc:>9.1f} {inband:>5}/3 {warn:>5}")
PY
  done
done
python3 - "$out/table.txt" <<'PY' | tee -a "$out/table.txt"
import sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:] if l.strip()]
ok = [r for r in rows if r[2] != "fail"]
if ok:
    acc = [float(r[4]) for r in ok]
    inband = sum(int(r[5].split("/")[0]) for r in ok)
    silent = [f"{r[0]}/{r[1]}" for r in ok if float(r[4]) < 85 and r[6] == "no"]
    print(f"mean accuracy {sum(acc) / len(acc):.1f}% over {len(ok)} cases ({len(rows) - len(ok)} failed); "
          f"band covers {inband} of {3 * len(ok)} truths ({100 * inband / (3 * len(ok)):.0f}%); "
          f"under 85% without a warning: {', '.join(silent) if silent else 'none'}")
PY
echo "(learned at 1, 2, 4 and 8; predicting 16, 32 and 64; files in $out)"
