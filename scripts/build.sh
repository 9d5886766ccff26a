#!/usr/bin/env bash
# Configures and builds rbmscope (Release) in ./build. Extra arguments go to CMake.
# Uses ccache when it is installed (it is optional: nothing here installs it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$root")}  # lets worktrees share hits
fi
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
cmake --build "$root/build" -j "$(nproc)"
