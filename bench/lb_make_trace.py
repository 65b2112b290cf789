#!/usr/bin/env python3
"""Writes an imbalanced iterative trace for over-decomposed replay benchmarks.

A 1-D domain of FINE cells is split into V blocks (V divides FINE); each
iteration every VP computes its cells' work, exchanges a halo with its two
neighbours (isend, irecv, waitall) and reaches a migration point. A cell's
work is higher near the borders (spatial imbalance) and under a front that
crosses the domain once over the run (temporal imbalance). Coarser levels of
the same FINE cells are what aggregating the finest trace gives: the work of a
block is the sum of its cells', halos between merged blocks vanish.

usage: lb_make_trace.py OUT_DIR VPS ITERATIONS [FINE]
"""
import math
import os
import sys


def cell_work(cell, fine, iteration, iterations):
    x = (cell + 0.5) / fine
    border = 2.0 if x < 0.1 or x > 0.9 else 1.0
    front = (iteration + 0.5) / iterations
    bump = 3.0 * math.exp(-((x - front) / 0.08) ** 2)
    return 2e6 * (border + bump)  # flops


def main():
    out, vps, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fine = int(sys.argv[4]) if len(sys.argv) > 4 else 64 * 8
    if fine % vps:
        sys.exit(f"{vps} VPs do not divide {fine} cells")
    per = fine // vps
    os.makedirs(out, exist_ok=True)
    halo = 8192
    heap = 2 * 1024 * 1024 * 64 // vps  # the domain's memory split among the VPs
    with open(os.path.join(out, "trace.txt"), "w") as index:
        for v in range(vps):
            index.write(f"rank-{v}.txt\n")
    for v in range(vps):
        lines = [f"{v} init"]
        neighbours = [n for n in (v - 1, v + 1) if 0 <= n < vps]
        for it in range(iterations):
            work = sum(cell_work(c, fine, it, iterations) for c in range(v * per, (v + 1) * per))
            lines.append(f"{v} compute {work:.6g}")
            for n in neighbours:
                lines.append(f"{v} isend {n} 0 {halo}")
            for n in neighbours:
                lines.append(f"{v} irecv {n} 0 {halo}")
            lines.append(f"{v} waitall")
            lines.append(f"{v} migrate {heap}")
        lines.append(f"{v} finalize")
        with open(os.path.join(out, f"rank-{v}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
