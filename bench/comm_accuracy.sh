#!/usr/bin/env bash
# The estimate against the real MPI code, for every example pair in
# examples/comm: the sequential version analysed by perfcast comm run (its
# region), the MPI version traced by perfcast trace at each process count;
# prints the point-to-point bytes per iteration of both and the accuracy
# 1 - |estimate - measured| / measured, then the mean and the worst (target:
# mean >= 95%, no case below 90%). Only bytes are compared, so nothing here is
# timing-sensitive. usage: bench/comm_accuracy.sh [PAIR...] (default: all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast="$root/build/perfcast"
[ -x "$root/build/perfcast-cc" ] || { echo "comm_accuracy: build/perfcast-cc missing (LLVM 19 not installed?)" >&2; exit 1; }
procs=(2 4 8 16 32 64)
# pair: region, arguments, iterations (region calls) the arguments make
declare -A region=([heat2d]=step [matmul]=multiply [spmv]=spmv [stencil3d]=step [mesh]=step)
declare -A args=([heat2d]="64 10" [matmul]="64" [spmv]="4096 10" [stencil3d]="32 10" [mesh]="128 128 10")
declare -A iterations=([heat2d]=10 [matmul]=1 [spmv]=10 [stencil3d]=10 [mesh]=10)
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(heat2d matmul spmv stencil3d mesh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
list=$(IFS=,; echo "${procs[*]}")
printf '%-10s %6s %12s %12s %9s\n' pair procs measured estimate accuracy
rows="$work/rows"
: > "$rows"
for pair in "${pairs[@]}"; do
  [ -n "${region[$pair]:-}" ] || { echo "comm_accuracy: unknown pair '$pair'" >&2; exit 1; }
  dir="$root/examples/comm/$pair"
  "$root/build/perfcast-cc" -O2 "$dir/${pair}_seq.c" -o "$work/seq"
  mpicc -O2 "$dir/${pair}_mpi.c" -o "$work/mpi"
  # shellcheck disable=SC2086
  "$perfcast" comm run --procs "$list" --region "${region[$pair]}" -o "$work/comm-$pair" -- "$work/seq" ${args[$pair]} > /dev/null
  for p in "${procs[@]}"; do
    # shellcheck disable=SC2086
    "$perfcast" trace --force -o "$work/trace" -- mpirun -np "$p" "$work/mpi" ${args[$pair]} > /dev/null 2>&1
    python3 - "$work/trace/profile.json" "$work/comm-$pair/comm.json" "$p" "${iterations[$pair]}" "$pair" >> "$rows" <<'PY'
import json, sys
profile, comm, p, steps, pair = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
measured = sum(r["bytes_sent"] for r in json.load(open(profile))["ranks"]) / steps
e = [e for e in json.load(open(comm))["estimates"] if e["procs"] == p][0]
estimate = e["p2p_bytes"] / e["iterations"]
print(pair, p, measured, estimate, 100 * (1 - abs(estimate - measured) / measured))
PY
    tail -n 1 "$rows" | awk '{printf "%-10s %6d %12.1f %12.1f %8.1f%%\n", $1, $2, $3, $4, $5}'
  done
done
awk '{s += $5; n++; if (n == 1 || $5 < w) {w = $5; at = $1 " at " $2}}
     END {printf "accuracy: mean %.1f%%, worst %.1f%% (%s) over %d cases (target: mean >= 95%%, none below 90%%)\n", s / n, w, at, n}' "$rows"
