#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test suite with ctest.
# Core and CLI suites run two at a time; the Qt widget suites (offscreen) run one at a time,
# since each app job already uses every core. Any failure fails this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
export QT_QPA_PLATFORM=offscreen
echo "== core and CLI suites =="
ctest --test-dir "$root/build" -LE widgets --output-on-failure -j 2 --timeout 900
echo "== widget and app suites =="
ctest --test-dir "$root/build" -L widgets --output-on-failure --timeout 600
