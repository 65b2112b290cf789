#!/usr/bin/env bash
# Records a time-independent trace of an example program with SimGrid's smpirun.
# usage: record-trace.sh APP.c NP PLATFORM HOSTFILE OUTDIR [APP ARGS...]
# Writes OUTDIR/trace.txt (index) and OUTDIR/rank-N.txt. Computation is injected
# with smpi_execute_flops, so the trace is the same on every machine.
set -euo pipefail
src=$1 np=$2 platform=$3 hostfile=$4 out=$5
shift 5
platform=$(realpath "$platform") hostfile=$(realpath "$hostfile") src=$(realpath "$src")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O2 -DSMPI_NO_REAL_COMPUTE -o "$work/app" "$src"
mkdir -p "$out"
(cd "$work" && smpirun -np "$np" -platform "$platform" -hostfile "$hostfile" \
  --cfg=smpi/simulate-computation:no --cfg=tracing/filename:trace.txt -trace-ti \
  --log=root.thresh:error ./app "$@" >/dev/null)
# stable file names: rank-N.txt beside the index
: > "$out/trace.txt.tmp"
i=0
while read -r f; do
  cp "$work/$f" "$out/rank-$i.txt"
  echo "rank-$i.txt" >> "$out/trace.txt.tmp"
  i=$((i + 1))
done < "$work/trace.txt"
mv "$out/trace.txt.tmp" "$out/trace.txt"
