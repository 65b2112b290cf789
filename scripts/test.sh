#!/usr/bin/env bash
# The README's second command: build if needed and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
ctest --test-dir build --output-on-failure -j2
