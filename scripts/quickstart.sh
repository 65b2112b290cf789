#!/usr/bin/env bash
# The README's first command: install what is missing, build the perfcast
# command (the tests are built by scripts/test.sh), and replay the bundled
# 16-rank stencil trace on the bundled heterogeneous cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "[1/3] checking Debian packages" >&2
scripts/install-deps.sh
echo "[2/3] building the perfcast command" >&2
scripts/build.sh perfcast
echo "[3/3] replaying examples/traces/stencil16 on examples/platforms/hetero8.json" >&2
build/perfcast replay examples/traces/stencil16/trace.txt --platform examples/platforms/hetero8.json \
  --placement round-robin --timeline stencil16-hetero8.svg
