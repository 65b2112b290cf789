#!/usr/bin/env bash
# Probes are repeatable: two runs of `perfcast probe` one after the other, each
# figure's 95% intervals compared (target: they overlap, for every figure).
# Meaningful on a quiet machine only: other processes' disk and network load
# moves those figures between the runs.
# usage: bench/probe_repeat.sh [perfcast probe options, e.g. --dir /var/tmp --rel-error 0.02]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$root/build/perfcast}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# each run also records the share of the cores other processes held while it
# ran (/proc/stat's busy time less the probe's own CPU time): two runs that
# disagree while others were busy say nothing about the probe
for run in 1 2; do
  echo "probe run $run: perfcast probe $*" >&2
  python3 - "$work/others$run" "$perfcast" probe -o "$work/m$run.json" --json "$@" > "$work/f$run.json" <<'PY'
import os, resource, subprocess, sys, time
def busy():
    v = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")
b0, t0 = busy(), time.monotonic()
subprocess.run(sys.argv[2:], check=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
others = (busy() - b0 - u.ru_utime - u.ru_stime) / ((time.monotonic() - t0) * os.cpu_count())
open(sys.argv[1], "w").write(f"{others:.4f}\n")
PY
done
python3 - "$work/f1.json" "$work/f2.json" "$work/others1" "$work/others2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
others = [float(open(p).read()) for p in sys.argv[3:5]]
print(f"other processes held {others[0]:.3f} and {others[1]:.3f} of the cores during runs 1 and 2")
def figures(f):
    out = {"cpu rate": f["cpu"]["rate_per_s"]}
    for key in ("write_buffered_Bps", "read_buffered_Bps", "write_direct_Bps", "read_direct_Bps"):
        if key in f.get("disk", {}):
            out["disk " + key] = f["disk"][key]
    if "messages" in f:
        out["message overhead"] = f["messages"]["overhead_s"]
        out["message one way"] = f["messages"]["one_way_s"]
    for p in f.get("memory_slowdown", {}).get("points", []):
        out[f"memory task at {p['held_mb']:.0f} MB"] = p["task_s"]
    return out
fa, fb = figures(a), figures(b)
agree = 0
print(f"{'figure':<32} {'run 1 mean [95%]':>36} {'run 2 mean [95%]':>36}  overlap")
for name in fa:
    x, y = fa[name], fb[name]
    ok = x["ci95"][0] <= y["ci95"][1] and y["ci95"][0] <= x["ci95"][1]
    agree += ok
    fmt = lambda e: f"{e['mean']:.5g} [{e['ci95'][0]:.5g}, {e['ci95'][1]:.5g}]"
    print(f"{name:<32} {fmt(x):>36} {fmt(y):>36}  {'yes' if ok else 'NO'}")
print(f"{agree} of {len(fa)} figures agree within their intervals (target: all)")
PY
