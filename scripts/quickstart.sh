#!/usr/bin/env bash
# The README's first command: install what is missing, build, and replay the
# bundled 16-rank stencil trace on the bundled heterogeneous cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
build/perfcast replay examples/traces/stencil16/trace.txt --platform examples/platforms/hetero8.json \
  --placement round-robin --timeline stencil16-hetero8.svg
