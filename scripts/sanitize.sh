#!/usr/bin/env bash
# Builds the whole project, tracer included, with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan/ and runs every test there.
# Any sanitizer report fails the test that triggered it (UBSan does not
# recover; ASan aborts). Open MPI's own allocations at exit are not perfcast's:
# leak detection is off for the MPI launcher tests (ASAN_OPTIONS below).
# usage: scripts/sanitize.sh [ctest arguments, e.g. -R Output]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFCAST_SANITIZE=ON >/dev/null
ninja -C build-asan >&2
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2 "$@"
