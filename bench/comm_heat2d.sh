#!/usr/bin/env bash
# The estimate against the real MPI code: the 2-D heat diffusion of
# examples/comm/heat2d, the sequential version analysed by perfcast comm run
# (region step), the MPI version traced by perfcast trace at 2 to 64 ranks;
# prints the point-to-point bytes per step of both and the accuracy
# 1 - |estimate - measured| / measured (target >= 95% on average, no case
# below 90%). usage: bench/comm_heat2d.sh [N] [STEPS] [PROCS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-64}
steps=${2:-10}
shift 2 2>/dev/null || shift $#
procs=("$@")
[ ${#procs[@]} -gt 0 ] || procs=(2 4 8 16 32 64)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
perfcast="$root/build/perfcast"
"$root/build/perfcast-cc" -O2 "$root/examples/comm/heat2d/heat2d_seq.c" -o "$work/seq"
mpicc -O2 "$root/examples/comm/heat2d/heat2d_mpi.c" -o "$work/mpi"
list=$(IFS=,; echo "${procs[*]}")
"$perfcast" comm run --procs "$list" --region step -o "$work/comm" -- "$work/seq" "$n" "$steps" > /dev/null
printf 'heat2d %s x %s, %s steps: point-to-point bytes per step\n' "$n" "$n" "$steps"
printf '%6s %12s %12s %9s\n' procs measured estimate accuracy
sum=0 worst=100 count=0
for p in "${procs[@]}"; do
  "$perfcast" trace --force -o "$work/trace" -- mpirun -np "$p" "$work/mpi" "$n" "$steps" > /dev/null 2>&1
  measured=$(python3 -c "import json; r=json.load(open('$work/trace/profile.json'))['ranks']; print(sum(x['bytes_sent'] for x in r) / $steps)")
  estimate=$(python3 -c "import json; e=[e for e in json.load(open('$work/comm/comm.json'))['estimates'] if e['procs']==$p][0]; print(e['p2p_bytes'] / e['iterations'])")
  acc=$(python3 -c "print(100 * (1 - abs($estimate - $measured) / $measured))")
  printf '%6s %12.1f %12.1f %8.1f%%\n' "$p" "$measured" "$estimate" "$acc"
  sum=$(echo "$sum + $acc" | bc -l); count=$((count + 1))
  worst=$(python3 -c "print(min($worst, $acc))")
done
printf 'accuracy: mean %.1f%%, worst %.1f%% (target: mean >= 95%%, none below 90%%)\n' "$(echo "$sum / $count" | bc -l)" "$worst"
