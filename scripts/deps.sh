#!/usr/bin/env bash
# Installs what rbmscope needs from Debian 12 packages, only when something is missing.
# Usage: scripts/deps.sh [--app] [EXTRA_PACKAGE...]
#   --app  only what building and opening the app needs (scripts/run.sh): no Open MPI.
#          The CLI then builds without MPI; scripts/test.sh installs the rest, and CMake turns MPI
#          on at its next configure (RBMSCOPE_MPI=AUTO).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev
  libqt6opengl6-dev  # Qt6Charts' CMake config needs Qt6OpenGL; qt6-charts-dev does not pull it in
  libeigen3-dev libtbb-dev librandom123-dev nlohmann-json3-dev libzip-dev zlib1g-dev
  libmatio-dev libhdf5-dev
  libgif-dev  # giflib: the app's animated-GIF export of a playback (app/gui/main_window/gif_writer.cpp)
  libhwy-dev  # Google Highway: the Philox words of a block of chains in vector lanes (core/kernels/philox_rows.cpp)
  fonts-dejavu-core  # text in offscreen renders (no display: scripts/run.sh's screenshot, the widget suites)
)
if [ "${1:-}" = --app ]; then
  shift
else
  packages+=(
    libopenmpi-dev openmpi-bin  # cluster runs: mpirun -np R rbmscope-cli ais ... (RBMSCOPE_MPI)
    pybind11-dev python3-dev python3-numpy  # the Python module and its suite (RBMSCOPE_PYTHON, docs/user/python.md)
    clang-format  # the layout check (ctest layout.format, scripts/format.sh --check)
  )
fi
# Extra packages a script needs beyond the build (e.g. scripts/fuzz.sh passes clang,
# scripts/format.sh clang-format, scripts/drive_window.sh xvfb; no suite needs a display server).
packages+=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "rbmscope: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
