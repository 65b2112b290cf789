#!/usr/bin/env bash
# The table of a sched_validation CSV: per run and worker count, the measured
# mean response (mean of the repetitions, their spread) against the prediction,
# and the largest share of the cores other processes held during a repetition
# (and of it, the host's steal from this virtual machine).
# usage: bench/sched_validation_table.sh CSV [--markdown]
#   --markdown: the tables of docs/probe.md and docs/scheduling.md instead
set -euo pipefail
python3 - "$@" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
markdown = "--markdown" in sys.argv[2:]
groups = {}
for r in rows:
    groups.setdefault((r["run"], int(r["workers"])), []).append(r)
if not markdown:
    print(f"{'run':<22} {'K':>4} {'reps':>4} {'measured_s':>11} {'spread_s':>11} {'predicted_s':>11} {'error_%':>8} "
          f"{'others':>7} {'steal':>6}  target")
errors, cells, lines = {}, [], []
# the K in order, the exponential runs last, whatever order the pieces were measured in
for (run, k), rs in sorted(groups.items(), key=lambda g: (g[0][0].startswith("exponential"), g[0][0], g[0][1])):
    m = [float(r["measured_mean_response_s"]) for r in rs]
    # pieces measured in different sessions each predict with their own probe
    p = statistics.fmean(float(r["predicted_mean_response_s"]) for r in rs)
    mean = statistics.fmean(m)
    err = 100 * (p - mean) / mean
    errors.setdefault(run, []).append(abs(err))
    target = 10 if run.startswith("exponential") else 5
    spread = f"{min(m):.3f}-{max(m):.3f}" if len(m) > 1 else "-"
    # the largest share of the cores other processes held during a repetition
    others = max((float(r["others_share"]) for r in rs if r.get("others_share")), default=float("nan"))
    # of which the host took from this virtual machine (steal; older files have no column)
    steal = max((float(r["steal_share"]) for r in rs if r.get("steal_share")), default=float("nan"))
    if markdown:
        name = f"{k}, exponential arrivals" if run.startswith("exponential") else f"{k}"
        runs = ", ".join(f"{x:.2f}" for x in m)
        lines.append(f"| {name} | {mean:.2f} ({runs}) | {p:.2f} | {err:+.1f}% | {others:.3f} | {steal:.3f} |")
        cells.append((f"{k}" if run == "together" else f"exponential (K = {k})", f"{err:+.1f}%"))
    else:
        print(f"{run:<22} {k:>4} {len(m):>4} {mean:>11.3f} {spread:>11} {p:>11.3f} {err:>+8.2f} {others:>7.3f} "
              f"{steal:>6.3f}  {'ok' if abs(err) <= target else 'MISSED'} (within {target}%)")
if markdown:
    print("| K | measured s (runs) | predicted s | error | others' share (max) | steal (max) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(lines))
    print()
    print("| K | " + " | ".join(c[0] for c in cells) + " |")
    print("|---|" + "---|" * len(cells))
    print("| error | " + " | ".join(c[1] for c in cells) + " |")
    print()
for run, e in errors.items():
    target = "" if run.startswith("exponential") else f", target mean within 2%: {'ok' if statistics.fmean(e) <= 2 else 'MISSED'}"
    print(f"{run}: mean |error| {statistics.fmean(e):.2f}%, worst {max(e):.2f}%{target}")
PY
