#!/usr/bin/env bash
# Installs the Debian 12 packages perfcast needs to build and test, if missing.
set -euo pipefail
packages=(g++ cmake ninja-build pkg-config libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  libfmt-dev libcli11-dev libpugixml-dev libeigen3-dev libhwloc-dev libsqlite3-dev libdw-dev libsimgrid-dev time bc python3 libopenmpi-dev openmpi-bin gfortran hpcc mpich libmpich-dev
  clang-19 llvm-19-dev flang-19 libmetis-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${#missing[@]} Debian packages (a few minutes on a new machine): ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  # apt's own progress (one line per package unpacked and set up) goes to stderr
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}" \
    | grep --line-buffered -E '^(Unpacking|Setting up) ' >&2 || true
  for p in "${missing[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      { echo "install-deps: package $p could not be installed" >&2; exit 1; }
  done
fi
