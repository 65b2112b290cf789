#!/usr/bin/env bash
# Builds the parser fuzzer with clang-14 (libFuzzer + AddressSanitizer) and runs
# it for SECONDS (default 180) from the seed corpus. Not part of the test run.
# usage: tests/fuzz/run.sh [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-180}
if ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null
fi
cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DPERFCAST_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
ninja -C "$root/build-fuzz" fuzz_parsers
work=$(mktemp -d)
cp "$root"/tests/fuzz/corpus/* "$work"/
"$root/build-fuzz/fuzz_parsers" -max_total_time="$secs" -max_len=8192 -timeout=60 "$work"
