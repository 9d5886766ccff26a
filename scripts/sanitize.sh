#!/usr/bin/env bash
# Sanitizer builds of the core library, the CLI and their test suites (no Qt).
#   address: AddressSanitizer + UndefinedBehaviorSanitizer (clang), every core suite, and every
#            CLI suite run from build/ against the instrumented rbmscope-cli; the same build
#            holds the libFuzzer targets (scripts/fuzz.sh)
#   thread:  ThreadSanitizer (clang: it compiles the Eigen-heavy core in less CPU time than GCC,
#            docs/dev/ci.md), the suites that run chains on several threads
# Usage: scripts/sanitize.sh [address|thread|all] [SUITE...]   (default all; SUITEs narrow the
#        thread part, e.g. `scripts/sanitize.sh thread test_pt`)
# Build directories: build-asan and build-tsan next to build/ (override with RBMSCOPE_SANITIZE_DIR).
# Any sanitizer report fails the test that produced it (halt_on_error / -fno-sanitize-recover),
# and so this script. Suites that would take too long instrumented read RBMSCOPE_SANITIZED=1
# and do less work (with the same assertions).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" clang libclang-rt-14-dev
source "$root/scripts/lib.sh"
base=${RBMSCOPE_SANITIZE_DIR:-$root}
which=${1:-all}
shift || true
jobs=${RBMSCOPE_JOBS:-2}
export RBMSCOPE_SANITIZED=1

# Threaded suites: every one that runs for_each_block on more than one thread, including the
# 1-thread vs 2-thread bitwise comparisons (rbm::ThreadLimit).
tsan_suites=(test_rng_determinism test_ais_runner test_ais_estimates test_ais_cov test_ais_leaky
             test_ais_mas test_pt test_exact test_meanfield test_sampling)
narrowed=$#
[ $# -gt 0 ] && tsan_suites=("$@")

run_address() {
  local dir=$base/build-asan
  local t0=$SECONDS
  rbm_configure_asan "$dir"
  ninja -C "$dir" -j "$jobs"
  local t1=$SECONDS
  # detect_leaks: a leak is a report like any other. abort_on_error gives a core-less abort.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  local rc=0
  ctest --test-dir "$dir" -LE widgets --no-tests=error --output-on-failure -j "$jobs" --timeout 1800 || rc=1
  # The CLI suites only start rbmscope-cli: the Release build's drivers (built here if missing) run
  # against the instrumented program (RBMSCOPE_CLI_UNDER_TEST, tests/cli/cli_runner.hpp).
  if [ -f "$root/build/build.ninja" ]; then
    ninja -C "$root/build" -j "$jobs" rbmscope_cli_suites
  else
    "$root/scripts/build.sh" --target rbmscope_cli_suites
  fi || return 1
  RBMSCOPE_CLI_UNDER_TEST="$dir/app/cli/rbmscope-cli" \
    ctest --test-dir "$root/build" -L '^cli$' --no-tests=error --output-on-failure -j "$jobs" --timeout 1800 || rc=1
  echo "sanitize address: build $((t1 - t0)) s, tests $((SECONDS - t1)) s"
  return $rc
}

run_thread() {
  # The kernels for this processor's best instruction set only (RBMSCOPE_SIMD_PATHS=host): the
  # threads split the work the same way on every path, and the two other paths were 78 s of the
  # 116 s of kernel compile jobs in a cold TSan build.
  local dir=$base/build-tsan
  local t0=$SECONDS
  CXX=${RBMSCOPE_TSAN_CXX:-clang++} cmake -S "$root" -B "$dir" -G Ninja -DRBMSCOPE_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS="-O1 -g1 -fno-omit-frame-pointer -fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
    -DRBMSCOPE_CORE_OPTIMIZE=-O2 -DRBMSCOPE_SIMD_PATHS=host \
    "${rbm_launcher[@]}" >/dev/null
  # The training suite too, for its thread cases only (the whole suite would take minutes here).
  local training=()
  [ "$narrowed" -eq 0 ] && training=(test_training)
  ninja -C "$dir" -j "$jobs" "${tsan_suites[@]}" "${training[@]}"
  local t1=$SECONDS
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/tsan.supp"
  local regex
  regex="^core\\.($(IFS='|'; echo "${tsan_suites[*]}"))(\\.[0-9]+of[0-9]+)?\$"  # shards too (tests/CMakeLists.txt)
  # One suite at a time, each with 2 threads available: races need real concurrency.
  local rc=0
  ctest --test-dir "$dir" -R "$regex" --no-tests=error --output-on-failure --timeout 1800 || rc=1
  if [ ${#training[@]} -gt 0 ]; then
    # 1 vs 2 threads bitwise, on bars-and-stripes and on a 196 x 200 BRBM whose passes over W split;
    # an update's products on 2 threads against the mean scores.
    echo "== test_training, its thread cases =="
    local filter failed=0
    for filter in "2 threads train" "update products on 2 threads:"; do
      "$dir/tests/test_training" "$filter" || failed=$((failed + 1))
    done
    if [ "$failed" -eq 0 ]; then
      echo "100% tests passed, 0 tests failed out of 2"
    else
      echo "$failed of 2 test_training filters failed"
      rc=1
    fi
  fi
  echo "sanitize thread: build $((t1 - t0)) s, tests $((SECONDS - t1)) s"
  return $rc
}

case $which in
  address) run_address ;;
  thread) run_thread ;;
  all) run_address; run_thread ;;
  *) echo "usage: $0 [address|thread|all]" >&2; exit 2 ;;
esac
