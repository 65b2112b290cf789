#!/usr/bin/env bash
# A fresh queueing-model study directory that reuses earlier studies'
# recordings and replays, so a changed model is re-scored on exactly the same
# truth (bench/qn_study.sh reuses traces under OUT/traces and replays
# OUT/CODE-CLUSTER/run-N.json it finds): each SRC's codes are linked, its
# replays copied; the fits and predictions are made anew. With several SRC
# directories (a study recorded in parts) a code is taken from the last SRC
# that has it.
# usage: bench/qn_rescore_prep.sh SRC... DEST
#   then: PERFCAST=build/perfcast bench/qn_study.sh DEST CODE=none...   (traces exist, so the command is not run)
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 SRC... DEST" >&2; exit 2; }
dest=${*: -1}
mkdir -p "$dest/traces"
shopt -s nullglob
copied=0 codes=0
for arg in "${@:1:$#-1}"; do
  src=$(cd "$arg" && pwd)
  [[ -d "$src/traces" ]] || { echo "error: $src: expected a bench/qn_study.sh directory (no traces/ in it)" >&2; exit 2; }
  for t in "$src"/traces/*/; do
    code=$(basename "$t")
    ln -sfn "$src/traces/$code" "$dest/traces/$code"
    codes=$((codes + 1))
    for c in table1-2nodes table1-4nodes hetero8; do
      [ -d "$src/$code-$c" ] || continue
      mkdir -p "$dest/$code-$c"
      for f in "$src/$code-$c"/run-*.json; do cp "$f" "$dest/$code-$c/"; copied=$((copied + 1)); done
    done
  done
done
echo "$dest: $codes codes' traces linked, $copied replays copied"
