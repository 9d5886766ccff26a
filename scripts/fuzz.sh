#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.cpp) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs each for a bounded time from its seed corpus
# (tests/data/fuzz/<name>/). Fails on any crash, leak, timeout (hang), out-of-memory or
# sanitizer report; the input that triggered it is left in <build>/artifacts/.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET...]
# Build directory: build-fuzz next to build/ (override with RBMSCOPE_FUZZ_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" clang libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes
dir=${RBMSCOPE_FUZZ_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
jobs=${RBMSCOPE_JOBS:-2}
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cd "$root/fuzz" && ls fuzz_*.cpp | sed 's/\.cpp$//')
fi

flags="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
CXX=${CXX:-clang++} cmake -S "$root" -B "$dir" -G Ninja -DRBMSCOPE_FUZZ=ON -DRBMSCOPE_BUILD_GUI=OFF \
  -DRBMSCOPE_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
ninja -C "$dir" -j "$jobs" "${targets[@]}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  corpus=$dir/corpus/$name  # grows across runs; the seeds in the tree are never written
  mkdir -p "$corpus" "$dir/artifacts"
  opts=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1
        -artifact_prefix="$dir/artifacts/$name-")
  [ -f "$root/fuzz/$name.dict" ] && opts+=(-dict="$root/fuzz/$name.dict")
  echo "== $t: ${seconds}s =="
  if "$dir/fuzz/$t" "${opts[@]}" "$corpus" "$root/tests/data/fuzz/$name" >"$dir/$name.log" 2>&1; then
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$dir/$name.log" || true
    grep -E '^Done [0-9]+ runs' "$dir/$name.log" || true
  else
    failed+=("$t")
    tail -n 60 "$dir/$name.log"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $dir/artifacts/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets clean for ${seconds}s each"
