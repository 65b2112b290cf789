#!/usr/bin/env python3
"""Measured AMPI runs against perfcast's predictions (bench/lb_ampi_validation.sh).

usage: lb_ampi_compare.py RUNS.csv PREDICTED.csv [CONFIGS]
RUNS.csv: vps,balancer,period,rep,seconds,load1 (one line per real run);
PREDICTED.csv: vps,balancer,period,seconds,migrations (one line per configuration);
CONFIGS: lines "VPS BALANCER PERIOD" choosing and ordering the configurations
(default: those of PREDICTED.csv). Prints one row per configuration, the
errors, and the rank correlations (Spearman's rho and Kendall's tau-b, both
with ties handled) between the measured and the predicted times. The measured
time of a configuration is its fastest repetition: on a shared machine noise
only adds (others' work takes the core of a PE that sleeps while it waits);
the same figures against the mean of the repetitions follow.

Ranking under noise: a pair of configurations is resolved when the difference
of their fastest repetitions exceeds the spread (slowest - fastest repetition)
of both; over the resolved pairs the script counts those the predictions order
the same way (target: all). Over pairs closer than the noise no order is
claimed. Spearman and Kendall are printed over all configurations besides."""
import csv
import sys


def ranks(values):
    """average ranks (1-based), ties sharing the mean of their positions"""
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else float("nan")


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


def kendall_tau_b(x, y):
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_x) * (concordant + discordant + ties_y)) ** 0.5
    return (concordant - discordant) / denominator if denominator > 0 else float("nan")


def resolved_pairs(reps, preds):
    """(agreeing, resolved, disagreeing pairs) over the pairs whose fastest
    repetitions differ by more than the spread of both"""
    agree, resolved, wrong = 0, 0, []
    for i in range(len(reps)):
        for j in range(i + 1, len(reps)):
            ti, tj = min(reps[i]), min(reps[j])
            spread = max(max(reps[i]) - ti, max(reps[j]) - tj)
            if abs(ti - tj) <= spread:
                continue
            resolved += 1
            if (ti < tj) == (preds[i] < preds[j]) and preds[i] != preds[j]:
                agree += 1
            else:
                wrong.append((i, j))
    return agree, resolved, wrong


def key(row):
    return (int(row["vps"]), row["balancer"], int(row["period"]))


def main():
    measured = {}
    loads = []
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            measured.setdefault(key(row), []).append(float(row["seconds"]))
            loads.append(float(row["load1"]))
    predicted = {}
    with open(sys.argv[2]) as f:
        for row in csv.DictReader(f):
            predicted[key(row)] = (float(row["seconds"]), int(row["migrations"]))
    if len(sys.argv) > 3:
        order = []
        for line in open(sys.argv[3]):
            w = line.split("#")[0].split()
            if w:
                order.append((int(w[0]), w[1], int(w[2])))
    else:
        order = list(predicted)
    rows = [c for c in order if c in measured and c in predicted]
    missing = [c for c in order if c not in rows]
    if missing:
        print(f"warning: {len(missing)} configurations lack a measurement or a prediction: {missing}", file=sys.stderr)
    if len(rows) < 2:
        sys.exit("error: fewer than two configurations have both a measurement and a prediction")

    print(f"{'vps':>4} {'balancer':>14} {'period':>6} {'reps':>4} {'fastest_s':>10} {'mean_s':>8} {'spread':>7} "
          f"{'predicted_s':>11} {'error':>8} {'migr':>6}")
    fastest, means, preds, reps = [], [], [], []
    for c in rows:
        m = measured[c]
        reps.append(m)
        p, migrations = predicted[c]
        fastest.append(min(m))
        means.append(sum(m) / len(m))
        preds.append(p)
        spread = (max(m) - min(m)) / min(m)
        print(f"{c[0]:>4} {c[1]:>14} {c[2]:>6} {len(m):>4} {min(m):10.3f} {means[-1]:8.3f} {100 * spread:6.1f}% "
              f"{p:11.3f} {100 * (p - min(m)) / min(m):+7.1f}% {migrations:>6}")
    fmt = lambda c: f"{c[0]} VPs, {c[1]}, period {c[2]}"
    for name, values in (("fastest repetition", fastest), ("mean of the repetitions", means)):
        errors = [(p - v) / v for p, v in zip(preds, values)]
        within = sum(abs(e) <= 0.10 for e in errors)
        best_measured = min(range(len(rows)), key=lambda i: values[i])
        best_predicted = min(range(len(rows)), key=lambda i: preds[i])
        print()
        print(f"against the {name}:")
        print(f"configurations within 10%:        {within} of {len(rows)}")
        print(f"error: mean |e| {100 * sum(abs(e) for e in errors) / len(errors):.1f}%, "
              f"max |e| {100 * max(abs(e) for e in errors):.1f}%, mean e {100 * sum(errors) / len(errors):+.1f}%")
        print(f"Spearman rho (measured vs predicted): {spearman(values, preds):.3f}")
        print(f"Kendall tau-b:                        {kendall_tau_b(values, preds):.3f}")
        print(f"best measured:  {fmt(rows[best_measured])} ({values[best_measured]:.3f} s)")
        print(f"best predicted: {fmt(rows[best_predicted])} ({preds[best_predicted]:.3f} s predicted, "
              f"{values[best_predicted]:.3f} s measured)")
    agree, resolved, wrong = resolved_pairs(reps, preds)
    pairs = len(rows) * (len(rows) - 1) // 2
    print()
    print(f"ranking under noise: {resolved} of {pairs} pairs resolved (fastest repetitions differ by more than "
          f"both spreads)")
    print(f"resolved pairs ordered as measured: {agree} of {resolved}"
          + (f" ({100 * agree / resolved:.1f}%)" if resolved else ""))
    for i, j in wrong:
        print(f"  disagree: {fmt(rows[i])} ({fastest[i]:.3f} s, predicted {preds[i]:.3f}) vs "
              f"{fmt(rows[j])} ({fastest[j]:.3f} s, predicted {preds[j]:.3f})")
    best = min(range(len(rows)), key=lambda i: fastest[i])
    best_p = min(range(len(rows)), key=lambda i: preds[i])
    spread = max(max(reps[best]) - fastest[best], max(reps[best_p]) - fastest[best_p])
    tied = fastest[best_p] - fastest[best] <= spread
    print(f"predicted best {'within' if tied else 'NOT within'} the noise of the measured best "
          f"({fastest[best_p]:.3f} vs {fastest[best]:.3f} s, spread {spread:.3f} s)")
    print()
    print(f"load average (1 min) at the runs:     {min(loads):.2f} to {max(loads):.2f}")


if __name__ == "__main__":
    main()
