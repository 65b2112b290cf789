#!/usr/bin/env bash
# Extrapolated trace replay on third-party MPI codes (issue 30): each code's
# traces at 1, 2, 4 and 8 processes (recorded by bench/qn_study.sh, or
# QN_RECORD_ONLY=1 bench/qn_codes.sh, into STUDY_DIR/traces/CODE/N) train
# `perfcast model build`; `perfcast extrapolate` writes its trace at 16, 32 and
# 64, compared action by action with the real trace there (--compare); both
# are replayed on the three clusters of Saad et al.'s Table 1 with round-robin
# placement, and the extrapolated replay is scored against the real trace's
# replay (SMPI's replay time: perfcast replay agrees with it to the digit). On
# hetero8, the platform the traces were recorded on, it is also scored against
# SMPI's online time of the run at that count (online_s).
# Prints per code and cluster the accuracy (100 - MAPE over 16, 32, 64), and
# per code the share of actions matching exactly at 16 and 64, the mean
# per-rank error of bytes sent and of computation at 64, and whether the model
# carried a note (a warning printed with its prediction).
# usage: bench/extrap_study.sh STUDY_DIR [CODE...]   (default: every code there)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
study=$(cd "$1" && pwd)
shift
codes=("$@")
[ ${#codes[@]} -gt 0 ] || mapfile -t codes < <(ls "$study/traces")
train="1 2 4 8" test="16 32 64"
out=$study/extrap
mkdir -p "$out"
hostfile() { # platform.xml n -> round-robin hostfile on stdout
  python3 - "$1" "$2" <<'PY'
import re, sys
hosts = re.findall(r'<host id="([^"]+)"', open(sys.argv[1]).read())
print("".join(hosts[r % len(hosts)] + "\n" for r in range(int(sys.argv[2]))), end="")
PY
}
replay() { # TRACE PLATFORM HOSTFILE -> makespan
  "$perfcast" replay "$1" -p "$2" --hostfile "$3" --json -q |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])'
}
printf '%-12s %-8s %9s %9s %7s %7s %7s %7s %5s\n' code cluster replay% online% match16 match64 bytes% comp% note | tee "$out/table.txt"
for code in "${codes[@]}"; do
  dir=$out/$code
  mkdir -p "$dir"
  t=$study/traces/$code
  if ! "$perfcast" model build $(for n in $train; do echo "$t/$n"; done) -o "$dir/app.json" --force -q \
    > "$dir/build.txt" 2>&1; then
    printf '%-12s %-8s %9s %9s %7s %7s %7s %7s %5s  %s\n' "$code" - - - - - - - fail \
      "$(head -c 160 "$dir/build.txt")" | tee -a "$out/table.txt"
    continue
  fi
  note=$(python3 -c 'import json,sys; print("yes" if json.load(open(sys.argv[1]))["notes"] else "no")' "$dir/app.json")
  for n in $test; do
    "$perfcast" extrapolate "$dir/app.json" --procs "$n" -o "$dir/x$n" --force --compare "$t/$n" --json \
      > "$dir/compare-$n.json"
  done
  read -r m16 m64 b64 c64 < <(python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
c16 = json.load(open(f"{d}/compare-16.json"))["comparison"]
c64 = json.load(open(f"{d}/compare-64.json"))["comparison"]
print(f"{100 * c16['match_share']:.1f} {100 * c64['match_share']:.1f} {100 * c64['bytes_error_mean']:.1f} {100 * c64['compute_error_mean']:.1f}")
PY
)
  for cluster in table1-2nodes table1-4nodes hetero8; do
    xml=$root/examples/platforms/$cluster.xml
    errs=() online=()
    for n in $test; do
      hostfile "$xml" "$n" > "$dir/hosts-$cluster-$n"
      truth=$(replay "$t/$n/trace.txt" "$xml" "$dir/hosts-$cluster-$n")
      pred=$(replay "$dir/x$n/index.txt" "$xml" "$dir/hosts-$cluster-$n")
      echo "$cluster $n $truth $pred" >> "$dir/replays.txt"
      errs+=("$(python3 -c "print(abs($pred - $truth) / $truth)")")
      [ "$cluster" != hetero8 ] || online+=("$(python3 -c "print(abs($pred - $(cat "$t/$n/online_s")) / $(cat "$t/$n/online_s"))")")
    done
    acc=$(python3 -c "import sys; e=[float(x) for x in sys.argv[1:]]; print(f'{max(0, 100 - 100 * sum(e) / len(e)):.1f}')" "${errs[@]}")
    on=-
    [ ${#online[@]} -eq 0 ] || on=$(python3 -c "import sys; e=[float(x) for x in sys.argv[1:]]; print(f'{max(0, 100 - 100 * sum(e) / len(e)):.1f}')" "${online[@]}")
    printf '%-12s %-8s %9s %9s %7s %7s %7s %7s %5s\n' "$code" "${cluster#table1-}" "$acc" "$on" "$m16" "$m64" "$b64" "$c64" "$note" | tee -a "$out/table.txt"
  done
done
awk 'NR > 1 && $9 != "fail" { r += $3; n++ } NR > 1 && $9 == "fail" { f++ }
     END { printf "%-12s %-8s %9.1f   (%d cases; %d codes not modelled)\n", "mean", "", n ? r / n : 0, n, f }' "$out/table.txt" \
  | tee -a "$out/table.txt"
echo "(accuracy = max(0, 100 - MAPE) over 16, 32 and 64 processes; learned at 1, 2, 4 and 8; files in $out)"
