#!/usr/bin/env bash
# Installs the build in BUILD_DIR into a temporary prefix and checks that the
# installed perfcast runs, finds its tracer library and ships its docs.
# usage: scripts/check-install.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "check-install: $*" >&2; exit 1; }
"$prefix/bin/perfcast" --version | grep -q '^perfcast ' || fail "installed perfcast does not run"
[ -f "$prefix/share/doc/perfcast/LICENSE" ] || fail "LICENSE not installed"
[ -f "$prefix/share/doc/perfcast/ARCHITECTURE.md" ] || fail "docs not installed"
[ -f "$prefix/share/perfcast/examples/platforms/hetero8.json" ] || fail "examples not installed"
"$prefix/bin/perfcast" replay "$prefix/share/perfcast/examples/traces/stencil16/trace.txt" \
  --platform "$prefix/share/perfcast/examples/platforms/hetero8.json" -q >/dev/null || fail "installed replay failed"
if [ -f "$build/libperfcast_tracer.so" ]; then
  lib=$(ls "$prefix"/lib*/perfcast/libperfcast_tracer.so 2>/dev/null | head -n1)
  [ -n "$lib" ] || fail "tracer library not installed under lib/perfcast"
  # perfcast trace must find it from the installed binary: a failing command
  # shows whether the lookup succeeded before the command ran
  out=$("$prefix/bin/perfcast" trace -o "$prefix/t" -- mpirun --version 2>&1 || true)
  case "$out" in *"was not found beside perfcast"*) fail "installed perfcast trace cannot find its tracer: $out" ;; esac
fi
echo "install into $prefix: ok"
