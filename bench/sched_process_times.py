#!/usr/bin/env python3
"""Where the validation's prediction and measurement part, process by process.

Reads a directory written by `bench/sched_validation.sh --detail DIR`: for each
run RUN-K-REP.csv (mw_integral's per-worker clock readings) and RUN-K.json (the
simulator's per-process results) it prints, for the workers in groups of the
order they were started, the measured and predicted finish times, and then the
parts of a worker's life measured on their own:
  start-up   fork to share received (the workload has no stage for it)
  cpu        CPU time of the integration alone, against the workload's demand
  tail       integration done to result received (write, fdatasync, message)
and, as a diagnosis of the model apart from the workload, the simulator's mean
response when each worker's CPU demand is its own measured CPU time (the whole
process's, as the workload's demand includes the worker's overhead), and when every worker gets their mean (this is not a prediction: it
uses the run's measurements).
With --summary, one line per run instead: the error, the workers' CPU time
against the workload's demand, their involuntary context switches (preemptions)
per CPU second, their mean run delay (runnable, waiting for a core), and the
share of the cores the host took from the virtual machine (steal) during the run.
usage: bench/sched_process_times.py DIR [--groups N | --summary]   (PERFCAST: the perfcast binary)
"""
import csv
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    groups = int(sys.argv[sys.argv.index("--groups") + 1]) if "--groups" in sys.argv else 5
    summary = "--summary" in sys.argv
    if summary:
        print(f"{'run':<22} {'K':>4} {'rep':>3} {'measured':>9} {'predicted':>9} {'error':>7} {'cpu/demand':>10} "
              f"{'preempt/cpu_s':>13} {'ms/slice':>8} {'run_delay':>9} {'steal':>6} {'others':>6}")
    for path in sorted(glob.glob(os.path.join(d, "*-*-*.csv")), key=natural):
        m = re.match(r"(.*)-(\d+)-(\d+)\.csv$", os.path.basename(path))
        if not m:
            continue
        run, k, rep = m.group(1), int(m.group(2)), int(m.group(3))
        pred_path = os.path.join(d, f"{run}-{k}.json")
        workload_path = os.path.join(d, f"{run}-{k}.workload.json")
        if not os.path.exists(pred_path):
            continue
        # the machine each K's prediction used (its CPU rate probed after its calibration), else the first probe
        machine_path = os.path.join(d, f"machine-{k}.json")
        if not os.path.exists(machine_path):
            machine_path = os.path.join(d, "machine.json")
        node = json.load(open(machine_path))["clusters"][0]["nodes"][0]
        workers = list(csv.DictReader(open(path)))
        pred = {p["id"]: p for p in json.load(open(pred_path))["per_process"]}
        demand = cpu_demand_s(workload_path, node) if os.path.exists(workload_path) else None
        if summary:
            summarise(run, k, rep, workers, pred, demand, path[:-len(".csv")] + ".err")
            continue
        report(run, k, rep, workers, pred, demand, groups)
        if os.path.exists(workload_path):
            given_measured_demands(machine_path, workload_path, workers, node)


def given_measured_demands(machine_path, workload_path, workers, node):
    """The simulator's mean response with each worker's measured CPU time as its demand, and with their mean."""
    perfcast = os.environ.get("PERFCAST", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "perfcast"))
    w = json.load(open(workload_path))
    own = [f(x, "cpu_s") for x in workers]  # the whole worker's, as the workload's demand counts its overhead
    meas = statistics.fmean(f(x, "response_s") for x in workers)
    given = [sum(st[1] for st in p["stages"] if st[0] == "cpu") / node["speed"] for p in w["processes"]]
    drift = statistics.fmean(own) / statistics.fmean(given)
    out = []
    for demands in (own, [statistics.fmean(own)] * len(own), [g * drift for g in given]):
        for p, c in zip(w["processes"], demands):
            for stage in p["stages"]:
                if stage[0] == "cpu":
                    stage[1] = c * node["speed"]
        with tempfile.NamedTemporaryFile("w", suffix=".json") as t:
            json.dump(w, t)
            t.flush()
            r = subprocess.run([perfcast, "schedule", "-p", machine_path, "-w", t.name, "--json"], capture_output=True,
                               text=True, check=True)
        out.append(json.loads(r.stdout)["response_s"]["mean"])
    print(f"given each worker's measured CPU time: {out[0]:.4f} s ({100 * (out[0] / meas - 1):+.1f}%); "
          f"every worker their mean: {out[1]:.4f} s ({100 * (out[1] / meas - 1):+.1f}%); "
          f"the workload's demands times the run's drift ({drift:.3f}): {out[2]:.4f} s ({100 * (out[2] / meas - 1):+.1f}%)")
    print()


