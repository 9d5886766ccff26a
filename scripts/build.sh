#!/usr/bin/env bash
# Configures and builds rbmscope (Release) in ./build. Extra arguments go to CMake.
# Uses ccache when it is installed (it is optional: nothing here installs it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
source "$root/scripts/lib.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${rbm_launcher[@]}" "$@"
cmake --build "$root/build" -j "$(nproc)"
