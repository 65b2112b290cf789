#!/bin/sh
# bench/comm_scale.sh: the time and memory `perfcast comm run` spends on a
# large third-party serial code, the instrumented run and the analysis after
# it apart, for this build and (when it exists) a previous one, in one run.
#
#   bench/comm_scale.sh [-p PROCS] [-r REGION] [-n NAME] -- PROGRAM ARGS...
#
# PROGRAM is a serial code built with perfcast's wrapper (perfcast-cc,
# perfcast-c++: the comm pass and its runtime). This script fetches and
# builds nothing; the codes of issue #29 come from their public repositories
# (never committed here) and are built like this:
#
#   CoMD 1.1 (github.com/ECP-copa/CoMD, src-mpi, serial with DO_MPI=OFF):
#     cd CoMD/src-mpi && cp Makefile.vanilla Makefile
#     make DO_MPI=OFF CC=/path/to/build/perfcast-cc OPTFLAGS=-O2
#     bench/comm_scale.sh -n comd10 -- CoMD/bin/CoMD-serial -x 16 -y 16 -z 16 -N 10
#   LULESH 2.0 (github.com/LLNL/LULESH, serial with -DUSE_MPI=0, no OpenMP):
#     make CXX="/path/to/build/perfcast-c++ -DUSE_MPI=0" CXXFLAGS="-O2 -I. -w" LDFLAGS=-O2
#     bench/comm_scale.sh -n lulesh24 -- LULESH/lulesh2.0 -s 24 -i 10
#   HPCCG 1.0 (github.com/Mantevo/HPCCG, serial with USE_MPI empty):
#     make CXX=/path/to/build/perfcast-c++ LINKER=/path/to/build/perfcast-c++ CPP_OPT_FLAGS=-O2 USE_MPI=
#     bench/comm_scale.sh -n hpccg -- HPCCG/test_HPCCG 64 64 64
#
# (Until perfcast-c++ finds clang++-19, call clang++-19 by hand with
# -fpass-plugin=build/libperfcast_commpass.so -fno-vectorize
# -fno-slp-vectorize and link build/libperfcast_commrt.a.)
#
# What is measured, each under /usr/bin/time -v (wall time, peak RSS):
#   1. the instrumented run alone, writing the value graph
#      (PERFCAST_COMM_OUT, PERFCAST_COMM_REGION as `comm run` sets them);
#   2. the plain run alone (PERFCAST_COMM_PLAIN=1), which `comm run` also makes;
#   3. `perfcast comm run --procs PROCS` on a stand-in program that hands it
#      the graph of step 1 (a hard link) and runs the real plain run: its wall
#      time less step 2's is the analysis (reading, partitioning for every
#      count, writing comm.json); its peak RSS is the analysis's (the stand-in
#      and the plain run are far smaller);
#   4. step 3 again with the previous build, PERFCAST_BASE (default
#      /work/main/build/perfcast; skipped when absent), cut off after
#      BASE_TIMEOUT seconds (default 1800), and the two estimates compared.
# The graph format is the same for both builds (perfcast-comm-graph 2).
# PERFCAST overrides this build's binary (default build/perfcast).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
perfcast=${PERFCAST:-$here/build/perfcast}
base=${PERFCAST_BASE:-/work/main/build/perfcast}
base_timeout=${BASE_TIMEOUT:-1800}
procs=2..64:x2
region=
name=run
while [ $# -gt 0 ]; do
  case "$1" in
    -p) procs=$2; shift 2 ;;
    -r) region=$2; shift 2 ;;
    -n) name=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-p PROCS] [-r REGION] [-n NAME] -- PROGRAM ARGS..." >&2; exit 2 ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: $0 [-p PROCS] [-r REGION] [-n NAME] -- PROGRAM ARGS..." >&2; exit 2; }
program=$(readlink -f "$1")
shift
[ -x "$program" ] || { echo "$0: $program: not an executable" >&2; exit 2; }
[ -x "$perfcast" ] || { echo "$0: $perfcast: not built (ninja -C build perfcast)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/comm_scale.$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# wall seconds and peak MB from a /usr/bin/time -v report
wall() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; printf "%.1f", s }' "$1"; }
peak() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }
status() { awk -F': ' '/Exit status/ { print $2 } /Command terminated by signal/ { print "signal" }' "$1" | tail -1; }

