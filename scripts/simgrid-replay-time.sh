#!/usr/bin/env bash
# Prints the simulated time of `smpirun -replay` for a trace, and its CPU time.
# usage: simgrid-replay-time.sh INDEX NP PLATFORM HOSTFILE
set -euo pipefail
index=$1 np=$2 platform=$3 hostfile=$4
platform=$(realpath "$platform") hostfile=$(realpath "$hostfile")
dir=$(dirname "$index")
out=$(cd "$dir" && smpirun -np "$np" -platform "$platform" -hostfile "$hostfile" \
  -replay "$(basename "$index")" --log=smpi_replay.thresh:info --log=root.thresh:warning 2>&1)
echo "$out" | sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' | tail -1
