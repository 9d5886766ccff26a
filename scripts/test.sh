#!/usr/bin/env bash
# Installs what is missing, builds and runs every test suite with ctest, then the sanitizer builds
# and the fuzzers. CI runs exactly this (.ci/run). Phases:
#   release   Release build; core and CLI suites two at a time; the Qt widget suites (offscreen)
#             one at a time, since each app job already uses every core
#   asan      ASan + UBSan build (clang) of core, CLI, suites and fuzz targets; core and CLI suites
#   package   the Debian package from the Release build, validated (desktop entry, metainfo,
#             lintian), installed with apt-get and its programs run (scripts/package.sh)
#   tsan      ThreadSanitizer build; the threaded suites
#   fuzz      every fuzz/fuzz_*.cpp for RBMSCOPE_FUZZ_SECONDS (default 15) seconds, two at a time
# RBMSCOPE_SANITIZE=0 runs only the release phase. Every phase runs even when an earlier one
# failed; any failure (a test, a sanitizer report, a fuzzer finding, a build error) fails this
# script. It ends with one line per phase (status, time) and "N passed, M failed", counting
# test suites and fuzz targets.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export QT_QPA_PLATFORM=offscreen
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
summary=()
passed=0
failed=0

# phase NAME COMMAND...: runs it (output shown and kept), times it and counts its results from
# ctest's "X tests failed out of N" lines or fuzz.sh's "fuzz: P passed, F failed" line.
phase() {
  local name=$1 t0=$SECONDS rc
  shift
  echo "==== $name ===="
  "$@" 2>&1 | tee "$logs/$name.log"
  rc=${PIPESTATUS[0]}
  local p=0 f=0 line
  while read -r line; do
    set -- $line
    p=$((p + $2 - $1)); f=$((f + $1))
  done < <(sed -nE 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' "$logs/$name.log")
  while read -r line; do
    set -- $line
    p=$((p + $1)); f=$((f + $2))
  done < <(sed -nE 's/^fuzz: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$logs/$name.log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # failed before or beyond any count (build, ...)
  passed=$((passed + p)); failed=$((failed + f))
  summary+=("$(printf '%-28s %-6s %5d s  %d passed, %d failed' "$name" "$([ "$rc" -eq 0 ] && echo ok || echo FAILED)" \
    $((SECONDS - t0)) "$p" "$f")")
}

release_suites() {
  "$root/scripts/build.sh" || return 1
  local rc=0
  echo "== core and CLI suites =="
  ctest --test-dir "$root/build" -LE widgets --no-tests=error --output-on-failure -j 2 --timeout 900 || rc=1
  echo "== widget and app suites =="
  ctest --test-dir "$root/build" -L widgets --no-tests=error --output-on-failure --timeout 600 || rc=1
  return $rc
}

t_start=$SECONDS
phase "release (build + suites)" release_suites
phase "package (.deb, install, run)" "$root/scripts/package.sh"
if [ "${RBMSCOPE_SANITIZE:-1}" != 0 ]; then
  phase "asan+ubsan (build + suites)" "$root/scripts/sanitize.sh" address
  phase "tsan (build + suites)" "$root/scripts/sanitize.sh" thread
  phase "fuzz (build + run)" "$root/scripts/fuzz.sh" "${RBMSCOPE_FUZZ_SECONDS:-15}"
fi
echo "==== summary ===="
for s in "${summary[@]}"; do echo "$s"; done
echo "total $((SECONDS - t_start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
