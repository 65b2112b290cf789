#!/usr/bin/env bash
# Builds the fuzz targets with clang-14 (libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer) and runs each in turn, at low priority, sharing
# SECONDS (default 600) of total time: trace lines, platform XML and JSON, run
# files, model files, hostfiles and placements, unit and option strings,
# small traces replayed, and the scheduler's workloads and jobs. Corpora grow in build-fuzz/corpus/TARGET (seeded from
# tests/fuzz/corpus/TARGET); crashing inputs are saved as
# build-fuzz/crashes/TARGET/crash-*. Exits non-zero when a target found one.
# Not part of the test run.
# usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(trace platform_xml platform_json runs model placement units replay workload jobs)
if ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null
fi
build=$root/build-fuzz
cmake -S "$root" -B "$build" -G Ninja -DPERFCAST_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
nice -n 15 ninja -C "$build" -j2 "${targets[@]/#/fuzz_}"
each=$((secs / ${#targets[@]}))
[ "$each" -ge 1 ] || each=1
failed=()
for t in "${targets[@]}"; do
  rm -rf "$build/crashes/$t"
  mkdir -p "$build/corpus/$t" "$build/crashes/$t"
  [ -d "$root/tests/fuzz/corpus/$t" ] && cp -n "$root/tests/fuzz/corpus/$t"/* "$build/corpus/$t"/ 2>/dev/null || true
  echo "== fuzz_$t for ${each}s"
  if ! nice -n 15 "$build/fuzz_$t" -max_total_time="$each" -max_len=8192 -timeout=30 -rss_limit_mb=4096 \
      -artifact_prefix="$build/crashes/$t/" -print_final_stats=1 "$build/corpus/$t" 2>&1 |
      grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|ERROR|SUMMARY|runtime error|Test unit written" ; then
    :
  fi
  # libFuzzer's slow-unit-* files are inputs that took long (a platform of 100,000 hosts), not failures;
  # a hang past -timeout is written as timeout-*
  if ls "$build/crashes/$t"/crash-* "$build/crashes/$t"/leak-* "$build/crashes/$t"/timeout-* \
      "$build/crashes/$t"/oom-* >/dev/null 2>&1; then
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "crashing inputs in: ${failed[*]} (see $build/crashes/)"
  exit 1
fi
echo "no crash in ${targets[*]}"
