#!/usr/bin/env bash
# The full agreement table against SimGrid 3.32: every example program at 4 to
# 64 ranks, on a homogeneous and a heterogeneous platform, with one and several
# ranks per host. For each case: record with smpirun -trace-ti, replay with
# smpirun -replay and perfcast replay --net smpi, print both makespans and the
# relative difference. Targets: 1% for point-to-point traces, 5% with collectives.
# usage: bench/agreement_table.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=$root/build/perfcast
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

hostfile() { # platform ranks ranks_per_host -> file
  python3 - "$1" "$2" "$3" > "$work/hosts" <<'PY'
import sys, re
plat, n, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
text = open(plat).read()
hosts = re.findall(r'<host id="([^"]+)"', text)
if not hosts:
    m = re.search(r'prefix="([^"]*)"[^>]*radical="(\d+)-(\d+)"', text)
    hosts = [f"{m.group(1)}{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1)]
need = (n + per - 1) // per
if need > len(hosts):
    sys.exit(f"{plat} has {len(hosts)} hosts, {need} needed")
for r in range(n):
    print(hosts[(r // per) % len(hosts)])
PY
}

printf '%-14s %5s %-14s %9s %14s %14s %10s %8s\n' program ranks platform per_host simgrid_s perfcast_s diff_% target
fail=0
while read -r app kind args; do
  for plat in cluster16.xml hetero8.xml; do
    for np in 4 16 64; do
      for per in 1 4 8; do
        P=$root/examples/platforms/$plat
        hostfile "$P" "$np" "$per" 2>/dev/null || continue
        "$root/scripts/record-trace.sh" "$root/examples/apps/$app" "$np" "$P" "$work/hosts" "$work/t" $args
        sg=$("$root/scripts/simgrid-replay-time.sh" "$work/t/trace.txt" "$np" "$P" "$work/hosts")
        pc=$("$perfcast" replay "$work/t/trace.txt" -p "$P" --hostfile "$work/hosts" --json -q |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
        target=$([ "$kind" = p2p ] && echo 1 || echo 5)
        diff=$(python3 -c "print(f'{abs($pc-$sg)/$sg*100:.4f}')")
        ok=$(python3 -c "print('ok' if $diff <= $target else 'MISS')")
        [ "$ok" = ok ] || fail=1
        printf '%-14s %5d %-14s %9d %14s %14.6f %10s %6s%% %s\n' "${app%.c}" "$np" "${plat%.*}" "$per" "$sg" "$pc" "$diff" "$target" "$ok"
        rm -rf "$work/t"
      done
    done
  done
done <<'CASES'
pingpong.c p2p 3 262144
stencil2d.c coll 20 128 5
collectives.c coll 3 2048 1e7
CASES
exit $fail
