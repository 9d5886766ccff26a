#!/usr/bin/env bash
# Installs what is missing for the app, builds the two programs (the app and the CLI, not the test suites:
# scripts/test.sh builds those), and launches rbmscope on the default preset.
# Extra arguments go to the app (e.g. --preset two-gaussians).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" --app  # not Open MPI: scripts/test.sh installs it
# The kernels for this processor's instruction set only (RBMSCOPE_SIMD_PATHS=host, core/CMakeLists.txt):
# the app runs here; scripts/test.sh and scripts/package.sh build all three.
RBMSCOPE_DEPS_DONE=1 "$root/scripts/build.sh" -DRBMSCOPE_SIMD_PATHS=host --target rbmscope --target rbmscope-cli
app="$root/build/app/gui/rbmscope"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "rbmscope: no display found; rendering the main window offscreen to rbmscope-screenshot.png instead."
  echo "          (On a desktop, run scripts/run.sh from a graphical session to get the live window.)"
  QT_QPA_PLATFORM=offscreen exec "$app" --preset four-mode --screenshot "$PWD/rbmscope-screenshot.png" "$@"
fi
exec "$app" --preset four-mode "$@"
