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
    if "write_direct_busy_Bps" in f.get("disk", {}):
        out["disk write_direct_busy_Bps"] = f["disk"]["write_direct_busy_Bps"]["estimate"]
    if "messages" in f:
        out["message overhead"] = f["messages"]["overhead_s"]
        out["message one way"] = f["messages"]["one_way_s"]
    for p in f.get("memory_slowdown", {}).get("points", []):
        out[f"memory task at {p['held_mb']:.0f} MB"] = p["task_s"]
    return out
def lag1(v):
    """Lag-1 autocorrelation of the samples in the order taken (0 for independent rounds)."""
    m = sum(v) / len(v)
    den = sum((x - m) ** 2 for x in v)
    return sum((v[i] - m) * (v[i + 1] - m) for i in range(len(v) - 1)) / den if den > 0 else 0.0
def batch_interval(v, batches=5):
    """95% interval by the method of batch means: the run cut into 5 consecutive
    batches, Student's t with 4 degrees of freedom (2.776) on their means; it
    widens when the machine drifts within the run, which the probe's own interval
    (independent rounds assumed) does not"""
    size = len(v) // batches
    if size < 1:
        return None
    means = [sum(v[i * size:(i + 1) * size]) / size for i in range(batches)]
    m = sum(means) / batches
    sd = (sum((x - m) ** 2 for x in means) / (batches - 1)) ** 0.5
    half = 2.776 * sd / batches ** 0.5
    return m - half, m + half
fa, fb = figures(a), figures(b)
agree = agree_batch = 0
print(f"{'figure':<32} {'run 1 mean [95%]':>36} {'run 2 mean [95%]':>36}  overlap  gap/halves  lag-1 r  batch-means overlap")
overlap = lambda p, q: p[0] <= q[1] and q[0] <= p[1]
for name in fa:
    x, y = fa[name], fb[name]
    ok = overlap(x["ci95"], y["ci95"])
    agree += ok
    fmt = lambda e: f"{e['mean']:.5g} [{e['ci95'][0]:.5g}, {e['ci95'][1]:.5g}]"
    # the gap between the means in units of the two half-widths (overlap when <= 1)
    halves = (x["ci95"][1] - x["ci95"][0] + y["ci95"][1] - y["ci95"][0]) / 2
    gap = abs(x["mean"] - y["mean"]) / halves if halves > 0 else float("inf")
    extra = ""
    if x.get("samples") and y.get("samples"):
        bx, by = batch_interval(x["samples"]), batch_interval(y["samples"])
        bok = bx is not None and by is not None and overlap(bx, by)
        agree_batch += bok
        extra = f"  {lag1(x['samples']):+.2f} {lag1(y['samples']):+.2f}  {'yes' if bok else 'NO'}"
    print(f"{name:<32} {fmt(x):>36} {fmt(y):>36}  {'yes' if ok else 'NO ':<3}  {gap:10.2f}{extra}")
print(f"{agree} of {len(fa)} figures agree within their intervals (target: all)")
print(f"{agree_batch} of {len(fa)} agree within batch-means intervals (5 batches of consecutive rounds: "
      f"an interval that allows for drift within a run)")
PY
