#!/usr/bin/env bash
# The queueing study's third-party codes (issue 13), built and run on a new
# machine from their public sources. Each recipe bench/qn_codes/RECIPE.sh sets
#   repo=OWNER/NAME  commit=SHA      the source and the version the study used
#   build() { ...; }                 run in the exported source, with SMPI's compilers
#   specs=('CODE=BINARY ARGS' ...)   bench/qn_study.sh's specs; @SRC@ is the source
#                                    directory, ARGS may use $n (the process count)
#   paths=(DIR ...)                  optional: export only these paths of the commit
#                                    (a mirror may lack a large file the code never reads)
# and may define prepare_CODE N TRACE_DIR (an input file per count, run before
# each recording) and fit_args_CODE='...' (options to that code's `fit qn`);
# a function that a spec calls ($(grid $n)) is exported by its recipe (export -f).
# A build may call smpi_cmake_build [CMAKE ARGS...]: configure with SMPI's
# compilers (also as MPI's) into build/ and build there.
# Nothing is downloaded: the source is a git directory already on this machine,
# MIRRORS/OWNER+NAME/repo (the search tool's fetch lays them in /work/.mirror).
# Sources and builds go to STUDY_DIR/src, never into this repository.
# usage: bench/qn_codes.sh STUDY_DIR RECIPE...      build, record 1-64, score
#        QN_CODES_BUILD_ONLY=1 bench/qn_codes.sh STUDY_DIR RECIPE...   build only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 2 ]] || { echo "usage: $0 STUDY_DIR RECIPE... (recipes: $(cd "$root/bench/qn_codes" && ls | sed 's/\.sh$//' | tr '\n' ' '))" >&2; exit 2; }
mirrors=${MIRRORS:-/work/.mirror}
out=$1
shift
mkdir -p "$out/src"
out=$(cd "$out" && pwd)
all_specs=()
smpi_cmake_build() { # configure with SMPI's compilers, also as MPI's, then build in build/
  cmake -B build -S . -DCMAKE_C_COMPILER=smpicc -DCMAKE_CXX_COMPILER=smpicxx \
    -DMPI_C_COMPILER=smpicc -DMPI_CXX_COMPILER=smpicxx "$@" && cmake --build build -j2
}
for recipe in "$@"; do
  file=$root/bench/qn_codes/$recipe.sh
  [ -f "$file" ] || { echo "error: $file: no such recipe" >&2; exit 2; }
  unset repo commit specs paths
  unset -f build
  # shellcheck source=/dev/null
  source "$file"
  git_dir=$mirrors/${repo/\//+}/repo
  [ -d "$git_dir" ] || { echo "error: $file: $git_dir: no git directory for $repo (fetch github:$repo first)" >&2; exit 2; }
  src=$out/src/$recipe
  if [ ! -f "$src/.built" ]; then
    rm -rf "$src"
    mkdir -p "$src"
    git --git-dir="$git_dir" archive "$commit" ${paths[@]+"${paths[@]}"} | tar -x -C "$src"
    echo "== building $recipe ($repo $commit) in $src" >&2
    (cd "$src" && build) > "$src.build.log" 2>&1 || { echo "error: $recipe: build failed, see $src.build.log" >&2; exit 1; }
    touch "$src/.built"
  fi
  for spec in "${specs[@]}"; do
    name=${spec%%=*}
    all_specs+=("${spec//@SRC@/$src}")
    if declare -F "prepare_$name" > /dev/null; then
      export -f "prepare_$name"
    fi
    fa=fit_args_$name
    [ -z "${!fa:-}" ] || export "QN_FIT_ARGS_$name=${!fa//@SRC@/$src}"
  done
done
[ -z "${QN_CODES_BUILD_ONLY:-}" ] || { printf '%s\n' "${all_specs[@]}"; exit 0; }
qn_codes_prepare() { # NAME N DIR: the code's own preparation, if it has one
  if declare -F "prepare_$1" > /dev/null; then (cd "$3" && "prepare_$1" "$2" "$3"); fi
}
export -f qn_codes_prepare
QN_PREPARE=qn_codes_prepare exec "$root/bench/qn_study.sh" "$out" "${all_specs[@]}"
