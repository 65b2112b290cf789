#!/usr/bin/env bash
# The README's first command: install what is missing, build the perfcast
# command (the tests are built by scripts/test.sh), and forecast the bundled
# 2-D stencil, traced at 1 to 8 ranks, at 16 to 64 ranks on a 16-node cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "[1/3] checking Debian packages" >&2
scripts/install-deps.sh
echo "[2/3] building the perfcast command" >&2
scripts/build.sh perfcast
echo "[3/3] forecasting examples/traces/stencil2d-scaling at 16-64 ranks on examples/platforms/cluster16.xml" >&2
t=examples/traces/stencil2d-scaling
build/perfcast forecast $t/1 $t/2 $t/4 $t/8 --platform examples/platforms/cluster16.xml --procs 16,32,64 \
  -o forecast.svg
