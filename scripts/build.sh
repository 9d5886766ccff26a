#!/usr/bin/env bash
# Configures and builds rbmscope (Release) in ./build. Extra arguments go to CMake, except
# `--target NAME` (repeatable), which builds only those targets instead of all of them:
# scripts/run.sh builds only the programs it launches, scripts/test.sh everything.
# Uses ccache when it is installed (it is optional: nothing here installs it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmake_args=()
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --target)
      [ $# -ge 2 ] || { echo "build.sh: --target needs a target name" >&2; exit 2; }
      targets+=(--target "$2")
      shift 2
      ;;
    *)
      cmake_args+=("$1")
      shift
      ;;
  esac
done
[ "${RBMSCOPE_DEPS_DONE:-0}" = 1 ] || "$root/scripts/deps.sh"  # run.sh installs the app's packages itself
source "$root/scripts/lib.sh"
# Kernels for every instruction set unless an argument says otherwise (scripts/run.sh: host only):
# a build after run.sh's in the same directory is again one that runs on any x86-64.
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRBMSCOPE_SIMD_PATHS=all "${rbm_launcher[@]}" \
  "${cmake_args[@]}"
cmake --build "$root/build" -j "$(nproc)" "${targets[@]}"
