#!/usr/bin/env bash
# Configures and builds perfcast (Release) into build/. With arguments, builds
# only those targets (scripts/build.sh perfcast). Progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  echo "configuring perfcast (cmake, Release) in build/" >&2
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
if [ -t 2 ]; then
  ninja -C build "$@" >&2 # ninja shows one updating [done/total] line on a terminal
else
  # off a terminal, one line every 10 steps instead of one per file
  NINJA_STATUS="[%f/%t] " ninja -C build "$@" | awk '/^\[[0-9]+\/[0-9]+\]/ { split(substr($1, 2), n, "/"); if (n[1] % 10 == 0 || n[1] == n[2]) print "building: " $1 > "/dev/stderr"; next } { print > "/dev/stderr" }'
fi
