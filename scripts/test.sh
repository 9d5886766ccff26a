#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test suite with ctest.
#
# The Qt widget suites run first and are reported but do not yet gate the result: under load
# they crash or time out intermittently (a view/job lifetime race, see README "Known defects").
# The core and CLI suites run last and gate: any failure there fails this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
export QT_QPA_PLATFORM=offscreen
echo "== widget suites (reported, not gating until the lifetime race is fixed) =="
ctest --test-dir "$root/build" -L widgets --output-on-failure --timeout 300 || echo "widget suites: some failed (not gating)"
echo "== core and CLI suites =="
ctest --test-dir "$root/build" -LE widgets --output-on-failure -j 2 --timeout 900
