#!/usr/bin/env python3
"""Rewrites a recorded trace of examples/apps/master_worker.c into perfcast's
elastic form, so that a replay on another platform re-deals the tasks as the
real program would (docs/formats.md, "perfcast extensions"):
  - the master's task send (tag 1) that follows a receive from any source goes to '@', the
    source that receive actually matched;
  - each worker's task loop becomes 'loop_begin 3' (TAG_STOP) ... 'loop_end'.
usage: make-elastic-master-worker.py IN_DIR OUT_DIR
"""
import os
import sys


def main(src, dst):
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(src, "trace.txt")) as f:
        files = [line.strip() for line in f if line.strip()]
    for rank, name in enumerate(files):
        with open(os.path.join(src, name)) as f:
            lines = [line.rstrip("\n").rstrip() for line in f if line.strip()]
        out = []
        if rank == 0:
            after_wildcard = False
            for line in lines:
                fields = line.split()
                if fields[1] == "send" and fields[3] == "1" and after_wildcard:  # TAG_TASK
                    fields[2] = "@"
                after_wildcard = fields[1] == "recv" and fields[2] in ("-333", "-555", "-1")
                out.append(" ".join(fields))
        else:
            # init, (recv task, compute, send result)*, recv stop, finalize
            body = lines[1:4]
            kinds = [l.split()[1] for l in body]
            if kinds != ["recv", "compute", "send"]:
                sys.exit(f"{name}: unexpected worker pattern {kinds}")
            out = [lines[0], f"{rank} loop_begin 3", *body, f"{rank} loop_end", lines[-1]]
        with open(os.path.join(dst, f"rank-{rank}.txt"), "w") as f:
            f.write("\n".join(out) + "\n")
    with open(os.path.join(dst, "trace.txt"), "w") as f:
        f.write("".join(f"rank-{r}.txt\n" for r in range(len(files))))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
