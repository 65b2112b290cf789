#!/usr/bin/env bash
# Reading large traces: replays the same ring trace written as one file per
# rank and as one file holding every rank (interleaved in time order, as
# SimGrid's one-file traces are), at 64 and 4096 ranks, and prints the CPU time
# of each and their ratio (one-file / per-rank). Also replays 1500 per-rank
# files under `ulimit -n 1024`. With BEFORE=path/to/older/perfcast it measures
# that binary too, in the same run.
# usage: [REPEAT=3] [BEFORE=perfcast] bench/trace_scale.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
platform=$root/examples/platforms/cluster16.xml
repeat=${REPEAT:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ring trace: each iteration computes, then exchanges 1 KiB with both neighbours
make_trace() { # ranks iterations dir
  python3 - "$@" <<'PY'
import os, sys
P, iters, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.makedirs(d + "/ranks", exist_ok=True)
lines = [[f"{r} init"] for r in range(P)]
for it in range(iters):
    for r in range(P):
        lines[r] += [f"{r} compute 1000000", f"{r} sendRecv 1024 {(r + 1) % P} 1024 {(r - 1) % P}"]
for r in range(P):
    lines[r].append(f"{r} finalize")
with open(d + "/ranks/index.txt", "w") as index:
    for r in range(P):
        with open(f"{d}/ranks/rank-{r}.txt", "w") as f:
            f.write("\n".join(lines[r]) + "\n")
        index.write(f"rank-{r}.txt\n")
with open(d + "/all.txt", "w") as f:  # time order: line k of every rank, then line k+1
    for k in range(len(lines[0])):
        for r in range(P):
            f.write(lines[r][k] + "\n")
with open(d + "/one.txt", "w") as f:
    f.write("all.txt\n")
PY
}

cpu_of() { # command... -> median CPU seconds over $repeat runs
  for _ in $(seq "$repeat"); do
    /usr/bin/time -f "%U %S" -o "$work/time" "$@" > /dev/null 2> "$work/err" || { cat "$work/err"; return 1; }
    read -r u s < "$work/time"
    echo "$u + $s" | bc -l
  done | sort -g | sed -n "$(((repeat + 1) / 2))p"
}

printf '%-10s %6s %9s %12s %12s %8s\n' binary ranks actions per-rank_s one-file_s ratio
for spec in "64 2000" "4096 30"; do
  read -r ranks iters <<< "$spec"
  make_trace "$ranks" "$iters" "$work/t$ranks"
  actions=$((ranks * (2 * iters + 2)))
  for bin in "$perfcast" ${BEFORE:+"$BEFORE"}; do
    args=(-p "$platform" --placement round-robin --net loggp -q)
    per=$(cpu_of "$bin" replay "$work/t$ranks/ranks/index.txt" "${args[@]}")
    one=$(cpu_of "$bin" replay "$work/t$ranks/one.txt" "${args[@]}")
    printf '%-10s %6d %9d %12.3f %12.3f %8.2f\n' "$([ "$bin" = "$perfcast" ] && echo this || echo before)" \
      "$ranks" "$actions" "$per" "$one" "$(echo "$one / $per" | bc -l)"
  done
done

make_trace 1500 2 "$work/t1500"
for bin in "$perfcast" ${BEFORE:+"$BEFORE"}; do
  if (ulimit -n 1024 && "$bin" replay "$work/t1500/ranks/index.txt" -p "$platform" --placement round-robin \
      --net loggp -q > /dev/null 2> "$work/err"); then
    echo "$bin: 1500 per-rank files under ulimit -n 1024: replayed"
  else
    echo "$bin: 1500 per-rank files under ulimit -n 1024: failed: $(head -c 200 "$work/err")"
  fi
done