region_env=
[ -n "$region" ] && region_env="PERFCAST_COMM_REGION=$region"
echo "$name: $program $*  (procs $procs${region:+, region $region}; load $(cut -d' ' -f1-3 /proc/loadavg))"
env PERFCAST_COMM_OUT="$work/values.graph" $region_env /usr/bin/time -v -o run.time "$program" "$@" > run.out 2>&1 ||
  { echo "$0: the instrumented run failed; see below" >&2; tail -5 run.out run.time >&2; exit 1; }
graph_mb=$(du -m values.graph | cut -f1)
env PERFCAST_COMM_OUT="$work/plain.txt" PERFCAST_COMM_PLAIN=1 $region_env /usr/bin/time -v -o plain.time \
  "$program" "$@" > plain.out 2>&1
cat > stand-in.sh <<EOF
#!/bin/sh
# hands perfcast comm run the graph of the instrumented run; the plain run is real
if [ "\${PERFCAST_COMM_PLAIN:-}" = 1 ]; then exec "$program" "\$@"; fi
ln -f "$work/values.graph" "\$PERFCAST_COMM_OUT" 2>/dev/null || cp "$work/values.graph" "\$PERFCAST_COMM_OUT"
EOF
chmod +x stand-in.sh

# analyse BINARY LABEL TIMEOUT ARGS...: comm run on the stand-in, into LABEL/ (TIMEOUT 0: none)
analyse() {
  binary=$1 label=$2 limit=$3
  shift 3
  rc=0
  [ "$limit" -gt 0 ] || limit=0 # timeout 0: no limit
  /usr/bin/time -v -o "$label.time" timeout "$limit" "$binary" comm run --procs "$procs" ${region:+--region "$region"} \
    -o "$work/$label" -- "$work/stand-in.sh" "$@" > "$label.out" 2>&1 || rc=$?
  echo "$rc" > "$label.rc"
}
analyse "$perfcast" new 0 "$@"
have_base=0
if [ -x "$base" ]; then
  have_base=1
  analyse "$base" base "$base_timeout" "$@"
fi

plain_s=$(wall plain.time)
report() { # LABEL WHAT
  rc=$(cat "$1.rc")
  w=$(wall "$1.time")
  if [ "$rc" = 124 ]; then
    printf '%-34s %10s %10s  (cut off after %s s, still running)\n' "$2" ">$w" "$(peak "$1.time")" "$base_timeout"
  elif [ "$rc" != 0 ]; then
    printf '%-34s %10s %10s  (failed, status %s: %s)\n' "$2" "$w" "$(peak "$1.time")" "$rc" "$(tail -1 "$1.out")"
  else
    printf '%-34s %10s %10s\n' "$2" "$(awk -v a="$w" -v b="$plain_s" 'BEGIN { printf "%.1f", a - b }')" \
      "$(peak "$1.time")"
  fi
}
printf '%-34s %10s %10s\n' "" "wall s" "peak MB"
printf '%-34s %10s %10s  (graph %s MB)\n' "instrumented run" "$(wall run.time)" "$(peak run.time)" "$graph_mb"
printf '%-34s %10s %10s\n' "plain run" "$plain_s" "$(peak plain.time)"
report new "analysis, this build"
[ "$have_base" = 1 ] && report base "analysis, previous build"
if [ "$have_base" = 1 ] && [ "$(cat new.rc)" = 0 ] && [ "$(cat base.rc)" = 0 ]; then
  awk -v a="$(wall new.time)" -v b="$(wall base.time)" -v p="$plain_s" \
    'BEGIN { printf "analysis time, previous / this build: %.1fx\n", (b - p) / (a - p) }'
fi
# the estimates per count (point-to-point bytes per iteration, partition)
for label in new base; do
  [ -f "$work/$label/comm.json" ] || continue
  python3 - "$work/$label/comm.json" "$label" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
per = max(doc["iterations"], 1)
print(sys.argv[2] + ": " + ", ".join("%d: %.0f (%s)" % (e["procs"], e["p2p_bytes"] / per, e["partition"])
                                     for e in doc["estimates"]))
EOF
done
