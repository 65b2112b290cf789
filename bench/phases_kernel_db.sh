#!/bin/sh
# Builds the kernel database the phase study matches against (docs/phases.md,
# "Study"): the 15 reference kernels with 2 processes on this machine, in
# pieces of a few kernels, each piece under the machine-wide heavy lock (when
# /work/heavy.lock exists) so every timing is taken on a quiet machine; the
# pieces are then merged into OUT with sqlite3.
#   bench/phases_kernel_db.sh OUT.db [MAX_SECONDS] [REPEATS]
set -eu
out=${1:?usage: bench/phases_kernel_db.sh OUT.db [MAX_SECONDS] [REPEATS]}
max=${2:-3}
repeats=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$here/build/perfcast}
[ -x "$perfcast" ] || { echo "phases_kernel_db: $perfcast not built (expected build/perfcast)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "phases_kernel_db: sqlite3 not found (apt-get install sqlite3)" >&2; exit 2; }
[ -e "$out" ] && { echo "phases_kernel_db: $out exists (expected a new path)" >&2; exit 2; }
# /work/bin/heavy (when present) queues first come first served and stops the
# pausable background jobs while the piece runs; plain flock did neither.
lock() { if [ -x /work/bin/heavy ]; then /work/bin/heavy "$@"; elif [ -e /work/heavy.lock ]; then flock /work/heavy.lock "$@"; else "$@"; fi; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${out}.pieces.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
for piece in bt,sp,fft,cg,lu is,mg,gemm,ptran,symm trmm,gemv,deposit,push,spmv; do
  n=$((n + 1))
  lock sh -c "echo \"piece $piece: \$(uptime)\" >&2; nice \"$perfcast\" kernels build -o \"$work/p$n.db\" --procs 2 \
    --kernels $piece --max-seconds $max --repeats $repeats --machine \"$(hostname)-quiet\""
done
cp "$work/p1.db" "$work/all.db"
for i in $(seq 2 $n); do
  sqlite3 "$work/all.db" "ATTACH '$work/p$i.db' AS p; INSERT INTO measurement SELECT * FROM p.measurement;"
done
mv "$work/all.db" "$out"
"$perfcast" kernels list "$out"