def summarise(run, k, rep, workers, pred, demand, err_path):
    """One line: error, CPU time over demand, preemptions, run delay, steal and others' share of the run."""
    meas = statistics.fmean(f(w, "response_s") for w in workers)
    predicted = statistics.fmean(p["response_s"] for p in pred.values())
    cpu = statistics.fmean(f(w, "cpu_s") for w in workers)
    shares = {}
    if os.path.exists(err_path):
        for line in open(err_path):
            m = re.match(r"mw_integral: (others|steal) ([0-9.e+-]+) of the cores", line)
            if m:
                shares[m.group(1)] = float(m.group(2))
    have = "involuntary_cs" in workers[0]
    inv = statistics.fmean(f(w, "involuntary_cs") for w in workers) if have else float("nan")
    delay = statistics.fmean(f(w, "run_delay_s") for w in workers) if have else float("nan")
    ratio = 100 * (cpu / demand - 1) if demand else float("nan")
    print(f"{run:<22} {k:>4} {rep:>3} {meas:>9.3f} {predicted:>9.3f} {100 * (predicted / meas - 1):>+6.1f}% "
          f"{ratio:>+9.1f}% {inv / cpu:>13.0f} {1e3 * cpu / max(inv, 1):>8.2f} {delay:>9.3f} "
          f"{shares.get('steal', float('nan')):>6.3f} {shares.get('others', float('nan')):>6.3f}")


def natural(path):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path)]


def cpu_demand_s(workload_path, node):
    """Mean CPU seconds per process that the workload asks for, at the probed speed."""
    w = json.load(open(workload_path))
    per = [sum(s[1] for s in p["stages"] if s[0] == "cpu") / node["speed"] for p in w["processes"]]
    return statistics.fmean(per)


def f(row, key):
    if key == "response_s":  # from the arrival, as the simulator counts (older runs' column counted from the fork)
        return float(row["finish_s"]) - float(row["arrival_s"])
    return float(row[key])


def report(run, k, rep, workers, pred, demand, groups):
    print(f"== {run}, K = {k}, repetition {rep}")
    print(f"{'workers':>9} {'arrival':>8} {'meas_start':>10} {'meas_recv':>9} {'meas_integ':>10} {'meas_end':>9} "
          f"{'pred_end':>9} {'meas_resp':>9} {'pred_resp':>9} {'cpu_s':>7}")
    size = max(1, (k + groups - 1) // groups)
    for g in range(0, k, size):
        part = workers[g:g + size]
        mean = lambda key: statistics.fmean(f(w, key) for w in part)
        pend = statistics.fmean(pred[int(w["worker"])]["finish_s"] for w in part)
        presp = statistics.fmean(pred[int(w["worker"])]["response_s"] for w in part)
        print(f"{g:>4}-{g + len(part) - 1:<4} {mean('arrival_s'):>8.3f} {mean('start_s'):>10.3f} "
              f"{mean('received_s'):>9.3f} {mean('integrated_s'):>10.3f} {mean('finish_s'):>9.3f} {pend:>9.3f} "
              f"{mean('response_s'):>9.3f} {presp:>9.3f} {mean('integrate_cpu_s'):>7.4f}")
    startup = [f(w, "received_s") - f(w, "start_s") for w in workers]
    tail = [f(w, "finish_s") - f(w, "integrated_s") for w in workers]
    cpu = [f(w, "integrate_cpu_s") for w in workers]
    whole_cpu = [f(w, "cpu_s") for w in workers]
    meas = statistics.fmean(f(w, "response_s") for w in workers)
    predicted = statistics.fmean(p["response_s"] for p in pred.values())
    print(f"start-up (fork to share received): mean {statistics.fmean(startup) * 1e3:.2f} ms, "
          f"max {max(startup) * 1e3:.2f} ms")
    print(f"tail (integration done to result received): mean {statistics.fmean(tail) * 1e3:.2f} ms, "
          f"max {max(tail) * 1e3:.2f} ms")
    print(f"integration CPU time: mean {statistics.fmean(cpu):.4f} s (sd {statistics.pstdev(cpu):.4f})")
    line = f"whole worker CPU time (user + system): mean {statistics.fmean(whole_cpu):.4f} s"
    if demand is not None:  # the demand counts the worker's overhead (fork, write's system calls, exit)
        line += f", the workload's demand {demand:.4f} s ({100 * (statistics.fmean(whole_cpu) / demand - 1):+.1f}%)"
    print(line)
    # if the cores were shared perfectly, the last result comes when K integrations' CPU time is done on 2 cores
    last = max(f(w, "finish_s") for w in workers)
    print(f"last result at {last:.3f} s; sum of the workers' CPU time / 2 cores = {sum(whole_cpu) / 2:.3f} s")
    if "involuntary_cs" in workers[0]:  # runs from session 8 on
        inv = [f(w, "involuntary_cs") for w in workers]
        vol = [f(w, "voluntary_cs") for w in workers]
        delay = [f(w, "run_delay_s") for w in workers]
        print(f"context switches per worker: involuntary {statistics.fmean(inv):.0f} "
              f"({statistics.fmean(inv) / statistics.fmean(whole_cpu):.0f} per CPU second, "
              f"{1e3 * statistics.fmean(whole_cpu) / max(statistics.fmean(inv), 1):.2f} ms CPU per slice), "
              f"voluntary {statistics.fmean(vol):.0f}; run delay (runnable, waiting for a core) mean {statistics.fmean(delay):.3f} s")
    print(f"mean response: measured {meas:.4f} s, predicted {predicted:.4f} s ({100 * (predicted / meas - 1):+.1f}%)")


if __name__ == "__main__":
    main()
