#!/usr/bin/env bash
# A fresh queueing-model study directory that reuses an earlier study's
# recordings and replays, so a changed model is re-scored on exactly the same
# truth (bench/qn_study.sh reuses traces under OUT/traces and replays
# OUT/CODE-CLUSTER/run-N.json it finds): SRC's traces are linked, its replays
# copied; the fits and predictions are made anew.
# usage: bench/qn_rescore_prep.sh SRC DEST
#   then: PERFCAST=build/perfcast bench/qn_study.sh DEST NAME='BINARY ARGS'...  (the specs SRC was made with)
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 SRC DEST" >&2; exit 2; }
src=$(cd "$1" && pwd) dest=$2
[[ -d "$src/traces" ]] || { echo "error: $src: expected a bench/qn_study.sh directory (no traces/ in it)" >&2; exit 2; }
mkdir -p "$dest"
ln -sfn "$src/traces" "$dest/traces"
shopt -s nullglob
copied=0
for d in "$src"/*-table1-2nodes "$src"/*-table1-4nodes "$src"/*-hetero8; do
  b=$(basename "$d")
  mkdir -p "$dest/$b"
  for f in "$d"/run-*.json; do cp "$f" "$dest/$b/"; copied=$((copied + 1)); done
done
echo "$dest: traces linked to $src/traces, $copied replays copied"
